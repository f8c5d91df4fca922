"""``gabs demo``: a scripted agent drives the real bridge against the simulated RimWorld.

The demo writes a temporary config (the game ``rimworld`` is the ``rimbridge-sim`` executable
next to this Python, with its test tools on and the gate on), starts the real ``gabs``
executable as an MCP stdio server, and plays an agent through the official MCP client. Every
step names the tool it calls and its arguments, shows what the model saw (the MCP text
content) and checks what the step must show. Scenarios (``--scenario``):

* ``gating`` (default): discover; a successful action; an error right after an action, attached
  to that action's real result; the next game call refused before it reaches the game;
  diagnostics still answering; inspect; acknowledge with the real id; the retry succeeding.
* ``advisory``: a warning opens an advisory item; it is attached to results and never blocks.
* ``invalidated``: save, load, then a pawn id from before the load: an advisory item that says
  the state was invalidated, and a stale-id answer.
* ``spam``: 500 identical errors in one call: one item, ``totalUrgentEntries`` 500, a bounded
  number of attention events (counted by a second GABP session that only observes).
* ``no-attention``: a ``lib_gab`` game without attention: calls work, ``supported: false``.
* ``crash``: a call that outlives its timeout in a stalled game, and a call in flight when the
  game process dies: both ``executed: "unknown"``.
* ``all``: every scenario, in that order.

The transcript goes to stdout (``--json``: a machine-readable report instead), progress and
the bridge's own log to stderr. Exit 0 when every step behaved as expected, 1 when one did not,
2 on usage or setup errors (an executable that cannot be found). Everything is bounded (a
timeout per step and for the whole run) and cleaned up: games stopped, the bridge ended, the
temporary directory removed (``--keep`` keeps it).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters

from gabs.attention import Gate
from gabs.session import GameSession

__all__ = [
    "DEFAULT_SCENARIO",
    "SCENARIOS",
    "DemoReport",
    "DemoSetupError",
    "DemoStep",
    "add_demo_command",
    "demo_config",
    "find_executable",
    "main",
    "run",
    "run_demo",
]

EXIT_OK: Final = 0
EXIT_FAILURE: Final = 1
EXIT_USAGE: Final = 2

GAME: Final = "rimworld"
LEGACY_GAME: Final = "legacy"
DEFAULT_SCENARIO: Final = "gating"
STEP_TIMEOUT: Final = 20.0
RUN_TIMEOUT: Final = 180.0
SHOWN_LINES: Final = 14
SHOWN_LINE_CHARS: Final = 220
SHOWN_CHARS: Final = 1600


class DemoSetupError(Exception):
    """The demo cannot run here (an executable or module is missing): exit 2."""


class _ScenarioFailed(Exception):
    """A step did not behave as expected; the rest of its scenario is skipped."""


# ---------------------------------------------------------------------------------------------
# Setup


def find_executable(name: str) -> Path:
    """``name`` next to this Python (the same environment), else on ``PATH``."""
    folder = Path(sys.executable).parent
    for candidate in (folder / name, folder / f"{name}.exe"):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which(name)
    if found:
        return Path(found)
    raise DemoSetupError(
        f"cannot find the {name!r} executable next to {sys.executable} or on PATH; install "
        f"the workspace (uv sync) and run the demo with its Python (uv run gabs demo)"
    )


_GONE = ("stopped", "stale-runtime-cleaned")


def demo_config(scenarios: Sequence[str]) -> dict[str, Any]:
    """The demo's ``config.json``: ``rimworld`` (rimbridge-sim, gate on), plus the legacy
    ``lib_gab`` game when a scenario needs it."""
    timeouts = {"startSeconds": 20, "callSeconds": 10, "stopGraceSeconds": 3}
    games: dict[str, Any] = {
        GAME: {
            "id": GAME,
            "name": "RimWorld (simulated)",
            "launchMode": "CustomCommand",
            "target": str(find_executable("rimbridge-sim")),
            "args": ["--enable-test-tools", "--seed", "7"],
            "description": "rimbridge-sim with its sim/* test tools",
            "attention": {"mode": "gate"},
            "timeouts": timeouts,
        }
    }
    if any(SCENARIOS[name].needs_legacy for name in scenarios):
        if importlib.util.find_spec("lib_gab") is None:
            raise DemoSetupError(
                "the no-attention scenario runs `python -m lib_gab.legacy_example`, but lib_gab "
                f"is not installed for {sys.executable}"
            )
        games[LEGACY_GAME] = {
            "id": LEGACY_GAME,
            "name": "Legacy example (no attention)",
            "launchMode": "CustomCommand",
            "target": sys.executable,
            "args": ["-m", "lib_gab.legacy_example"],
            "description": "a lib_gab server that never enabled attention",
            "attention": {"mode": "gate"},
            "timeouts": timeouts,
        }
    return {"version": "1.0", "games": games}


# ---------------------------------------------------------------------------------------------
# Steps and the report


@dataclass
class Reply:
    """What one MCP tool call returned: the text the model reads and the structured content."""

    is_error: bool
    text: str
    data: dict[str, Any]

    def get(self, *path: str | int) -> Any:
        """The value at ``path`` in the structured content, or None if any part is missing."""
        value: Any = self.data
        for part in path:
            if (
                isinstance(part, int)
                and isinstance(value, list)
                and -len(value) <= part < len(value)
            ):
                value = value[part]
            elif isinstance(part, str) and isinstance(value, dict):
                value = value.get(part)
            else:
                return None
        return value


Check = tuple[str, Callable[[Reply], object]]


@dataclass
class DemoStep:
    """One step of the transcript."""

    scenario: str
    index: int
    title: str
    tool: str | None
    arguments: dict[str, Any] | None
    expectation: list[str]
    ok: bool
    text: str = ""
    is_error: bool | None = None
    structured: Any = None
    problems: list[str] = field(default_factory=list)
    duration_ms: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "scenario": self.scenario,
            "index": self.index,
            "title": self.title,
            "call": None if self.tool is None else {"tool": self.tool, "arguments": self.arguments},
            "isError": self.is_error,
            "text": self.text,
            "structuredContent": self.structured,
            "expectation": self.expectation,
            "ok": self.ok,
            "problems": self.problems,
            "durationMs": round(self.duration_ms, 1),
        }


@dataclass
class DemoReport:
    """The whole run."""

    scenarios: list[str]
    steps: list[DemoStep] = field(default_factory=list)
    failed_scenarios: list[str] = field(default_factory=list)
    error: str | None = None
    config_dir: str | None = None
    duration_s: float = 0.0

    @property
    def ok(self) -> bool:
        return self.error is None and not self.failed_scenarios and bool(self.steps)

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "scenarios": self.scenarios,
            "failedScenarios": self.failed_scenarios,
            "error": self.error,
            "configDir": self.config_dir,
            "durationSeconds": round(self.duration_s, 2),
            "steps": [step.to_json() for step in self.steps],
        }


def _shown(text: str) -> list[str]:
    """The model-visible text, cut to a sane length for the transcript."""
    lines = text.splitlines() or [""]
    shown: list[str] = []
    used = 0
    for number, line in enumerate(lines):
        if number >= SHOWN_LINES or used >= SHOWN_CHARS:
            shown.append(f"… ({len(lines) - number} more lines)")
            break
        cut = line if len(line) <= SHOWN_LINE_CHARS else line[: SHOWN_LINE_CHARS - 1] + "…"
        shown.append(cut)
        used += len(cut)
    return shown


def render_step(step: DemoStep) -> str:
    """The transcript lines of one step."""
    lines = [f"[{step.index}] {step.title}"]
    if step.tool is not None:
        arguments = json.dumps(step.arguments or {}, ensure_ascii=False)
        lines.append(f"    agent calls  {step.tool} {arguments}")
        flag = "  (isError)" if step.is_error else ""
        lines.append(f"    model sees{flag}:")
    else:
        lines.append("    outside the agent:")
    lines += [f"      | {line}" for line in _shown(step.text)]
    lines.append(f"    expect: {'; '.join(step.expectation) or '(nothing to check)'}")
    if step.ok:
        lines.append(f"    PASS ({step.duration_ms:.0f} ms)")
    else:
        lines.append(f"    FAIL: {'; '.join(step.problems)}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# The scripted agent


def _text_of(result: types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


class DemoAgent:
    """Calls the bridge's tools through the MCP client and checks each answer."""

    def __init__(
        self,
        client: Client,
        *,
        config_dir: Path,
        step_timeout: float,
        on_step: Callable[[DemoStep], None],
    ) -> None:
        self.client = client
        self.config_dir = config_dir
        self.step_timeout = step_timeout
        self._on_step = on_step
        self.scenario = ""
        self.steps: list[DemoStep] = []
        self.started: set[str] = set()
        self._index = 0

    async def raw_call(
        self, tool: str, arguments: dict[str, Any], *, timeout: float | None = None
    ) -> Reply:
        """Call ``tool`` (bounded); no record, no checks."""
        with anyio.fail_after(timeout or self.step_timeout):
            result = await self.client.call_tool(tool, arguments)
        data = result.structured_content if isinstance(result.structured_content, dict) else {}
        return Reply(is_error=bool(result.is_error), text=_text_of(result), data=data)

    async def call(
        self, title: str, tool: str, arguments: dict[str, Any], checks: Sequence[Check]
    ) -> Reply:
        """Call ``tool``, record the step, and stop the scenario if a check fails."""
        started = time.perf_counter()
        try:
            reply = await self.raw_call(tool, arguments)
        except TimeoutError:
            self.record(
                title,
                tool,
                arguments,
                None,
                checks,
                started,
                problem=f"no answer within {self.step_timeout:g} s",
            )
            raise _ScenarioFailed(title) from None
        self.record(title, tool, arguments, reply, checks, started)
        return reply

    def record(
        self,
        title: str,
        tool: str | None,
        arguments: dict[str, Any] | None,
        reply: Reply | None,
        checks: Sequence[Check],
        started: float,
        *,
        text: str | None = None,
        problem: str | None = None,
    ) -> None:
        """Add a step to the transcript; raise :class:`_ScenarioFailed` if it failed."""
        problems = [problem] if problem else []
        if reply is not None and not problems:
            for name, predicate in checks:
                try:
                    passed = bool(predicate(reply))
                except Exception as exc:  # a check that cannot be evaluated failed
                    passed = False
                    name = f"{name} ({type(exc).__name__}: {exc})"
                if not passed:
                    problems.append(f"expected {name}")
        self._index += 1
        step = DemoStep(
            scenario=self.scenario,
            index=self._index,
            title=title,
            tool=tool,
            arguments=arguments,
            expectation=[name for name, _ in checks],
            ok=not problems,
            text=text if text is not None else (reply.text if reply is not None else ""),
            is_error=reply.is_error if reply is not None and tool is not None else None,
            structured=reply.data if reply is not None else None,
            problems=problems,
            duration_ms=(time.perf_counter() - started) * 1000,
        )
        self.steps.append(step)
        self._on_step(step)
        if problems:
            raise _ScenarioFailed(title)

    # -- shorthands --

    async def start(self, game_id: str, checks: Sequence[Check] = ()) -> Reply:
        reply = await self.call(
            f"start {game_id} and connect to its GABP server",
            "games_start",
            {"gameId": game_id},
            [
                ("not isError", lambda r: not r.is_error),
                ("code started_connected", lambda r: r.get("code") == "started_connected"),
                *checks,
            ],
        )
        self.started.add(game_id)
        return reply

    async def stop(self, game_id: str) -> Reply:
        reply = await self.call(
            f"stop {game_id}",
            "games_stop",
            {"gameId": game_id},
            [("code terminated", lambda r: r.get("code") == "terminated")],
        )
        self.started.discard(game_id)
        return reply

    async def game_call(
        self,
        title: str,
        tool: str,
        arguments: dict[str, Any] | None = None,
        checks: Sequence[Check] = (),
        *,
        game_id: str = GAME,
        timeout: float | None = None,
    ) -> Reply:
        call: dict[str, Any] = {"gameId": game_id, "tool": tool, "arguments": arguments or {}}
        if timeout is not None:
            call["timeout"] = timeout
        return await self.call(title, "games_call_tool", call, checks)


