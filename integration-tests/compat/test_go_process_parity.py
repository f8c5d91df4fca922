"""Runtime claims as the Go bridge's process layer writes and finds them: a start's fresh claim
names its owner with no lease of its own (other bridges count the lease from
``ownerLastActive``), and the all-games status passes over a folder whose name is no game id."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest

from .harness import ConfigDir, OpenBridge, start_game
from .results import data, text_of

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")

ZERO_TIME = "0001-01-01T00:00:00Z"

# A status hook that keeps a copy of the claim it finds on its first run (the start's probe),
# then says "stopped" (exit 1).
COPY_CLAIM = (
    "import os, shutil, sys\n"
    "if not os.path.exists(sys.argv[2]):\n"
    "    shutil.copy(sys.argv[1], sys.argv[2])\n"
    "sys.exit(1)"
)


async def test_a_fresh_claim_names_its_owner_without_a_lease(
    open_bridge: OpenBridge, config_dir: ConfigDir, tmp_path: Path
) -> None:
    seen = tmp_path / "seen.json"
    claim_file = config_dir.path / "compat" / "runtime.json"
    hook = {"command": sys.executable, "args": ["-c", COPY_CLAIM, str(claim_file), str(seen)]}
    config_dir.game("compat", lifecycle={"status": hook})
    with anyio.fail_after(120):
        async with open_bridge(config_dir) as client:
            await start_game(client)
            running = json.loads(claim_file.read_text(encoding="utf-8"))
            await client.call_tool("games_kill", {"gameId": "compat"})
    fresh = json.loads(seen.read_text(encoding="utf-8"))
    assert (fresh["phase"], fresh["spawnState"]) == ("starting", "preflight"), fresh
    assert fresh["ownerPid"] > 0 and fresh["ownerInstanceId"], fresh
    # Go's NewRuntimeState: ownerLastActive is stamped, ownerLeaseUntil stays the zero time
    assert fresh["ownerLeaseUntil"] == ZERO_TIME, fresh
    assert fresh["ownerLastActive"] != ZERO_TIME, fresh
    # the start that verifies the game takes the lease
    assert running["phase"] == "active" and running["ownerLeaseUntil"] != ZERO_TIME, running


@pytest.mark.parametrize("name", ["odd\\id", "c:drive"])
async def test_the_status_of_all_games_passes_over_a_folder_that_is_no_game_id(
    open_bridge: OpenBridge, config_dir: ConfigDir, name: str
) -> None:
    config_dir.game("compat")
    config_dir.write()
    folder = config_dir.path / name
    folder.mkdir()
    claim = {"gameId": name, "status": "running", "ownerPid": 0, "schemaVersion": 2}
    (folder / "runtime.json").write_text(json.dumps(claim), encoding="utf-8")
    with anyio.fail_after(60):
        async with open_bridge(config_dir) as client:
            status = await client.call_tool("games_status", {})
    assert [game["gameId"] for game in data(status)["games"]] == ["compat"], text_of(status)
    assert "runtimeClaimScanError" not in data(status), text_of(status)
