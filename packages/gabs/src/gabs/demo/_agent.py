"""The scripted agent: it calls the bridge's tools through the MCP client, records each step
and checks it; plus the checks several scenarios share."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

import anyio
import mcp_types as types
from mcp import Client

from gabs.demo._transcript import Check, DemoStep, Reply
from gabs.mcp.call_results import call_view

__all__ = [
    "EXECUTED",
    "GAME",
    "LEGACY_GAME",
    "NOT_ERROR",
    "NO_ATTENTION",
    "RAN",
    "RAN_OK",
    "STATUS_OK",
    "SUCCESS",
    "DemoAgent",
    "DemoSetupError",
    "ScenarioFailed",
    "blocked",
    "blocked_call_budget",
    "operations_of",
]

GAME: Final = "rimworld"
LEGACY_GAME: Final = "legacy"


class DemoSetupError(Exception):
    """The demo cannot run here (an executable or module is missing): exit 2."""


class ScenarioFailed(Exception):
    """A step did not behave as expected; the rest of its scenario is skipped."""


def text_of(result: types.CallToolResult) -> str:
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
        return Reply(is_error=bool(result.is_error), text=text_of(result), data=call_view(result))

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
            raise ScenarioFailed(title) from None
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
        """Add a step to the transcript; raise :class:`ScenarioFailed` if it failed."""
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
            raise ScenarioFailed(title)

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
RAN: Final[tuple[Check, ...]] = (NOT_ERROR, EXECUTED, STATUS_OK)
"""The call ran; for the diagnostics reads (list_logs, list_operations), whose answers carry
no success field."""
RAN_OK: Final[tuple[Check, ...]] = (*RAN, SUCCESS)


def blocked(attention_id: str) -> list[Check]:
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


def blocked_call_budget() -> int:
    """The token budget of the default template for blocked calls."""
    from gabs.context import DEFAULT_TEMPLATES

    for template in DEFAULT_TEMPLATES:
        if template.id == "default-blocked-call":
            return int(template.budget.max_context_tokens)
    raise DemoSetupError("no default-blocked-call template")


def operations_of(reply: Reply, method: str) -> list[dict[str, Any]]:
    operations = reply.get("result", "operations") or []
    # the tool an operation ran: the alias the mod's registry records in its Metadata
    return [
        op
        for op in operations
        if isinstance(op, dict)
        and isinstance(op.get("Metadata"), dict)
        and op["Metadata"].get("requestedId") == method
    ]