# Checks used by several scenarios.

NOT_ERROR: Final[Check] = ("not isError", lambda r: not r.is_error)
EXECUTED: Final[Check] = ("executed true", lambda r: r.get("executed") is True)
STATUS_OK: Final[Check] = ("status ok", lambda r: r.get("status") == "ok")
SUCCESS: Final[Check] = ("the game's result has success true", lambda r: r.get("result", "success"))
NO_ATTENTION: Final[Check] = ("no attention attached", lambda r: r.get("attention") is None)
RAN_OK: Final[tuple[Check, ...]] = (NOT_ERROR, EXECUTED, STATUS_OK, SUCCESS)


def _blocked(attention_id: str) -> list[Check]:
    return [
        ("isError", lambda r: r.is_error),
        ("executed false", lambda r: r.get("executed") is False),
        ("code blocked_by_attention", lambda r: r.get("code") == "blocked_by_attention"),
        (f"attentionId {attention_id}", lambda r: r.get("attentionId") == attention_id),
        (
            "nextActions: inspect, ack with that id, retry",
            lambda r: (
                [a.get("tool") for a in r.get("nextActions") or []]
                == ["games_get_attention", "games_ack_attention", "games_call_tool"]
                and r.get("nextActions", 1, "arguments", "attentionId") == attention_id
            ),
        ),
        ("the text says NOT EXECUTED", lambda r: "NOT EXECUTED" in r.text),
    ]


