"""``config.json`` and ``bridge.json`` as the Go bridge 1.1.0's own tests pin them
(``internal/config/*_test.go``), with the Go bridge's answers taken from runs of both bridges
side by side."""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from gabs.cli import main
from gabs.runtime import endpoint as endpoint_module
from gabs.runtime.endpoint import EndpointError, prepare_endpoint, stamp_bridge_file

GAME = "g"

#: ``bridge.json`` of a started game as the Go bridge writes it: the struct's field order,
#: ``json.MarshalIndent`` with two spaces, no final newline.
GO_STAMPED = (
    "{\n"
    '  "port": 23456,\n'
    '  "token": "TOKEN",\n'
    '  "gameId": "g",\n'
    '  "profile": "combat",\n'
    '  "configRevision": "sha256:6e593f91019b",\n'
    '  "startedAt": "2026-07-22T10:00:00Z"\n'
    "}"
)

#: Holds ``bridge.lock`` with ``flock``, as another bridge process does, until stdin closes.
HOLDER = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
sys.stdin.read()
"""


# TestStampBridgeDiagnosticsUsesBindingKeyName and the BridgeJSON struct: the keys in the Go
# bridge's order, profile before configRevision and startedAt, and no final newline.
def test_a_stamped_bridge_file_has_the_go_bridges_bytes(tmp_path: Path) -> None:
    folder = tmp_path / GAME
    ready = prepare_endpoint(folder, GAME)
    assert (folder / "bridge.json").read_text(encoding="utf-8") == (
        f'{{\n  "port": {ready.port},\n  "token": "{ready.token}",\n  "gameId": "g"\n}}'
    )
    stamp_bridge_file(
        folder,
        port=ready.port,
        token=ready.token,
        profile="combat",
        revision="sha256:6e593f91019b",
        started_at="2026-07-22T10:00:00Z",
    )
    written = (folder / "bridge.json").read_text(encoding="utf-8")
    expected = GO_STAMPED.replace("23456", str(ready.port)).replace("TOKEN", ready.token)
    assert written == expected


# omitempty: a launch without a profile writes no "profile" key; a stale one is not kept.
def test_a_stamp_without_a_profile_writes_no_profile_key(tmp_path: Path) -> None:
    folder = tmp_path / GAME
    ready = prepare_endpoint(folder, GAME)
    (folder / "bridge.json").write_text(
        json.dumps({"port": ready.port, "token": ready.token, "gameId": GAME, "profile": "old"}),
        encoding="utf-8",
    )
    stamp_bridge_file(
        folder, port=ready.port, token=ready.token, profile="", revision="r", started_at="t"
    )
    data = json.loads((folder / "bridge.json").read_text(encoding="utf-8"))
    assert list(data) == ["port", "token", "gameId", "configRevision", "startedAt"]


# StampBridgeDiagnostics: a successor's token means nothing to say (ErrBridgeEndpointRotated is
# only logged); a file gone or unreadable, or a write that fails, is a problem the start reports
# ("bridge diagnostics could not be written for this launch: ...").
def test_a_stamp_says_why_it_could_not_write_and_is_silent_on_a_rotated_endpoint(
    tmp_path: Path,
) -> None:
    folder = tmp_path / GAME
    ready = prepare_endpoint(folder, GAME)

    def stamp() -> str | None:
        return stamp_bridge_file(
            folder, port=ready.port, token=ready.token, profile="", revision="r", started_at="t"
        )

    assert stamp() is None
    rotated = {"port": ready.port, "token": "b" * 64, "gameId": GAME}
    (folder / "bridge.json").write_text(json.dumps(rotated), encoding="utf-8")
    assert stamp() is None
    assert json.loads((folder / "bridge.json").read_text(encoding="utf-8")) == rotated
    (folder / "bridge.json").write_text("{not json", encoding="utf-8")
    problem = stamp()
    assert problem is not None and problem.startswith(f"{folder / 'bridge.json'}: ")
    (folder / "bridge.json").unlink()
    assert stamp() == f"open {folder / 'bridge.json'}: no such file or directory"
    assert not (folder / "bridge.json").exists()  # nothing is written for a file that is gone


# readBridgeJSONFile decodes into the BridgeJSON struct: a known key of the wrong type makes the
# file unreadable, so its port is not reused and a stamp on it is a problem to report.
@pytest.mark.parametrize(
    "odd", [{"profile": 5}, {"startedAt": ["t"]}, {"port": "1"}, {"configRevision": True}]
)
def test_a_bridge_file_with_a_key_of_the_wrong_type_is_unreadable(
    tmp_path: Path, odd: dict[str, object]
) -> None:
    folder = tmp_path / GAME
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        taken = held.getsockname()[1]  # a reused cached port would be refused as in use
        cached = {"port": taken, "token": "a" * 64, "gameId": GAME, **odd}
        folder.mkdir()
        (folder / "bridge.json").write_text(json.dumps(cached), encoding="utf-8")
        problem = stamp_bridge_file(
            folder, port=taken, token="a" * 64, profile="", revision="r", started_at="t"
        )
        assert problem is not None and problem.startswith(f"{folder / 'bridge.json'}: ")
        fresh = prepare_endpoint(folder, GAME)
    assert not fresh.reused and fresh.port != taken


# A game id that is not ASCII is written as the Go encoder writes it: the letters themselves.
def test_a_non_ascii_game_id_is_written_unescaped(tmp_path: Path) -> None:
    folder = tmp_path / "café"
    prepare_endpoint(folder, "café")
    assert '"gameId": "café"' in (folder / "bridge.json").read_text(encoding="utf-8")


@contextlib.contextmanager
def another_process_holding(lock: Path) -> Iterator[subprocess.Popen[str]]:
    """A process holding ``lock`` with ``flock`` until its stdin is closed."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(lock)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdin is not None and holder.stdout is not None
    try:
        assert holder.stdout.readline().strip() == "held"
        yield holder
    finally:
        if not holder.stdin.closed:
            holder.stdin.close()
        holder.stdout.close()
        try:
            holder.wait(10)
        except subprocess.TimeoutExpired:
            holder.kill()
            holder.wait()


