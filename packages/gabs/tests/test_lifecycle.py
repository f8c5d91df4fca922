"""gabs.lifecycle: starting, observing, stopping and killing real processes through their
runtime claims, as the CLI and the MCP tools do."""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from gabs.config import GabsConfig, GameConfig
from gabs.launch import resolve
from gabs.lifecycle import Lifecycle, LifecycleError, observe, start_game, stop_game
from gabs.lifecycle.probes import probe_external
from gabs.lifecycle.start import exited_during_start
from gabs.runtime import load_claim, save_claim
from gabs.runtime.procs import verify_pid

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")

SLEEPER = (
    "import os, json, sys, time; json.dump(dict(os.environ), open(sys.argv[1], 'w')); "
    "time.sleep(120)"
)


def setup(tmp_path: Path, **entry: Any) -> tuple[Lifecycle, GameConfig]:
    document = {
        "games": {
            "g": {"name": "G", "launchMode": "CustomCommand", "target": sys.executable, **entry}
        }
    }
    (tmp_path / "config.json").write_text(json.dumps(document), encoding="utf-8")
    config = GabsConfig.load(tmp_path)
    assert config.broken == {}, config.broken
    return Lifecycle(config.config_dir, config.settings, cli=True), config.game("g")


def sleeper(tmp_path: Path, **entry: Any) -> tuple[Lifecycle, GameConfig]:
    return setup(tmp_path, args=["-c", SLEEPER, str(tmp_path / "env.json")], **entry)


async def start(lc: Lifecycle, game: GameConfig, **options: Any) -> Any:
    with anyio.fail_after(30):
        return await start_game(lc, game, resolve(game, **options), gabp_timeout=5)


async def wait_env(tmp_path: Path) -> dict[str, str]:
    path = tmp_path / "env.json"
    with anyio.fail_after(10):
        while True:
            try:
                return dict(json.loads(path.read_text(encoding="utf-8")))
            except (OSError, ValueError):
                await anyio.sleep(0.02)


async def cleanup(lc: Lifecycle) -> AsyncIterator[None]:
    yield


async def test_a_start_records_a_claim_and_hands_the_game_its_endpoint(tmp_path: Path) -> None:
    lc, game = sleeper(tmp_path)
    started = await start(lc, game)
    try:
        claim = load_claim(tmp_path / "g")
        assert claim is not None
        assert (claim.phase, claim.status, claim.spawn_state, claim.source, claim.pid_role) == (
            "active",
            "running",
            "spawned",
            "gabs",
            "workload",
        )
        assert (claim.game_pid, claim.endpoint_port, claim.endpoint_token) == (
            started.spawned.pid,
            started.port,
            started.token,
        )
        assert verify_pid(claim.game_pid, claim.pid_start_time)[0] == "running"
        bridge_file = tmp_path / "g" / "bridge.json"
        bridge = json.loads(bridge_file.read_text(encoding="utf-8"))
        assert {k: bridge[k] for k in ("port", "token", "gameId")} == {
            "port": started.port,
            "token": started.token,
            "gameId": "g",
        }
        assert (
            stat.S_IMODE(bridge_file.stat().st_mode)
            == stat.S_IMODE((tmp_path / "g" / "runtime.json").stat().st_mode)
            == 0o600
        )
        env = await wait_env(tmp_path)
        assert (
            env["GABP_SERVER_PORT"],
            env["GABP_TOKEN"],
            env["GABS_GAME_ID"],
            env["GABS_BRIDGE_PATH"],
        ) == (
            str(started.port),
            started.token,
            "g",
            str(bridge_file),
        )
        with pytest.raises(LifecycleError) as caught:
            await start(lc, game)
        refusal = caught.value.to_json("g")
        assert (refusal["code"], refusal["causeClass"], caught.value.is_error) == (
            "already_running",
            "state",
            False,
        )
        assert "games_connect" in [a["tool"] for a in refusal["nextActions"]]
    finally:
        await stop_game(lc, "g", "kill")


async def test_a_restart_reuses_the_port_with_a_new_token(tmp_path: Path) -> None:
    lc, game = sleeper(tmp_path)
    first = await start(lc, game)
    assert (await stop_game(lc, "g", "stop")) is not None
    second = await start(lc, game)
    try:
        assert second.port == first.port and second.token != first.token
        third_port = second.port
    finally:
        await stop_game(lc, "g", "kill")
    reset = await start_game(lc, game, resolve(game), reset_endpoint=True)
    await stop_game(lc, "g", "kill")
    assert reset.token not in (first.token, second.token) and third_port > 0