def _blocked_call_budget() -> int:
    """The token budget of the default template for blocked calls."""
    from gabs.context import DEFAULT_TEMPLATES

    for template in DEFAULT_TEMPLATES:
        if template.id == "default-blocked-call":
            return int(template.budget.max_context_tokens)
    raise DemoSetupError("no default-blocked-call template")


def _operations_of(reply: Reply, method: str) -> list[dict[str, Any]]:
    operations = reply.get("result", "operations") or []
    return [op for op in operations if isinstance(op, dict) and op.get("method") == method]


# ---------------------------------------------------------------------------------------------
# Scenarios


async def scenario_gating(agent: DemoAgent) -> None:
    await agent.call(
        "discover: which games can I use?",
        "games_list",
        {},
        [
            NOT_ERROR,
            (
                "rimworld is listed, stopped",
                lambda r: any(
                    g.get("gameId") == GAME and g.get("status") == "stopped"
                    for g in r.get("games") or []
                ),
            ),
        ],
    )
    await agent.start(
        GAME,
        [
            ("attention supported", lambda r: r.get("attention", "supported") is True),
            ("attention mode gate", lambda r: r.get("attention", "mode") == "gate"),
        ],
    )
    await agent.call(
        "discover the game's tools",
        "games_tool_names",
        {"gameId": GAME},
        [
            NOT_ERROR,
            (
                "rimworld/set_draft, rimbridge/list_logs and sim/schedule_error are there",
                lambda r: (
                    {"rimworld/set_draft", "rimbridge/list_logs", "sim/schedule_error"}
                    <= {t.get("name") for t in r.get("tools") or []}
                ),
            ),
        ],
    )
    colonists = await agent.game_call(
        "a successful action: list the colonists",
        "rimworld/list_colonists",
        checks=[*RAN_OK, NO_ATTENTION, ("colonists", lambda r: r.get("result", "colonists"))],
    )
    pawn = colonists.get("result", "colonists", 0, "id")
    await agent.game_call(
        f"a successful action: draft {pawn}",
        "rimworld/set_draft",
        {"pawnId": pawn, "drafted": True},
        [
            *RAN_OK,
            NO_ATTENTION,
            ("the pawn is drafted", lambda r: r.get("result", "pawn", "drafted")),
        ],
    )
    message = "Exception in JobDriver_Wait.DriverTick: NullReferenceException"
    scheduled = await agent.game_call(
        "an action whose job will throw a tick later (sim/schedule_error stands in for it)",
        "sim/schedule_error",
        {"message": message, "afterTicks": 1},
        [*RAN_OK, ("nothing open yet", lambda r: r.get("attention") is None)],
    )
    cause = scheduled.get("operationId")
    stepped = await agent.game_call(
        "let game time pass: the error happens, and attention is attached to this real result",
        "rimworld/step_game_ticks",
        {"ticks": 5},
        [
            *RAN_OK,
            ("attention attached", lambda r: r.get("attention", "state") == "open"),
            ("blocking", lambda r: r.get("attention", "blocking") is True),
            (
                "caused by the sim/schedule_error call",
                lambda r: (
                    r.get("attention", "causalOperationId") == cause
                    and r.get("attention", "causalMethod") == "sim/schedule_error"
                ),
            ),
            (
                "attentionRelation opened_during_call",
                lambda r: r.get("attentionRelation") == "opened_during_call",
            ),
        ],
    )
    attention_id = stepped.get("attention", "attentionId")
    cursor = stepped.get("attention", "diagnosticsCursor")
    release = {"pawnId": pawn, "drafted": False}
    budget = _blocked_call_budget()
    await agent.game_call(
        "the next game call is refused before it reaches the game",
        "rimworld/set_draft",
        release,
        [
            *_blocked(attention_id),
            ("the text names the causal call", lambda r: str(cause) in r.text),
            (
                "the text shows the triggering log line",
                lambda r: any(
                    line.startswith("Log #") and message in line for line in r.text.splitlines()
                ),
            ),
            (
                f"the assembled context stays within its {budget}-token budget",
                lambda r: 0 < int(r.get("context", "tokens") or 0) <= budget,
            ),
        ],
    )
    await agent.game_call(
        "retrying without acknowledging is refused the same way (a retry is not an ack)",
        "rimworld/set_draft",
        release,
        _blocked(attention_id),
    )
    await agent.game_call(
        "diagnostics still work: the log lines from the item's diagnosticsCursor",
        "rimbridge/list_logs",
        {"afterSequence": cursor},
        [
            *RAN_OK,
            (
                "the first entry is the error, under the causing operation",
                lambda r: (
                    r.get("result", "entries", 0, "message") == message
                    and r.get("result", "entries", 0, "operationId") == cause
                ),
            ),
        ],
    )
    await agent.game_call(
        "diagnostics still work: the causal operation",
        "rimbridge/get_operation",
        {"operationId": cause},
        [
            *RAN_OK,
            (
                "operation sim/schedule_error",
                lambda r: r.get("result", "operation", "method") == "sim/schedule_error",
            ),
        ],
    )
    await agent.game_call(
        "diagnostics still work: the game's journal never saw the refused calls",
        "rimbridge/list_operations",
        {"limit": 50},
        [
            *RAN_OK,
            (
                "exactly one rimworld/set_draft operation (the first, successful one)",
                lambda r: len(_operations_of(r, "rimworld/set_draft")) == 1,
            ),
        ],
    )
    await agent.call(
        "inspect the attention item, with the trace of how its context was assembled",
        "games_get_attention",
        {"gameId": GAME, "detail": "trace"},
        [
            NOT_ERROR,
            (
                f"attentionId {attention_id}",
                lambda r: r.get("attention", "attentionId") == attention_id,
            ),
            ("blocking", lambda r: r.get("attention", "blocking") is True),
            (
                "the trace explains every stage and why assembly stopped",
                lambda r: (
                    bool(r.get("trace", "stages"))
                    and all(stage.get("status") for stage in r.get("trace", "stages"))
                    and r.get("trace", "haltingReason") is not None
                ),
            ),
        ],
    )
    await agent.call(
        "acknowledge it with its real id",
        "games_ack_attention",
        {"gameId": GAME, "attentionId": attention_id},
        [
            NOT_ERROR,
            ("acknowledged true", lambda r: r.get("acknowledged") is True),
            ("nothing open afterwards", lambda r: r.get("currentAttention") is None),
        ],
    )
    await agent.game_call(
        "retry the refused call: it runs now",
        "rimworld/set_draft",
        release,
        [
            *RAN_OK,
            NO_ATTENTION,
            ("the pawn is released", lambda r: r.get("result", "pawn", "drafted") is False),
        ],
    )
    await agent.stop(GAME)


