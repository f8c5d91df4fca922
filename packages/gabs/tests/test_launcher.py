"""gabs.launcher: real game processes, the environment handoff, the log, waiting and stopping.

The game is a small Python script written to tmp_path. It reports what it saw (environment,
arguments, working directory) to a JSON file, writes to stdout and stderr, and then behaves as
its first argument says: ``serve`` listens on 127.0.0.1:$GABP_SERVER_PORT, ``exit`` prints 30
lines and exits 3, ``silent`` never listens, ``stubborn`` ignores SIGTERM and listens.
"""

from __future__ import annotations

import json
import re
import signal
import socket
import stat
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from gabs.config import AttentionSettings, GameConfig
from gabs.launcher import GameProcess, LaunchError, LaunchInfo, free_loopback_port

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and modes")

GAME_STUB = """\
import json, os, signal, socket, sys, time

mode = sys.argv[1] if len(sys.argv) > 1 else "serve"
names = ("GABP_SERVER_PORT", "GABP_TOKEN", "GABS_GAME_ID", "GABS_BRIDGE_PATH", "STUB_SETTING",
         "STUB_UNSET")
report = {"env": {name: os.environ.get(name) for name in names}, "argv": sys.argv[1:],
          "cwd": os.getcwd()}
with open(os.environ["STUB_REPORT"], "w", encoding="utf-8") as out:
    json.dump(report, out)
print("game: starting in mode " + mode, flush=True)
print("game: a warning on stderr", file=sys.stderr, flush=True)
deadline = time.monotonic() + 60  # never outlive a broken test for long
if mode == "exit":
    for i in range(30):
        print(f"line {i}", flush=True)
    sys.exit(3)
if mode == "stubborn":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
if mode in ("serve", "stubborn", "args"):
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", int(os.environ["GABP_SERVER_PORT"])))
    listener.listen()
    listener.settimeout(0.2)
    while time.monotonic() < deadline:
        try:
            listener.accept()[0].close()
        except socket.timeout:
            pass
else:
    while time.monotonic() < deadline:
        time.sleep(0.2)
"""

HEX64 = re.compile(r"[0-9a-f]{64}")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def stub(tmp_path: Path) -> Path:
    script = tmp_path / "game_stub.py"
    script.write_text(f"#!{sys.executable}\n{GAME_STUB}", encoding="utf-8")
    script.chmod(0o755)
    return script


@pytest.fixture
def config_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "gabs-config"
    directory.mkdir()
    return directory


def direct_game(stub: Path, tmp_path: Path, mode: str = "serve", **changes: Any) -> GameConfig:
    settings: dict[str, Any] = {
        "id": "stub",
        "name": "Stub",
        "launch_mode": "DirectPath",
        "target": str(stub),
        "args": [mode],
        "env": {"STUB_REPORT": str(tmp_path / "report.json"), "STUB_SETTING": "from-config"},
    }
    settings.update(changes)
    return GameConfig(**settings)


def report(tmp_path: Path) -> dict[str, Any]:
    result: dict[str, Any] = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    return result


@asynccontextmanager
async def launched(
    game: GameConfig, config_dir: Path, **kwargs: Any
) -> AsyncIterator[tuple[GameProcess, LaunchInfo]]:
    process = GameProcess(game, config_dir=config_dir, bridge_path="/opt/gabs/bin/gabs")
    info = await process.start(**kwargs)
    try:
        yield process, info
    finally:
        with anyio.fail_after(10):
            await process.kill()


# --- the handoff -----------------------------------------------------------------------------


async def test_the_game_gets_port_token_game_id_and_bridge_path_in_its_environment(
    stub: Path, tmp_path: Path, config_dir: Path
) -> None:
    game = direct_game(stub, tmp_path)
    async with launched(game, config_dir) as (process, info):
        with anyio.fail_after(10):
            await process.wait_for_port(10)
        assert HEX64.fullmatch(info.token)
        assert report(tmp_path) == {
            "env": {
                "GABP_SERVER_PORT": str(info.port),
                "GABP_TOKEN": info.token,
                "GABS_GAME_ID": "stub",
                "GABS_BRIDGE_PATH": "/opt/gabs/bin/gabs",
                "STUB_SETTING": "from-config",
                "STUB_UNSET": None,
            },
            "argv": ["serve"],
            "cwd": str(config_dir),
        }
        assert info == LaunchInfo(
            pid=process.pid or 0,
            port=info.port,
            token=info.token,
            command=(str(stub), "serve"),
            log_path=config_dir / "stub" / "game.log",
            started_at=info.started_at,
        )
        assert process.running