async def test_a_game_that_exits_during_start_is_reported_with_its_output(tmp_path: Path) -> None:
    lc, game = setup(tmp_path, args=["-c", "print('no save found'); raise SystemExit(3)"])
    with pytest.raises(LifecycleError) as caught:
        await start(lc, game)
    assert (caught.value.code, caught.value.data["exitCode"]) == ("exited_during_start", 3)
    assert caught.value.data["outputTail"] == "no save found\n"
    assert caught.value.message.startswith("'g' exited during start (exit code 3). ")
    assert caught.value.to_json()["causeClass"] == "game"
    assert load_claim(tmp_path / "g") is None


async def test_a_process_the_system_refuses_is_spawn_failed(tmp_path: Path) -> None:
    script = tmp_path / "broken.sh"
    script.write_text("#!/nonexistent/interpreter\n", encoding="utf-8")
    script.chmod(0o755)
    lc, game = setup(tmp_path, target=str(script))
    with pytest.raises(LifecycleError) as caught:
        await start(lc, game)
    assert (caught.value.code, caught.value.to_json()["causeClass"]) == (
        "spawn_failed",
        "environment",
    )
    # the game, its launch mode and its target, as the Go bridge names them
    assert caught.value.message.startswith(
        f"Failed to start g: failed to start game 'g' (mode: CustomCommand, target: {script}): "
    )
    assert load_claim(tmp_path / "g") is None


async def test_a_busy_cached_port_is_endpoint_unavailable(tmp_path: Path) -> None:
    lc, game = sleeper(tmp_path)
    first = await start(lc, game)
    await stop_game(lc, "g", "kill")
    with anyio.fail_after(10):
        listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=first.port)
    async with listener:
        with pytest.raises(LifecycleError) as caught:
            await start(lc, game)
    data = caught.value.to_json("g")
    assert (data["code"], data["status"], data["port"]) == (
        "endpoint_unavailable",
        "endpoint_cache_in_use",
        first.port,
    )
    assert data["nextActions"][0]["arguments"] == {"gameId": "g", "resetEndpoint": True}


async def test_status_sees_a_running_game_and_cleans_a_dead_ones_claim(tmp_path: Path) -> None:
    lc, game = sleeper(tmp_path)
    started = await start(lc, game)
    seen = await observe(lc, "g")
    assert (seen.status, seen.evidence and seen.evidence.source) == ("running", "pid_fingerprint")
    os.kill(started.spawned.pid, 9)
    started.spawned.popen.wait()
    gone = await observe(lc, "g")
    assert (gone.status, gone.claim) == ("stale-runtime-cleaned", None)
    assert (await observe(lc, "g")).status == "stopped"


async def test_stop_ends_the_game_and_removes_the_claim(tmp_path: Path) -> None:
    lc, game = sleeper(tmp_path)
    await start(lc, game)
    with anyio.fail_after(30):
        outcome = await stop_game(lc, "g", "stop")
    assert outcome is not None
    assert (outcome.code, outcome.claim_removed) == ("terminated", True)
    assert await stop_game(lc, "g", "stop") is None


async def test_a_stop_hook_that_times_out_keeps_the_claim_and_says_so(tmp_path: Path) -> None:
    hang = ["-c", "import time; time.sleep(30)"]
    lc, game = sleeper(
        tmp_path, lifecycle={"stop": {"command": sys.executable, "args": hang, "timeoutSeconds": 1}}
    )
    await start(lc, game)
    try:
        with anyio.fail_after(30):
            outcome = await stop_game(lc, "g", "stop")
        assert outcome is not None
        assert (outcome.code, outcome.final_phase, outcome.hook and outcome.hook.timed_out) == (
            "action_timed_out",
            "active",
            True,
        )
        claim = load_claim(tmp_path / "g")
        assert claim is not None and claim.last_action_result is not None
        assert (claim.last_action_result.outcome, claim.operation) == ("action_timed_out", None)
    finally:
        await stop_game(lc, "g", "kill")