async def scenario_advisory(agent: DemoAgent) -> None:
    await agent.start(GAME)
    colonists = await agent.game_call(
        "list the colonists", "rimworld/list_colonists", checks=RAN_OK
    )
    pawn = colonists.get("result", "colonists", 1, "id")
    warned = await agent.game_call(
        "an action logs a warning: an advisory item is attached to its result",
        "sim/inject_log",
        {"level": "warning", "message": "Food stores are running low"},
        [
            *RAN_OK,
            ("advisory (blocking false)", lambda r: r.get("attention", "blocking") is False),
            ("severity warning", lambda r: r.get("attention", "severity") == "warning"),
            ("caused_by_call", lambda r: r.get("attentionRelation") == "caused_by_call"),
        ],
    )
    attention_id = warned.get("attention", "attentionId")
    for drafted in (True, False):
        await agent.game_call(
            f"the next game call runs anyway (set_draft drafted={str(drafted).lower()})",
            "rimworld/set_draft",
            {"pawnId": pawn, "drafted": drafted},
            [
                *RAN_OK,
                (
                    "the advisory item is shown with the result",
                    lambda r: (
                        r.get("attention", "attentionId") == attention_id
                        and r.get("attention", "blocking") is False
                    ),
                ),
            ],
        )
    await agent.call(
        "inspect: advisory, nothing is refused",
        "games_get_attention",
        {"gameId": GAME},
        [
            NOT_ERROR,
            ("the advisory item", lambda r: r.get("attention", "attentionId") == attention_id),
            ("blocking false", lambda r: r.get("attention", "blocking") is False),
        ],
    )
    await agent.call(
        "acknowledge it (the agent has seen it)",
        "games_ack_attention",
        {"gameId": GAME, "attentionId": attention_id},
        [NOT_ERROR, ("acknowledged true", lambda r: r.get("acknowledged") is True)],
    )
    await agent.stop(GAME)


