"""Behaviours the Go bridge's own process tests pin (GABS 1.1.0, ``internal/process``:
``start_gate.go`` as ``claim_hardening_test.go``, ``recovery_credit_test.go``,
``history_credit_replay_test.go``, ``delivery_reconcile_test.go`` and
``fingerprint_test.go`` use it), checked against ``gabs``. The expected values are the Go
bridge's, observed side by side on the same ``runtime.json`` and pinned here (the Go binary
is not needed).

* The start gate and a step left in a claim: a step within its deadline refuses a start only
  while its executor runs (``operation_in_progress``); an executor that cannot be inspected
  blocks it (``blocked_unknown_state``: unknown is not gone); a step without an executor pid is
  no refusal (the claim is judged by its evidence); a start that never spawned
  (``preflight``) whose executor is provably gone is cleared without asking for evidence.
* The track record's start credit (Go's ``historySuccess``, ``creditedLaunchIds``): every
  promotion of a launch from ``starting`` to ``active`` (the start itself, a later status
  that sees the game, the recovery of a dead start step, an attachment) counts its start in
  the context the claim pinned, once per launch id; the recovery of a dead stop or kill does
  not count a start.
* Pending credits in a claim the Go bridge wrote (``pendingCleanStops``,
  ``pendingDeliveries``, ``reconcile.go``, ``delivery_reconcile_test.go``): each is counted
  once (``cleanStops``, ``deliveriesVerified``) in the entry its own ``profile`` and
  ``contextHash`` name, when a status finds the game running (the entries are then dropped
  from the claim) and before any removal of the claim (a status that finds it stale, a stop,
  ``games repair --forget-runtime``), never twice (``creditedPendingEvents``).
* ``runtime_state_m2_test.go`` (``TestExternalSnapshotInputsStateRoundTrip``, and the claim
  Go writes for an instance found running outside GABS): ``appliedLaunchInputsState``
  ``unavailable``, the config revision of the start that found it, no ``spawnState`` (nothing
  was spawned) and ``generation`` 2 (Go's snapshot is a transition of the fresh claim).
* ``fingerprint_test.go`` (``TestVerifyPIDFingerprint``): a pid whose start time differs from
  the recorded one is stopped, and the evidence says both times, as Go's
  (``pid N was reused (start time S, recorded R); the tracked process is gone``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from gabs.cli import main
from gabs.config import GabsConfig
from gabs.launch import resolve
from gabs.lifecycle import Lifecycle, LifecycleError, gate, start_game, stop_game
from gabs.lifecycle.observe import observe
from gabs.runtime import procs

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX process fingerprints")

OWN_PID = os.getpid()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def stamp(offset: float = 0) -> str:
    """A claim time as the Go bridge writes it (nanoseconds)."""
    moment = datetime.now(UTC) + timedelta(seconds=offset)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%f") + "123Z"


def dead_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def write_claim(config_dir: Path, **fields: Any) -> None:
    claim = {
        "gameId": "g",
        "status": "starting",
        "ownerPid": 0,
        "updatedAt": stamp(),
        "schemaVersion": 2,
        "launchId": "cd" * 16,
        "generation": 1,
        "phase": "starting",
        "spawnState": "spawned",
        "source": "gabs",
        "launchMode": "CustomCommand",
        "pidRole": "workload",
        **fields,
    }
    folder = config_dir / "g"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "runtime.json").write_text(json.dumps(claim), encoding="utf-8")


def read_claim(config_dir: Path) -> dict[str, Any] | None:
    try:
        data: dict[str, Any] = json.loads((config_dir / "g" / "runtime.json").read_text())
    except FileNotFoundError:
        return None
    return data


def start_step(**executor: Any) -> dict[str, Any]:
    """A start step within its deadline (run by ``executor``)."""
    return {
        "operationId": "ab" * 16,
        "action": "start",
        **executor,
        "attemptStartedAt": stamp(-5),
        "deadline": stamp(60),
    }


def config_for(tmp_path: Path) -> GabsConfig:
    games = {
        "g": {
            "id": "g",
            "name": "G",
            "launchMode": "CustomCommand",
            "target": sys.executable,
            "args": ["-c", "import time; time.sleep(60)"],
        }
    }
    return GabsConfig.from_json({"version": "1.0", "games": games}, config_dir=tmp_path)


async def start(tmp_path: Path) -> int:
    """Start ``g``; the new launch's game pid (the game is killed again)."""
    config = config_for(tmp_path)
    lc = Lifecycle(config.config_dir, config.settings, cli=True)
    game = config.game("g")
    started = await start_game(lc, game, resolve(game), gabp_timeout=5)
    try:
        claim = read_claim(tmp_path)
        assert claim is not None and claim["launchId"] != "cd" * 16
        return started.spawned.pid
    finally:
        await stop_game(lc, "g", "kill")