async def test_a_step_in_flight_refuses_another_at_once(tmp_path: Path) -> None:
    lc, game = sleeper(tmp_path)
    await start(lc, game)
    claim = load_claim(tmp_path / "g")
    assert claim is not None
    from gabs.runtime import Operation
    from gabs.runtime.claim import utcnow

    claim.operation = Operation(
        operation_id="x",
        action="stop",
        attempt_started_at=utcnow(),
        deadline=utcnow().replace(year=utcnow().year + 1),
    )
    claim.phase = "stopping"
    save_claim(tmp_path / "g", claim)
    with pytest.raises(LifecycleError) as caught:
        await stop_game(lc, "g", "kill")
    assert (caught.value.code, caught.value.data["phase"]) == ("operation_in_progress", "stopping")
    assert (await observe(lc, "g")).status == "stopping"
    claim.operation, claim.phase = None, "active"
    save_claim(tmp_path / "g", claim)
    await stop_game(lc, "g", "kill")


async def test_a_status_hook_finds_an_external_instance_and_records_it(tmp_path: Path) -> None:
    running = ["-c", "raise SystemExit(0)"]
    lc, game = sleeper(
        tmp_path,
        lifecycle={
            "status": {"command": sys.executable, "args": running},
            "stop": {"command": "/bin/true", "verifyTimeoutSeconds": 1},
        },
    )
    with pytest.raises(LifecycleError) as caught:
        await start(lc, game)
    assert (caught.value.code, caught.value.data["externalSnapshotPersisted"]) == (
        "external_instance_detected",
        True,
    )
    claim = load_claim(tmp_path / "g")
    assert claim is not None and (claim.source, claim.phase) == ("external", "active")
    outcome = await stop_game(lc, "g", "stop")
    assert outcome is not None and outcome.code == "action_succeeded_running"


async def test_a_status_run_cut_short_by_the_verify_deadline_does_not_erase_the_evidence(
    tmp_path: Path,
) -> None:
    # Each status run takes about 0.5 s and says running; with a 1 s window the second run
    # starts with less time left than it needs, and the deadline, not the hook, ends it.
    slow_running = ["-c", "import time; time.sleep(0.5)"]
    lc, game = sleeper(
        tmp_path,
        lifecycle={
            "status": {"command": sys.executable, "args": slow_running, "timeoutSeconds": 5},
            "stop": {"command": "/bin/true", "verifyTimeoutSeconds": 1},
        },
    )
    with pytest.raises(LifecycleError):
        await start(lc, game)
    outcome = await stop_game(lc, "g", "stop")
    assert outcome is not None
    assert (outcome.code, "unknown" in outcome.detail) == ("action_succeeded_running", False)


async def test_a_claim_without_a_way_to_stop_is_stop_unsupported(tmp_path: Path) -> None:
    lc, _game = setup(
        tmp_path, launchMode="EpicAppId", target="Game", stopProcessName="nothing-runs-by-this-name"
    )
    claim_dir = tmp_path / "g"
    from gabs.runtime import RuntimeState

    save_claim(
        claim_dir,
        RuntimeState(
            game_id="g", launch_id="l", phase="active", pid_role="helper", launch_mode="EpicAppId"
        ),
    )
    with pytest.raises(LifecycleError) as caught:
        await stop_game(lc, "g", "stop")
    assert (caught.value.code, caught.value.to_json()["causeClass"]) == (
        "stop_unsupported",
        "config",
    )
    with pytest.raises(LifecycleError) as killed:
        await stop_game(lc, "g", "kill")
    assert killed.value.code == "kill_unsupported"


async def test_already_running_names_the_profile_the_refused_start_asked_for(
    tmp_path: Path,
) -> None:
    profiles = {"normal": {"description": "n"}, "fast": {"description": "f"}}
    lc, game = sleeper(tmp_path, profiles=profiles, defaultProfile="normal")
    await start(lc, game)
    try:
        with pytest.raises(LifecycleError) as caught:
            await start(lc, game, profile="fast")
        refusal = caught.value.to_json("g")
        assert (refusal["code"], refusal["activeProfile"], refusal["requestedProfile"]) == (
            "already_running",
            "normal",
            "fast",
        )
    finally:
        await stop_game(lc, "g", "kill")


@pytest.mark.parametrize(("code", "signal_name"), [(-15, "SIGTERM"), (-9, "SIGKILL")])
def test_a_start_ended_by_a_signal_has_go_s_exit_code(code: int, signal_name: str) -> None:
    """Go's ``exitCode`` of a process a signal ended is -1 (its ``ExitCode()``); the signal is
    our extra key, and the text says which it was."""
    error = exited_during_start(GameConfig(id="slow"), code, "")
    assert error.code == "exited_during_start"
    assert error.data["exitCode"] == -1
    assert error.data["signal"] == signal_name
    assert f"'slow' was killed by signal {signal_name} during start." in error.message