async def scenario_invalidated(agent: DemoAgent) -> None:
    await agent.start(GAME)
    colonists = await agent.game_call(
        "list the colonists", "rimworld/list_colonists", checks=RAN_OK
    )
    old_pawn = colonists.get("result", "colonists", 0, "id")
    save = "demo-before-load"
    await agent.game_call("save the game", "rimworld/save_game", {"name": save}, RAN_OK)
    loading = await agent.game_call(
        "load it again: every id on the map is replaced",
        "rimworld/load_game",
        {"name": save},
        [*RAN_OK, ("loading", lambda r: r.get("result", "loading") is True)],
    )
    load_call = loading.get("operationId")
    await agent.game_call(
        "wait for the load (a diagnostics tool)",
        "rimbridge/wait_for_game_loaded",
        {"timeoutMs": 10000},
        [*RAN_OK, ("phase playing", lambda r: r.get("result", "phase") == "playing")],
    )
    inspected = await agent.call(
        "inspect: the load opened an advisory item that says the state was invalidated",
        "games_get_attention",
        {"gameId": GAME, "refresh": True},
        [
            NOT_ERROR,
            ("stateInvalidated true", lambda r: r.get("attention", "stateInvalidated") is True),
            ("advisory (blocking false)", lambda r: r.get("attention", "blocking") is False),
            (
                "caused by the load_game call",
                lambda r: r.get("attention", "causalOperationId") == load_call,
            ),
        ],
    )
    attention_id = inspected.get("attention", "attentionId")
    await agent.game_call(
        "a pawn id read before the load is stale: the game says so, the item is attached",
        "rimworld/get_pawn",
        {"pawnId": old_pawn},
        [
            NOT_ERROR,
            EXECUTED,
            ("payload failure stale_id", lambda r: r.get("result", "code") == "stale_id"),
            (
                "the invalidating item is attached",
                lambda r: (
                    r.get("attention", "attentionId") == attention_id
                    and r.get("attention", "stateInvalidated") is True
                ),
            ),
        ],
    )
    fresh = await agent.game_call(
        "re-read the colonists: new ids",
        "rimworld/list_colonists",
        checks=[
            *RAN_OK,
            (
                "the old id is gone",
                lambda r: old_pawn not in {c.get("id") for c in r.get("result", "colonists") or []},
            ),
        ],
    )
    new_pawn = fresh.get("result", "colonists", 0, "id")
    await agent.call(
        "acknowledge the item",
        "games_ack_attention",
        {"gameId": GAME, "attentionId": attention_id},
        [NOT_ERROR, ("acknowledged true", lambda r: r.get("acknowledged") is True)],
    )
    await agent.game_call(
        "the fresh id works",
        "rimworld/get_pawn",
        {"pawnId": new_pawn},
        [*RAN_OK, NO_ATTENTION],
    )
    await agent.stop(GAME)


@contextlib.asynccontextmanager
async def _observer(config_dir: Path, game_id: str) -> AsyncIterator[GameSession]:
    """A second GABP session that only observes attention events (never gates, never calls)."""
    # bridge.json has the Go bridge's shape: {"port", "token", "gameId", ...}
    bridge = json.loads((config_dir / game_id / "bridge.json").read_text(encoding="utf-8"))
    session = GameSession(
        f"{game_id}-observer",
        port=int(bridge["port"]),
        token=str(bridge["token"]),
        gate=Gate(mode="observe"),
        liveness_interval=3600,
    )
    async with anyio.create_task_group() as tg:
        await tg.start(session.run)
        try:
            yield session
        finally:
            await session.close()
            tg.cancel_scope.cancel()


