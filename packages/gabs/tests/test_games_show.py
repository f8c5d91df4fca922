"""``games_show`` as the Go bridge answers it: the text block a model reads (arguments, stop
process, termination warning, profiles, launch inputs with their constraints, warnings), the
per-profile ``trackRecord``, and the same launch-context text in ``gabs games show``."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client

from gabs.cli import main
from gabs.config import GabsConfig
from gabs.games import GameManager
from gabs.lifecycle import TrackRecord, context_hash
from gabs.lifecycle.history import last_good_snapshot
from gabs.mcp import build_server
from gabs.mcp.call_results import call_view

PROFILED: dict[str, Any] = {
    "name": "Rim",
    "launchMode": "CustomCommand",
    "target": "/opt/rim/run",
    "workingDir": "/opt/rim",
    "args": ["--enable-test-tools"],
    "description": "A sim",
    "stopProcessName": "rim-sim",
    "envv": {"X": "1"},
    "defaultProfile": "normal",
    "profiles": {
        "normal": {"description": "normal run", "args": ["--seed", "1"]},
        "fast": {"args": ["--tick-rate", "120"]},
    },
    "launchInputs": {
        "seed": {
            "type": "integer",
            "description": "world seed",
            "minimum": 0,
            "maximum": 1000,
            "args": ["--seed", "${value}"],
        },
        "lo": {"type": "integer", "description": "low", "minimum": 5, "args": ["${value}"]},
        "hi": {"type": "integer", "description": "hi", "maximum": 9, "args": ["${value}"]},
        "verbose": {
            "type": "boolean",
            "description": "verbose",
            "profiles": ["normal", "fast"],
            "env": {"VERB": "1"},
        },
        "name": {
            "type": "string",
            "description": "a name",
            "pattern": "[a-z]+",
            "maxLength": 12,
            "args": ["--name", "${value}"],
        },
        "scenario": {
            "type": "string",
            "description": "scenario",
            "enum": ["quiet", "noise"],
            "profiles": ["fast"],
            "args": ["--scenario", "${value}"],
        },
    },
}

# What GABS 1.1.0 answers for PROFILED, byte for byte.
PROFILED_TEXT = """Game Configuration: rim

  ID: rim (Rim)
  Use gameId: 'rim' (or target: '/opt/rim/run')
  Launch: CustomCommand
  Working Directory: /opt/rim
  Base Arguments (a profile appends to these): --enable-test-tools
  Stop Process Name: rim-sim

Description: A sim

Default Profile: normal (used by a start that names no profile)

Profiles:
  fast
  normal (default) - normal run

Launch Inputs (only these may be supplied per start):
  hi: integer, maximum 9 - hi
  lo: integer, minimum 5 - low
  name: string, maxLength 12, pattern [a-z]+ (RE2, full match) - a name
  scenario: string, one of [quiet, noise], maxLength 1024, only for profiles [fast] - scenario
  seed: integer, range 0..1000 - world seed
  verbose: boolean, only for profiles [fast, normal] - verbose

Configuration Warnings:
  - /games/rim/envv: unknown key
