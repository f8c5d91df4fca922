"""A reader that closes the pipe (``gabs games list | head -1``) ends ``gabs`` as it ends Go.

The Go bridge, writing to a closed stdout or stderr, is killed by SIGPIPE: no message, shell
status 141. The read end is closed before the child starts, so every write meets it closed.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGPIPE"), reason="POSIX signals")

_GABS = "from gabs.cli import main; main()"


def _run_with_closed(
    stream: str, args: list[str], home: Path, **env: str
) -> subprocess.CompletedProcess[bytes]:
    read_end, write_end = os.pipe()
    os.close(read_end)
    other = "stderr" if stream == "stdout" else "stdout"
    try:
        return subprocess.run(
            [sys.executable, "-c", _GABS, *args],
            stdin=subprocess.DEVNULL,
            env={**os.environ, "HOME": str(home), **env},
            timeout=60,
            check=False,
            **{stream: write_end, other: subprocess.PIPE},  # type: ignore[arg-type]
        )
    finally:
        os.close(write_end)


@pytest.fixture
def config_dir(tmp_path: Path) -> Path:
    games = {
        f"g{index:03d}": {"id": f"g{index:03d}", "launchMode": "DirectPath", "target": "/bin/sh"}
        for index in range(200)
    }
    (tmp_path / "config.json").write_text(json.dumps({"version": "1.0", "games": games}))
    return tmp_path


@pytest.mark.parametrize("unbuffered", ["", "1"])
def test_games_list_into_a_closed_pipe_dies_of_sigpipe_silently(
    config_dir: Path, unbuffered: str
) -> None:
    env = {"PYTHONUNBUFFERED": unbuffered} if unbuffered else {}
    done = _run_with_closed(
        "stdout", ["games", "list", "--configDir", str(config_dir)], config_dir, **env
    )
    assert done.returncode == -signal.SIGPIPE
    assert done.stderr == b""


def test_a_failure_line_into_a_closed_stdout_also_dies_of_sigpipe(config_dir: Path) -> None:
    done = _run_with_closed(
        "stdout", ["games", "show", "missing", "--configDir", str(config_dir)], config_dir
    )
    assert (done.returncode, done.stderr) == (-signal.SIGPIPE, b"")


def test_a_usage_error_into_a_closed_stderr_dies_of_sigpipe(config_dir: Path) -> None:
    done = _run_with_closed("stderr", ["games", "bogus"], config_dir)
    assert (done.returncode, done.stdout) == (-signal.SIGPIPE, b"")


def test_an_open_pipe_still_gets_everything(config_dir: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _GABS, "games", "list", "--configDir", str(config_dir)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        env={**os.environ, "HOME": str(config_dir)},
        timeout=60,
        check=False,
    )
    assert done.returncode == 0
    assert done.stdout.decode().splitlines() == [f"g{index:03d}" for index in range(200)]