@pytest.fixture
def held_bridge_lock(tmp_path: Path) -> Iterator[tuple[Path, subprocess.Popen[str]]]:
    """Another process holding ``<game>/bridge.lock``."""
    folder = tmp_path / GAME
    folder.mkdir()
    with another_process_holding(folder / "bridge.lock") as holder:
        yield folder, holder


# TestStampBlocksRotationAcrossProcesses: while another process holds bridge.lock (the Go
# bridge in the middle of its stamp), preparing the endpoint waits for it.
@pytest.mark.skipif(sys.platform == "win32", reason="flock")
def test_preparing_the_endpoint_waits_for_another_process_holding_bridge_lock(
    held_bridge_lock: tuple[Path, subprocess.Popen[str]],
) -> None:
    folder, holder = held_bridge_lock
    done = threading.Event()
    worker = threading.Thread(target=lambda: (prepare_endpoint(folder, GAME), done.set()))
    worker.start()
    assert not done.wait(0.3), "bridge.json was rewritten while another process held the lock"
    assert not (folder / "bridge.json").exists()
    assert holder.stdin is not None
    holder.stdin.close()
    assert done.wait(10)
    worker.join()
    assert json.loads((folder / "bridge.json").read_text(encoding="utf-8"))["gameId"] == GAME


# bridgeLockTimeout: a holder that never lets go is a bounded error, not a hang.
@pytest.mark.skipif(sys.platform == "win32", reason="flock")
def test_a_bridge_lock_held_past_the_timeout_is_an_endpoint_error(
    held_bridge_lock: tuple[Path, subprocess.Popen[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder, _ = held_bridge_lock
    monkeypatch.setattr(endpoint_module, "BRIDGE_LOCK_TIMEOUT", 0.2)
    started = time.monotonic()
    with pytest.raises(EndpointError, match=r"^bridge lock for g held past 5s$"):
        prepare_endpoint(folder, GAME)
    assert time.monotonic() - started < 5
    assert not (folder / "bridge.json").exists()


# TestStampBlocksRotationAcrossProcesses, the stamp side: a stamp waits for the lock too, and
# once a successor has rotated the token it writes nothing.
@pytest.mark.skipif(sys.platform == "win32", reason="flock")
def test_a_stale_stamp_waits_for_the_lock_and_then_leaves_the_successors_file(
    tmp_path: Path,
) -> None:
    folder = tmp_path / GAME
    first = prepare_endpoint(folder, GAME)
    with another_process_holding(folder / "bridge.lock") as holder:
        done = threading.Event()

        def stale_stamp() -> None:
            stamp_bridge_file(
                folder,
                port=first.port,
                token=first.token,
                profile="stale-A",
                revision="r",
                started_at="t",
            )
            done.set()

        worker = threading.Thread(target=stale_stamp)
        worker.start()
        assert not done.wait(0.3), "the stamp did not wait for the bridge lock"
        # The holder (a successor) rotates the token before it lets go.
        successor = {"port": first.port, "token": "b" * 64, "gameId": GAME}
        (folder / "bridge.json").write_text(json.dumps(successor), encoding="utf-8")
        assert holder.stdin is not None
        holder.stdin.close()
        assert done.wait(10)
        worker.join()
    assert json.loads((folder / "bridge.json").read_text(encoding="utf-8")) == successor
    assert (folder / "bridge.lock").stat().st_mode & 0o777 == 0o600


# TestPortSelectionSkipsBusyPorts and lifecycle.EndpointUnavailableError: a range whose only
# port is taken fails the start with the Go bridge's chain of messages, before any spawn.
def test_no_free_port_is_endpoint_unavailable_with_the_go_bridges_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        (tmp_path / "config.json").write_text(
            json.dumps(
                {
                    "version": "1.0",
                    "portRanges": {"customRanges": [{"min": port, "max": port}]},
                    "games": {
                        GAME: {
                            "id": GAME,
                            "name": "G",
                            "launchMode": "DirectPath",
                            "target": sys.executable,
                        }
                    },
                }
            ),
            encoding="utf-8",
        )
        with pytest.raises(SystemExit) as exited:
            main(["games", "start", GAME, "--configDir", str(tmp_path)])
    out, err = capsys.readouterr()
    assert (exited.value.code, out) == (1, "")
    assert err == (
        f"endpoint_unavailable: failed to prepare GABS endpoint for game '{GAME}': failed to "
        f"assign port: no available bridge port found: no available ports in range "
        f"{port}-{port}\n"
    )
    assert not (tmp_path / GAME / "runtime.json").exists()
