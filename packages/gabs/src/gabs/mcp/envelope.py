"""The result envelope of the Go bridge's core tools, and its ``unknown_argument`` refusal.

Every core tool of the Go bridge (GABS 1.1.0) answers with a stable ``code``, the ``gameId``
it concerns and ``nextActions`` (each ``{tool, arguments, reason}``); a result whose code names
a failure also carries ``causeClass`` (what has to change: the call, the config, the
environment, the game or the runtime state) and ``trackRecord`` (one line on how this launch
context fared before). This module builds that envelope, so both protocol halves of the bridge
(lifecycle and tool contract) answer the same way.

API:

* :class:`NextAction`: one suggested follow-up call; :meth:`NextAction.to_json` is Go's
  ``{tool, arguments, reason}`` (``reason`` left out when empty, as Go does).
* :func:`cause_class`: Go's classification of a result code into a cause class
  (:data:`CAUSE_CALL`, :data:`CAUSE_CONFIG`, :data:`CAUSE_ENVIRONMENT`, :data:`CAUSE_GAME`,
  :data:`CAUSE_STATE`), or ``None`` for success, pending and unknown codes. ``proven`` is the
  track-record adjustment Go applies to ``launch_spec_unresolvable`` and ``unobserved``.
* :class:`TrackRecord` and :func:`track_record_line`: Go's one-line track record
  (:data:`NEUTRAL_TRACK_RECORD` when nothing was ever started).
* :func:`failure_next_actions`: Go's default next actions for a cause class (only the config
  class points at the config).
* :func:`core_result`: a core tool's :class:`~mcp_types.CallToolResult`: ``structuredContent``
  ``{code, gameId, ..., nextActions}`` plus, when the code names a failure, ``causeClass``,
  ``trackRecord`` and (if none were given) the class's next actions, exactly as the Go bridge
  completes every core result; ``isError`` unless the code is a success or one of Go's
  informational refusals (``already_running``, ``operation_in_progress``). The text block is
  the message followed by the key guidance (the code, the cause and each next action as a
  call), for hosts that show only text.
* :func:`unknown_arguments` and :func:`unknown_argument_result`: the Go bridge's refusal of a
  call with arguments outside the tool's declared properties: ``code: unknown_argument``,
  ``path`` (``/<first unknown>``), ``unknown`` and ``allowed`` (both sorted), ``causeClass:
  call``, the neutral track record and Go's call-class next action; text ``Unknown argument
  "<name>". Allowed arguments: <a, b, ...>``. (For a tool without arguments Go sends
  ``allowed: null``; this sends ``[]``.)

Extra keys of our own go in ``extra`` and never replace the common fields.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal, cast

import mcp_types as types

from gabs.go_format import go_quote
from gabs.lifecycle.codes import cause_class as lifecycle_cause_class
from gabs.lifecycle.history import age_text

__all__ = [
    "CAUSE_CALL",
    "CAUSE_CONFIG",
    "CAUSE_ENVIRONMENT",
    "CAUSE_GAME",
    "CAUSE_STATE",
    "INFORMATIONAL_CODES",
    "NEUTRAL_TRACK_RECORD",
    "CauseClass",
    "NextAction",
    "TrackRecord",
    "cause_class",
    "core_result",
    "failure_next_actions",
    "next_lines",
    "track_record_line",
    "unknown_argument_result",
    "unknown_arguments",
]

CauseClass = Literal["call", "config", "environment", "game", "state"]
CAUSE_CALL: Final = "call"
CAUSE_CONFIG: Final = "config"
CAUSE_ENVIRONMENT: Final = "environment"
CAUSE_GAME: Final = "game"
CAUSE_STATE: Final = "state"

NEUTRAL_TRACK_RECORD: Final = "no successful starts recorded for this context"

#: Codes that carry a cause class but are not errors: the game is (or is becoming) available.
INFORMATIONAL_CODES: Final = frozenset({"already_running", "operation_in_progress"})


_CAUSE_HINTS: Final[dict[str, str]] = {
    "call": "fix the call, not the config",
    "config": "the configuration needs a fix",
    "environment": "host, store or network state; editing the config will not fix it",
    "game": "game-side, not the launch config",
    "state": "resolve the runtime state first",
}


def cause_class(code: str, *, proven: bool = False) -> CauseClass | None:
    """The Go bridge's cause class of ``code``; ``None`` for success, pending or unknown codes.

    ``proven`` (the launch context started a workload before) only matters for
    ``launch_spec_unresolvable`` and ``unobserved``: environment when proven, else config.
    """
    return cast("CauseClass | None", lifecycle_cause_class(code, proven=proven))


@dataclass(frozen=True)
class NextAction:
    """A follow-up call the result suggests: the tool, its arguments and why."""

    tool: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"tool": self.tool, "arguments": dict(self.arguments)}
        if self.reason:
            data["reason"] = self.reason
        return data

    def as_call(self) -> str:
        """The action as one line of text: ``tool {"arg": ...} - reason``."""
        arguments = json.dumps(dict(self.arguments), ensure_ascii=False, separators=(", ", ": "))
        return f"{self.tool} {arguments}" + (f" - {self.reason}" if self.reason else "")


@dataclass(frozen=True)
class TrackRecord:
    """How a launch context fared so far (the counts behind :func:`track_record_line`)."""

    workload_starts: int = 0
    bridge_connects: int = 0
    deliveries_verified: int = 0
    clean_stops: int = 0
    consecutive_failures: int = 0
    last_success_age_s: float | None = None


def track_record_line(record: TrackRecord | None = None) -> str:
    """The Go bridge's one-line track record; the neutral line when nothing ever started."""
    if record is None or record.workload_starts == 0:
        if record is not None and record.consecutive_failures > 0:
            return f"{NEUTRAL_TRACK_RECORD} ({record.consecutive_failures} consecutive failures)"
        return NEUTRAL_TRACK_RECORD
    line = f"started {record.workload_starts}\u00d7"
    if record.last_success_age_s is not None:
        line += f", last {age_text(record.last_success_age_s)} ago"
    line += f"; bridge connected {record.bridge_connects}\u00d7"
    if record.deliveries_verified > 0:
        line += f", delivery verified {record.deliveries_verified}\u00d7"
    if record.clean_stops > 0:
        line += f", clean stops {record.clean_stops}\u00d7"
    if record.bridge_connects == 0:
        line += (
            " — the workload starts but the bridge has never connected (points game-side, "
            "not at launch config)"
        )
    if record.consecutive_failures > 0:
        line += f"; {record.consecutive_failures} consecutive failures"
    return line


