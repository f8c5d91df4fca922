"""The lifecycle results' bookkeeping keys: a status item's ``diagnostics``, a launch's
``contextDelivery`` verdict (also of a report with nulls), ``phase`` and
``activeConfigRevision``, and the consecutive failures a failed stop adds to the track
record."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import anyio

from .harness import HANDSHAKE_GAME, ConfigDir, OpenBridge, start_game
from .results import data, text_of, wait_gone
from .test_lifecycle_processes import wait_pid

#: The compat game does not report what it received, so every channel is unknown; it has a
#: config env (``COMPAT_GAME_DIR``), so the config-context channel is expected too.
UNREPORTED_CHANNELS = {
    "argv": "unknown",
    "cwd": "unknown",
    "managedEnv": "unknown",
    "contextEnv": "unknown",
}


def assert_unreported_delivery(item: dict[str, Any]) -> None:
    delivery = item["contextDelivery"]
    assert delivery["overall"] == "unknown", delivery
    assert delivery["channels"] == UNREPORTED_CHANNELS, delivery
    assert sorted(delivery["reasons"]) == sorted(UNREPORTED_CHANNELS), delivery
    assert all(isinstance(reason, str) and reason for reason in delivery["reasons"].values())


async def test_a_status_item_carries_diagnostics_and_a_launch_its_context_delivery(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("compat")
    with anyio.fail_after(120):
        async with open_bridge(config_dir) as client:
            stopped = data(await client.call_tool("games_status", {"gameId": "compat"}))
            assert stopped["diagnostics"] == {
                "code": "healthy",
                "severity": "info",
                "message": "No bridge state issue detected.",
                "processEnvironment": {"present": False, "readable": False},
                "runtime": {"present": False},
            }, stopped
            assert not {"contextDelivery", "phase", "activeConfigRevision"} & set(stopped)

            started = data(await start_game(client))
            assert_unreported_delivery(started)
            pid = await wait_pid(config_dir, "compat")

            status = await client.call_tool("games_status", {"gameId": "compat"})
            item = data(status)
            assert item["phase"] == "active", text_of(status)
            assert item["activeConfigRevision"] == started["configRevision"]
            assert_unreported_delivery(item)
            diagnostics = item["diagnostics"]
            assert (diagnostics["code"], diagnostics["severity"]) == ("healthy", "info")
            environment = diagnostics["processEnvironment"]
            assert environment["present"] is True and environment["readable"] is True
            assert (environment["pid"], environment["gameId"]) == (pid, "compat")
            assert isinstance(environment["port"], int) and environment["port"] > 0
            assert re.fullmatch(r"[0-9a-f]{16}", environment["tokenFingerprint"]), environment
            runtime = diagnostics["runtime"]
            assert runtime["present"] is True
            assert (runtime["gameId"], runtime["status"], runtime["resolvedStatus"]) == (
                "compat",
                "running",
                "running",
            )
            assert runtime["gamePid"] == pid and runtime["ownerLeaseActive"] is True, runtime

            every = data(await client.call_tool("games_status", {}))
            (listed,) = every["games"]
            assert listed["diagnostics"]["processEnvironment"]["pid"] == pid
            assert_unreported_delivery(listed)

            stop = await client.call_tool("games_stop", {"gameId": "compat"})
            assert data(stop)["code"] == "terminated", text_of(stop)
            await wait_gone(pid)


async def test_a_failed_stop_counts_as_a_consecutive_failure(
    open_bridge: OpenBridge, config_dir: ConfigDir, tmp_path: Path
) -> None:
    hook = tmp_path / "failing-stop.sh"
    hook.write_text("#!/bin/sh\nexit 7\n", encoding="utf-8")
    hook.chmod(0o755)
    config_dir.game("compat", lifecycle={"stop": {"command": str(hook)}})
    with anyio.fail_after(120):
        async with open_bridge(config_dir) as client:
            await start_game(client)
            pid = await wait_pid(config_dir, "compat")
            for attempt in (1, 2):
                stopped = await client.call_tool("games_stop", {"gameId": "compat"})
                assert data(stopped)["code"] == "action_failed", text_of(stopped)
                assert data(stopped)["trackRecord"].endswith(f"; {attempt} consecutive failures"), (
                    data(stopped)
                )
            shown = data(await client.call_tool("games_show", {"gameId": "compat"}))
            (row,) = shown["trackRecord"]
            assert (row["consecutiveFailures"], row["lastFailureCode"]) == (2, "action_failed")
            killed = await client.call_tool("games_kill", {"gameId": "compat"})
            assert data(killed)["code"] == "terminated", text_of(killed)
            await wait_gone(pid)


async def test_a_launch_the_command_line_started_gets_its_verdict_when_a_server_connects(
    open_bridge: OpenBridge, config_dir: ConfigDir, gabs_cli: Any
) -> None:
    config_dir.game("compat")
    with anyio.fail_after(120):
        started = await anyio.to_thread.run_sync(
            lambda: gabs_cli(config_dir, "games", "start", "compat")
        )
        assert started.returncode == 0, started.stderr
        pid = await wait_pid(config_dir, "compat")
        async with open_bridge(config_dir) as client:
            shared = data(await client.call_tool("games_status", {"gameId": "compat"}))
            assert shared["phase"] == "active" and "contextDelivery" not in shared, shared
            connected = await client.call_tool("games_connect", {"gameId": "compat"})
            assert data(connected)["phase"] == "active", text_of(connected)
            assert_unreported_delivery(data(connected))
            status = data(await client.call_tool("games_status", {"gameId": "compat"}))
            assert_unreported_delivery(status)
            stop = await client.call_tool("games_stop", {"gameId": "compat"})
            assert data(stop)["code"] == "terminated", text_of(stop)
            await wait_gone(pid)


async def test_a_null_in_a_delivery_report_reads_as_an_empty_value(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    # Go decodes the welcome's report with encoding/json: a null string is "", not a report
    # that cannot be read (which would make every channel "pre-report bridge" unknown).
    config_dir.game("hs", script=HANDSHAKE_GAME, env={"HANDSHAKE_MODE": "observed-null"})
    with anyio.fail_after(90):
        async with open_bridge(config_dir) as client:
            started = await client.call_tool("games_start", {"gameId": "hs"})
            await client.call_tool("games_kill", {"gameId": "hs"})
    assert data(started)["contextDelivery"] == {
        "overall": "partial",
        "channels": {
            "argv": "mismatched",
            "cwd": "verified",
            "managedEnv": "mismatched",
            "contextEnv": "verified",
        },
        "reasons": {
            "argv": "the observed argument payload differs from the resolved launch arguments",
            "managedEnv": "GABS_GAME_ID differs from the resolved value",
        },
    }, text_of(started)
