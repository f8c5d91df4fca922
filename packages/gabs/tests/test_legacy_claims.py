"""gabs.runtime.legacy: runtime claims of older Go bridges (no ``schemaVersion``), read as they
are and normalized on the first lifecycle touch, over real files and real processes."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from gabs.config import GabsConfig
from gabs.games import GameManager
from gabs.launch import resolve
from gabs.lifecycle import Lifecycle, LifecycleError, start_game, stop_game
from gabs.runtime import SCHEMA_VERSION, ClaimError, RuntimeState, load_claim, save_claim
from gabs.runtime.claim import MAX_CLAIM_BYTES
from gabs.runtime.legacy import (
    LegacyContext,
    LegacyEndpoint,
    is_legacy,
    normalize,
    normalize_legacy_claim,
)
from lib_gab import GabpServer

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")

GAME = "g"
TOKEN = "5e" * 32
GABS = Path(sys.executable).parent / "gabs"
STUBBORN = (
    "import signal, sys; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('ready', "
    "flush=True); sys.stdin.read()"
)


def write_legacy(config_dir: Path, game_pid: int, stop_name: str = "") -> Path:
    """A claim as Go bridges before launch profiles wrote it: ownership, pid and name only."""
    folder = config_dir / GAME
    folder.mkdir(parents=True, exist_ok=True)
    document: dict[str, Any] = {
        "gameId": GAME,
        "status": "running",
        "ownerPid": 12345,
        "gamePid": game_pid,
        "updatedAt": "2026-01-02T03:04:05.123456789Z",
    }
    if stop_name:
        document["stopProcessName"] = stop_name
    path = folder / "runtime.json"
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    path.chmod(0o600)
    return path


def write_config(config_dir: Path, launch_mode: str = "DirectPath", **entry: Any) -> GabsConfig:
    game = {"id": GAME, "name": "G", "launchMode": launch_mode, "target": "/bin/true", **entry}
    document = {"version": "1.0", "games": {GAME: game}}
    (config_dir / "config.json").write_text(json.dumps(document), encoding="utf-8")
    return GabsConfig.load(config_dir)


@pytest.fixture
def live_process() -> Iterator[subprocess.Popen[bytes]]:
    """A live process that ignores SIGTERM (it ends when its stdin closes, or on SIGKILL)."""
    with subprocess.Popen(
        [sys.executable, "-c", STUBBORN], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    ) as process:
        assert process.stdout is not None and process.stdout.readline() == b"ready\n"
        yield process
        if process.poll() is None:
            process.kill()


def loaded(config_dir: Path) -> RuntimeState:
    claim = load_claim(config_dir / GAME)
    assert claim is not None
    return claim


def test_a_normalization_sets_what_the_go_bridge_sets_and_keeps_the_old_evidence(
    tmp_path: Path,
) -> None:
    write_legacy(tmp_path, 4242, "legacy-name")
    claim = loaded(tmp_path)
    assert is_legacy(claim)

    normalize(claim, launch_mode="SteamAppId", config_revision="sha256:rev12345678")

    assert (claim.schema_version, claim.phase, claim.source, claim.profile) == (
        SCHEMA_VERSION,
        "active",
        "gabs",
        "",
    )
    assert len(claim.launch_id) >= 16 and claim.generation >= 1
    assert (claim.launch_mode, claim.pid_role) == ("SteamAppId", "helper")
    assert (claim.game_pid, claim.stop_process_name, claim.pid_start_time) == (
        4242,
        "legacy-name",
        0,
    )
    assert (claim.graceful_strategy, claim.force_strategy) == ("sigterm", "sigkill")
    assert (claim.normalized_from_legacy, claim.config_revision) == (True, "sha256:rev12345678")
    assert claim.applied_input_names == [] and not is_legacy(claim)
    written = claim.to_json()
    assert written["normalizedFromLegacy"] is True and written["schemaVersion"] == SCHEMA_VERSION


async def test_a_second_touch_changes_nothing_and_offers_no_endpoint_again(tmp_path: Path) -> None:
    write_legacy(tmp_path, 0)
    (tmp_path / GAME / "bridge.json").write_text(
        json.dumps({"port": 45123, "token": TOKEN, "gameId": GAME}), encoding="utf-8"
    )
    folder = tmp_path / GAME

    first, candidate = await normalize_legacy_claim(
        folder, LegacyContext("DirectPath", "sha256:rev1"), capture_endpoint=True
    )
    second, again = await normalize_legacy_claim(
        folder, LegacyContext("DirectPath", "sha256:rev2"), capture_endpoint=True
    )

    assert candidate == LegacyEndpoint(45123, TOKEN) and TOKEN not in repr(candidate)
    assert again is None
    assert first is not None and second is not None
    assert (second.launch_id, second.config_revision) == (first.launch_id, "sha256:rev1")
    assert (loaded(tmp_path).launch_id, loaded(tmp_path).pid_role) == (first.launch_id, "workload")


async def test_a_claim_with_any_schema_marker_is_never_migrated(tmp_path: Path) -> None:
    for version in (1, SCHEMA_VERSION, 3):
        save_claim(
            tmp_path / GAME,
            RuntimeState(GAME, status="running", phase="active", launch_id="launch-1"),
        )
        path = tmp_path / GAME / "runtime.json"
        document = json.loads(path.read_text(encoding="utf-8"))
        document["schemaVersion"] = version
        path.write_text(json.dumps(document), encoding="utf-8")

        claim, candidate = await normalize_legacy_claim(
            tmp_path / GAME, LegacyContext("SteamAppId", "sha256:other")
        )

        assert claim is not None and candidate is None
        assert (claim.launch_id, claim.normalized_from_legacy, claim.launch_mode) == (
            "launch-1",
            False,
            "",
        )


def test_status_reads_a_legacy_claim_without_changing_it(
    tmp_path: Path, live_process: subprocess.Popen[bytes]
) -> None:
    write_config(tmp_path)
    path = write_legacy(tmp_path, live_process.pid)
    before = path.read_bytes()

    shown = subprocess.run(
        [str(GABS), "games", "status", GAME, "--configDir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert shown.returncode == 0, shown.stderr
    assert f"{GAME}: running" in shown.stdout
    assert "no start-time fingerprint recorded; legacy claim" in shown.stdout
    assert path.read_bytes() == before


async def test_a_stop_normalizes_the_claim_first_and_keeps_it_when_the_game_survives(
    tmp_path: Path, live_process: subprocess.Popen[bytes]
) -> None:
    config = write_config(tmp_path, "CustomCommand")
    write_legacy(tmp_path, live_process.pid)
    lc = Lifecycle(config.config_dir, config.settings, cli=True)

    with anyio.fail_after(30):
        outcome = await stop_game(
            lc,
            GAME,
            "stop",
            verify_window=1,
            legacy=LegacyContext("CustomCommand", config.revision),
        )

    assert outcome is not None
    assert outcome.code == "action_succeeded_running", outcome
    claim = loaded(tmp_path)
    assert (claim.schema_version, claim.normalized_from_legacy, claim.phase) == (
        SCHEMA_VERSION,
        True,
        "active",
    )
    assert (claim.launch_mode, claim.config_revision, claim.game_pid) == (
        "CustomCommand",
        config.revision,
        live_process.pid,
    )
    assert claim.last_action_result is not None
    assert claim.last_action_result.outcome == "action_succeeded_running"
    launch = claim.launch_id

    os.kill(live_process.pid, signal.SIGKILL)
    live_process.wait(timeout=10)
    with anyio.fail_after(30):
        killed = await stop_game(lc, GAME, "kill", verify_window=5)
    assert killed is not None and killed.code == "terminated"
    assert load_claim(tmp_path / GAME) is None and launch


def test_the_cli_stop_of_a_legacy_claim_ends_the_game(tmp_path: Path) -> None:
    write_config(tmp_path)
    with subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE
    ) as game:
        write_legacy(tmp_path, game.pid)
        stopped = subprocess.run(
            [str(GABS), "games", "stop", GAME, "--configDir", str(tmp_path)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert game.wait(timeout=10) == -signal.SIGTERM
    assert stopped.returncode == 0, stopped.stderr
    assert f"{GAME}: terminated" in stopped.stdout
    assert load_claim(tmp_path / GAME) is None


async def test_a_connect_migrates_the_endpoint_of_the_old_bridge_file_once(
    tmp_path: Path,
) -> None:
    game = GabpServer(app_name="Old", app_version="1", agent_id="old", token=TOKEN)

    @game.tool("old/ping", description="Answer pong.")
    def ping() -> str:
        return "pong"

    config = write_config(tmp_path, "CustomCommand")
    async with game.running() as address:
        assert address.port is not None
        write_legacy(tmp_path, os.getpid())  # this process stands in for the running game
        (tmp_path / GAME / "bridge.json").write_text(
            json.dumps({"port": address.port, "token": TOKEN, "gameId": GAME}),
            encoding="utf-8",
        )
        with anyio.fail_after(30):
            async with GameManager(config, liveness_interval=60) as manager:
                connected = await manager.connect(GAME, timeout=10)
                claim = loaded(tmp_path)
                again = await manager.connect(GAME, timeout=10)

    assert connected["connected"] is True and connected["toolCount"] == 1
    assert (claim.endpoint_port, claim.endpoint_token) == (address.port, TOKEN)
    assert (claim.normalized_from_legacy, claim.schema_version) == (True, SCHEMA_VERSION)
    assert claim.attachment is not None
    assert again["connected"] is True
    assert loaded(tmp_path).launch_id == claim.launch_id


async def test_a_connect_to_a_dead_legacy_endpoint_fails_and_does_not_offer_it_again(
    tmp_path: Path,
) -> None:
    config = write_config(tmp_path, "CustomCommand")
    write_legacy(tmp_path, os.getpid())
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    (tmp_path / GAME / "bridge.json").write_text(
        json.dumps({"port": port, "token": TOKEN, "gameId": GAME}), encoding="utf-8"
    )
    with anyio.fail_after(30):
        async with GameManager(config, liveness_interval=60) as manager:
            with pytest.raises(LifecycleError) as failed:
                await manager.connect(GAME, timeout=1)
            with pytest.raises(LifecycleError) as retried:
                await manager.connect(GAME, timeout=1)
    assert failed.value.code == "blocked_unknown_state"
    claim = loaded(tmp_path)
    assert (claim.normalized_from_legacy, claim.has_endpoint) == (True, False)
    # the old bridge file is offered once: the retry finds no endpoint in the claim
    assert retried.value.code == "endpoint_unavailable"


async def test_a_start_normalizes_a_live_legacy_claim_and_answers_already_running(
    tmp_path: Path, live_process: subprocess.Popen[bytes]
) -> None:
    config = write_config(tmp_path, "CustomCommand")
    write_legacy(tmp_path, live_process.pid)
    lc = Lifecycle(config.config_dir, config.settings, cli=True)
    game = config.game(GAME)

    with anyio.fail_after(30), pytest.raises(LifecycleError) as refused:
        await start_game(lc, game, resolve(game, revision=config.revision), gabp_timeout=5)

    assert refused.value.code == "already_running"
    claim = loaded(tmp_path)
    assert (claim.normalized_from_legacy, claim.launch_mode, claim.config_revision) == (
        True,
        "CustomCommand",
        config.revision,
    )
    assert claim.game_pid == live_process.pid


def test_reading_a_claim_others_may_read_makes_it_private(tmp_path: Path) -> None:
    path = write_legacy(tmp_path, 0)
    path.chmod(0o644)

    claim = loaded(tmp_path)

    assert claim.game_id == GAME and is_legacy(claim)
    assert path.stat().st_mode & 0o777 == 0o600


def test_a_claim_file_far_too_large_is_refused_as_corrupt(tmp_path: Path) -> None:
    path = write_legacy(tmp_path, 0)
    with path.open("ab") as grow:
        grow.truncate(MAX_CLAIM_BYTES + 1)

    with pytest.raises(ClaimError, match="at most"):
        load_claim(tmp_path / GAME)