def failure_next_actions(game_id: str, cause: CauseClass) -> list[NextAction]:
    """The Go bridge's default next actions for a failure of class ``cause``."""
    game = {"gameId": game_id}
    if cause == "config":
        return [
            NextAction(
                "games_show",
                game,
                "Review and correct the launch configuration; the result names the offending "
                "field.",
            )
        ]
    if cause == "call":
        return [
            NextAction(
                "games_show",
                game,
                "Check the accepted profiles and declared inputs, then reissue the call correctly.",
            )
        ]
    if cause == "game":
        return [
            NextAction(
                "games_status",
                game,
                "Inspect the workload; the output tail shows why it exited. This is game-side, "
                "not launch config.",
            ),
            NextAction(
                "games_start",
                game,
                "Retry once the game-side cause (save, mod, login) is addressed.",
            ),
        ]
    if cause == "environment":
        return [
            NextAction(
                "games_status",
                game,
                "Check host/store/network state (Steam running, daemon up, network reachable) — "
                "this is an environment problem, not a launch-settings one.",
            ),
            NextAction("games_start", game, "Retry after the environment recovers."),
        ]
    return [
        NextAction(
            "games_status",
            game,
            "Resolve the runtime state first (already running, in-flight operation, or "
            "unverified termination).",
        )
    ]


def next_lines(actions: Sequence[NextAction]) -> list[str]:
    """The next actions as text: ``Next: <call>`` for one, else ``Next:`` and one ``- <call>``
    line each (none for no action)."""
    if len(actions) == 1:
        return ["Next: " + actions[0].as_call()]
    return ["Next:", *(f"- {action.as_call()}" for action in actions)] if actions else []


def _guidance(code: str, cause: str | None, actions: Sequence[NextAction]) -> list[str]:
    lines = [
        f"Result code: {code}"
        + (f" (cause: {cause}; {_CAUSE_HINTS[cause]})." if cause in _CAUSE_HINTS else ".")
    ]
    return lines + next_lines(actions)


def core_result(
    message: str,
    *,
    code: str,
    game_id: str | None = None,
    next_actions: Sequence[NextAction] | None = None,
    cause: CauseClass | None = None,
    track_record: str | None = None,
    is_error: bool | None = None,
    extra: Mapping[str, Any] | None = None,
) -> types.CallToolResult:
    """A core tool's result in the Go bridge's envelope (see the module doc).

    ``cause`` defaults to :func:`cause_class` of ``code``; when there is one, ``trackRecord``
    defaults to :func:`track_record_line` and ``next_actions`` (when ``None``) to
    :func:`failure_next_actions`. ``is_error`` defaults to: the code has a cause class and is
    not one of :data:`INFORMATIONAL_CODES`.
    """
    cause = cause or cause_class(code)
    if next_actions is None:
        next_actions = failure_next_actions(game_id or "", cause) if cause else []
    data: dict[str, Any] = {"code": code}
    if game_id is not None:
        data["gameId"] = game_id
    for key, value in (extra or {}).items():
        data.setdefault(key, value)
    if next_actions:  # as the Go bridge, no key when there is nothing to do next
        data["nextActions"] = [action.to_json() for action in next_actions]
    if cause is not None:
        data["causeClass"] = cause
        data["trackRecord"] = track_record or track_record_line()
    if is_error is None:
        is_error = cause is not None and code not in INFORMATIONAL_CODES
    text = "\n".join([message, *_guidance(code, cause, next_actions)])
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content=data,
        is_error=is_error,
    )


def unknown_arguments(arguments: Mapping[str, Any], allowed: Iterable[str]) -> list[str]:
    """The names in ``arguments`` that are not in ``allowed``, sorted."""
    known = set(allowed)
    return sorted(name for name in arguments if name not in known)


def unknown_argument_result(
    unknown: Sequence[str], allowed: Iterable[str], *, game_id: str | None = None
) -> types.CallToolResult:
    """The Go bridge's refusal of arguments outside the tool's declared properties.

    ``unknown`` must not be empty (see :func:`unknown_arguments`). As in Go, the result has no
    ``gameId`` key; its call-class next action names ``game_id`` (Go sends ``""``).
    """
    if not unknown:
        raise ValueError("unknown_argument_result needs at least one unknown argument")
    names = sorted(unknown)
    allowed_sorted = sorted(allowed)
    data: dict[str, Any] = {
        "code": "unknown_argument",
        "path": "/" + names[0],
        "unknown": names,
        "allowed": allowed_sorted,
        "causeClass": CAUSE_CALL,
        "trackRecord": track_record_line(),
        "nextActions": [a.to_json() for a in failure_next_actions(game_id or "", CAUSE_CALL)],
    }
    text = f"Unknown argument {go_quote(names[0])}. Allowed arguments: {', '.join(allowed_sorted)}"
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content=data,
        is_error=True,
    )
