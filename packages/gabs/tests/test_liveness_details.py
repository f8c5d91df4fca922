"""gabs.runtime.liveness: the details of the evidence are the Go bridge's words."""

from __future__ import annotations

import re
import sys
from datetime import timedelta

import anyio
import pytest

from gabs.launch.resolve import ResolvedHook, ResolvedLifecycle
from gabs.runtime import Attachment, RuntimeState, evaluate, liveness
from gabs.runtime.claim import utcnow

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")


async def test_a_status_hook_that_times_out_is_described_with_go_s_duration() -> None:
    hangs = ResolvedHook(
        command=sys.executable, args=("-c", "import time; time.sleep(30)"), timeout_seconds=1
    )
    claim = RuntimeState(game_id="g", launch_id="l", lifecycle=ResolvedLifecycle(status=hangs))
    with anyio.fail_after(20):
        evidence = await evaluate(claim, game_id="g")
    assert (evidence.verdict, evidence.source) == ("unknown", "status_hook")
    # Go prints the run's time.Duration rounded to the millisecond: "1.004s", never "1.0 s"
    assert re.fullmatch(r"status hook timed out after 1(\.\d{1,3})?s", evidence.detail), evidence


async def test_an_uninspectable_lease_owner_is_named_by_its_pid(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(liveness, "verify_pid", lambda pid, start: ("unknown", "EPERM"))
    claim = RuntimeState(
        game_id="g",
        launch_id="l",
        spawn_state="spawned",
        phase="active",
        stop_process_name="no-such-game-anywhere",
        attachment=Attachment(
            connection_id="c",
            owner_instance_id="another",
            owner_pid=4242,
            owner_pid_start_time=7,
            lease_deadline=utcnow() + timedelta(minutes=1),
        ),
    )
    with anyio.fail_after(10):
        evidence = await evaluate(claim, game_id="g", instance_id="me")
    assert (evidence.verdict, evidence.source, evidence.detail) == (
        "unknown",
        "attachment_lease",
        "a fresh bridge attachment lease's owner (pid 4242) could not be inspected (EPERM); "
        "downstream stopped evidence cannot clear the claim past it",
    )
