"""The committed tool reference and README table are generated from the package and current."""

from __future__ import annotations

from rimbridge_sim.reference import (
    DEFAULT_OUTPUT,
    README,
    main,
    render_reference,
    render_status_table,
)


def test_the_committed_reference_and_readme_table_are_current() -> None:
    assert DEFAULT_OUTPUT.read_text(encoding="utf-8") == render_reference(), (
        "docs/rimbridge/tool-reference.md is stale: run `uv run python -m rimbridge_sim.reference`"
    )
    assert render_status_table() in README.read_text(encoding="utf-8")
    assert main(["--check"]) == 0


def test_the_reference_documents_every_real_tool_with_its_contract() -> None:
    text = render_reference()
    assert text.count("\n### `") == 128
    assert "123 tools of the mod: 117 implemented in the simulation, 6 answer" in text
    assert (
        "| `speed` | one of `Paused`, `Normal`, `Fast`, `Superfast`, `Ultrafast` | optional | "
        '`"Normal"` |'
    ) in text
    assert "| `parameters` | object | optional |  |" in text
    assert (
        "| `minimumLevel` | string (e.g. `info`, `warning`, `error`, `fatal`) | optional |" in text
    )


def test_the_status_table_lists_each_real_tool_once() -> None:
    table = render_status_table()
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    assert len(rows) == 123
    assert "| `rimworld/dpa_snapshot` | profiling | none | not available |" in rows
    assert (
        "| `rimbridge/list_logs` | diagnostics | `diagnostic`, `read-only` | implemented |" in rows
    )
    assert "117 of 123 implemented; 6 not available in the simulation." in table


def test_the_reference_is_deterministic() -> None:
    assert render_reference() == render_reference()
