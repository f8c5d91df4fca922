"""The launch-context delivery verdict through real launch chains (the conformance cells of the
Go bridge's test plan, T-DELIV), end to end.

A game (``handshake_game.py`` in its ``observed-script`` mode) reports in its welcome what its
process really received: its ``argv``, its working directory and the variables the bridge
named. It is launched directly and through ``sh`` wrappers of the shapes a launch chain takes
(one that forwards everything, a container-like boundary that forwards only
``GABS_FORWARD_ENV``'s names, one that forwards only the bridge's own names, a scrubbing re-exec
that keeps just the GABP endpoint, one that brings back a name the config unsets), and
``games_status`` must show the verdict those channels earn: never more than the chain
delivered. A launcher that puts the game in the background and exits leaves a start that is
adopted: the status hook keeps it running and the context still arrives whole. Checked side by
side with the Go bridge (GABS 1.1.0): both give every verdict below.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from .harness import HANDSHAKE_GAME, ConfigDir, OpenBridge, start_game
from .results import data

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="sh wrappers and a symlink")

GAME_TIMEOUT = 120
ARGS = ["--data-root", "two words", "\u00e9t\u00e9"]

#: ``GABS_FORWARD_ENV``'s names, each as the wrapper sees it, passed on through ``env -i``
#: (only the bridge's own names when MANAGED is set).
FILTER = """fwd=""
IFS=','
for name in $GABS_FORWARD_ENV; do
{only}  eval "val=\\$$name"
  fwd="$fwd $name=$val"
