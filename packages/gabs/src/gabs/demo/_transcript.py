"""The demo's transcript: what a tool call returned (:class:`Reply`), each step
(:class:`DemoStep`), the whole run (:class:`DemoReport`) and how a step is printed
(:func:`render_step`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

__all__ = ["Check", "DemoReport", "DemoStep", "Reply", "render_step"]

SHOWN_LINES: Final = 14
SHOWN_LINE_CHARS: Final = 220
SHOWN_CHARS: Final = 1600


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


def shown_lines(text: str) -> list[str]:
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
    lines += [f"      | {line}" for line in shown_lines(step.text)]
    lines.append(f"    expect: {'; '.join(step.expectation) or '(nothing to check)'}")
    if step.ok:
        lines.append(f"    PASS ({step.duration_ms:.0f} ms)")
    else:
        lines.append(f"    FAIL: {'; '.join(step.problems)}")
    return "\n".join(lines)
