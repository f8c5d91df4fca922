"""Names, descriptions and input schemas of the seven lifecycle tools, with the Go bridge's
arguments (``additionalProperties: false``): ``games_list``, ``games_show``, ``games_status``,
``games_start`` (``gameId``, ``timeout``, ``resetEndpoint``, ``profile``, ``launchInputs``),
``games_stop``, ``games_kill`` and ``games_connect`` (``gameId``, ``forceTakeover``,
``timeout``, and our ``port`` and ``token``). Bounds the Go bridge checks in the handler to
answer with its own code (``timeout`` 1 to 3600: ``timeout_out_of_range``) are checked there
too, not in the schema.
"""

from __future__ import annotations

from typing import Any, Final

__all__ = ["LIFECYCLE_SCHEMAS"]

_GAME_ID: Final[dict[str, Any]] = {
    "type": "string",
    "minLength": 1,
    "description": "The game's id as configured (see games_list).",
}


def _schema(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
    if required:
        schema["required"] = list(required)
    return schema


#: name -> (title, description, input schema)
LIFECYCLE_SCHEMAS: Final[dict[str, tuple[str, str, dict[str, Any]]]] = {
    "games_list": (
        "List games",
        "List all configured game IDs, with their profiles and launch mode. Start here to learn "
        "the gameId values other tools take.",
        _schema({}),
    ),
    "games_show": (
        "Show a game",
        "Show one game's configuration (environment values hidden), its profiles and declared "
        "launch inputs, configuration warnings and its runtime status.",
        _schema({"gameId": _GAME_ID}, ("gameId",)),
    ),
    "games_status": (
        "Game status",
        "Check the status of one game, or of every configured or still-running game when gameId "
        "is omitted: running, connected, shared-running (another session holds it: "
        "games_connect), starting, stopped, ... with evidence, the active profile, the attention "
        "summary. Never blocked.",
        _schema({"gameId": {**_GAME_ID, "description": "The game to check (optional: all)."}}),
    ),
    "games_start": (
        "Start a game",
        "Start a configured game: a fresh per-launch token, its GABP server awaited for a "
        "bounded time, then connected. code started_connected, or started_bridge_pending (the "
        "game runs, its bridge is still loading: GABS keeps connecting in the background; check "
        "games_status, then games_connect), already_running (use games_connect), "
        "exited_during_start (with the output tail), ... each with nextActions.",
        _schema(
            {
                "gameId": _GAME_ID,
                "timeout": {
                    "type": "integer",
                    "description": "Total seconds to wait for the game's GABP server (1 to 3600; "
                    "the call itself waits at most 20 s, then GABS connects in the background).",
                },
                "resetEndpoint": {
                    "type": "boolean",
                    "description": "Rotate the cached endpoint (a new port) before launch. Use "
                    "only "
                    "after confirming the cached port is not an already-running game's bridge.",
                },
                "profile": {
                    "type": "string",
                    "description": "A named launch profile (default: the game's defaultProfile). "
                    "See games_show.",
                },
                "launchInputs": {
                    "type": "object",
                    "description": "Declared launch inputs (boolean/string/integer values); only "
                    "inputs declared in the game's configuration are accepted (see games_show).",
                },
            },
            ("gameId",),
        ),
    ),
    "games_stop": (
        "Stop a game",
        "Gracefully stop a running game (its stop hook, else SIGTERM to its process or the "
        "processes named stopProcessName) and verify that it ended. Never escalates to a kill.",
        _schema({"gameId": _GAME_ID}, ("gameId",)),
    ),
    "games_kill": (
        "Kill a game",
        "Force-terminate a running game (its kill hook, else SIGKILL) and verify that it ended. "
        "Use when games_stop does not end it.",
        _schema({"gameId": _GAME_ID}, ("gameId",)),
    ),
    "games_connect": (
        "Connect to a running game",
        "Connect to a running game's GABP server (started by games_start, 'gabs games start' or "
        "another GABS session) and mirror its tools. Another active session's game is refused "
        "unless forceTakeover is true.",
        _schema(
            {
                "gameId": _GAME_ID,
                "forceTakeover": {
                    "type": "boolean",
                    "description": "Take the game over from another live GABS session now.",
                },
                "timeout": {
                    "type": "integer",
                    "description": "Seconds to keep trying (default 15).",
                },
                "port": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 65535,
                    "description": "A GABP port to use instead of the recorded one.",
                },
                "token": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 1024,
                    "description": "The token for port.",
                },
            },
            ("gameId",),
        ),
    ),
}
