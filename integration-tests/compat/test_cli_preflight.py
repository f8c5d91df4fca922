"""A start publishes its claim before its pre-start probes run (the Go bridge's Stage 2:
phase ``starting``, ``spawnState`` ``preflight``), so a second process sees the start while
the probes run, and a start killed there leaves a claim the next status removes as stale."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from .harness import ConfigDir, bridge_environment

#: A status hook that marks that it runs, then takes its time (8 s, long enough for a second
#: command to see the start) and answers "stopped".
SLOW_HOOK = (
    "import pathlib, sys, time\npathlib.Path(sys.argv[1]).touch()\ntime.sleep(8)\nsys.exit(1)\n"
)


def test_a_start_killed_while_it_probes_leaves_a_claim_status_cleans(
    tmp_path: Path, config_dir: ConfigDir, gabs_cli: Any, bridge_command: list[str]
) -> None:
    marker = tmp_path / "probing"
    hook = {"command": sys.executable, "args": ["-c", SLOW_HOOK, str(marker)]}
    config_dir.game("compat", lifecycle={"status": hook})
    directory = config_dir.write()
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    start = subprocess.Popen(
        [*bridge_command, "games", "start", "compat", "--configDir", str(directory)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=bridge_environment(home),
    )
    try:
        deadline = time.monotonic() + 30
        while not marker.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert marker.exists(), "the pre-start probe never ran"
        claim = json.loads((directory / "compat" / "runtime.json").read_text(encoding="utf-8"))
        assert (claim["phase"], claim["spawnState"]) == ("starting", "preflight")
        # a second start meanwhile is refused at once, without probing again
        again = gabs_cli(config_dir, "games", "start", "compat")
        assert again.returncode == 1, again
        assert again.stderr.startswith(
            "operation_in_progress: compat is already starting: a start operation begun "
        ), again.stderr
    finally:
        start.send_signal(signal.SIGKILL)
        start.wait(timeout=30)
    status = gabs_cli(config_dir, "games", "status", "compat")
    assert (status.returncode, status.stdout) == (0, "compat: stale-runtime-cleaned\n")
    assert not (directory / "compat" / "runtime.json").exists()
    assert config_dir.launch_report("compat") is None  # nothing was spawned
