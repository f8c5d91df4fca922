"""Behaviours the Go bridge's own lifecycle tests pin (GABS 1.1.0,
``internal/mcp/stop_lifecycle_mcp_test.go``, ``internal/process/recovery_test.go``,
``start_gate_test.go``, ``stop_gate_test.go``), checked against ``gabs``. The expected values
are the Go bridge's, observed side by side on the same ``runtime.json`` and pinned here (the Go
binary is not needed).

* A lifecycle step whose executor (the bridge process running it) is provably gone is over,
  even before its deadline: ``games_status`` recovers the claim instead of reporting the step
  in progress, and a start or stop may proceed.
* Recovery of a dead step: the claim is removed when the game is provably gone; otherwise the
  step is cleared and the phase is ``active``, a dead stop or kill recorded as
  ``lastActionResult`` ``interrupted`` with Go's detail; a dead start is not an action result,
  and a start caught before it spawned is removed once its executor is gone.
* Times in results and messages (``operation``, ``lastActionResult.timestamp``) are RFC 3339
  to the second, as Go's ``time.RFC3339``.
* ``runtime_only_status_test.go``, ``claim_precedence_mcp_test.go``: a ``runtime.json`` that
  is not a regular file blocks a stop by that id (``blocked_unknown_state``) instead of falling
  back to the configured game whose target the id is; a removed game's unreadable claim is
  described as such and offers a re-read, not stop or kill; ``unknown`` is described as
  ``unknown``.
* ``session_roaming_test.go``: a ``games_connect`` that takes the game over from another
  session says so as Go does (``Took ownership of idle GABS session ...``, ``Force-took
  ownership ...``).
* ``exited_game_class_mcp_test.go``, ``track_record_mcp_test.go``: ``exited_during_start``
  (like ``unobserved``) names the launch context it ran with (``configRevision``).
* ``activeProfile`` is left out of a refusal when there is none; a start refused by a step in
  flight is worded as Go's start gate words it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from gabs.config import GabsConfig
from gabs.launch import resolve
from gabs.lifecycle import Lifecycle, start_game, stop_game
from gabs.runtime.procs import process_start_time
from gabs_test_support import mcp_client
from lib_gab import GabpServer

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX process fingerprints")

SECONDS = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
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


def operation(action: str, *, gone: bool, started: float = -10, deadline: float = 60) -> Any:
    """A step run by this process (``gone``: by one that had this pid before, so provably
    gone)."""
    start = process_start_time(OWN_PID)
    return {
        "operationId": "ab" * 16,
        "action": action,
        "executorPid": OWN_PID,
        "executorPidStartTime": start + 24680 if gone else start,
        "attemptStartedAt": stamp(started),
        "deadline": stamp(deadline),
    }


def write_claim(config_dir: Path, **fields: Any) -> None:
    claim = {
        "gameId": "g",
        "status": "running",
        "ownerPid": 0,
        "updatedAt": stamp(),
        "schemaVersion": 2,
        "launchId": "cd" * 16,
        "generation": 1,
        "phase": "active",
        "spawnState": "spawned",
        "source": "gabs",
        "launchMode": "DirectPath",
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


def running_workload() -> dict[str, Any]:
    """Claim fields naming this (running) process as the game."""
    return {"gamePid": OWN_PID, "pidStartTime": process_start_time(OWN_PID), "pidRole": "workload"}


@asynccontextmanager
async def client_for(tmp_path: Path, **targets: str) -> AsyncIterator[Client]:
    """A session with game ``g`` configured (or, given ``targets``, those games instead)."""
    games = {
        gid: {"id": gid, "name": gid.title(), "launchMode": "DirectPath", "target": target}
        for gid, target in (targets or {"g": "/bin/sleep"}).items()
    }
    config = GabsConfig.from_json({"version": "1.0", "games": games}, config_dir=tmp_path)
    async with mcp_client(config) as client:
        yield client


async def call(client: Client, tool: str, game: str = "g") -> tuple[bool, dict[str, Any], str]:
    result = await client.call_tool(tool, {"gameId": game})
    assert isinstance(result.structured_content, dict), result
    text = "".join(getattr(part, "text", "") for part in result.content)
    return bool(result.is_error), result.structured_content, text


@pytest.mark.anyio
async def test_a_stop_whose_executor_is_gone_is_interrupted_not_in_progress(
    tmp_path: Path,
) -> None:
    """``TestStatusNormalizesInterruptedStopAttempt``: the deadline is ahead, but the executor's
    fingerprint can never match again."""
    step = operation("stop", gone=True, started=-60)
    write_claim(tmp_path, phase="stopping", operation=step, **running_workload())
    async with client_for(tmp_path) as client:
        _, item, _ = await call(client, "games_status")
    assert "operation" not in item, item
    assert (item["status"], item["phase"]) == ("shared-running", "active")
    begun = step["attemptStartedAt"].split(".")[0] + "Z"
    result = item["lastActionResult"]
    assert (result["action"], result["outcome"], result["detail"]) == (
        "stop",
        "interrupted",
        f"a stop attempt begun {begun} was interrupted (its executor is no longer running)",
    )
    assert SECONDS.fullmatch(result["timestamp"]), result
    claim = read_claim(tmp_path)
    assert claim is not None
    assert (claim["phase"], claim.get("operation")) == ("active", None)
    assert claim["lastActionResult"]["outcome"] == "interrupted"


@pytest.mark.anyio
async def test_an_expired_kill_says_its_deadline_expired(tmp_path: Path) -> None:
    step = operation("kill", gone=False, started=-120, deadline=-60)
    write_claim(tmp_path, phase="killing", operation=step, **running_workload())
    async with client_for(tmp_path) as client:
        _, item, _ = await call(client, "games_status")
    assert item["phase"] == "active"
    assert item["lastActionResult"]["detail"].endswith("(its pinned deadline expired)")


@pytest.mark.anyio
async def test_a_dead_stop_of_a_game_that_is_gone_removes_the_claim(tmp_path: Path) -> None:
    pid = dead_pid()
    write_claim(
        tmp_path,
        phase="stopping",
        gamePid=pid,
        pidStartTime=1,
        pidRole="workload",
        operation=operation("stop", gone=True),
    )
    async with client_for(tmp_path) as client:
        _, item, _ = await call(client, "games_status")
    assert item["status"] == "stale-runtime-cleaned", item
    assert read_claim(tmp_path) is None


@pytest.mark.anyio
async def test_a_start_that_never_spawned_is_removed_once_its_executor_is_gone(
    tmp_path: Path,
) -> None:
    write_claim(
        tmp_path,
        phase="starting",
        status="starting",
        spawnState="preflight",
        operation=operation("start", gone=True),
    )
    async with client_for(tmp_path) as client:
        _, item, _ = await call(client, "games_status")
    assert item["status"] == "stale-runtime-cleaned", item
    assert read_claim(tmp_path) is None


@pytest.mark.anyio
async def test_a_dead_start_with_unknown_evidence_is_left_as_it_is(tmp_path: Path) -> None:
    """A dead start (here: past its deadline) is not an action result, and unknown evidence
    writes nothing."""
    write_claim(
        tmp_path,
        phase="starting",
        status="starting",
        operation=operation("start", gone=False, deadline=-1),
    )
    before = read_claim(tmp_path)
    async with client_for(tmp_path) as client:
        _, item, _ = await call(client, "games_status")
    assert (item["status"], item["phase"]) == ("starting", "starting")
    assert "lastActionResult" not in item
    assert read_claim(tmp_path) == before


@pytest.mark.anyio
async def test_a_step_in_flight_shows_its_times_to_the_second(tmp_path: Path) -> None:
    """``TestGamesStatusReportsStoppingPhaseWithoutBlockingOrCleaning``."""
    step = operation("stop", gone=False)
    write_claim(tmp_path, phase="stopping", operation=step)
    async with client_for(tmp_path) as client:
        _, item, _ = await call(client, "games_status")
    assert (item["status"], item["phase"]) == ("stopping", "stopping")
    assert item["operation"] == {
        "action": "stop",
        "attemptStartedAt": step["attemptStartedAt"].split(".")[0] + "Z",
        "deadline": step["deadline"].split(".")[0] + "Z",
    }
    assert read_claim(tmp_path) is not None


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("action", "phase", "wording"),
    [
        ("stop", "stopping", "stop operation"),
        ("start", "starting", "already starting: a start operation"),
    ],
)
async def test_a_start_refused_by_a_step_in_flight_reads_as_go_s(
    tmp_path: Path, action: str, phase: str, wording: str
) -> None:
    step = operation(action, gone=False)
    write_claim(tmp_path, phase=phase, spawnState="spawning", operation=step)
    begun = step["attemptStartedAt"].split(".")[0] + "Z"
    deadline = step["deadline"].split(".")[0] + "Z"
    async with client_for(tmp_path) as client:
        is_error, refused, text = await call(client, "games_start")
        _, stop_refused, stop_text = await call(client, "games_stop")
    assert not is_error
    assert refused["code"] == "operation_in_progress"
    assert "activeProfile" not in refused, refused
    assert text.splitlines()[0] == (
        f"g is {wording} begun {begun} is still in progress (deadline {deadline})"
    )
    assert "activeProfile" not in stop_refused, stop_refused
    assert stop_text.splitlines()[0] == (
        f"a {action} operation on g begun {begun} is still in progress (deadline {deadline}); "
        "re-check after the deadline"
    )


@pytest.mark.anyio
async def test_stop_unsupported_has_no_empty_active_profile(tmp_path: Path) -> None:
    """``TestGamesStopUnsupportedForKillOnlyClaim``: the refusal points at ``games_kill``."""
    write_claim(
        tmp_path,
        launchMode="SteamAppId",
        lifecycle={
            "kill": {"command": "/bin/true", "timeoutSeconds": 5, "verifyTimeoutSeconds": 1}
        },
    )
    async with client_for(tmp_path) as client:
        is_error, refused, _ = await call(client, "games_stop")
    assert is_error
    assert refused["code"] == "stop_unsupported"
    assert "activeProfile" not in refused, refused
    assert [step["tool"] for step in refused["nextActions"]] == ["games_kill", "games_show"]
    claim = read_claim(tmp_path)
    assert claim is not None and "operation" not in claim


@pytest.mark.anyio
async def test_an_unaddressable_claim_blocks_the_target_alias(tmp_path: Path) -> None:
    """``TestIndeterminateClaimBlocksAliasFallback``: ``g`` is also game ``other``'s target."""
    (tmp_path / "g" / "runtime.json").mkdir(parents=True)
    async with client_for(tmp_path, other="g") as client:
        is_error, refused, text = await call(client, "games_stop")
    assert is_error
    assert (refused["code"], refused["gameId"], refused["causeClass"]) == (
        "blocked_unknown_state",
        "g",
        "state",
    )
    assert "'other'" not in text and "(Other)" not in text, text
    assert "runtime claim is not a regular file" in text