async def scenario_spam(agent: DemoAgent) -> None:
    await agent.start(GAME)
    count = 500
    started = time.perf_counter()
    async with _observer(agent.config_dir, GAME) as observer:
        agent.record(
            "an observer opens its own GABP session to count attention events",
            None,
            None,
            Reply(False, "", {"subscribed": observer.subscribed}),
            [
                (
                    "subscribed to the three attention channels",
                    lambda r: len(r.get("subscribed") or []) == 3,
                )
            ],
            started,
            text=f"observer subscribed to {', '.join(observer.subscribed)}",
        )
        message = "NullReferenceException in ColonistBar.ColonistBarOnGUI"
        spammed = await agent.game_call(
            f"one call logs {count} identical errors",
            "sim/inject_log",
            {"level": "error", "message": message, "count": count},
            [
                *RAN_OK,
                ("one blocking item", lambda r: r.get("attention", "blocking") is True),
                (
                    f"totalUrgentEntries {count}",
                    lambda r: r.get("attention", "totalUrgentEntries") == count,
                ),
                (
                    f"one sample row with repeatCount {count}",
                    lambda r: (
                        len(r.get("attention", "sample") or []) == 1
                        and r.get("attention", "sample", 0, "repeatCount") == count
                    ),
                ),
            ],
        )
        attention_id = spammed.get("attention", "attentionId")
        started = time.perf_counter()
        with anyio.move_on_after(5):
            while True:  # the observer's own connection may lag behind the agent's
                item = observer.attention
                if item is not None and item.total_urgent_entries >= count:
                    break
                await anyio.sleep(0.02)
        item = observer.attention
        events = observer.cache.applied
        agent.record(
            "the observer saw a bounded number of attention events",
            None,
            None,
            Reply(
                False,
                "",
                {
                    "events": events,
                    "attentionId": item.attention_id if item else None,
                    "totalUrgentEntries": item.total_urgent_entries if item else None,
                },
            ),
            [
                ("the same item", lambda r: r.get("attentionId") == attention_id),
                (f"at most 10 events for {count} errors", lambda r: 1 <= r.get("events") <= 10),
            ],
            started,
            text=f"{events} attention event(s) for {count} urgent entries "
            f"(item {item.attention_id if item else None}, "
            f"totalUrgentEntries {item.total_urgent_entries if item else None})",
        )
    cursor = spammed.get("attention", "diagnosticsCursor")
    await agent.game_call(
        "the diagnostics plane collapsed the burst too",
        "rimbridge/list_logs",
        {"afterSequence": cursor, "limit": 10},
        [
            *RAN_OK,
            (
                f"one log entry with repeatCount {count}",
                lambda r: (
                    len(r.get("result", "entries") or []) == 1
                    and r.get("result", "entries", 0, "repeatCount") == count
                ),
            ),
        ],
    )
    await agent.game_call(
        "game calls are refused under that one item",
        "rimworld/list_colonists",
        None,
        _blocked(attention_id),
    )
    await agent.call(
        "acknowledge it",
        "games_ack_attention",
        {"gameId": GAME, "attentionId": attention_id},
        [NOT_ERROR, ("acknowledged true", lambda r: r.get("acknowledged") is True)],
    )
    await agent.game_call(
        "game calls run again", "rimworld/list_colonists", None, [*RAN_OK, NO_ATTENTION]
    )
    await agent.stop(GAME)


async def scenario_no_attention(agent: DemoAgent) -> None:
    await agent.start(
        LEGACY_GAME,
        [("attention supported false", lambda r: r.get("attention", "supported") is False)],
    )
    await agent.call(
        "discover its tools",
        "games_tool_names",
        {"gameId": LEGACY_GAME},
        [
            NOT_ERROR,
            (
                "example/echo and example/count",
                lambda r: (
                    {"example/echo", "example/count"}
                    <= {t.get("name") for t in r.get("tools") or []}
                ),
            ),
        ],
    )
    await agent.game_call(
        "a call works as before",
        "example/echo",
        {"text": "Grüße, 世界"},
        [
            NOT_ERROR,
            EXECUTED,
            STATUS_OK,
            ("the text comes back", lambda r: r.get("result") == {"text": "Grüße, 世界"}),
        ],
        game_id=LEGACY_GAME,
    )
    await agent.call(
        "inspect attention: not supported, nothing to acknowledge",
        "games_get_attention",
        {"gameId": LEGACY_GAME},
        [NOT_ERROR, ("supported false", lambda r: r.get("supported") is False)],
    )
    await agent.game_call(
        "another call works",
        "example/count",
        {"times": 2},
        [NOT_ERROR, EXECUTED, STATUS_OK, ("result 2", lambda r: r.get("result") == 2)],
        game_id=LEGACY_GAME,
    )
    await agent.stop(LEGACY_GAME)


def _kill(pid: int) -> None:
    os.kill(pid, getattr(signal, "SIGKILL", signal.SIGTERM))


