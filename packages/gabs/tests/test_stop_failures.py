"""A stop or kill whose own machinery fails, as the Go bridge 1.1.0 reports it
(``ExecuteStopAction`` in ``internal/process/stop_gate.go``, ``lifecycleActionResult`` and
``stopRefusalResult`` in ``internal/mcp/lifecycle_actions.go``; ``design/PROGRESS.md`` M2.6).

- A failure to take the transition lock or to write the claim while the attempt is admitted is
  ``blocked_unknown_state`` (``Failed to stop '<id>': <error>``), attributed to the context
  the claim pinned: its track record, the state next action, and the once-per-edit
  ``editNotice``; nothing is changed.
- A lock held past its timeout is ``operation_in_progress`` (not an error), with the action
  and the re-check next action; a refusal of an attempt in flight names the action too, and
  every refusal carries the track record of the launch's pinned context.
- An unreadable claim's refusal carries the neutral track record line.
- After the action ran, a completion that cannot be written is a warning of the outcome, never
  a failed call; a bridge attachment that appears after the last evidence round keeps the
  claim (``termination_unverified``); an action that used up the attempt's pinned deadline
  is not verified past it.
"""

from __future__ import annotations

import fcntl
import json
import os
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client

import gabs.lifecycle.stop as stop_module
import gabs.lifecycle.stop_outcome as outcome_module
from gabs.config import GabsConfig
from gabs.lifecycle import TrackRecord, context_hash
from gabs.lifecycle.history import last_good_snapshot
from gabs.lifecycle.stop_signals import StopEvidence
from gabs.runtime import Attachment, load_claim, save_claim
from gabs.runtime.claim import utcnow
from gabs.runtime.procs import fingerprint
from gabs_test_support import data
from gabs_test_support import mcp_client as client_for

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")

NOTICE = (
    "configuration changed after a environment-class failure; the previous context had 4 "
    "successful starts \u2014 verify this edit was intended"
)
STATE_NEXT = [
    {
        "tool": "games_status",
        "arguments": {"gameId": "g"},
        "reason": "Resolve the runtime state first (already running, in-flight operation, or "
        "unverified termination).",
    }
]
RECHECK_NEXT = [
    {
        "tool": "games_status",
        "arguments": {"gameId": "g"},
        "reason": "Re-check once the in-flight operation finishes.",
    }
]


def games_config(tmp_path: Path, seconds: int, **entry: Any) -> GabsConfig:
    document = {
        "version": "1.0",
        "timeouts": {"startup": {"processStartSeconds": 1}},
        "games": {
            "g": {
                "id": "g",
                "name": "G",
                "launchMode": "CustomCommand",
                "target": sys.executable,
                "args": ["-c", f"import time; time.sleep({seconds})"],
                **entry,
            }
        },
    }
    return GabsConfig.from_json(document, config_dir=tmp_path)


async def started(client: Client) -> None:
    result = await client.call_tool("games_start", {"gameId": "g", "timeout": 1})
    assert data(result)["code"] == "started_bridge_pending", data(result)


async def test_a_claim_write_failure_is_blocked_in_the_pinned_context_with_its_notice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Four verified starts and an environment failure in one context, then an edit: the
    # edited context's start arms the notice, which the first failed stop shows.
    before = games_config(tmp_path, 60)
    digest = context_hash(before.games["g"], "")
    record = TrackRecord(before.game_dir("g"))
    for launch in range(4):
        record.started(last_good_snapshot(before.games["g"], ""), "", digest, f"launch-{launch}")
    record.failed("", digest, "action_failed", "environment")
    after = games_config(tmp_path, 61)
    async with client_for(after) as client:
        await started(client)
        claim = load_claim(after.game_dir("g"))
        assert claim is not None

        def broken(folder: Path, state: Any) -> None:
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(stop_module, "save_claim", broken)
        first = await client.call_tool("games_stop", {"gameId": "g"})
        second = await client.call_tool("games_kill", {"gameId": "g"})
        monkeypatch.undo()
        assert load_claim(after.game_dir("g")) == claim  # nothing was changed
        killed = await client.call_tool("games_kill", {"gameId": "g"})
    assert first.is_error
    assert isinstance(first.content[0], types.TextContent)
    assert first.content[0].text.startswith(
        "Failed to stop 'g': [Errno 28] No space left on device"
    )
    assert data(first) == {
        "code": "blocked_unknown_state",
        "gameId": "g",
        "action": "stop",
        "causeClass": "state",
        "trackRecord": "started 1\u00d7, last moments ago; bridge connected 0\u00d7 \u2014 the "
        "workload starts but the bridge has never connected (points game-side, not at launch "
        "config)",
        "editNotice": NOTICE,
        "nextActions": STATE_NEXT,
    }
    assert (data(second)["code"], data(second)["action"]) == ("blocked_unknown_state", "kill")
    assert "editNotice" not in data(second)  # once per edit
    assert data(killed)["code"] == "terminated"