@pytest.mark.anyio
async def test_a_removed_game_s_corrupt_claim_offers_a_re_read(tmp_path: Path) -> None:
    """``TestNoArgStatusSurfacesRepairForCorruptClaim``."""
    (tmp_path / "g").mkdir()
    (tmp_path / "g" / "runtime.json").write_text("{not json", encoding="utf-8")
    async with client_for(tmp_path, other="/bin/sleep") as client:
        _, item, text = await call(client, "games_status")
    assert (item["status"], item["configured"]) == ("unknown", False)
    assert item["statusDescription"] == (
        "unreadable runtime claim (corrupt); resolve with repair --forget-runtime if the launch "
        "is provably gone"
    )
    assert item["repairCommand"] == "gabs games repair g --forget-runtime"
    assert [step["tool"] for step in item["nextActions"]] == ["games_status"]
    assert text.startswith("**g** (unconfigured): unreadable runtime claim (corrupt)")


@pytest.mark.anyio
async def test_unknown_is_described_as_unknown(tmp_path: Path) -> None:
    write_claim(tmp_path)  # no pid, no process name, no hook: nothing can be told
    async with client_for(tmp_path) as client:
        _, item, text = await call(client, "games_status")
    assert (item["status"], item["statusDescription"]) == ("unknown", "unknown")
    assert text.splitlines()[0] == "**g** (G): unknown"


