"""gabs.lifecycle.gate: a start holds its fresh claim before it probes for an instance running
outside GABS, as the Go bridge's start gate does; the claim of an instance found by name
carries no hooks; a claim is published only where there is none; and a claim judged stale (by a
start or a status) is removed only while it is still exactly the claim judged."""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest

from gabs.config import GabsConfig, GameConfig
from gabs.launch import resolve
from gabs.lifecycle import Lifecycle, LifecycleError, gate, observe, start_game, stop_game
from gabs.runtime import Evidence, Operation, RuntimeState, load_claim, save_claim
from gabs.runtime.claim import utcnow
from gabs.runtime.procs import fingerprint

observe_module = importlib.import_module("gabs.lifecycle.observe")

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")

# A status hook that notes each run, then says "stopped" once the test lets it go.
SLOW_STATUS = (
    "import pathlib, sys, time; here = pathlib.Path(sys.argv[1]); "
    "open(here / 'calls', 'a').write('run\\n'); end = time.monotonic() + 10\n"
    "while not (here / 'release').exists() and time.monotonic() < end:\n"
    "    time.sleep(0.02)\n"
    "sys.exit(1)"
)


def configure(tmp_path: Path, **entry: Any) -> GabsConfig:
    document = {
        "games": {
            "g": {"name": "G", "launchMode": "CustomCommand", "target": sys.executable, **entry}
        }
    }
    (tmp_path / "config.json").write_text(json.dumps(document), encoding="utf-8")
    config = GabsConfig.load(tmp_path)
    assert config.broken == {}, config.broken
    return config


async def appears(path: Path) -> None:
    """Wait (10 s at most) until ``path`` holds a whole line: the hook creates the file before
    it writes to it, and a loaded machine can let a reader in between."""
    with anyio.fail_after(10):
        while True:
            file = anyio.Path(path)
            if await file.exists() and (await file.read_text(encoding="utf-8")).endswith("\n"):
                return
            await anyio.sleep(0.02)


def run_outside(program: Path) -> subprocess.Popen[bytes]:
    """A process started by hand, outside any bridge."""
    return subprocess.Popen([str(program), "60"])


def live_step(operation_id: str, action: str) -> Operation:
    """A step in flight, run by this (live) process, five minutes from its deadline."""
    return Operation(
        operation_id=operation_id,
        action=action,
        executor_pid=os.getpid(),
        executor_pid_start_time=fingerprint(os.getpid()),
        attempt_started_at=utcnow(),
        deadline=utcnow() + timedelta(minutes=5),
    )


def stop_admitted_meanwhile(folder: Path, real_evaluate: Any) -> Any:
    """An ``evaluate`` that, judging a claim without a step, first admits a stop on it (the
    same launch, its generation moved on) and then finds its process gone."""

    async def evaluate(claim: RuntimeState, **options: Any) -> Evidence:
        if claim.operation is not None:
            return await real_evaluate(claim, **options)
        current = load_claim(folder)
        assert current is not None
        current.phase, current.generation = "stopping", current.generation + 1
        current.operation = live_step("stop-1", "stop")
        save_claim(folder, current)
        return Evidence("stopped", "pid_fingerprint", "the recorded process is gone")

    return evaluate


async def start(lc: Lifecycle, game: GameConfig) -> Any:
    with anyio.fail_after(30):
        return await start_game(lc, game, resolve(game), gabp_timeout=5)


async def test_a_second_start_while_the_first_probes_is_operation_in_progress(
    tmp_path: Path,
) -> None:
    hook = {"command": sys.executable, "args": ["-c", SLOW_STATUS, str(tmp_path)]}
    config = configure(
        tmp_path, args=["-c", "import time; time.sleep(60)"], lifecycle={"status": hook}
    )
    game = config.game("g")
    first = Lifecycle(config.config_dir, config.settings, cli=True)
    second = Lifecycle(config.config_dir, config.settings, cli=True)
    calls = tmp_path / "calls"
    started: list[Any] = []

    async def first_start() -> None:
        started.append(await start(first, game))

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(first_start)
            await appears(calls)
            with pytest.raises(LifecycleError) as caught:
                await start(second, game)
            probes = calls.read_text(encoding="utf-8").splitlines()
            (tmp_path / "release").touch()
        refusal = caught.value
        claim = load_claim(tmp_path / "g")
        assert claim is not None and started and started[0].claim.launch_id == claim.launch_id
        # the first start's claim was already there: the second neither probed nor launched
        assert (refusal.code, refusal.data["phase"], probes) == (
            "operation_in_progress",
            "starting",
            ["run"],
        )
        assert refusal.message.startswith("g is already starting: a start operation begun ")
    finally:
        (tmp_path / "release").touch()
        await stop_game(first, "g", "kill")


