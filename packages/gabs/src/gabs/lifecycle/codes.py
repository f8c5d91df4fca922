"""The Go bridge's stable outcome codes, their cause classes, and next actions.

Every way a start, stop or kill ends has one code. A failure's ``causeClass`` tells the caller
where the fix is: ``call`` (the request), ``config`` (the file), ``environment`` (the machine,
the store, the network), ``game`` (the game itself) or ``state`` (runtime state to resolve
first). Successes carry none.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = [
    "LifecycleError",
    "cause_class",
    "environment_actions",
    "next_action",
    "recheck_action",
    "stale_bridge_credential",
]

_CLASSES: Final[dict[str, tuple[str, ...]]] = {
    "call": (
        "unknown_argument",
        "game_not_found",
        "ambiguous_game_reference",
        "profiles_not_configured",
        "profile_not_found",
        "launch_input_not_declared",
        "launch_input_invalid",
        "timeout_out_of_range",
    ),
    "config": (
        "config_invalid",
        "launch_mode_incompatible",
        "spec_too_large",
        "stop_unsupported",
        "kill_unsupported",
    ),
    "state": (
        "already_running",
        "blocked_unknown_state",
        "external_instance_detected",
        "operation_in_progress",
        "termination_unverified",
        "action_succeeded_running",
        "interrupted",
        "blocked_by_active_runtime_owner",
    ),
    "environment": (
        "spawn_failed",
        "store_client_not_ready",
        "endpoint_unavailable",
        "stale_bridge_credential",
        "action_failed",
        "action_timed_out",
    ),
    "game": ("exited_during_start", "tool_sync_failed"),
}


def cause_class(code: str, *, proven: bool = False) -> str | None:
    """The cause class of a failure code; None for successes and unknown codes.

    ``launch_spec_unresolvable`` and ``unobserved`` depend on whether this launch context has
    ever started: ``environment`` if it has (something moved), else ``config`` (a typo).
    """
    if code in ("launch_spec_unresolvable", "unobserved"):
        return "environment" if proven else "config"
    for name, codes in _CLASSES.items():
        if code in codes:
            return name
    return None


def next_action(tool: str, arguments: Mapping[str, Any], reason: str) -> dict[str, Any]:
    """One entry of ``nextActions``: a tool to call, with these arguments, and why."""
    return {"tool": tool, "arguments": dict(arguments), "reason": reason}


def environment_actions(game_id: str) -> list[dict[str, Any]]:
    """The Go bridge's next actions for an environment-class failure (its words)."""
    game = {"gameId": game_id}
    return [
        next_action(
            "games_status",
            game,
            "Check host/store/network state (Steam running, daemon up, network reachable) "
            "\u2014 this is an environment problem, not a launch-settings one.",
        ),
        next_action("games_start", game, "Retry after the environment recovers."),
    ]


def recheck_action(game_id: str) -> dict[str, Any]:
    """The next action of a refusal by a step in flight (Go's words)."""
    return next_action(
        "games_status", {"gameId": game_id}, "Re-check once the in-flight operation finishes."
    )


class LifecycleError(Exception):
    """A start, stop, kill or connect that ended without doing what was asked.

    ``code`` is the stable code; ``data`` the structured fields of the result (without
    ``code``); ``warnings`` what the attempt observed on the way; ``is_error`` False for the
    informational refusals (``already_running``, ``operation_in_progress``); ``cli_message``
    the line the Go command line prints instead of ``message``, where it words an ending its
    own way and nothing else tells the two apart.
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        data: Mapping[str, Any] | None = None,
        warnings: list[str] | None = None,
        next_actions: list[dict[str, Any]] | None = None,
        is_error: bool = True,
        warnings_key: str = "startWarnings",
        cli_message: str = "",
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = dict(data or {})
        self.warnings = list(warnings or [])
        self.next_actions = list(next_actions or [])
        self.is_error = is_error
        self.warnings_key = warnings_key
        self.cli_message = cli_message

    def to_json(self, game_id: str | None = None) -> dict[str, Any]:
        result: dict[str, Any] = {"code": self.code}
        if game_id is not None:
            result["gameId"] = game_id
        result.update(self.data)
        cause = cause_class(self.code, proven=bool(self.data.get("proven")))
        result.pop("proven", None)
        if cause is not None:
            result.setdefault("causeClass", cause)
        if self.warnings:
            result[self.warnings_key] = self.warnings
        if self.next_actions:
            result["nextActions"] = self.next_actions
        return result


def stale_bridge_credential(game_id: str, pid: int) -> LifecycleError:
    """``stale_bridge_credential``: the game process ``pid`` runs with an earlier launch's GABP
    endpoint, so this launch's credential can never attach to it (nothing is dialled)."""
    return LifecycleError(
        "stale_bridge_credential",
        f"Stale bridge credential for '{game_id}': its running process (pid {pid}) was started "
        "with the GABP endpoint of an earlier launch, not the one this launch issued, so this "
        "bridge cannot attach to it. Restart the game so that it gets the current environment.",
        next_actions=[
            next_action(
                "games_status",
                {"gameId": game_id},
                "Inspect the running instance; it holds an earlier launch's bridge environment.",
            ),
            next_action(
                "games_stop",
                {"gameId": game_id},
                "Stop the stale instance, then start it again with the current environment.",
            ),
        ],
        warnings_key="warnings",
    )