@pytest.mark.anyio
@pytest.mark.parametrize(("force", "lease"), [(False, -5), (True, 60)])
async def test_a_takeover_says_whose_session_it_took(
    tmp_path: Path, force: bool, lease: float
) -> None:
    """``TestGamesConnectTakesOverIdleRuntimeOwner``; the owner is another session of this
    process (so it is alive), idle or (forced) active."""
    token = "t" * 64
    server = GabpServer(app_name="G", app_version="1", agent_id="g", token=token)
    async with server.running() as address:
        write_claim(
            tmp_path,
            ownerPid=OWN_PID,
            ownerInstanceId="another-session",
            ownerLastActive=stamp(lease - 30),
            ownerLeaseUntil=stamp(lease),
            endpoint={"port": address.port, "token": token},
            **running_workload(),
        )
        async with client_for(tmp_path) as client:
            arguments: dict[str, Any] = {"gameId": "g", "timeout": 5}
            if force:
                arguments["forceTakeover"] = True
            result = await client.call_tool("games_connect", arguments)
    assert not result.is_error, result
    first = "".join(getattr(part, "text", "") for part in result.content).splitlines()[0]
    taken = (
        f"Force-took ownership of 'g' from GABS pid {OWN_PID}"
        if force
        else f"Took ownership of idle GABS session for 'g' from pid {OWN_PID}"
    )
    assert first == (
        f"{taken} and connected to the GABP server on port {address.port}. Discovered 0 tools."
    )


