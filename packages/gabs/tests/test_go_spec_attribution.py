"""Behaviours the Go bridge's own attribution tests pin (GABS 1.1.0, ``internal/mcp``:
``attribution_battery_mcp_test.go``, ``p1_attribution_mcp_test.go``,
``stage4_promotion_mcp_test.go``, ``profiles_mcp_test.go``), checked against ``gabs``. The
expected values are the Go bridge's, observed side by side and pinned here (the Go binary is
not needed).

* A failure whose code is proof-adjusted (``launch_spec_unresolvable``, ``unobserved``) is
  ``causeClass: environment`` when the launch context has started a workload before (the
  target moved, the machine changed) and ``config`` when it never has; the track record keeps
  the class of the recorded ``unobserved`` failure, and ``launch_spec_unresolvable`` records
  nothing.
* A start left ``unobserved`` (claim ``starting``, nothing in flight) that a ``games_status``
  or a ``games_connect`` later finds running is a verified start: the track record counts it
  once (``workloadStarts``, resetting the consecutive failures), and a connect counts the
  bridge connection too.
* A reference that names no game (``game_not_found``, ``ambiguous_game_reference``) has no
  ``gameId`` key and its next action names ``gameId: ""``; ``timeout_out_of_range`` and
  ``config_invalid`` have no ``gameId`` key either, their next action names the game.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from gabs.config import GabsConfig
from gabs.games import GameManager
from gabs.lifecycle import TrackRecord, context_hash
from gabs.mcp import ToolListNotifier, build_server
from gabs.runtime.procs import process_start_time
from gabs_test_support import data, games_config
from gabs_test_support import mcp_client as client_for
from lib_gab import GabpServer

MISSING = "/nonexistent/gabs-attribution/game"
TOKEN = "t" * 64


def prove(config: GabsConfig, game_id: str) -> None:
    """Record one verified start of the game's default launch context (as a start would)."""
    game = config.games[game_id]
    TrackRecord(config.game_dir(game_id)).started(None, "", context_hash(game, ""))


def record(config: GabsConfig, game_id: str) -> dict[str, Any]:
    path = config.game_dir(game_id) / "track-record.json"
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded["profiles"][""]


@pytest.mark.parametrize(("proven", "cause"), [(False, "config"), (True, "environment")])
async def test_missing_target_class_follows_the_track_record(
    tmp_path: Path, proven: bool, cause: str
) -> None:
    # TestProvenMissingTargetIsEnvironment, TestNeverProvenMissingTargetIsConfig.
    config = games_config(tmp_path, {"vanish": {"target": MISSING}})
    if proven:
        prove(config, "vanish")
    async with client_for(config) as client:
        result = await client.call_tool("games_start", {"gameId": "vanish", "timeout": 1})
    body = data(result)
    assert result.is_error
    assert body["code"] == "launch_spec_unresolvable"
    assert body["causeClass"] == cause
    if proven:
        assert body["trackRecord"].startswith("started 1\u00d7")
        assert [a["tool"] for a in body["nextActions"]] == ["games_status", "games_start"]
        # A read-only failure changes nothing in the record.
        entry = record(config, "vanish")
        assert entry["workloadStarts"] == 1
        assert not entry.get("consecutiveFailures")
        assert "lastFailure" not in entry
    else:
        assert body["trackRecord"] == "no successful starts recorded for this context"
        assert [a["tool"] for a in body["nextActions"]] == ["games_show"]
        assert not (config.game_dir("vanish") / "track-record.json").exists()


@pytest.mark.parametrize(("proven", "cause"), [(False, "config"), (True, "environment")])
async def test_unobserved_class_follows_the_track_record(
    tmp_path: Path, proven: bool, cause: str
) -> None:
    # TestUnobservedRecordsNeverProvenAsConfigFailure, TestUnobservedRecordsProvenAsEnvironment-
    # Failure: a status hook that can say nothing (exit 7) leaves the start unobserved.
    hook = {"status": {"command": "/bin/sh", "args": ["-c", "exit 7"]}}
    config = games_config(tmp_path, {"quiet": {"target": "/bin/true", "lifecycle": hook}})
    if proven:
        prove(config, "quiet")
    async with client_for(config) as client:
        result = await client.call_tool("games_start", {"gameId": "quiet", "timeout": 2})
    body = data(result)
    assert body["code"] == "unobserved"
    assert body["causeClass"] == cause
    entry = record(config, "quiet")
    assert entry["workloadStarts"] == (1 if proven else 0)
    assert entry["consecutiveFailures"] == 1
    assert entry["lastFailure"]["outcome"] == "unobserved"
    assert entry["lastFailure"]["class"] == cause