async def refusal(tmp_path: Path) -> LifecycleError:
    config = config_for(tmp_path)
    lc = Lifecycle(config.config_dir, config.settings, cli=True)
    game = config.game("g")
    with pytest.raises(LifecycleError) as caught:
        await start_game(lc, game, resolve(game), gabp_timeout=5)
    return caught.value


@pytest.mark.anyio
async def test_a_step_without_an_executor_pid_does_not_refuse_a_start(tmp_path: Path) -> None:
    """``gateExistingClaim``: only a step with an executor pid refuses by itself; without one,
    the claim (its game gone) is judged by its evidence and the start goes on (Go:
    ``started_attachment_deferred``; before: ``operation_in_progress``)."""
    write_claim(tmp_path, gamePid=dead_pid(), pidStartTime=1, operation=start_step())
    assert await start(tmp_path) > 0


@pytest.mark.anyio
async def test_a_step_whose_executor_cannot_be_inspected_blocks_a_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An uninspectable executor within the deadline is ``blocked_unknown_state`` with the
    claim's phase, not ``operation_in_progress`` (inspection failure is unknown, never
    stopped or running)."""
    executor = 4_000_000
    real = procs.process_start_time

    def inspect(pid: int) -> int:
        if pid == executor:
            raise PermissionError(13, "Permission denied")
        return real(pid)

    monkeypatch.setattr(procs, "process_start_time", inspect)
    write_claim(
        tmp_path,
        gamePid=OWN_PID,
        pidStartTime=real(OWN_PID),
        operation=start_step(executorPid=executor, executorPidStartTime=5),
    )
    refused = await refusal(tmp_path)
    assert refused.code == "blocked_unknown_state"
    assert refused.data["phase"] == "starting"
    # Go's start gate words it: the step, the game, the inspection's failure.
    lead = "an in-flight start operation on g has an executor that cannot be inspected ("
    assert refused.message.startswith(lead), refused.message
    assert refused.message.endswith("); uncertainty blocks the start"), refused.message
    assert [(a["tool"], a["reason"]) for a in refused.next_actions] == [
        (
            "games_status",
            "Gather evidence; use repair --forget-runtime only if the instance is provably gone.",
        )
    ]
    assert "operation" not in refused.data
    assert read_claim(tmp_path) is not None


@pytest.mark.anyio
async def test_a_start_that_loses_every_claim_race_is_refused_as_a_concurrent_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``GateStart``: when every attempt finds the claim gone and then loses its publication to
    another start, the refusal is Go's ``operation_in_progress``, ``<id> is already starting in
    a concurrent operation``, with the phase and step of the claim that won."""
    write_claim(tmp_path, ownerPid=OWN_PID, operation=start_step(executorPid=OWN_PID))
    real = gate.load_claim
    calls = 0

    def racing(folder: Path) -> Any:
        nonlocal calls
        calls += 1
        # each of the three attempts: gone at the first look; the refusal's own look finds it
        return None if calls <= 3 else real(folder)

    monkeypatch.setattr(gate, "load_claim", racing)
    # ... and there again when the fresh claim is published under the lock
    monkeypatch.setattr(gate, "publish_claim", lambda folder, claim: False)
    refused = await refusal(tmp_path)
    assert (refused.code, refused.message) == (
        "operation_in_progress",
        "g is already starting in a concurrent operation",
    )
    assert refused.data["phase"] == "starting"
    assert refused.data["operation"]["action"] == "start"
    assert [a["tool"] for a in refused.next_actions] == ["games_status"]
    assert read_claim(tmp_path) is not None and read_claim(tmp_path)["launchId"] == "cd" * 16


@pytest.mark.anyio
async def test_a_start_over_a_preflight_claim_whose_executor_is_gone_goes_on(
    tmp_path: Path,
) -> None:
    """A ``preflight`` claim (nothing was spawned) whose executor is provably gone is the one
    safe removal: the start goes on although the claim names no process (Go:
    ``started_attachment_deferred``; before: ``blocked_unknown_state``)."""
    write_claim(
        tmp_path,
        spawnState="preflight",
        operation=start_step(executorPid=dead_pid(), executorPidStartTime=12345),
    )
    assert await start(tmp_path) > 0


@pytest.mark.anyio
async def test_a_step_whose_executor_runs_still_refuses_a_start(tmp_path: Path) -> None:
    write_claim(
        tmp_path,
        gamePid=dead_pid(),
        pidStartTime=1,
        operation=start_step(
            executorPid=OWN_PID, executorPidStartTime=procs.process_start_time(OWN_PID)
        ),
    )
    refused = await refusal(tmp_path)
    assert refused.code == "operation_in_progress"