done
unset IFS
exec env -i $fwd "{probe}" "$@"
"""
MANAGED = '  case "$name" in GABS_*|GABP_*) ;; *) continue;; esac\n'

WRAPPERS = {
    "forwarding": 'exec "{probe}" "$@"\n',
    "filtering": FILTER.replace("{only}", ""),
    "managed-only": FILTER.replace("{only}", MANAGED),
    "scrubbing": 'exec env -i GABP_SERVER_PORT="$GABP_SERVER_PORT" GABP_TOKEN="$GABP_TOKEN" '
    '"{probe}" "$@"\n',
    "absent-reintroduced": 'exec env HOST_OVERRIDE=reintroduced "{probe}" "$@"\n',
    "detaching": '"{probe}" "$@" &\necho $! > "{folder}/game.pid"\nexit 0\n',
}
#: The detaching chain's hooks: the game's process, as the launcher wrote it down.
STATUS_HOOK = '#!/bin/sh\nkill -0 "$(cat "{folder}/game.pid")" 2>/dev/null && exit 0\nexit 1\n'
STOP_HOOK = '#!/bin/sh\nkill "$(cat "{folder}/game.pid")"\n'


def probe(folder: Path) -> Path:
    """The game as an executable of its own (a direct launch's ``argv[0]``)."""
    path = folder / "probe"
    path.write_text(
        f"#!{sys.executable}\n"
        "import os, runpy, sys\n"
        "os.environ['HANDSHAKE_MODE'] = 'observed-script'\n"
        f"sys.path.insert(0, {str(HANDSHAKE_GAME.parent)!r})\n"
        f"runpy.run_path({str(HANDSHAKE_GAME)!r}, run_name='__main__')\n",
        encoding="utf-8",
    )
    path.chmod(0o755)
    return path


def script(path: Path, text: str) -> Path:
    path.write_text(text.replace("{folder}", str(path.parent)), encoding="utf-8")
    path.chmod(0o755)
    return path


def launch_target(folder: Path, chain: str) -> Path:
    game = probe(folder)
    if chain == "direct":
        return game
    return script(
        folder / "wrapper.sh", "#!/bin/sh\n" + WRAPPERS[chain].replace("{probe}", str(game))
    )


async def launch(
    open_bridge: OpenBridge, config_dir: ConfigDir, chain: str, **extra: Any
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The start's and the status's results of the game launched through ``chain``."""
    folder = config_dir.path.parent / "chain"
    (folder / "real-cwd").mkdir(parents=True)
    (folder / "cwd").symlink_to(folder / "real-cwd")  # compared in canonical form
    config_dir.game(
        "hs",
        launchMode="DirectPath",
        target=str(launch_target(folder, chain)),
        args=ARGS,
        workingDir=str(folder / "cwd"),
        env={"CONTENT_SET": "combat"},
        unsetEnv=["HOST_OVERRIDE"],
        **extra,
    )
    with anyio.fail_after(GAME_TIMEOUT):
        async with open_bridge(config_dir) as client:
            started = await start_game(client, "hs")
            try:
                status = await client.call_tool("games_status", {"gameId": "hs"})
            finally:
                await client.call_tool("games_stop", {"gameId": "hs"})
    return data(started), data(status)


async def delivery(open_bridge: OpenBridge, config_dir: ConfigDir, chain: str) -> dict[str, Any]:
    _, status = await launch(open_bridge, config_dir, chain)
    verdict = status.get("contextDelivery")
    assert isinstance(verdict, dict), status
    return verdict


VERIFIED = {"argv": "verified", "cwd": "verified", "managedEnv": "verified"}
UNREPORTED = "COMPAT_GAME_DIR unreported; CONTENT_SET unreported"


@pytest.mark.parametrize("chain", ["direct", "forwarding", "filtering"])
async def test_a_chain_that_delivers_the_whole_context_verifies(
    open_bridge: OpenBridge, config_dir: ConfigDir, chain: str
) -> None:
    verdict = await delivery(open_bridge, config_dir, chain)
    assert verdict == {
        "overall": "verified",
        "channels": {**VERIFIED, "contextEnv": "verified"},
    }


async def test_a_boundary_forwarding_only_the_bridge_s_names_is_partial(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    verdict = await delivery(open_bridge, config_dir, "managed-only")
    assert verdict == {
        "overall": "partial",
        "channels": {**VERIFIED, "contextEnv": "unknown"},
        "reasons": {"contextEnv": UNREPORTED},
    }


async def test_a_scrubbing_re_exec_is_partial_with_argv_and_cwd_verified(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    verdict = await delivery(open_bridge, config_dir, "scrubbing")
    managed = ["GABP_SERVER_PORT", "GABP_TOKEN", "GABS_ABSENT_ENV", "GABS_BRIDGE_PATH"]
    managed += ["GABS_FORWARD_ENV", "GABS_GAME_ID"]
    assert verdict == {
        "overall": "partial",
        "channels": {**VERIFIED, "managedEnv": "unknown", "contextEnv": "unknown"},
        "reasons": {
            "contextEnv": f"{UNREPORTED}; absence of HOST_OVERRIDE unreported",
            "managedEnv": "; ".join(f"{name} unreported" for name in managed),
        },
    }


async def test_a_boundary_bringing_back_an_unset_name_fails_the_env_channel(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    verdict = await delivery(open_bridge, config_dir, "absent-reintroduced")
    assert verdict == {
        "overall": "partial",
        "channels": {**VERIFIED, "contextEnv": "mismatched"},
        "reasons": {
            "contextEnv": "HOST_OVERRIDE was meant to be absent but is present in the workload"
        },
    }


async def test_a_detaching_launcher_is_adopted_and_its_game_gets_the_whole_context(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    folder = config_dir.path.parent / "chain"
    folder.mkdir(parents=True)
    hooks = {
        "status": {
            "command": str(script(folder / "status.sh", STATUS_HOOK)),
            "runningExitCodes": [0],
            "stoppedExitCodes": [1],
        },
        "stop": {"command": str(script(folder / "stop.sh", STOP_HOOK))},
    }
    started, status = await launch(open_bridge, config_dir, "detaching", lifecycle=hooks)
    verified = {"overall": "verified", "channels": {**VERIFIED, "contextEnv": "verified"}}
    assert started["adopted"] is True, started
    assert started["contextDelivery"] == status["contextDelivery"] == verified, started
    assert status["status"] == "running", status
    if "process" in status:  # ours beside Go's: the launcher's own process, which ended
        assert (status["process"]["running"], status["process"]["exitCode"]) == (False, 0)