async def test_every_launch_gets_a_new_token_and_a_free_port(
    stub: Path, tmp_path: Path, config_dir: Path
) -> None:
    game = direct_game(stub, tmp_path)
    tokens, ports = [], []
    for _ in range(2):
        async with launched(game, config_dir) as (process, info):
            with anyio.fail_after(10):
                await process.wait_for_port(10)
            tokens.append(report(tmp_path)["env"]["GABP_TOKEN"])
            ports.append(info.port)
    assert tokens[0] != tokens[1]
    assert all(HEX64.fullmatch(token) for token in tokens)
    assert all(1024 <= port <= 65535 for port in ports)


async def test_the_token_is_not_in_the_launch_info_repr(
    stub: Path, tmp_path: Path, config_dir: Path
) -> None:
    async with launched(direct_game(stub, tmp_path, "silent"), config_dir) as (_, info):
        assert info.token not in repr(info)
        assert "token=" not in repr(info)


async def test_a_configured_port_explicit_port_and_token_are_used(
    stub: Path, tmp_path: Path, config_dir: Path
) -> None:
    configured = free_loopback_port()
    game = direct_game(stub, tmp_path, gabp_port=configured)
    async with launched(game, config_dir) as (process, info):
        assert info.port == configured
        with anyio.fail_after(10):
            await process.wait_for_port(10)
    explicit, token = free_loopback_port(), "ab" * 32
    async with launched(game, config_dir, port=explicit, token=token) as (process, info):
        with anyio.fail_after(10):
            await process.wait_for_port(10)
        assert (info.port, info.token) == (explicit, token)
        assert report(tmp_path)["env"]["GABP_SERVER_PORT"] == str(explicit)