"""

GAMES: dict[str, Any] = {
    "rim": PROFILED,
    "plain": {"name": "Plain", "launchMode": "DirectPath", "target": "/bin/true", "args": ["-a"]},
    "steam": {
        "name": "Steam game",
        "launchMode": "SteamAppId",
        "target": "294100",
        "stopProcessName": "RimWorldLinux",
    },
    "nostop": {"name": "Steam2", "launchMode": "SteamAppId", "target": "294101"},
}


def _write(config_dir: Path) -> None:
    document = {
        "version": "1.0",
        "games": {game_id: {"id": game_id, **entry} for game_id, entry in GAMES.items()},
    }
    (config_dir / "config.json").write_text(json.dumps(document), encoding="utf-8")


@asynccontextmanager
async def _client(config_dir: Path) -> AsyncIterator[Client]:
    _write(config_dir)
    config = GabsConfig.load(config_dir)
    async with (
        GameManager(config, liveness_interval=60) as manager,
        Client(build_server(manager)) as client,
    ):
        yield client


async def _show(config_dir: Path, game_id: str) -> tuple[str, dict[str, Any]]:
    async with _client(config_dir) as client:
        with anyio.fail_after(10):
            result = await client.call_tool("games_show", {"gameId": game_id})
    assert not result.is_error and result.structured_content is not None
    text = "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))
    return text, call_view(result)


async def test_the_text_carries_profiles_inputs_and_warnings_as_go_renders_them(
    tmp_path: Path,
) -> None:
    text, data = await _show(tmp_path, "rim")
    assert text == PROFILED_TEXT
    assert data["game"]["stopProcessName"] == "rim-sim"
    assert [p["name"] for p in data["profiles"]] == ["fast", "normal"]
    assert data["launchInputs"]["scenario"]["profiles"] == ["fast"]
    assert data["configWarnings"] == ["/games/rim/envv: unknown key"]


async def test_a_game_without_contexts_shows_its_plain_arguments(tmp_path: Path) -> None:
    text, _ = await _show(tmp_path, "plain")
    assert text == (
        "Game Configuration: plain\n\n"
        "  ID: plain (Plain)\n"
        "  Use gameId: 'plain' (or target: '/bin/true')\n"
        "  Launch: DirectPath\n"
        "  Arguments: -a\n"
    )


@pytest.mark.parametrize(
    ("game_id", "tail"),
    [
        (
            "steam",
            "\nGame Termination Configuration:\n"
            "  ✓ Configured for proper game termination (process: RimWorldLinux)\n",
        ),
        (
            "nostop",
            "\nGame Termination Configuration:\n"
            "  ⚠️  Missing stopProcessName - GABS can start but cannot properly stop SteamAppId "
            "games\n"
            "     Add stopProcessName — or a game-level status hook plus a stop or kill hook — "
            "for proper termination.\n"
            "\nConfiguration Warnings:\n"
            "  - SteamAppId games need stopProcessName — or a game-level status hook plus a stop "
            "or kill hook — for reliable games_stop and games_kill.\n",
        ),
    ],
)
async def test_a_store_launched_game_says_whether_it_can_be_stopped(
    tmp_path: Path, game_id: str, tail: str
) -> None:
    text, _ = await _show(tmp_path, game_id)
    assert text.endswith("  Launch: SteamAppId\n" + tail)


async def test_the_track_record_has_a_row_per_profile(tmp_path: Path) -> None:
    _write(tmp_path)
    game = GabsConfig.load(tmp_path).games["rim"]
    record = TrackRecord(tmp_path / "rim")
    fast = context_hash(game, "fast")
    record.started(last_good_snapshot(game, "fast"), "fast", fast)
    record.count("fast", fast, "bridgeConnects")
    record.count("fast", fast, "cleanStops")
    record.failed("fast", fast, "bridge_timeout", "game")
    record.started(None, "normal", "sha256:an-earlier-context")
    _, data = await _show(tmp_path, "rim")
    assert data["trackRecord"] == [
        {
            "profile": "fast",
            "currentContextProven": True,
            "contextChangedSinceLastRecord": False,
            "workloadStarts": 1,
            "bridgeConnects": 1,
            "deliveriesVerified": 0,
            "cleanStops": 1,
            "consecutiveFailures": 1,
            "lastFailureClass": "game",
            "lastFailureCode": "bridge_timeout",
            "trackRecord": "started 1\u00d7, last moments ago; bridge connected 1\u00d7, "
            "clean stops 1\u00d7; 1 consecutive failures",
        },
        {
            "profile": "normal",
            "isDefault": True,
            "currentContextProven": False,
            "contextChangedSinceLastRecord": True,
            "workloadStarts": 1,
            "bridgeConnects": 0,
            "deliveriesVerified": 0,
            "cleanStops": 0,
            "consecutiveFailures": 0,
            "trackRecord": "started 1\u00d7, last moments ago; bridge connected 0\u00d7 — the "
            "workload starts but the bridge has never connected (points game-side, not at "
            "launch config)",
        },
    ]


async def test_a_game_without_profiles_has_one_default_row(tmp_path: Path) -> None:
    _, data = await _show(tmp_path, "plain")
    assert data["trackRecord"] == [
        {
            "profile": "(default)",
            "currentContextProven": False,
            "contextChangedSinceLastRecord": False,
            "trackRecord": "no successful starts recorded for this context",
        }
    ]


def test_the_cli_prints_the_same_launch_contexts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(tmp_path)
    with pytest.raises(SystemExit) as exited:
        main(["games", "show", "rim", "--configDir", str(tmp_path)])
    out = capsys.readouterr().out
    assert exited.value.code == 0
    start, end = PROFILED_TEXT.index("\nDefault Profile"), PROFILED_TEXT.index("\nConfiguration")
    contexts = PROFILED_TEXT[start:end]
    assert contexts in out
