"""``gabs games start|stop|status`` against real game processes (rimbridge-sim and lib_gab's
legacy example). Each command runs in a process of its own, as from a shell, so a started game
must outlive the command that started it."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from gabp import Connection, new_id, read_bridge_config
from gabs.games_cli import pid_alive

BIN = Path(sys.executable).parent
SIM = BIN / ("rimbridge-sim.exe" if sys.platform == "win32" else "rimbridge-sim")

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and /proc")


def games(config_dir: Path, *argv: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gabs.games_cli", *argv, "--config-dir", str(config_dir)],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def write_config(config_dir: Path, **entries: dict[str, Any]) -> None:
    document = {
        "version": "1.0",
        "games": {
            game_id: {"id": game_id, "name": game_id.title(), "launchMode": "CustomCommand", **e}
            for game_id, e in entries.items()
        },
    }
    (config_dir / "config.json").write_text(json.dumps(document), encoding="utf-8")


SIM_ENTRY: dict[str, Any] = {
    "target": str(SIM),
    "args": ["--enable-test-tools"],
    "timeouts": {"startSeconds": 20, "stopGraceSeconds": 3},
}
LEGACY_ENTRY: dict[str, Any] = {
    "target": sys.executable,
    "args": ["-m", "lib_gab.legacy_example"],
    "timeouts": {"startSeconds": 20, "stopGraceSeconds": 3},
}


@pytest.fixture
def config_dir(tmp_path: Path) -> Iterator[Path]:
    write_config(tmp_path, sim=SIM_ENTRY, legacy=LEGACY_ENTRY)
    yield tmp_path
    # Never leave a game behind, whatever the test did.
    for pid_file in tmp_path.glob("*/pid"):
        with contextlib.suppress(ValueError, OSError):
            pid = int(pid_file.read_text().strip())
            if pid_alive(pid):
                os.killpg(pid, signal.SIGKILL)


def json_of(done: subprocess.CompletedProcess[str]) -> Any:
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


async def inject_error(config_dir: Path, game_id: str, message: str) -> None:
    """Act on the game directly over GABP (as another bridge would), opening attention."""
    bridge = read_bridge_config(config_dir / game_id / "bridge.json")
    stream = await anyio.connect_tcp("127.0.0.1", int(bridge.address))
    connection = Connection(stream, name="test")
    async with anyio.create_task_group() as tg:
        await tg.start(connection.run)
        await connection.request(
            "session/hello",
            {
                "token": bridge.token,
                "bridgeVersion": "test",
                "platform": "linux",
                "launchId": new_id(),
            },
        )
        await connection.request(
            "tools/call",
            {"name": "sim/inject_log", "arguments": {"level": "error", "message": message}},
        )
        await connection.aclose("done")
        tg.cancel_scope.cancel()


def test_start_leaves_the_game_running_and_status_and_stop_find_it(config_dir: Path) -> None:
    started = games(config_dir, "start", "sim", "--json")
    report = json_of(started)
    pid = report["pid"]
    assert report["status"] == "started" and report["running"] is True
    assert report["tools"] >= 34
    assert report["attention"]["supported"] is True and report["attention"]["open"] is False
    assert "waiting for the GABP server" in started.stderr or "accepts" in started.stderr

    # The command has exited; the game has not.
    assert pid_alive(pid)
    assert (config_dir / "sim" / "pid").read_text() == f"{pid}\n"
    assert (config_dir / "sim" / "bridge.json").stat().st_mode & 0o777 == 0o600

    status = json_of(games(config_dir, "status", "sim", "--json"))
    assert (status["running"], status["pid"], status["tools"]) == (True, pid, report["tools"])
    assert status["port"] == report["port"]

    listing = games(config_dir, "status")
    assert listing.returncode == 0
    assert listing.stdout.splitlines() == [
        "legacy: stopped",
        f"sim: running (pid {pid}, port {report['port']}); {report['tools']} tools; "
        "attention: none open (mode gate)",
    ]

    stopped = json_of(games(config_dir, "stop", "sim", "--json"))
    assert (stopped["status"], stopped["pid"]) == ("stopped", pid)
    assert not pid_alive(pid)
    assert not (config_dir / "sim" / "pid").exists()

    again = games(config_dir, "stop", "sim")
    assert (again.returncode, again.stdout) == (0, "sim is not running (no pid file)\n")


def test_status_reports_the_open_attention_item(config_dir: Path) -> None:
    pid = json_of(games(config_dir, "start", "sim", "--json"))["pid"]
    anyio.run(inject_error, config_dir, "sim", "Storage zone exploded")
    status = json_of(games(config_dir, "status", "sim", "--json"))
    attention = status["attention"]
    assert (attention["open"], attention["blocking"], attention["severity"]) == (
        True,
        True,
        "error",
    )
    assert "Storage zone exploded" in attention["summary"]
    text = games(config_dir, "status", "sim").stdout
    assert f"attention {attention['attentionId']} open (BLOCKING, error, mode gate)" in text
    assert games(config_dir, "stop", "sim", "--force").returncode == 0
    assert not pid_alive(pid)


def test_a_game_without_attention_says_so_and_force_stop_kills_it(config_dir: Path) -> None:
    report = json_of(games(config_dir, "start", "legacy", "--json"))
    assert report["attention"] == {"supported": False}
    assert report["tools"] == 2
    text = games(config_dir, "status", "legacy").stdout
    assert text.endswith("2 tools; attention: not supported\n")
    stopped = json_of(games(config_dir, "stop", "legacy", "--force", "--json"))
    assert stopped["status"] == "killed"
    assert not pid_alive(report["pid"])


def test_starting_a_running_game_again_reports_it_and_starts_nothing(config_dir: Path) -> None:
    first = json_of(games(config_dir, "start", "sim", "--json"))
    second = json_of(games(config_dir, "start", "sim", "--json"))
    assert (second["status"], second["pid"]) == ("already_running", first["pid"])
    assert games(config_dir, "stop", "sim").returncode == 0


def test_a_stale_pid_file_never_signals_another_process(config_dir: Path) -> None:
    (config_dir / "sim").mkdir()
    (config_dir / "sim" / "pid").write_text(f"{os.getpid()}\n")
    status = json_of(games(config_dir, "status", "sim", "--json"))
    assert status["running"] is False and "stale pid file" in status["note"]
    stopped = games(config_dir, "stop", "sim")
    assert stopped.returncode == 0 and "stale pid file" in stopped.stdout
    assert pid_alive(os.getpid())


def test_a_game_that_exits_at_once_fails_the_start_with_its_exit_code(tmp_path: Path) -> None:
    write_config(
        tmp_path,
        broken={
            "target": sys.executable,
            "args": ["-c", "import sys; print('no GPU found', file=sys.stderr); sys.exit(3)"],
        },
    )
    done = games(tmp_path, "start", "broken")
    assert done.returncode == 1
    assert "exited with code 3" in done.stderr and "no GPU found" in done.stderr
    assert not (tmp_path / "broken" / "pid").exists()


def test_usage_and_config_errors_exit_2(tmp_path: Path) -> None:
    write_config(tmp_path, sim=SIM_ENTRY)
    unknown = games(tmp_path, "start", "nope")
    assert unknown.returncode == 2 and "no game 'nope' is configured" in unknown.stderr
    write_config(tmp_path, steam={"launchMode": "SteamAppId", "target": "294100"})
    assert games(tmp_path, "start", "steam").returncode == 2
    (tmp_path / "config.json").write_text("{not json")
    assert games(tmp_path, "status").returncode == 2