@pytest.mark.parametrize(
    "tool", ["games_start", "games_stop", "games_kill", "games_connect", "games_status"]
)
async def test_game_not_found_names_no_game(tmp_path: Path, tool: str) -> None:
    # TestEveryLifecycleFailureCarriesAttribution, TestGamesStatusAndShowFailuresCarry-
    # Attribution: Go's result is {code, candidates, causeClass, trackRecord, nextActions}.
    config = games_config(tmp_path, {"g": {"target": MISSING}})
    async with client_for(config) as client:
        result = await client.call_tool(tool, {"gameId": "does-not-exist"})
    assert result.is_error
    assert data(result) == {
        "code": "game_not_found",
        "candidates": ["g"],
        "causeClass": "call",
        "trackRecord": "no successful starts recorded for this context",
        "nextActions": [
            {
                "tool": "games_show",
                "arguments": {"gameId": ""},
                "reason": "Check the accepted profiles and declared inputs, then reissue the "
                "call correctly.",
            }
        ],
    }


@pytest.mark.parametrize("tool", ["games_start", "games_stop"])
async def test_ambiguous_reference_names_no_game(tmp_path: Path, tool: str) -> None:
    # TestAmbiguousGameReference: two games share the target the call names.
    config = games_config(tmp_path, {"a": {"target": MISSING}, "b": {"target": MISSING}})
    async with client_for(config) as client:
        result = await client.call_tool(tool, {"gameId": MISSING})
    body = data(result)
    assert body["code"] == "ambiguous_game_reference"
    assert body["candidates"] == ["a", "b"]
    assert "gameId" not in body
    assert [a["arguments"] for a in body["nextActions"]] == [{"gameId": ""}]


async def test_timeout_out_of_range_has_no_game_key(tmp_path: Path) -> None:
    # TestTimeoutRangeEnforced, TestCallClassFailuresCarryCallClassAndMutateNoHistory.
    config = games_config(tmp_path, {"g": {"target": MISSING}})
    async with client_for(config) as client:
        result = await client.call_tool("games_start", {"gameId": "g", "timeout": 99999})
    body = data(result)
    assert body["code"] == "timeout_out_of_range"
    assert (body["minimum"], body["maximum"], body["causeClass"]) == (1, 3600, "call")
    assert "gameId" not in body
    assert [(a["tool"], a["arguments"]) for a in body["nextActions"]] == [
        ("games_show", {"gameId": "g"})
    ]
    assert not (config.game_dir("g") / "track-record.json").exists()


def unobserved_claim(config: GabsConfig, game_id: str, **fields: Any) -> str:
    """Write a start left unobserved whose workload (this process) runs; its context hash."""
    game = config.games[game_id]
    digest = context_hash(game, "")
    claim = {
        "gameId": game_id,
        "status": "starting",
        "ownerPid": 0,
        "updatedAt": "2026-01-01T00:00:00Z",
        "schemaVersion": 2,
        "launchId": "ab" * 16,
        "generation": 1,
        "phase": "starting",
        "spawnState": "spawned",
        "source": "gabs",
        "launchMode": "DirectPath",
        "gamePid": os.getpid(),
        "pidStartTime": process_start_time(os.getpid()),
        "pidRole": "workload",
        "historyContextHash": digest,
        **fields,
    }
    folder = config.game_dir(game_id)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "runtime.json").write_text(json.dumps(claim), encoding="utf-8")
    return digest


async def test_status_verifying_an_unobserved_start_credits_it_once(tmp_path: Path) -> None:
    # TestPassiveStatusPromotionCreditsWorkloadStart, TestPromotionResetsRecordedUnobserved-
    # Failure.
    config = games_config(tmp_path, {"g": {"target": "/bin/sleep"}})
    digest = unobserved_claim(config, "g")
    game = config.games["g"]
    TrackRecord(config.game_dir("g")).failed("", digest, "unobserved", "config")
    async with client_for(config) as client:
        first = await client.call_tool("games_status", {"gameId": "g"})
        second = await client.call_tool("games_status", {"gameId": "g"})
    assert data(first)["status"] == data(second)["status"] == "shared-running"
    entry = record(config, "g")
    assert entry["contextHash"] == context_hash(game, "")
    assert (entry["workloadStarts"], entry["consecutiveFailures"]) == (1, 0)
    assert entry["bridgeConnects"] == 0