async def scenario_crash(agent: DemoAgent) -> None:
    started_reply = await agent.start(GAME)
    pid = started_reply.get("pid") or started_reply.get("process", "pid")
    await agent.game_call(
        "stall the game's main loop for 8 s",
        "sim/stall",
        {"ms": 8000},
        RAN_OK,
    )
    await agent.game_call(
        "a call that outlives its 1 s timeout: it may still run, so the answer is unknown",
        "rimworld/get_game_info",
        None,
        [
            ("isError", lambda r: r.is_error),
            ('executed "unknown"', lambda r: r.get("executed") == "unknown"),
            ("the text says UNKNOWN", lambda r: "UNKNOWN" in r.text),
        ],
        timeout=1.0,
    )
    in_flight: dict[str, Any] = {}
    call = {"gameId": GAME, "tool": "rimworld/list_colonists", "arguments": {}}

    async def background() -> None:
        began = time.perf_counter()
        try:
            in_flight["reply"] = await agent.raw_call("games_call_tool", call)
        except TimeoutError:
            in_flight["reply"] = None
        in_flight["started"] = began

    async with anyio.create_task_group() as tg:
        tg.start_soon(background)
        began = time.perf_counter()
        operations: Reply | None = None
        with anyio.move_on_after(agent.step_timeout):
            while True:
                operations = await agent.raw_call(
                    "games_call_tool",
                    {
                        "gameId": GAME,
                        "tool": "rimbridge/list_operations",
                        "arguments": {"status": "running"},
                    },
                )
                if _operations_of(operations, "rimworld/list_colonists"):
                    break
                await anyio.sleep(0.05)
        agent.record(
            "meanwhile a second call is in flight: the game has started it (diagnostics answer)",
            "games_call_tool",
            {
                "gameId": GAME,
                "tool": "rimbridge/list_operations",
                "arguments": {"status": "running"},
            },
            operations,
            [
                NOT_ERROR,
                (
                    "a running rimworld/list_colonists operation",
                    lambda r: _operations_of(r, "rimworld/list_colonists"),
                ),
            ],
            began,
            problem=None if operations is not None else "no answer",
        )
        began = time.perf_counter()
        _kill(int(pid))
        agent.record(
            f"the game process crashes (SIGKILL to pid {pid})",
            None,
            None,
            Reply(False, "", {"pid": pid}),
            [],
            began,
            text=f"kill -KILL {pid}",
        )
    reply = in_flight.get("reply")
    agent.record(
        "the call that was in flight: written, never answered",
        "games_call_tool",
        call,
        reply,
        [
            ("isError", lambda r: r.is_error),
            ('executed "unknown" (never "not executed")', lambda r: r.get("executed") == "unknown"),
            ("the text says UNKNOWN", lambda r: "UNKNOWN" in r.text),
        ],
        in_flight.get("started", time.perf_counter()),
        problem=None if reply is not None else "no answer",
    )
    began = time.perf_counter()
    status: Reply | None = None
    with anyio.move_on_after(agent.step_timeout):
        while True:
            status = await agent.raw_call("games_status", {"gameId": GAME})
            if status.get("status") in _GONE:
                break
            await anyio.sleep(0.05)
    agent.record(
        "the bridge noticed the exit",
        "games_status",
        {"gameId": GAME},
        status,
        [
            ("status stopped", lambda r: r.get("status") in _GONE),
            (
                "the exit code says it was killed",
                lambda r: (r.get("process", "exitCode") or 0) != 0,
            ),
        ],
        began,
        problem=None if status is not None else "no answer",
    )
    await agent.game_call(
        "a further call is refused: not connected, not executed",
        "rimworld/list_colonists",
        None,
        [
            ("isError", lambda r: r.is_error),
            ("executed false", lambda r: r.get("executed") is False),
            ("code not_connected", lambda r: r.get("code") == "not_connected"),
        ],
    )
    agent.started.discard(GAME)


@dataclass(frozen=True)
class Scenario:
    name: str
    summary: str
    run: Callable[[DemoAgent], Awaitable[None]]
    needs_legacy: bool = False


SCENARIOS: Final[dict[str, Scenario]] = {
    scenario.name: scenario
    for scenario in [
        Scenario(
            "gating",
            "an error opens blocking attention: the next call is refused until it is "
            "inspected and acknowledged, then the retry runs",
            scenario_gating,
        ),
        Scenario(
            "advisory",
            "a warning opens advisory attention: shown with results, never blocking",
            scenario_advisory,
        ),
        Scenario(
            "invalidated",
            "a load replaces the map: the item says the state is invalidated, old ids are stale",
            scenario_invalidated,
        ),
        Scenario(
            "spam",
            "500 identical errors: one item, a bounded number of events",
            scenario_spam,
        ),
        Scenario(
            "no-attention",
            "a game without attention: calls work, supported false",
            scenario_no_attention,
            needs_legacy=True,
        ),
        Scenario(
            "crash",
            "stalls and crashes mid-call: executed unknown, never 'not executed'",
            scenario_crash,
        ),
    ]
}


# ---------------------------------------------------------------------------------------------
# Running


def _progress(message: str) -> None:
    print(f"gabs demo: {message}", file=sys.stderr, flush=True)


async def run_demo(
    scenarios: Sequence[str],
    *,
    config_dir: Path,
    step_timeout: float = STEP_TIMEOUT,
    on_step: Callable[[DemoStep], None] | None = None,
    on_scenario: Callable[[Scenario], None] | None = None,
    gabs_path: Path | None = None,
) -> DemoReport:
    """Run ``scenarios`` against a ``gabs serve`` using ``config_dir`` (already written)."""
    report = DemoReport(scenarios=list(scenarios), config_dir=str(config_dir))
    gabs = gabs_path or find_executable("gabs")
    params = StdioServerParameters(
        command=str(gabs),
        args=["serve", "--config-dir", str(config_dir), "--log-level", "WARNING"],
        env={"GABS_CONFIG_DIR": str(config_dir)},
    )
    _progress(f"starting {gabs} serve (MCP over stdio)")
    async with Client(params, read_timeout_seconds=step_timeout + 5) as client:
        agent = DemoAgent(
            client,
            config_dir=config_dir,
            step_timeout=step_timeout,
            on_step=on_step or (lambda step: None),
        )
        for name in scenarios:
            scenario = SCENARIOS[name]
            agent.scenario = name
            _progress(f"scenario {name}: {scenario.summary}")
            if on_scenario is not None:
                on_scenario(scenario)
            try:
                await scenario.run(agent)
            except _ScenarioFailed:
                report.failed_scenarios.append(name)
            finally:
                for game_id in sorted(agent.started):
                    with contextlib.suppress(Exception), anyio.CancelScope(shield=True):
                        await agent.raw_call("games_kill", {"gameId": game_id}, timeout=10)
                agent.started.clear()
        report.steps = agent.steps
        _progress("stopping gabs")
    return report