@pytest.mark.anyio
async def test_exited_during_start_names_the_config_revision(tmp_path: Path) -> None:
    games = {
        "g": {
            "id": "g",
            "name": "G",
            "launchMode": "CustomCommand",
            "target": sys.executable,
            "args": ["-c", "import sys; sys.exit(3)"],
        }
    }
    config = GabsConfig.from_json({"version": "1.0", "games": games}, config_dir=tmp_path)
    async with mcp_client(config) as client:
        is_error, failed, _ = await call(client, "games_start")
    assert is_error
    assert (failed["code"], failed["causeClass"], failed["exitCode"]) == (
        "exited_during_start",
        "game",
        3,
    )
    assert failed["configRevision"] == config.revision


@pytest.mark.anyio
async def test_a_start_goes_on_over_a_step_whose_executor_is_gone(tmp_path: Path) -> None:
    """``TestGateStartDeadExecutorFallsThrough``: the dead step is no refusal; the claim it left
    (its game gone too) is stale and the start proceeds."""
    games = {
        "g": {
            "id": "g",
            "name": "G",
            "launchMode": "CustomCommand",
            "target": sys.executable,
            "args": ["-c", "import time; time.sleep(60)"],
        }
    }
    config = GabsConfig.from_json({"version": "1.0", "games": games}, config_dir=tmp_path)
    write_claim(
        tmp_path,
        launchMode="CustomCommand",
        phase="stopping",
        gamePid=dead_pid(),
        pidStartTime=1,
        pidRole="workload",
        operation=operation("stop", gone=True),
    )
    lc = Lifecycle(config.config_dir, config.settings, cli=True)
    game = config.game("g")
    started = await start_game(lc, game, resolve(game), gabp_timeout=5)
    try:
        claim = read_claim(tmp_path)
        assert claim is not None
        assert (claim["phase"], claim["gamePid"]) == ("active", started.spawned.pid)
    finally:
        await stop_game(lc, "g", "kill")
