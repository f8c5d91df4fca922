"""``gabs server`` ends with exit status 0 on SIGTERM or SIGINT while it is still starting up
(importing the transport and opening the games takes a while), as the Go bridge 1.1.0 does; a
signal in that window used to end the process by the signal (-15) or with a traceback."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

# ``gabs server`` whose config load takes long (the start-up window, made wide and visible)
SLOW_START = """
import sys, time
from gabs import serving

def slow_load(config_dir):
    print("starting", flush=True)
    time.sleep(60)
    raise SystemExit(3)

serving.GabsConfig.load = slow_load
sys.exit(serving.serve(sys.argv[1], sys.argv[2]))
"""


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_while_the_server_starts_is_exit_status_0(
    tmp_path: Path, transport: str, signum: signal.Signals
) -> None:
    config = tmp_path / "config"
    config.mkdir()
    (config / "config.json").write_text(json.dumps({"version": "1.0", "games": {}}))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GABS_", "GABP_"))}
    env["HOME"] = str(tmp_path)
    with subprocess.Popen(
        [sys.executable, "-c", SLOW_START, str(config), transport],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    ) as process:
        assert process.stdout is not None
        assert process.stdout.readline() == b"starting\n"
        process.send_signal(signum)
        try:
            code = process.wait(timeout=30)
        finally:
            process.kill()
        assert process.stderr is not None
        assert code == 0, process.stderr.read().decode()