def add_demo_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--scenario",
        choices=[*SCENARIOS, "all"],
        default=DEFAULT_SCENARIO,
        help=f"which flow to run (default {DEFAULT_SCENARIO}; all: every one)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print a machine-readable report instead"
    )
    parser.add_argument(
        "--keep", action="store_true", help="keep the temporary config dir (game logs)"
    )
    parser.add_argument(
        "--step-timeout",
        type=float,
        default=STEP_TIMEOUT,
        metavar="SECONDS",
        help=f"how long one step may take (default {STEP_TIMEOUT:g})",
    )


def demo_command(args: argparse.Namespace) -> int:
    """Run the demo as ``args`` say; return the exit code."""
    names = list(SCENARIOS) if args.scenario == "all" else [args.scenario]
    if args.step_timeout <= 0:
        print("gabs demo: --step-timeout must be positive", file=sys.stderr)
        return EXIT_USAGE
    try:
        config = demo_config(names)
        gabs = find_executable("gabs")
    except DemoSetupError as exc:
        print(f"gabs demo: {exc}", file=sys.stderr)
        return EXIT_USAGE
    config_dir = Path(tempfile.mkdtemp(prefix="gabs-demo-"))
    (config_dir / "config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    _progress(f"config in {config_dir}")

    def on_step(step: DemoStep) -> None:
        if not args.json:
            print(render_step(step), flush=True)

    def on_scenario(scenario: Scenario) -> None:
        if not args.json:
            print(f"\n=== scenario {scenario.name}: {scenario.summary}\n", flush=True)

    started = time.perf_counter()
    report = DemoReport(scenarios=names, config_dir=str(config_dir))
    try:

        async def main() -> DemoReport:
            with anyio.fail_after(RUN_TIMEOUT):
                return await run_demo(
                    names,
                    config_dir=config_dir,
                    step_timeout=args.step_timeout,
                    on_step=on_step,
                    on_scenario=on_scenario,
                    gabs_path=gabs,
                )

        report = anyio.run(main)
    except TimeoutError:
        report.error = f"the demo did not finish within {RUN_TIMEOUT:g} s"
    except Exception as exc:  # the bridge could not be started or talked to
        report.error = f"{type(exc).__name__}: {exc}"
    finally:
        report.duration_s = time.perf_counter() - started
        if args.keep:
            _progress(f"kept {config_dir}")
        else:
            shutil.rmtree(config_dir, ignore_errors=True)
            report.config_dir = None
    passed = sum(step.ok for step in report.steps)
    if args.json:
        print(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        verdict = "PASS" if report.ok else "FAIL"
        print(
            f"\n{verdict}: {passed} of {len(report.steps)} steps as expected in "
            f"{len(names)} scenario(s), {report.duration_s:.1f} s"
            + (
                f"; failed: {', '.join(report.failed_scenarios)}" if report.failed_scenarios else ""
            ),
            flush=True,
        )
    if report.error:
        print(f"gabs demo: {report.error}", file=sys.stderr)
    return EXIT_OK if report.ok else EXIT_FAILURE


# ---------------------------------------------------------------------------------------------
# The `gabs demo` command (registered by gabs.cli)

_DESCRIPTION: Final = (
    "Run a scripted agent through the real bridge: start `gabs serve` (MCP over stdio) with a "
    "temporary config whose game is rimbridge-sim, call its tools through the official MCP "
    "client, print what the model saw at each step, and check it. Exit 0 if every step "
    "behaved as expected, 1 if not, 2 on setup errors. Scenarios: "
    + "; ".join(f"{s.name}: {s.summary}" for s in SCENARIOS.values())
    + "."
)


def add_demo_command(subparsers: Any, add_command: Callable[..., argparse.ArgumentParser]) -> None:
    """Add ``demo`` to ``gabs`` (``add_command(subparsers, name, handler, help, description)``)."""
    parser = add_command(
        subparsers,
        "demo",
        demo_command,
        "run a scripted agent against rimbridge-sim through the real bridge",
        _DESCRIPTION,
    )
    add_demo_arguments(parser)


def run(argv: Sequence[str] | None = None) -> int:
    """``python -m gabs.demo``: the same as ``gabs demo``."""
    parser = argparse.ArgumentParser(prog="gabs demo", description=_DESCRIPTION)
    add_demo_arguments(parser)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    return demo_command(args)


def main(argv: Sequence[str] | None = None) -> None:
    raise SystemExit(run(argv))


if __name__ == "__main__":
    main()
