"""Games that outlive bridges, several bridges on one config folder, hooks, Steam libraries
and store launchers, with real processes (issue 11)."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import sys
import textwrap
from pathlib import Path

import anyio
import mcp_types as types
import pytest

from .harness import GAME_SCRIPT, ConfigDir, OpenBridge, start_game
from .results import bridge_pids, data, next_tools, process_alive, text_of, wait_gone

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="Linux processes and /proc")


async def wait_pid(config_dir: ConfigDir, game_id: str) -> int:
    while (pid := config_dir.game_pid(game_id)) is None:  # noqa: ASYNC110 - a file, no event
        await anyio.sleep(0.05)
    return pid


async def test_a_second_bridge_sees_the_game_and_does_not_launch_a_duplicate(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("compat")
    with anyio.fail_after(180):
        async with open_bridge(config_dir) as first, open_bridge(config_dir) as second:
            await start_game(first)
            pid = await wait_pid(config_dir, "compat")

            seen = await second.call_tool("games_status", {"gameId": "compat"})
            assert data(seen)["status"] == "shared-running", text_of(seen)
            duplicate = await second.call_tool("games_start", {"gameId": "compat"})
            assert not duplicate.is_error, text_of(duplicate)
            assert data(duplicate)["code"] == "already_running"
            assert "games_status" in next_tools(duplicate)
            assert config_dir.game_pid("compat") == pid

            refused = await second.call_tool("games_connect", {"gameId": "compat"})
            assert data(refused).get("connected") is not True, text_of(refused)
            assert {"ownerPID", "foreignOwner"} <= set(data(refused)), text_of(refused)
            taken = await second.call_tool(
                "games_connect", {"gameId": "compat", "forceTakeover": True}
            )
            assert data(taken)["connected"] is True, text_of(taken)
            called = await second.call_tool(
                "games_call_tool",
                {"gameId": "compat", "tool": "compat/add", "arguments": {"a": 20, "b": 22}},
            )
            assert "42" in text_of(called), text_of(called)
            stopped = await second.call_tool("games_stop", {"gameId": "compat"})
            assert data(stopped)["code"] == "terminated", text_of(stopped)
            await wait_gone(pid)


def owner_pid(config_dir: ConfigDir, game_id: str) -> int:
    """The owner process ``runtime.json`` names."""
    claim = json.loads((config_dir.path / game_id / "runtime.json").read_text(encoding="utf-8"))
    return int(claim["ownerPid"])


def assert_owner_blocked(result: types.CallToolResult, owner: int) -> None:
    """Refused because another live bridge holds the owner lease, as the Go bridge words it."""
    assert result.is_error, text_of(result)
    found = data(result)
    assert (found["status"], found["executed"]) == ("blocked_by_active_runtime_owner", False)
    assert (found["gameId"], found["ownerPID"]) == ("compat", owner), found
    assert found["ownerInstance"] and found["ownerLeaseUntil"], found
    assert next_tools(result) == ["games_status", "games_connect"]
    assert "owned by another active GABS session" in text_of(result)


async def test_a_game_call_is_refused_while_another_bridge_holds_the_owner_lease(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    """Ownership moves between two connected bridges by the lease rules: the bridge that took
    over keeps it while its lease runs, then the other one takes it with its next game request,
    and from then on the first one's game calls are refused, not sent."""
    config_dir.game("compat")
    add = {"gameId": "compat", "tool": "compat/add", "arguments": {"a": 1, "b": 2}}
    inspect = {"gameId": "compat"}
    with anyio.fail_after(180):
        async with open_bridge(config_dir) as first, open_bridge(config_dir) as second:
            await start_game(first)
            pid = await wait_pid(config_dir, "compat")
            # a short connect timeout: the new owner's lease is that plus 5 s
            taken = await second.call_tool(
                "games_connect", {"gameId": "compat", "forceTakeover": True, "timeout": 2}
            )
            assert data(taken)["connected"] is True, text_of(taken)
            second_pid = owner_pid(config_dir, "compat")
            assert second_pid in bridge_pids(config_dir.path)
            assert_owner_blocked(await first.call_tool("games_get_attention", inspect), second_pid)

            # once the idle owner's lease runs out, the first bridge's next request takes it
            while True:
                checked = await first.call_tool("games_get_attention", inspect)
                if data(checked).get("status") != "blocked_by_active_runtime_owner":
                    break
                await anyio.sleep(0.25)
            assert not checked.is_error, text_of(checked)
            first_pid = owner_pid(config_dir, "compat")
            assert first_pid != second_pid and first_pid in bridge_pids(config_dir.path)

            # the second bridge is still attached, but its game call is refused, not sent
            assert_owner_blocked(await second.call_tool("games_call_tool", add), first_pid)
            # the owner attaches again (the game's attachment is still the second bridge's)
            attached = await first.call_tool("games_connect", {"gameId": "compat"})
            assert data(attached)["connected"] is True, text_of(attached)
            done = await first.call_tool("games_call_tool", add)
            assert not done.is_error and "3" in text_of(done), text_of(done)

            stopped = await first.call_tool("games_stop", {"gameId": "compat"})
            assert data(stopped)["code"] == "terminated", text_of(stopped)
            await wait_gone(pid)


