"""The committed tool reference is generated from the annotations and is current."""

from __future__ import annotations

from pathlib import Path

from rimbridge_sim.reference import render_reference

REFERENCE = Path(__file__).resolve().parents[3] / "docs" / "rimbridge" / "tool-reference.md"


def test_the_committed_tool_reference_is_current() -> None:
    expected = render_reference()
    assert REFERENCE.read_text(encoding="utf-8") == expected, (
        "docs/rimbridge/tool-reference.md is stale: run `uv run python -m rimbridge_sim.reference`"
    )


def test_the_reference_documents_every_tool_with_returns_and_parameters() -> None:
    text = render_reference()
    for name in ("rimbridge/list_logs", "rimworld/take_screenshot", "sim/stall"):
        assert f"### `{name}`" in text
    assert text.count("**Returns**") >= 30
    assert "| `afterSequence` | integer (>= -1) \\| null | optional | `null` |" in text
    assert "| `pawnId` | string (length >= 1) | required |  |" in text


def test_the_reference_is_deterministic() -> None:
    assert render_reference() == render_reference()
