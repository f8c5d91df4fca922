"""``gabs demo`` end to end: the real bridge, the real simulated game, the SDK's client.

The demo runs as a subprocess (``python -m gabs.demo``, which is what ``gabs demo`` runs), so
its stdout transcript and exit code are exactly what a user sees.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gabs.demo import SCENARIOS, DemoStep, render_step


def run_demo(*args: str, timeout: float = 90) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gabs.demo", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=timeout,
        check=False,
    )


def step_block(transcript: str, title_words: str) -> str:
    """The transcript block of the first step whose title contains ``title_words``."""
    blocks = transcript.split("\n[")
    for block in blocks:
        first = block.splitlines()[0] if block else ""
        if title_words in first:
            return block
    raise AssertionError(f"no step titled ...{title_words}... in:\n{transcript}")


def test_the_gating_demo_shows_the_block_the_inspection_the_ack_and_the_retry() -> None:
    done = run_demo()
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout

    blocked = step_block(out, "the next game call is refused")
    assert "games_call_tool" in blocked and "rimworld/set_draft" in blocked
    assert "NOT EXECUTED" in blocked and "PASS" in blocked

    attached = step_block(out, "attention is attached to this real result")
    assert "BLOCKING" in attached and "PASS" in attached

    inspected = step_block(out, "inspect the attention item")
    assert "games_get_attention" in inspected and "PASS" in inspected

    acked = step_block(out, "acknowledge it with its real id")
    assert "games_ack_attention" in acked and "Acknowledged att-" in acked and "PASS" in acked

    retried = step_block(out, "retry the refused call")
    assert '"drafted":false' in retried and "PASS" in retried

    assert "FAIL" not in out
    assert out.rstrip().splitlines()[-1].startswith("PASS: 16 of 16 steps")
    # Progress went to stderr, not into the transcript.
    assert "gabs demo: scenario gating" in done.stderr
    assert "gabs demo:" not in out


def test_the_advisory_demo_reports_json_and_cleans_up() -> None:
    done = run_demo("--scenario", "advisory", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] is True and report["failedScenarios"] == []
    assert report["configDir"] is None  # removed
    steps = report["steps"]
    assert all(step["ok"] for step in steps)
    assert [step["call"]["tool"] for step in steps] == [
        "games_start",
        "games_call_tool",
        "games_call_tool",
        "games_call_tool",
        "games_call_tool",
        "games_get_attention",
        "games_ack_attention",
        "games_stop",
    ]
    warned = steps[2]
    assert warned["structuredContent"]["attention"]["blocking"] is False
    assert warned["structuredContent"]["executed"] is True
    not_blocked = steps[3]
    assert not_blocked["isError"] is False
    assert not_blocked["structuredContent"]["executed"] is True


def test_keep_leaves_the_config_dir_with_the_game_log() -> None:
    done = run_demo("--scenario", "no-attention", "--json", "--keep")
    report = json.loads(done.stdout)
    kept = Path(report["configDir"])
    try:
        assert done.returncode == 0, done.stdout + done.stderr
        assert (kept / "config.json").is_file()
        assert (kept / "legacy" / "launch.log").is_file()
        config = json.loads((kept / "config.json").read_text(encoding="utf-8"))
        assert config["games"]["rimworld"]["attention"] == {"mode": "gate"}
        assert config["games"]["rimworld"]["args"] == ["--enable-test-tools", "--seed", "7"]
    finally:
        shutil.rmtree(kept, ignore_errors=True)


@pytest.mark.parametrize("args", [["--scenario", "nope"], ["--step-timeout", "0"]])
def test_bad_usage_exits_2(args: list[str]) -> None:
    done = run_demo(*args, timeout=30)
    assert done.returncode == 2, done.stdout + done.stderr


def test_a_failed_step_is_rendered_with_its_unmet_expectations() -> None:
    step = DemoStep(
        scenario="gating",
        index=3,
        title="the next game call is refused",
        tool="games_call_tool",
        arguments={"tool": "rimworld/set_draft"},
        expectation=["executed false"],
        ok=False,
        text="x" * 5000,
        is_error=False,
        problems=["expected executed false"],
    )
    rendered = render_step(step)
    assert "FAIL: expected executed false" in rendered
    assert max(len(line) for line in rendered.splitlines()) < 300
    assert set(SCENARIOS) == {"gating", "advisory", "invalidated", "spam", "no-attention", "crash"}