def track_record(config_dir: Path) -> dict[str, Any]:
    try:
        data: dict[str, Any] = json.loads((config_dir / "g" / "track-record.json").read_text())
    except FileNotFoundError:
        return {}
    entry: dict[str, Any] = data["profiles"].get("", {})
    return entry


def running_game() -> dict[str, Any]:
    """Claim fields naming this (running) process as the game."""
    return {
        "gamePid": OWN_PID,
        "pidStartTime": procs.process_start_time(OWN_PID),
        "pidRole": "workload",
        "historyContextHash": "sha256:pinned",
    }


def lifecycle_for(tmp_path: Path) -> Lifecycle:
    config = config_for(tmp_path)
    return Lifecycle(config.config_dir, config.settings, cli=True)


@pytest.mark.anyio
async def test_a_status_that_promotes_an_unobserved_start_credits_it_once(
    tmp_path: Path,
) -> None:
    """``passive promotion``: Go credits ``workloadStarts`` from the claim's pinned identity
    when a status sees the game of a ``starting`` claim without a step, once per launch id
    (the second status finds nothing to credit). Before: never counted."""
    write_claim(tmp_path, **running_game())
    lc = lifecycle_for(tmp_path)
    assert (await observe(lc, "g")).status == "running"
    assert (await observe(lc, "g")).status == "running"
    entry = track_record(tmp_path)
    assert (entry["contextHash"], entry["workloadStarts"]) == ("sha256:pinned", 1)
    assert entry["creditedLaunchIds"] == ["cd" * 16]
    assert entry["consecutiveFailures"] == 0


@pytest.mark.anyio
async def test_a_launch_is_counted_once_whatever_promotes_it(tmp_path: Path) -> None:
    """``creditedLaunchIds``: a launch already credited (by another bridge's promotion) is not
    counted again; the list keeps the last 16 launches."""
    folder = tmp_path / "g"
    folder.mkdir()
    earlier = [f"{i:032x}" for i in range(16)]
    (folder / "track-record.json").write_text(
        json.dumps(
            {
                "profiles": {
                    "": {
                        "contextHash": "sha256:pinned",
                        "workloadStarts": 16,
                        "creditedLaunchIds": [*earlier[:-1], "cd" * 16],
                    }
                }
            }
        )
    )
    write_claim(tmp_path, **running_game())
    assert (await observe(lifecycle_for(tmp_path), "g")).status == "running"
    assert track_record(tmp_path)["workloadStarts"] == 16
    write_claim(tmp_path, **{**running_game(), "launchId": "ef" * 16})
    assert (await observe(lifecycle_for(tmp_path), "g")).status == "running"
    entry = track_record(tmp_path)
    assert entry["workloadStarts"] == 17
    assert len(entry["creditedLaunchIds"]) == 16
    assert entry["creditedLaunchIds"][-2:] == ["cd" * 16, "ef" * 16]


@pytest.mark.anyio
async def test_recovery_credits_a_dead_start_but_not_a_dead_stop(tmp_path: Path) -> None:
    """``TestRecoveryCreditsStartPromotionNotStop``: the recovery of an interrupted start whose
    game runs counts the start; that of an interrupted stop does not."""
    dead = {
        "executorInstanceId": "dead-instance",
        "executorPid": dead_pid(),
        "executorPidStartTime": 1,
    }
    write_claim(tmp_path, **running_game(), operation=start_step(**dead))
    lc = lifecycle_for(tmp_path)
    assert (await observe(lc, "g")).status == "running"
    assert track_record(tmp_path)["workloadStarts"] == 1
    (tmp_path / "g" / "track-record.json").unlink()
    stop = {**start_step(**dead), "action": "stop"}
    write_claim(tmp_path, **running_game(), phase="stopping", operation=stop)
    assert (await observe(lc, "g")).status == "running"
    assert track_record(tmp_path).get("workloadStarts", 0) == 0


@pytest.mark.anyio
async def test_a_start_records_its_launch_id(tmp_path: Path) -> None:
    await start(tmp_path)
    entry = track_record(tmp_path)
    assert entry["workloadStarts"] == 1
    assert len(entry["creditedLaunchIds"]) == 1


def pending(at: str = "") -> dict[str, Any]:
    """A clean stop and two verified deliveries whose credit the Go bridge left pending."""
    event = {"profile": "", "contextHash": "sha256:pinned", **({"at": at} if at else {})}
    return {
        "pendingCleanStops": [{"id": "op1", **event}],
        "pendingDeliveries": [{"id": "conn1", **event}, {"id": "conn2", **event}],
    }


def counted(config_dir: Path) -> tuple[int, int, Any]:
    entry = track_record(config_dir)
    return (
        entry.get("cleanStops", 0),
        entry.get("deliveriesVerified", 0),
        entry.get("creditedPendingEvents"),
    )


