"""The final guards before a claim is removed, as the Go bridge 1.1.0's
(``RemoveRuntimeStateIfCurrent`` and ``attachmentBlocksRemoval`` in
``internal/process/stop_gate.go``; ``design/PROGRESS.md`` M2.6, review rounds 6 and 8).

A status that found the game stopped removes its claim only while, under the lock, the claim
still carries no step (a stop admitted meanwhile keeps it: its recovery is not the status's
business) and no live bridge attachment: another bridge's fresh lease whose owner runs, or
this bridge's own record while its connection is live. An expired lease, or a dead owner's, is
history and removes nothing. A detach never makes a removed game folder again.
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from gabs.config import Settings
from gabs.lifecycle import Lifecycle
from gabs.lifecycle.core import Superseded
from gabs.lifecycle.observe import observe
from gabs.runtime import Attachment, Evidence, Operation, RuntimeState, load_claim, save_claim
from gabs.runtime.claim import utcnow
from gabs.runtime.procs import fingerprint

observe_module = importlib.import_module("gabs.lifecycle.observe")  # the package exports
# a function of that name

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait(timeout=30)
    return child.pid


def lifecycle(tmp_path: Path) -> Lifecycle:
    return Lifecycle(tmp_path, Settings(), instance_id="this-bridge")


def stopped_claim(tmp_path: Path) -> RuntimeState:
    claim = RuntimeState(
        game_id="g", launch_id="launch", phase="active", pid_role="workload", game_pid=dead_pid()
    )
    save_claim(tmp_path / "g", claim)
    return claim


def attachment(owner: str, pid: int, *, lease: float = 60) -> Attachment:
    return Attachment(
        connection_id="connection",
        owner_instance_id=owner,
        owner_pid=pid,
        owner_pid_start_time=fingerprint(pid) or 1,
        observed_at=utcnow(),
        lease_deadline=utcnow() + timedelta(seconds=lease),
    )


def changed_before_removal(monkeypatch: pytest.MonkeyPatch, folder: Path, change: Any) -> list[int]:
    """Let the first evaluation find the game stopped, then change the claim on disk (as
    another process would between the evaluation and the removal)."""
    real = observe_module.evaluate
    calls: list[int] = []

    async def evaluate(claim: RuntimeState, **kwargs: Any) -> Evidence:
        found = await real(claim, **kwargs)
        calls.append(1)
        if len(calls) == 1:
            current = load_claim(folder)
            assert current is not None
            change(current)
            save_claim(folder, current)
        return found

    monkeypatch.setattr(observe_module, "evaluate", evaluate)
    return calls


async def test_a_stop_admitted_after_the_evaluation_keeps_the_claim(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stopped_claim(tmp_path)

    def admit(claim: RuntimeState) -> None:
        claim.phase = "stopping"
        claim.operation = Operation(
            operation_id="stop-op",
            action="stop",
            executor_pid=os.getpid(),
            executor_pid_start_time=fingerprint(os.getpid()),
            attempt_started_at=utcnow(),
            deadline=utcnow() + timedelta(seconds=60),
        )

    changed_before_removal(monkeypatch, tmp_path / "g", admit)
    seen = await observe(lifecycle(tmp_path), "g")
    kept = load_claim(tmp_path / "g")
    assert kept is not None and kept.operation is not None
    assert kept.operation.operation_id == "stop-op"
    assert seen.status == "stopping"


@pytest.mark.parametrize(
    ("owner", "self_live"),
    [("another-bridge", False), ("this-bridge", True)],
    ids=["another-bridge-lease", "own-live-connection"],
)
async def test_a_live_attachment_keeps_the_claim(
    tmp_path: Path, owner: str, self_live: bool
) -> None:
    claim = stopped_claim(tmp_path)
    claim.attachment = attachment(owner, os.getpid())
    save_claim(tmp_path / "g", claim)
    assert not await lifecycle(tmp_path).remove_if("g", "launch", idle=True, self_live=self_live)
    assert load_claim(tmp_path / "g") is not None


async def test_an_attachment_that_appears_while_status_decides_keeps_the_claim(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stopped_claim(tmp_path)

    def attach(claim: RuntimeState) -> None:
        claim.attachment = attachment("another-bridge", os.getpid())

    changed_before_removal(monkeypatch, tmp_path / "g", attach)
    seen = await observe(lifecycle(tmp_path), "g")
    assert load_claim(tmp_path / "g") is not None
    assert seen.status == "running"  # judged again: the other bridge's live lease


@pytest.mark.parametrize("kind", ["expired", "dead-owner", "own-closed"])
async def test_an_expired_or_dead_or_closed_attachment_is_history(
    tmp_path: Path, kind: str
) -> None:
    stopped_claim(tmp_path)
    claim = load_claim(tmp_path / "g")
    assert claim is not None
    claim.attachment = {
        "expired": attachment("another-bridge", os.getpid(), lease=-1),
        "dead-owner": attachment("another-bridge", dead_pid()),
        "own-closed": attachment("this-bridge", os.getpid()),
    }[kind]
    save_claim(tmp_path / "g", claim)
    assert await lifecycle(tmp_path).remove_if("g", "launch", idle=True, self_live=False)
    assert load_claim(tmp_path / "g") is None


async def test_a_detach_never_makes_a_removed_game_folder_again(tmp_path: Path) -> None:
    # Go's detach takes the lock without creating it (AcquireTransitionLockIfPresent).
    claim = stopped_claim(tmp_path)
    claim.attachment = attachment("this-bridge", os.getpid())
    save_claim(tmp_path / "g", claim)
    lc = lifecycle(tmp_path)

    def clear(state: RuntimeState) -> None:
        state.attachment = None

    cleared = await lc.update("g", "launch", clear, create=False)
    assert cleared.attachment is None
    shutil.rmtree(tmp_path / "g")
    with pytest.raises(Superseded):
        await lc.update("g", "launch", clear, create=False)
    assert not (tmp_path / "g").exists()
