"""How often a ``games kill`` from the shell asks the status hook while it verifies: the Go
bridge 1.1.0 runs one round of evidence, then waits ``stopVerifyPollInterval`` (500 ms) before
the next, so a hook that keeps answering "running" runs about twice a second, not more."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

from .harness import ConfigDir
from .results import process_alive

#: A status hook that notes each run and answers with the code in ``HOOK_RC_FILE`` (1,
#: stopped, while the file is missing: a start is not refused as an external instance).
HOOK = (
    "import os, sys\n"
    "open(os.environ['HOOK_LOG'], 'a').write('run\\n')\n"
    "rc = os.environ['HOOK_RC_FILE']\n"
    "sys.exit(int(open(rc).read()) if os.path.exists(rc) else 1)\n"
)


def test_a_kill_verifies_with_go_s_half_second_rounds(
    tmp_path: Path, config_dir: ConfigDir, gabs_cli: Any
) -> None:
    log, rc = tmp_path / "status-hook.log", tmp_path / "status-rc"
    hook_env = {"HOOK_LOG": str(log), "HOOK_RC_FILE": str(rc)}
    config_dir.game(
        "compat",
        lifecycle={
            "status": {"command": sys.executable, "args": ["-c", HOOK], "env": hook_env},
            # The kill "succeeds" and leaves the game running: verification runs its window.
            "kill": {"command": sys.executable, "args": ["-c", "pass"], "verifyTimeoutSeconds": 2},
        },
    )
    started = gabs_cli(config_dir, "games", "start", "compat")
    assert started.returncode == 0, started.stderr
    deadline = time.monotonic() + 20
    pid = config_dir.game_pid("compat")
    while pid is None and time.monotonic() < deadline:
        time.sleep(0.05)
        pid = config_dir.game_pid("compat")
    assert pid is not None
    try:
        rc.write_text("0", encoding="utf-8")  # the hook now says the game runs
        before = len(log.read_text(encoding="utf-8").splitlines())
        killed = gabs_cli(config_dir, "games", "kill", "compat")
        rounds = len(log.read_text(encoding="utf-8").splitlines()) - before
        assert killed.stdout.startswith("compat: action_succeeded_running"), killed
        # 2 s of rounds 500 ms apart: four or five (a 250 ms pace would run eight or nine).
        assert 2 <= rounds <= 5, rounds
    finally:
        if process_alive(pid):
            os.kill(pid, signal.SIGKILL)