async def test_game_env_cannot_override_the_handoff_and_unset_env_removes_variables(
    stub: Path, tmp_path: Path, config_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STUB_UNSET", "inherited")
    game = direct_game(stub, tmp_path, unset_env=["STUB_UNSET"])
    game = game.model_copy(update={"env": {**game.env, "GABP_TOKEN": "x", "GABS_GAME_ID": "y"}})
    async with launched(game, config_dir) as (process, info):
        with anyio.fail_after(10):
            await process.wait_for_port(10)  # the stub reports before it listens
        env = report(tmp_path)["env"]
        assert (env["GABP_TOKEN"], env["GABS_GAME_ID"], env["STUB_UNSET"]) == (
            info.token,
            "stub",
            None,
        )


async def test_bridge_json_holds_the_handoff_with_mode_0600(
    stub: Path, tmp_path: Path, config_dir: Path
) -> None:
    async with launched(direct_game(stub, tmp_path, "silent"), config_dir) as (_, info):
        path = config_dir / "stub" / "bridge.json"
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        document = json.loads(path.read_text(encoding="utf-8"))
        assert document == {
            "token": info.token,
            "transport": {"type": "tcp", "address": str(info.port)},
            "metadata": {
                "gameId": "stub",
                "pid": info.pid,
                "startedAt": info.started_at.isoformat(),
                "logPath": str(info.log_path),
                "bridgeVersion": "0.1.0",
            },
        }


# --- the log ---------------------------------------------------------------------------------


async def test_output_goes_to_game_log_with_a_header_per_launch_and_not_to_our_stdout(
    stub: Path, tmp_path: Path, config_dir: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    game = direct_game(stub, tmp_path)
    pids = []
    for _ in range(2):
        async with launched(game, config_dir) as (process, info):
            with anyio.fail_after(10):
                await process.wait_for_port(10)
            pids.append(info.pid)
    log = (config_dir / "stub" / "game.log").read_text(encoding="utf-8")
    headers = [line for line in log.splitlines() if line.startswith("--- ")]
    assert len(headers) == 4
    for index, pid in enumerate(pids):
        assert re.fullmatch(
            rf"--- gabs 0\.1\.0: launching stub at \S+ in {re.escape(str(config_dir))}: "
            rf"{re.escape(str(stub))} serve",
            headers[2 * index],
        )
        assert headers[2 * index + 1] == f"--- pid {pid}"
    assert log.count("game: starting in mode serve\n") == 2
    assert log.count("game: a warning on stderr\n") == 2
    assert info.token not in log
    assert capfd.readouterr() == ("", "")
    assert stat.S_IMODE((config_dir / "stub").stat().st_mode) == 0o700


# --- waiting for the GABP server -------------------------------------------------------------


async def test_wait_for_port_returns_once_the_game_listens_and_reports_progress(
    stub: Path, tmp_path: Path, config_dir: Path
) -> None:
    messages: list[str] = []
    game = direct_game(stub, tmp_path)
    async with launched(game, config_dir, progress=messages.append) as (process, info):
        with anyio.fail_after(10):
            await process.wait_for_port(10, progress=messages.append)
        with socket.create_connection(("127.0.0.1", info.port), timeout=5):
            pass
    assert messages[0] == f"starting stub: {stub} serve"
    assert messages[1] == f"started stub (pid {info.pid}); GABP port {info.port}"
    assert messages[-1] == f"stub: GABP server accepts connections on 127.0.0.1:{info.port}"


async def test_an_early_exit_is_reported_with_the_exit_code_and_the_log_tail(
    stub: Path, tmp_path: Path, config_dir: Path
) -> None:
    async with launched(direct_game(stub, tmp_path, "exit"), config_dir) as (process, info):
        with anyio.fail_after(10), pytest.raises(LaunchError) as caught:
            await process.wait_for_port(10)
    error = caught.value
    tail = "\n".join(f"line {i}" for i in range(10, 30))
    assert (error.kind, error.exit_code, error.game_id, error.log_tail) == (
        "exited",
        3,
        "stub",
        tail,
    )
    assert str(error) == (
        f"game 'stub' exited with code 3 before its GABP server accepted a connection on "
        f"127.0.0.1:{info.port}. Last lines of {config_dir / 'stub' / 'game.log'}:\n{tail}"
    )
    assert (process.running, process.returncode) == (False, 3)


async def test_a_game_that_never_listens_times_out_with_the_log_tail(
    stub: Path, tmp_path: Path, config_dir: Path
) -> None:
    async with launched(direct_game(stub, tmp_path, "silent"), config_dir) as (process, info):
        with anyio.fail_after(10), pytest.raises(LaunchError) as caught:
            await process.wait_for_port(0.5)
        assert process.running
    error = caught.value
    assert (error.kind, error.exit_code) == ("timeout", None)
    assert str(error).startswith(
        f"game 'stub' (pid {info.pid}) did not accept a GABP connection on "
        f"127.0.0.1:{info.port} within 0.5 s ("
    )
    assert error.log_tail.splitlines()[-2:] == [
        "game: starting in mode silent",
        "game: a warning on stderr",
    ]


async def test_waiting_before_starting_is_an_error(tmp_path: Path, config_dir: Path) -> None:
    process = GameProcess(direct_game(Path("/x"), tmp_path), config_dir=config_dir)
    with pytest.raises(LaunchError, match="was not started") as caught:
        await process.wait_for_port(1)
    assert caught.value.kind == "not_started"
    assert (process.running, process.pid, process.returncode, process.tail()) == (
        False,
        None,
        None,
        "",
    )
    assert await process.stop(1) is None


# --- stopping --------------------------------------------------------------------------------


async def test_stop_ends_the_game_with_sigterm_and_returns_its_code(
    stub: Path, tmp_path: Path, config_dir: Path
) -> None:
    async with launched(direct_game(stub, tmp_path), config_dir) as (process, _):
        with anyio.fail_after(10):
            await process.wait_for_port(10)
            assert await process.stop(5) == -signal.SIGTERM
        assert (process.running, process.returncode) == (False, -signal.SIGTERM)
        with anyio.fail_after(10):
            assert await process.stop(5) == -signal.SIGTERM  # stopping twice is harmless


async def test_a_game_ignoring_sigterm_is_killed_after_the_grace_period(
    stub: Path, tmp_path: Path, config_dir: Path
) -> None:
    async with launched(direct_game(stub, tmp_path, "stubborn"), config_dir) as (process, _):
        with anyio.fail_after(10):
            await process.wait_for_port(10)  # the SIGTERM handler is in place once it listens
            assert await process.stop(0.3) == -signal.SIGKILL
        assert not process.running


async def test_kill_ends_the_game_at_once(stub: Path, tmp_path: Path, config_dir: Path) -> None:
    async with launched(direct_game(stub, tmp_path, "stubborn"), config_dir) as (process, _):
        with anyio.fail_after(10):
            assert await process.kill() == -signal.SIGKILL
        assert (process.running, process.returncode) == (False, -signal.SIGKILL)


async def test_a_running_game_cannot_be_started_twice_but_can_be_restarted(
    stub: Path, tmp_path: Path, config_dir: Path
) -> None:
    async with launched(direct_game(stub, tmp_path, "silent"), config_dir) as (process, first):
        with pytest.raises(LaunchError, match=rf"already running \(pid {first.pid}\)") as caught:
            await process.start()
        assert caught.value.kind == "already_running"
        with anyio.fail_after(10):
            await process.stop(5)
        second = await process.start()
        assert (second.pid != first.pid, second.token != first.token) == (True, True)
        assert process.running


# --- launch modes ----------------------------------------------------------------------------


async def test_custom_command_runs_one_executable_with_literal_args_and_no_shell(
    stub: Path, tmp_path: Path, config_dir: Path
) -> None:
    args = [str(stub), "args", "$HOME", "a b; echo pwned", "*", "`id`"]
    game = direct_game(
        stub,
        tmp_path,
        launch_mode="CustomCommand",
        target=Path(sys.executable).name,
        args=args,
        working_dir=str(tmp_path),
        env={
            "STUB_REPORT": str(tmp_path / "report.json"),
            "PATH": str(Path(sys.executable).parent),
        },
    )
    async with launched(game, config_dir) as (process, info):
        with anyio.fail_after(10):
            await process.wait_for_port(10)
        assert info.command == (str(Path(sys.executable).parent / Path(sys.executable).name), *args)
        seen = report(tmp_path)
        assert (seen["argv"], seen["cwd"]) == (args[1:], str(tmp_path))


@pytest.mark.parametrize("mode", ["SteamAppId", "EpicAppId"])
async def test_store_launch_modes_are_refused_with_a_clear_message(
    tmp_path: Path, config_dir: Path, mode: str
) -> None:
    game = GameConfig.model_validate(
        {"id": "steamy", "name": "Steamy", "launchMode": mode, "target": "294100"}
    )
    process = GameProcess(game, config_dir=config_dir)
    with pytest.raises(LaunchError) as caught:
        await process.start()
    assert (caught.value.kind, str(caught.value)) == (
        "unsupported",
        f"game 'steamy' uses launch mode {mode}, which this bridge cannot start; use "
        "DirectPath (target: the game's executable) or CustomCommand (target: one "
        "executable, args: its arguments)",
    )
    assert not (config_dir / "steamy").exists()


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"target": ""}, "game 'stub' has an empty target: set it to the executable to run"),
        ({"target": "/no/such/game"}, "game 'stub': the executable '/no/such/game' does not exist"),
        (
            {"target": "no-such-game-binary-x", "launch_mode": "CustomCommand"},
            "game 'stub': no executable named 'no-such-game-binary-x' on PATH",
        ),
        (
            {"working_dir": "/no/such/dir"},
            "game 'stub': the working directory '/no/such/dir' does not exist",
        ),
    ],
)
async def test_a_missing_executable_or_directory_is_reported_before_launch(
    stub: Path, tmp_path: Path, config_dir: Path, changes: dict[str, Any], message: str
) -> None:
    process = GameProcess(direct_game(stub, tmp_path, **changes), config_dir=config_dir)
    with pytest.raises(LaunchError) as caught:
        await process.start()
    assert (caught.value.kind, str(caught.value)) == ("not_found", message)


@pytest.fixture
def unexecutable_stub(stub: Path) -> Path:
    stub.chmod(0o644)
    return stub


async def test_a_file_that_is_not_executable_is_refused(
    unexecutable_stub: Path, tmp_path: Path, config_dir: Path
) -> None:
    stub = unexecutable_stub
    process = GameProcess(direct_game(stub, tmp_path), config_dir=config_dir)
    with pytest.raises(LaunchError, match="is not executable"):
        await process.start()


async def test_a_relative_direct_path_is_found_from_the_working_directory(
    stub: Path, tmp_path: Path, config_dir: Path
) -> None:
    game = direct_game(
        stub, tmp_path, target=f"./{stub.name}", working_dir=str(tmp_path)
    ).model_copy(update={"attention": AttentionSettings(mode="observe")})
    async with launched(game, config_dir) as (process, info):
        assert info.command[0] == str(tmp_path / stub.name)
        with anyio.fail_after(10):
            await process.wait_for_port(10)


def test_free_loopback_port_can_be_bound_on_loopback() -> None:
    port = free_loopback_port()
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", port))
    assert 0 < port < 65536