@pytest.mark.beyond_go
async def test_the_bridge_a_game_was_taken_from_is_told_who_owns_it_now(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    """Right after another bridge's ``forceTakeover``, the old bridge's game call names the new
    owner (``blocked_by_active_runtime_owner``); the Go bridge answers that it is not connected
    via GABP. Taking the game back turns it around."""
    config_dir.game("compat")
    add = {"gameId": "compat", "tool": "compat/add", "arguments": {"a": 1, "b": 2}}
    take = {"gameId": "compat", "forceTakeover": True}
    with anyio.fail_after(180):
        async with open_bridge(config_dir) as first, open_bridge(config_dir) as second:
            await start_game(first)
            pid = await wait_pid(config_dir, "compat")
            taken = await second.call_tool("games_connect", take)
            assert data(taken)["connected"] is True, text_of(taken)
            assert_owner_blocked(
                await first.call_tool("games_call_tool", add), owner_pid(config_dir, "compat")
            )
            owned = await second.call_tool("games_call_tool", add)
            assert not owned.is_error and "3" in text_of(owned), text_of(owned)

            back = await first.call_tool("games_connect", take)
            assert data(back)["connected"] is True, text_of(back)
            again = await first.call_tool("games_call_tool", add)
            assert not again.is_error and "3" in text_of(again), text_of(again)
            assert_owner_blocked(
                await second.call_tool("games_call_tool", add), owner_pid(config_dir, "compat")
            )
            stopped = await first.call_tool("games_stop", {"gameId": "compat"})
            assert data(stopped)["code"] == "terminated", text_of(stopped)
            await wait_gone(pid)


async def test_a_game_outlives_a_bridge_killed_with_sigkill_and_the_next_one_attaches(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("compat")
    with anyio.fail_after(180):
        with contextlib.suppress(Exception, BaseExceptionGroup):
            async with open_bridge(config_dir) as doomed:
                await start_game(doomed)
                pids = bridge_pids(config_dir.path)
                assert len(pids) == 1, pids
                os.kill(pids[0], signal.SIGKILL)
                while process_alive(pids[0]):  # noqa: ASYNC110 - not our child: no event
                    await anyio.sleep(0.05)
        pid = await wait_pid(config_dir, "compat")
        assert process_alive(pid), "the game ended with the bridge that started it"
        async with open_bridge(config_dir) as client:
            status = await client.call_tool("games_status", {"gameId": "compat"})
            assert data(status)["status"] in ("running", "shared-running"), text_of(status)
            connected = await client.call_tool("games_connect", {"gameId": "compat"})
            assert data(connected)["connected"] is True, text_of(connected)
            echo = await client.call_tool(
                "games_call_tool",
                {"gameId": "compat", "tool": "compat/echo", "arguments": {"text": "alive"}},
            )
            assert "alive" in text_of(echo)
            killed = await client.call_tool("games_kill", {"gameId": "compat"})
            assert data(killed)["code"] == "terminated", text_of(killed)
            await wait_gone(pid)


async def test_a_stop_hook_that_times_out_is_action_timed_out_and_kill_still_works(
    open_bridge: OpenBridge, config_dir: ConfigDir, tmp_path: Path
) -> None:
    hook = tmp_path / "slow-stop.sh"
    hook.write_text("#!/bin/sh\nsleep 30\n", encoding="utf-8")
    hook.chmod(0o755)
    config_dir.game("compat", lifecycle={"stop": {"command": str(hook), "timeoutSeconds": 1}})
    with anyio.fail_after(180):
        async with open_bridge(config_dir) as client:
            await start_game(client)
            pid = await wait_pid(config_dir, "compat")
            stopped = await client.call_tool("games_stop", {"gameId": "compat"})
            assert stopped.is_error
            assert (data(stopped)["code"], data(stopped)["causeClass"]) == (
                "action_timed_out",
                "environment",
            )
            assert data(stopped).get("treeKillWarning") is True
            assert text_of(stopped).splitlines()[0] == (
                "The stop hook for 'compat' timed out and its process tree was terminated."
            )
            assert process_alive(pid)
            status = await client.call_tool("games_status", {"gameId": "compat"})
            assert data(status)["lastActionResult"]["outcome"] == "action_timed_out", text_of(
                status
            )
            killed = await client.call_tool("games_kill", {"gameId": "compat"})
            assert data(killed)["code"] == "terminated", text_of(killed)
            await wait_gone(pid)


def steam_library(root: Path, app_id: str) -> tuple[Path, Path]:
    """A Steam client folder and a second library holding the app; returns the
    ``libraryfolders.vdf`` and the game's install folder."""
    client = root / "steam-client" / "steamapps"
    library = root / "games-disk" / "SteamLibrary"
    client.mkdir(parents=True)
    (library / "steamapps").mkdir(parents=True)
    vdf = client / "libraryfolders.vdf"
    vdf.write_text(
        textwrap.dedent(
            f'''\
            "libraryfolders"
            {{
                "0" {{ "path" "{client.parent}" }}
                "1" {{ "path" "{library}" "apps" {{ "{app_id}" "123" }} }}
            }}
            '''
        ),
        encoding="utf-8",
    )
    (library / "steamapps" / f"appmanifest_{app_id}.acf").write_text(
        f'"AppState"\n{{\n\t"appid"\t"{app_id}"\n\t"name"\t"Compat Colony"\n'
        '\t"installdir"\t"CompatColony"\n}\n',
        encoding="utf-8",
    )
    install = library / "steamapps" / "common" / "CompatColony"
    install.mkdir(parents=True)
    game = install / "CompatColony"
    game.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{GAME_SCRIPT}" "$@"\n', encoding="utf-8")
    game.chmod(0o755)
    crash = install / "UnityCrashHandler64"
    crash.write_text("#!/bin/sh\nexit 9\n", encoding="utf-8")
    crash.chmod(0o755)
    return vdf, install


async def test_a_steam_managed_game_is_found_in_the_library_and_started_directly(
    open_bridge: OpenBridge, config_dir: ConfigDir, tmp_path: Path
) -> None:
    vdf, install = steam_library(tmp_path, "4242001")
    entry = config_dir.game("colony", launchMode="SteamManaged", target="4242001")
    entry.pop("args")
    # A Steam client that records how it was started (and then is not seen running).
    client_bin = tmp_path / "client-bin"
    client_bin.mkdir()
    steam = client_bin / "steam"
    steam.write_text(f'#!/bin/sh\necho "$@" > "{tmp_path}/steam-args"\n', encoding="utf-8")
    steam.chmod(0o755)
    client_seen = (await anyio.run_process(["pgrep", "-x", "steam"], check=False)).returncode == 0
    env = {
        "GABS_STEAM_LIBRARYFOLDERS": str(vdf),
        "PATH": f"{client_bin}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    with anyio.fail_after(180):
        async with open_bridge(config_dir, env=env) as client:
            started = await client.call_tool("games_start", {"gameId": "colony"})
            assert data(started)["code"] == "started_connected", text_of(started)
            launch = config_dir.launch_report("colony")
            killed = await client.call_tool("games_kill", {"gameId": "colony"})
            assert data(killed)["code"] == "terminated", text_of(killed)
    assert launch is not None
    assert (launch["env"]["SteamAppId"], launch["env"]["SteamGameId"]) == ("4242001", "4242001")
    assert launch["cwd"] == str(install)
    assert (install / "steam_appid.txt").read_text(encoding="utf-8").strip() == "4242001"
    if not client_seen:  # no Steam client running: the bridge tried to start one first
        assert (tmp_path / "steam-args").read_text(encoding="utf-8").split() == ["-silent"]


def fake_opener(
    folder: Path, process_name: str, games_dir: Path, env: dict[str, str] | None = None
) -> Path:
    """An ``xdg-open`` that records the URI it got and starts the game as ``process_name``
    (with ``env`` added to what it was given)."""
    folder.mkdir(parents=True, exist_ok=True)
    opener = folder / "xdg-open"
    exports = " ".join(f"{name}={value}" for name, value in (env or {}).items())
    opener.write_text(
        textwrap.dedent(
            f'''\
            #!/bin/bash
            echo "$1" > "{folder}/opened-uri"
            {f"export {exports}" if exports else ""}
            export COMPAT_GAME_DIR="{games_dir}"
            export PYTHONPATH="{os.pathsep.join(p for p in sys.path if p)}"
            (exec -a {process_name} "{sys.executable}" "{GAME_SCRIPT}" > "{folder}/game.log" 2>&1 &)
            exit 0
            '''
        ),
        encoding="utf-8",
    )
    opener.chmod(0o755)
    return opener


@pytest.mark.parametrize(
    ("mode", "target", "uri"),
    [
        ("SteamAppId", "4242002", "steam://rungameid/4242002"),
        (
            "EpicAppId",
            "CompatFalcon",
            "com.epicgames.launcher://apps/CompatFalcon?action=launch&silent=true",
        ),
    ],
)
async def test_a_store_mode_hands_its_uri_to_the_opener_and_tracks_the_game_by_name(
    open_bridge: OpenBridge, config_dir: ConfigDir, tmp_path: Path, mode: str, target: str, uri: str
) -> None:
    name = f"compat-{mode.lower()}-{os.getpid()}"
    opener = fake_opener(tmp_path / "bin", name, config_dir.games_dir)
    entry = config_dir.game("store", launchMode=mode, target=target, stopProcessName=name)
    entry.pop("args")
    entry.pop("env")  # a store mode refuses launch context; the opener sets the game's folder
    path = f"{opener.parent}{os.pathsep}{os.environ.get('PATH', '')}"
    with anyio.fail_after(180):
        async with open_bridge(config_dir, env={"PATH": path}) as client:
            started = await client.call_tool("games_start", {"gameId": "store"})
            assert data(started)["code"] == "started_connected", text_of(started)
            assert data(started).get("adopted") is True  # the opener ended; found by name
            pid = await wait_pid(config_dir, "store")
            status = data(await client.call_tool("games_status", {"gameId": "store"}))
            item = status["games"][0] if "games" in status else status
            assert item["statusDescription"] == "running (GABS is tracking the game process)"
            echo = await client.call_tool(
                "games_call_tool",
                {"gameId": "store", "tool": "compat/echo", "arguments": {"text": "via store"}},
            )
            assert "via store" in text_of(echo)
            stopped = await client.call_tool("games_stop", {"gameId": "store"})
            assert data(stopped)["code"] == "terminated", text_of(stopped)
            await wait_gone(pid)
    assert (tmp_path / "bin" / "opened-uri").read_text(encoding="utf-8").strip() == uri


@pytest.mark.beyond_go
async def test_one_broken_game_leaves_the_others_startable(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("good")
    config_dir.game("broken", launchMode="Teleport")
    # A problem inside a profile: the Go bridge refuses the whole file for this one.
    config_dir.game("profiled", defaultProfile="dev", profiles={"dev": {"argz": []}})
    with anyio.fail_after(120):
        async with open_bridge(config_dir) as client:
            listed = await client.call_tool("games_list", {})
            assert {g["gameId"] for g in data(listed)["games"]} == {"good", "broken", "profiled"}
            for game_id in ("broken", "profiled"):
                refused = await client.call_tool("games_start", {"gameId": game_id})
                assert (refused.is_error, data(refused)["code"]) == (True, "config_invalid")
            started = await client.call_tool("games_start", {"gameId": "good"})
            assert data(started)["code"] == "started_connected", text_of(started)
            await client.call_tool("games_kill", {"gameId": "good"})


@pytest.mark.beyond_go
async def test_the_endpoint_file_is_private(open_bridge: OpenBridge, config_dir: ConfigDir) -> None:
    config_dir.game("compat")
    with anyio.fail_after(120):
        async with open_bridge(config_dir) as client:
            await start_game(client)
            mode = (config_dir.path / "compat" / "bridge.json").stat().st_mode & 0o777
            await client.call_tool("games_kill", {"gameId": "compat"})
    assert mode == 0o600


async def test_a_config_edit_is_seen_without_a_restart_and_a_bad_edit_keeps_the_last_good(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("first")
    with anyio.fail_after(120):
        async with open_bridge(config_dir) as client:
            config_dir.game("second")
            config_dir.write()
            listed = await client.call_tool("games_list", {})
            assert data(listed)["count"] == 2, text_of(listed)
            (config_dir.path / "config.json").write_text("{ broken", encoding="utf-8")
            kept = await client.call_tool("games_list", {})
            assert data(kept)["count"] == 2 and "configError" in data(kept)
            refused = await client.call_tool("games_start", {"gameId": "first"})
            assert (refused.is_error, data(refused)["code"]) == (True, "config_invalid")


@pytest.mark.beyond_go
async def test_a_duplicate_start_from_another_bridge_points_at_games_connect(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("compat")
    with anyio.fail_after(180):
        async with open_bridge(config_dir) as first, open_bridge(config_dir) as second:
            await start_game(first)
            duplicate = await second.call_tool("games_start", {"gameId": "compat"})
            assert data(duplicate)["code"] == "already_running"
            assert "games_connect" in next_tools(duplicate)
            await first.call_tool("games_kill", {"gameId": "compat"})


async def killed_from_outside(config_dir: ConfigDir) -> None:
    pid = await wait_pid(config_dir, "compat")
    os.kill(pid, signal.SIGKILL)
    await wait_gone(pid)


async def test_a_connect_after_the_game_was_killed_from_outside_finds_nothing_to_attach(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("compat")
    with anyio.fail_after(120):
        async with open_bridge(config_dir) as client:
            await start_game(client)
            await killed_from_outside(config_dir)
            while True:  # the bridge may still read its GABP connection's end
                seen = await client.call_tool("games_status", {"gameId": "compat"})
                if data(seen)["status"] != "running":
                    break
                await anyio.sleep(0.1)
            assert data(seen)["status"] == "stale-runtime-cleaned", text_of(seen)
            for _ in range(2):
                refused = await client.call_tool("games_connect", {"gameId": "compat"})
                assert refused.is_error, text_of(refused)
                assert data(refused)["code"] == "endpoint_unavailable", text_of(refused)
            restarted = await start_game(client)
            assert data(restarted)["code"] == "started_connected"
            stopped = await client.call_tool("games_stop", {"gameId": "compat"})
            assert data(stopped)["code"] == "terminated", text_of(stopped)


@pytest.mark.beyond_go
async def test_a_connect_right_after_an_outside_kill_drops_the_dead_claim(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    """The Go bridge removes the dead claim under its own connect and then reports that the
    claim was replaced (``blocked_unknown_state``); the process is provably gone, so nothing is
    attachable."""
    config_dir.game("compat")
    with anyio.fail_after(120):
        async with open_bridge(config_dir) as client:
            await start_game(client)
            await killed_from_outside(config_dir)
            while True:  # the bridge may still read its GABP connection's end
                refused = await client.call_tool("games_connect", {"gameId": "compat"})
                if data(refused).get("connected") is not True:
                    break
                await anyio.sleep(0.1)
            assert refused.is_error, text_of(refused)
            assert data(refused)["code"] == "endpoint_unavailable", text_of(refused)
            seen = await client.call_tool("games_status", {"gameId": "compat"})
            assert data(seen)["status"] == "stopped", text_of(seen)


async def test_a_stop_while_another_process_holds_the_transition_lock_is_in_progress(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    # The lock is held past the bridge's bounded wait (5 s in both): never a hang, never an
    # error, and nothing is signalled.
    config_dir.game("g", args=["-c", "import time; time.sleep(60)"])
    lock = config_dir.path / "g" / "transition.lock"
    with anyio.fail_after(90):
        async with open_bridge(config_dir) as client:
            started = await client.call_tool("games_start", {"gameId": "g", "timeout": 1})
            assert data(started)["code"] == "started_bridge_pending", text_of(started)
            fd = os.open(lock, os.O_RDWR)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                busy = await client.call_tool("games_stop", {"gameId": "g"})
            finally:
                os.close(fd)
            status = data(await client.call_tool("games_status", {"gameId": "g"}))
            killed = await client.call_tool("games_kill", {"gameId": "g"})
    assert not busy.is_error, text_of(busy)
    assert text_of(busy).startswith(
        "another lifecycle operation on g holds the transition lock; re-check games_status shortly"
    )
    found = data(busy)
    assert {key: found.get(key) for key in ("code", "gameId", "action", "causeClass")} == {
        "code": "operation_in_progress",
        "gameId": "g",
        "action": "stop",
        "causeClass": "state",
    }
    assert found["nextActions"] == [
        {
            "tool": "games_status",
            "arguments": {"gameId": "g"},
            "reason": "Re-check once the in-flight operation finishes.",
        }
    ]
    assert found["trackRecord"].startswith("started 1\u00d7")
    assert status["status"] == "running"
    assert data(killed)["code"] == "terminated", text_of(killed)


async def test_a_kill_from_another_bridge_during_a_stop_is_refused_and_runs_no_hook(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    # One lifecycle operation per game at a time, across processes: the second bridge's kill
    # while the first one's stop hook runs is operation_in_progress (not an error), with the
    # action asked for, the phase and the running attempt's timing; its kill hook never runs.
    ran = config_dir.path.parent / "kill-hook-ran"
    lifecycle = {
        "stop": {"command": "/bin/sh", "args": ["-c", "sleep 3"], "verifyTimeoutSeconds": 1},
        "kill": {"command": "/bin/sh", "args": ["-c", f"touch '{ran}'"]},
    }
    config_dir.game("g", args=["-c", "import time; time.sleep(60)"], lifecycle=lifecycle)
    results: dict[str, types.CallToolResult] = {}
    with anyio.fail_after(90):
        async with open_bridge(config_dir) as first, open_bridge(config_dir) as second:
            started = await first.call_tool("games_start", {"gameId": "g", "timeout": 1})
            assert data(started)["code"] == "started_bridge_pending", text_of(started)

            async def stop() -> None:
                results["stop"] = await first.call_tool("games_stop", {"gameId": "g"})

            async with anyio.create_task_group() as tg:
                tg.start_soon(stop)
                claim = config_dir.path / "g" / "runtime.json"
                while '"stopping"' not in claim.read_text(encoding="utf-8"):  # noqa: ASYNC110
                    await anyio.sleep(0.05)
                results["kill"] = await second.call_tool("games_kill", {"gameId": "g"})
            pid = json.loads(claim.read_text(encoding="utf-8"))["gamePid"]
            os.kill(pid, signal.SIGKILL)
    refused = results["kill"]
    assert not refused.is_error, text_of(refused)
    found = data(refused)
    assert {key: found.get(key) for key in ("code", "gameId", "action", "phase")} == {
        "code": "operation_in_progress",
        "gameId": "g",
        "action": "kill",
        "phase": "stopping",
    }
    assert found["operation"]["action"] == "stop"
    assert set(found["operation"]) == {"action", "attemptStartedAt", "deadline"}
    assert text_of(refused).startswith("a stop operation on g begun ")
    assert data(results["stop"])["code"] == "action_succeeded_running", text_of(results["stop"])
    assert not ran.exists()