async def test_an_instance_found_by_name_is_tracked_by_name_not_by_the_default_hooks(
    tmp_path: Path,
) -> None:
    # a name of its own: a stop by name ends every process of that name on the machine
    name = f"ext{uuid.uuid4().hex[:12]}"
    program = tmp_path / name
    shutil.copy(shutil.which("sleep") or "/bin/sleep", program)
    says_stopped = {"command": sys.executable, "args": ["-c", "raise SystemExit(1)"]}
    config = configure(
        tmp_path,
        args=["-c", "pass"],
        stopProcessName=name,
        lifecycle={"status": says_stopped},
    )
    game = config.game("g")
    lc = Lifecycle(config.config_dir, config.settings, cli=True)
    outside = run_outside(program)
    try:
        with pytest.raises(LifecycleError) as caught:
            await start(lc, game)
        assert caught.value.code == "external_instance_detected"
        claim = load_claim(tmp_path / "g")
        assert claim is not None
        assert (claim.observed_profile, claim.lifecycle, claim.generation) == ("unknown", None, 2)
        # as Go's: no hook is pinned for an instance no profile answered for, so the default
        # profile's "stopped" does not drop it; the process of that name keeps it running
        with anyio.fail_after(20):
            seen = await observe(lc, "g")
        assert (seen.status, load_claim(tmp_path / "g") is not None) == ("running", True)
    finally:
        outside.kill()
        outside.wait(10)


async def test_a_claim_that_moves_on_while_it_is_judged_is_judged_again_not_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = configure(tmp_path, args=["-c", "import time; time.sleep(60)"])
    game = config.game("g")
    lc = Lifecycle(config.config_dir, config.settings, cli=True)
    folder = tmp_path / "g"
    save_claim(
        folder,
        RuntimeState(
            game_id="g", status="running", launch_id="old", phase="active", spawn_state="spawned"
        ),
    )
    # while the start judges the claim, a stop is admitted on it (as Go's generation fence
    # sees it: the same launch, moved on)
    monkeypatch.setattr(gate, "evaluate", stop_admitted_meanwhile(folder, gate.evaluate))
    with pytest.raises(LifecycleError) as caught:
        await start(lc, game)
    claim = load_claim(folder)
    assert claim is not None and claim.operation is not None
    assert (caught.value.code, caught.value.data["phase"], claim.operation.operation_id) == (
        "operation_in_progress",
        "stopping",
        "stop-1",
    )


async def test_a_fresh_claim_never_replaces_one_published_meanwhile_without_the_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The Go bridge links its claim into place without taking the transition lock: one that
    # appears after this start looked must survive, and be judged.
    config = configure(tmp_path, args=["-c", "import time; time.sleep(60)"])
    game = config.game("g")
    lc = Lifecycle(config.config_dir, config.settings, cli=True)
    folder = tmp_path / "g"
    theirs = RuntimeState(
        game_id="g",
        launch_id="go-launch",
        operation=live_step("go-start", "start"),
    )
    real_load = gate.load_claim
    looks: list[str] = []

    def appears_after_the_look(path: Path) -> RuntimeState | None:
        # it appears after the first look, and a second look (the old check under the lock)
        # still misses it, as a link between that check and the write would
        if len(looks) < 2:
            if not looks:
                save_claim(folder, theirs)
            looks.append("missed")
            return None
        return real_load(path)

    monkeypatch.setattr(gate, "load_claim", appears_after_the_look)
    try:
        with pytest.raises(LifecycleError) as caught:
            await start(lc, game)
    finally:
        claim = load_claim(folder)
        if claim is not None and claim.launch_id != "go-launch":
            await stop_game(lc, "g", "kill")
    assert claim is not None and claim.launch_id == "go-launch"
    assert caught.value.code == "operation_in_progress"


async def test_a_status_never_removes_a_claim_a_stop_took_while_it_was_judged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As Go's fenced status-side removal: a claim judged stopped is removed only if no step
    # was admitted on it meanwhile.
    config = configure(tmp_path, args=["-c", "pass"])
    lc = Lifecycle(config.config_dir, config.settings, cli=True)
    folder = tmp_path / "g"
    save_claim(
        folder,
        RuntimeState(
            game_id="g", status="running", launch_id="old", phase="active", spawn_state="spawned"
        ),
    )
    evaluate = stop_admitted_meanwhile(folder, observe_module.evaluate)
    monkeypatch.setattr(observe_module, "evaluate", evaluate)
    with anyio.fail_after(20):
        seen = await observe(lc, "g")
    claim = load_claim(folder)
    assert claim is not None and claim.operation is not None
    assert (seen.status, claim.operation.operation_id) == ("stopping", "stop-1")