async def test_a_lock_held_too_long_is_an_operation_in_progress_of_the_action(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(stop_module, "transition_lock", _short_lock(stop_module.transition_lock))
    config = games_config(tmp_path, 60)
    async with client_for(config) as client:
        await started(client)
        fd = os.open(config.game_dir("g") / "transition.lock", os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            busy = await client.call_tool("games_stop", {"gameId": "g"})
        finally:
            os.close(fd)
        killed = await client.call_tool("games_kill", {"gameId": "g"})
    assert not busy.is_error
    found = data(busy)
    assert {key: found[key] for key in ("code", "action", "causeClass", "nextActions")} == {
        "code": "operation_in_progress",
        "action": "stop",
        "causeClass": "state",
        "nextActions": RECHECK_NEXT,
    }
    assert found["trackRecord"].startswith("started 1\u00d7")
    assert data(killed)["code"] == "terminated"


def _short_lock(real: Any) -> Any:
    def lock(folder: Path, timeout: float = 0.2, **keywords: Any) -> Any:
        return real(folder, timeout=0.2, **keywords)

    return lock


async def test_a_refusal_of_an_attempt_in_flight_names_the_action(tmp_path: Path) -> None:
    config = games_config(tmp_path, 60)
    async with client_for(config) as client:
        await started(client)
        folder = config.game_dir("g")
        claim = load_claim(folder)
        assert claim is not None
        claim.phase = "stopping"
        claim.history_context_hash = "sha256:another-context"  # as after an edit of the entry
        claim.operation = stop_module.Operation(
            operation_id="op",
            action="stop",
            executor_pid=os.getpid(),
            attempt_started_at=utcnow(),
            deadline=utcnow() + timedelta(seconds=60),
        )
        save_claim(folder, claim)
        refused = data(await client.call_tool("games_kill", {"gameId": "g"}))
        claim.phase, claim.operation = "active", None
        save_claim(folder, claim)
        killed = await client.call_tool("games_kill", {"gameId": "g"})
    assert (refused["code"], refused["action"], refused["phase"]) == (
        "operation_in_progress",
        "kill",
        "stopping",
    )
    assert refused["nextActions"] == RECHECK_NEXT
    # the launch's own context, not the config's (which has started once)
    assert refused["trackRecord"] == "no successful starts recorded for this context"
    assert data(killed)["code"] == "terminated"


async def test_an_unreadable_claim_s_refusal_carries_the_neutral_track_record(
    tmp_path: Path,
) -> None:
    config = games_config(tmp_path, 60)
    digest = context_hash(config.games["g"], "")
    TrackRecord(config.game_dir("g")).started(None, "", digest, "launch-0")
    (config.game_dir("g") / "runtime.json").write_text("{not json", encoding="utf-8")
    async with client_for(config) as client:
        refused = data(await client.call_tool("games_stop", {"gameId": "g"}))
    assert (refused["code"], refused["action"]) == ("blocked_unknown_state", "stop")
    assert refused["trackRecord"] == "no successful starts recorded for this context"
    assert refused["nextActions"] == STATE_NEXT


async def test_a_completion_that_cannot_be_written_is_a_warning_of_the_outcome(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    failing = {"stop": {"command": "/bin/sh", "args": ["-c", "exit 1"]}}
    config = games_config(tmp_path, 60, lifecycle=failing)
    async with client_for(config) as client:
        await started(client)

        def broken(folder: Path, state: Any) -> None:
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(outcome_module, "save_claim", broken)
        failed = await client.call_tool("games_stop", {"gameId": "g"})
        monkeypatch.undo()
        status = data(await client.call_tool("games_status", {"gameId": "g"}))
        killed = await client.call_tool("games_kill", {"gameId": "g"})
    found = data(failed)
    assert (found["code"], found["claimRemoved"]) == ("action_failed", False)
    assert found["warnings"] == [
        "the stop result and its history could not be persisted atomically; the operation "
        "remains fenced for recovery: [Errno 28] No space left on device"
    ]
    assert status["status"] == "stopping"  # the attempt stays in the claim, for recovery
    assert data(killed)["code"] == "operation_in_progress"


async def test_an_attachment_that_appears_before_the_removal_keeps_the_claim(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = games_config(tmp_path, 60)
    folder = config.game_dir("g")
    real = stop_module.gather_evidence

    async def attached_then_stopped(*args: Any) -> StopEvidence:
        await real(*args)
        claim = load_claim(folder)
        assert claim is not None
        # another live bridge (this test process, under another instance id) attaches
        claim.attachment = Attachment(
            connection_id="c",
            owner_instance_id="another-bridge",
            owner_pid=os.getpid(),
            owner_pid_start_time=fingerprint(os.getpid()),
            observed_at=utcnow(),
            lease_deadline=utcnow() + timedelta(seconds=60),
        )
        save_claim(folder, claim)
        return StopEvidence(sources=1, details=[f"workload pid {claim.game_pid} is gone"])

    async with client_for(config) as client:
        await started(client)
        monkeypatch.setattr(stop_module, "gather_evidence", attached_then_stopped)
        kept = data(await client.call_tool("games_kill", {"gameId": "g"}))
        monkeypatch.undo()
        claim = load_claim(folder)
        assert claim is not None
        claim.attachment = None
        save_claim(folder, claim)
        killed = await client.call_tool("games_kill", {"gameId": "g"})
    assert (kept["code"], kept["claimRemoved"]) == ("termination_unverified", False)
    assert kept["evidence"].startswith("a live bridge attachment appeared during verification; ")
    assert data(killed)["code"] == "terminated"


async def test_an_action_that_used_up_the_pinned_deadline_is_not_verified_past_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    slow = {"stop": {"command": "/bin/sh", "args": ["-c", "sleep 1"], "verifyTimeoutSeconds": 1}}
    config = games_config(tmp_path, 60, lifecycle=slow)
    monkeypatch.setattr(
        stop_module, "timedelta", lambda seconds: timedelta(seconds=min(seconds, 0.5))
    )
    async with client_for(config) as client:
        await started(client)
        stopped = data(await client.call_tool("games_stop", {"gameId": "g"}))
        monkeypatch.undo()
        killed = await client.call_tool("games_kill", {"gameId": "g"})
    assert (stopped["code"], stopped["evidence"]) == (
        "termination_unverified",
        "the operation deadline elapsed before termination could be verified",
    )
    assert data(killed)["code"] == "terminated"


def test_the_command_line_words_a_stop_s_internal_failure_in_its_own_clause(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = games_config(tmp_path, 60)
    (config.game_dir("g")).mkdir(parents=True)
    (config.game_dir("g") / "transition.lock").mkdir()
    from gabs.runtime import RuntimeState

    save_claim(config.game_dir("g"), RuntimeState(game_id="g", launch_id="l", game_pid=0))
    (tmp_path / "config.json").write_text(
        json.dumps({"games": {"g": {"name": "G", "launchMode": "DirectPath", "target": "/x"}}}),
        encoding="utf-8",
    )
    from gabs.cli import run

    code = run(["games", "stop", "g", "--configDir", str(tmp_path)])
    assert code == 1
    assert capsys.readouterr().err.startswith("blocked_unknown_state: failed to stop 'g': ")