async def test_connect_verifying_an_unobserved_start_credits_start_and_connect(
    tmp_path: Path,
) -> None:
    # TestAttachmentPromotionCreditsWorkloadStartAndBridgeConnect.
    config = games_config(tmp_path, {"g": {"target": "/bin/sleep"}})
    server = GabpServer(app_name="G", app_version="1", agent_id="g", token=TOKEN)
    notifier = ToolListNotifier()
    manager = GameManager(config, on_tools_changed=notifier, liveness_interval=60)
    async with manager, server.running() as address:
        unobserved_claim(config, "g", endpoint={"port": address.port, "token": TOKEN})
        async with Client(build_server(manager, notifier=notifier)) as client:
            result = await client.call_tool("games_connect", {"gameId": "g"})
            assert not result.is_error, result
            await client.call_tool("games_status", {"gameId": "g"})
    entry = record(config, "g")
    assert (entry["workloadStarts"], entry["bridgeConnects"]) == (1, 1)


async def test_a_start_refused_on_a_broken_config_has_no_game_key(tmp_path: Path) -> None:
    # TestStartRefusedOnStaleConfig: the file on disk no longer parses.
    (tmp_path / "config.json").write_text(
        json.dumps(
            {
                "version": "1.0",
                "games": {
                    "a": {"id": "a", "name": "A", "launchMode": "DirectPath", "target": "/bin/echo"}
                },
            }
        ),
        encoding="utf-8",
    )
    config = GabsConfig.load(tmp_path)
    async with client_for(config) as client:
        (tmp_path / "config.json").write_text("{broken", encoding="utf-8")
        result = await client.call_tool("games_start", {"gameId": "a"})
    body = data(result)
    assert body["code"] == "config_invalid"
    assert body["causeClass"] == "config"
    assert "gameId" not in body
    assert {"lastGoodRevision", "invalidRevision"} <= set(body)
    assert [(a["tool"], a["arguments"]) for a in body["nextActions"]] == [
        ("games_show", {"gameId": "a"})
    ]


def write_games(folder: Path, *ids: str) -> None:
    games = {
        gid: {"id": gid, "name": gid.upper(), "launchMode": "DirectPath", "target": "/bin/echo"}
        for gid in ids
    }
    (folder / "config.json").write_text(
        json.dumps({"version": "1.0", "games": games}), encoding="utf-8"
    )


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("games_tool_names", {"brief": True}),
        ("games_tools", {}),
        ("games_tool_detail", {"tool": "x"}),
        ("games_call_tool", {"tool": "x"}),
    ],
)
async def test_discovery_reads_the_config_of_each_call(
    tmp_path: Path, tool: str, args: dict[str, Any]
) -> None:
    # TestDiscoveryUsesPerCallConfig: a game removed from the file (no session, no claim) is
    # not found any more; one added is there.
    write_games(tmp_path, "a")
    config = GabsConfig.load(tmp_path)
    async with client_for(config) as client:
        before = await client.call_tool(tool, {"gameId": "a", **args})
        write_games(tmp_path, "b")
        removed = await client.call_tool(tool, {"gameId": "a", **args})
        added = await client.call_tool(tool, {"gameId": "b", **args})
    assert data(before).get("code") != "game_not_found"
    assert removed.is_error
    assert data(removed)["code"] == "game_not_found"
    assert data(removed)["candidates"] == ["b"]
    assert data(added).get("code") != "game_not_found"


async def test_a_claim_without_an_endpoint_never_attaches_through_bridge_json(
    tmp_path: Path,
) -> None:
    # legacy_migration_mcp_test.go, TestFreshPreEndpointClaimNeverReadsBridgeFile: bridge.json
    # is diagnostic, never a live handoff; only an endpoint given by hand is used.
    config = games_config(tmp_path, {"g": {"target": "/bin/sleep"}})
    server = GabpServer(app_name="G", app_version="1", agent_id="g", token=TOKEN)
    notifier = ToolListNotifier()
    manager = GameManager(config, on_tools_changed=notifier, liveness_interval=60)
    async with manager, server.running() as address:
        unobserved_claim(config, "g", ownerInstanceId="another-bridge")
        bridge = {"port": address.port, "token": TOKEN, "gameId": "g"}
        (config.game_dir("g") / "bridge.json").write_text(json.dumps(bridge), encoding="utf-8")
        async with Client(build_server(manager, notifier=notifier)) as client:
            refused = await client.call_tool("games_connect", {"gameId": "g", "timeout": 2})
            status = await client.call_tool("games_status", {"gameId": "g"})
            by_hand = await client.call_tool(
                "games_connect", {"gameId": "g", "port": address.port, "token": TOKEN}
            )
    body = data(refused)
    assert refused.is_error
    assert (body["code"], body["causeClass"]) == ("endpoint_unavailable", "environment")
    assert [a["tool"] for a in body["nextActions"]] == ["games_status", "games_start"]
    assert data(status).get("connection") is None
    assert not by_hand.is_error, by_hand