def test_a_start_that_exited_keeps_its_exit_code() -> None:
    error = exited_during_start(GameConfig(id="dead"), 3, "boom\n")
    assert error.data["exitCode"] == 3
    assert "signal" not in error.data
    assert error.message.startswith("'dead' exited during start (exit code 3).")


async def test_the_status_hooks_of_all_profiles_probe_at_once_before_a_start(
    tmp_path: Path,
) -> None:
    # As Go's: each profile's hook marks its own file and waits for the other one's. Run at
    # once, both see the other and say stopped; one after another, the first would give up.
    meet = (
        "import os, pathlib, sys, time; here = pathlib.Path(sys.argv[1]); "
        "(here / os.environ['GABS_PROFILE']).touch(); "
        "other = here / ('b' if os.environ['GABS_PROFILE'] == 'a' else 'a'); "
        "end = time.monotonic() + 3\n"
        "while not other.exists():\n"
        "    if time.monotonic() > end: sys.exit(2)\n"
        "    time.sleep(0.02)\n"
        "sys.exit(1)"
    )
    hook = {"command": sys.executable, "args": ["-c", meet, str(tmp_path)], "timeoutSeconds": 10}
    _, game = setup(
        tmp_path,
        args=["-c", "pass"],
        defaultProfile="a",
        profiles={"a": {"lifecycle": {"status": hook}}, "b": {"lifecycle": {"status": hook}}},
    )
    warnings: list[str] = []
    with anyio.fail_after(20):
        found = await probe_external(game, warnings)
    assert (found, warnings) == (None, [])


async def test_a_failed_process_scan_before_a_start_is_a_warning_in_go_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken_scan(name: str) -> list[int]:
        raise OSError("no process table")

    monkeypatch.setattr("gabs.lifecycle.probes.find_by_name", broken_scan)
    _, game = setup(tmp_path, args=["-c", "pass"], stopProcessName="Game")
    warnings: list[str] = []
    with anyio.fail_after(10):
        assert await probe_external(game, warnings) is None
    assert warnings == ['process scan for "Game" failed before starting: no process table']


async def test_a_profile_found_running_drops_the_others_unknown_answers(tmp_path: Path) -> None:
    # As Go's: the "could not probe" warning is for a start that goes ahead; when one
    # profile's hook says running, the refusal carries no word on the undecided one.
    def hook(code: int) -> dict[str, Any]:
        return {"command": sys.executable, "args": ["-c", f"raise SystemExit({code})"]}

    _, game = setup(
        tmp_path,
        args=["-c", "pass"],
        defaultProfile="a",
        profiles={"a": {"lifecycle": {"status": hook(0)}}, "b": {"lifecycle": {"status": hook(9)}}},
    )
    warnings: list[str] = []
    with anyio.fail_after(20):
        found = await probe_external(game, warnings)
    assert found is not None and found[0].code == "external_instance_detected"
    assert warnings == []
    # with nothing running, the undecided profile is a warning and the start goes ahead
    alone = {"b": {"lifecycle": {"status": hook(9)}}, "a": {"lifecycle": {"status": hook(1)}}}
    _, game = setup(tmp_path, args=["-c", "pass"], defaultProfile="a", profiles=alone)
    with anyio.fail_after(20):
        assert await probe_external(game, warnings) is None
    assert len(warnings) == 1 and "profile 'b' could not tell" in warnings[0], warnings


async def test_a_launcher_that_ends_at_once_is_first_looked_at_after_half_a_second(
    tmp_path: Path,
) -> None:
    # Go's first look at a spawned launcher is its first 0.5 s tick, whenever the launcher
    # ended: the workload a detaching launcher leaves behind has that long to show to the hook.
    launched, calls = tmp_path / "launched", tmp_path / "calls"
    stamp = "import sys, time; open(sys.argv[1], 'a').write(repr(time.time()) + '\\n')"
    lc, game = setup(
        tmp_path,
        args=["-c", stamp, str(launched)],
        lifecycle={
            "status": {
                "command": sys.executable,
                "args": ["-c", stamp + "; raise SystemExit(1)", str(calls)],
                "runningExitCodes": [0],
                "stoppedExitCodes": [1],
            }
        },
    )
    with pytest.raises(LifecycleError) as caught:
        await start(lc, game)
    assert caught.value.code == "exited_during_start", caught.value
    began = float(launched.read_text(encoding="utf-8"))
    after = [float(line) - began for line in calls.read_text(encoding="utf-8").split()]
    looks = [seconds for seconds in after if seconds > 0]
    assert looks and min(looks) >= 0.4, after