@pytest.mark.anyio
async def test_a_status_counts_a_live_claim_s_pending_credits_once(tmp_path: Path) -> None:
    """Go's status reconcile on a running claim: counted, then dropped from the claim (so the
    next status counts nothing); the markers go once the claim no longer holds the events.
    Before: kept in the claim, never counted."""
    write_claim(tmp_path, **running_game(), phase="active", status="running", **pending(stamp()))
    lc = lifecycle_for(tmp_path)
    assert (await observe(lc, "g")).status == "running"
    assert (await observe(lc, "g")).status == "running"
    assert counted(tmp_path) == (1, 2, None)
    claim = read_claim(tmp_path)
    assert claim is not None
    assert "pendingCleanStops" not in claim and "pendingDeliveries" not in claim


@pytest.mark.anyio
async def test_a_stale_claim_s_pending_credits_are_counted_before_it_goes(
    tmp_path: Path,
) -> None:
    """``TestPendingDeliveryCreditedByStatusFunnelRemoval``: a dead claim removed by a status
    counts its pending events first (Go: ``cleanStops`` 1, ``deliveriesVerified`` 2). Before:
    lost with the claim."""
    write_claim(
        tmp_path, phase="active", status="running", gamePid=dead_pid(), pidStartTime=1, **pending()
    )
    assert (await observe(lifecycle_for(tmp_path), "g")).status == "stale-runtime-cleaned"
    assert read_claim(tmp_path) is None
    assert counted(tmp_path) == (1, 2, None)


@pytest.mark.anyio
async def test_an_event_already_counted_is_not_counted_again(tmp_path: Path) -> None:
    """The replay after a crash between the two writes: the track record already has the
    event's marker, so the claim's still-pending entry counts nothing more."""
    folder = tmp_path / "g"
    folder.mkdir()
    entry = {
        "contextHash": "sha256:pinned",
        "cleanStops": 1,
        "creditedPendingEvents": ["stop:op1", "delivery:other"],
    }
    (folder / "track-record.json").write_text(json.dumps({"profiles": {"": entry}}))
    write_claim(
        tmp_path, phase="active", status="running", gamePid=dead_pid(), pidStartTime=1, **pending()
    )
    assert (await observe(lifecycle_for(tmp_path), "g")).status == "stale-runtime-cleaned"
    assert counted(tmp_path) == (1, 2, ["delivery:other"])


def test_forget_runtime_counts_a_readable_claim_s_pending_credits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``ForceForgetRuntimeClaim``: a readable claim's pending events are counted, then the
    claim is removed."""
    (tmp_path / "config.json").write_text(json.dumps({"version": "1.0", "games": {}}))
    write_claim(tmp_path, phase="active", status="running", gamePid=dead_pid(), **pending())
    argv = ["games", "repair", "g", "--forget-runtime", "--yes", "--configDir", str(tmp_path)]
    with pytest.raises(SystemExit) as exited:
        main(argv)
    out = capsys.readouterr().out
    assert exited.value.code == 0, out
    assert "Removed the runtime claim for 'g'." in out
    assert counted(tmp_path) == (1, 2, None)


def test_a_reused_pid_s_evidence_names_both_start_times() -> None:
    start = procs.process_start_time(OWN_PID)
    assert procs.verify_pid(OWN_PID, start + 1) == (
        "stopped",
        f"pid {OWN_PID} was reused (start time {start}, recorded {start + 1}); the tracked "
        "process is gone",
    )
    assert procs.verify_pid(OWN_PID, start)[0] == "running"


@pytest.mark.anyio
async def test_an_external_snapshot_is_written_as_go_writes_it(tmp_path: Path) -> None:
    name = "gabs-ext-probe"
    program = tmp_path / name
    program.symlink_to("/bin/sleep")
    outside = subprocess.Popen([str(program), "30"])  # noqa: ASYNC220
    try:
        games = {
            "g": {
                "id": "g",
                "name": "G",
                "launchMode": "CustomCommand",
                "target": "/bin/sleep",
                "args": ["30"],
                "stopProcessName": name,
            }
        }
        config = GabsConfig.from_json({"version": "1.0", "games": games}, config_dir=tmp_path)
        lc = Lifecycle(config.config_dir, config.settings, cli=True)
        game = config.game("g")
        resolved = resolve(game, revision=config.revision)
        with pytest.raises(LifecycleError) as caught:
            await start_game(lc, game, resolved, gabp_timeout=5)
        assert caught.value.code == "external_instance_detected"
        claim = read_claim(tmp_path)
        assert claim is not None
        assert claim["source"] == "external"
        assert claim["appliedLaunchInputsState"] == "unavailable"
        assert claim["configRevision"] == config.revision
        assert "spawnState" not in claim
        assert claim["generation"] == 2
    finally:
        outside.kill()
        outside.wait()
