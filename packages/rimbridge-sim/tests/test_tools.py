"""Every tool of the simulated RimBridge, called over real loopback TCP, with a real effect."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path
from typing import Any

import anyio
import pytest

from gabp import RemoteError
from rimbridge_sim.png import PNG_SIGNATURE

ALLOWLIST_TAGS = {"diagnostic", "read-only", "status", "attention-bypass"}


async def test_the_tool_list_is_complete_described_and_tagged_for_the_allowlist(
    open_sim: Any,
) -> None:
    async with open_sim() as sim:
        tools = {t["name"]: t for t in (await sim.conn.request("tools/list", {}))["tools"]}
    assert len(tools) >= 30
    assert not any(name.startswith("sim/") for name in tools)
    for name, descriptor in tools.items():
        assert descriptor["description"], name
        assert descriptor["inputSchema"]["additionalProperties"] is False, name
        if name.startswith("rimworld/"):
            assert not ALLOWLIST_TAGS & set(descriptor.get("tags") or []), name
    assert tools["rimbridge/ping"]["tags"] == ["status"]
    assert tools["rimbridge/get_bridge_status"]["tags"] == ["status"]
    for name in (
        "rimbridge/list_logs",
        "rimbridge/list_operations",
        "rimbridge/get_operation",
        "rimbridge/list_operation_events",
        "rimbridge/wait_for_operation",
        "rimbridge/wait_for_game_loaded",
    ):
        assert tools[name]["tags"] == ["diagnostic", "read-only"], name
    assert not ALLOWLIST_TAGS & set(tools["rimbridge/run_script"]["tags"])
    assert list(tools["rimbridge/list_logs"]["inputSchema"]["properties"]) == [
        "afterSequence",
        "minimumLevel",
        "limit",
        "operationId",
    ]
    assert tools["rimworld/get_pawn"]["inputSchema"]["required"] == ["pawnId"]
    assert tools["rimworld/take_screenshot"]["outputSchema"]["description"].startswith(
        "{success, path"
    )


async def test_test_tools_are_registered_only_when_enabled(open_sim: Any) -> None:
    async with open_sim(enable_test_tools=True) as sim:
        names = {t["name"] for t in (await sim.conn.request("tools/list", {}))["tools"]}
    assert {
        "sim/inject_log",
        "sim/schedule_error",
        "sim/stall",
        "sim/drop_connection",
        "sim/unload_map",
    } <= names


async def test_snake_case_argument_names_are_refused_before_the_tool_runs(open_sim: Any) -> None:
    async with open_sim() as sim:
        with pytest.raises(RemoteError) as caught:
            await sim.call("rimworld/get_pawn", pawn_id="Thing_Human2")
        assert caught.value.code == -32602
        assert await sim.attention() is None
        assert sim.bridge.journal.stats().started == 0


async def test_game_info_pause_speed_and_ticks_change_the_game(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        info = await sim.call("rimworld/get_game_info")
        assert info["success"] is True
        assert (info["phase"], info["mapId"], info["paused"], info["tick"]) == (
            "playing",
            "Map_1",
            True,
            0,
        )
        assert (await sim.call("rimworld/set_time_speed", speed=3))["timeSpeed"] == 3
        paused = await sim.call("rimworld/pause_game", paused=True)
        assert (paused["paused"], paused["timeSpeed"]) == (True, 0)
        resumed = await sim.call("rimworld/pause_game", paused=False)
        assert (resumed["paused"], resumed["timeSpeed"]) == (False, 3)
        stepped = await sim.call("rimworld/step_game_ticks", ticks=25)
        assert stepped == {"success": True, "ticks": 25, "tick": 25, "phase": "playing"}
        assert (await sim.call("rimworld/get_game_info"))["tick"] == 25


async def test_pawn_tools_select_draft_and_move_a_colonist(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        colonists = (await sim.call("rimworld/list_colonists"))["colonists"]
        assert len(colonists) == 3
        first, second = colonists[0]["id"], colonists[1]["id"]
        pawn = (await sim.call("rimworld/get_pawn", pawnId=first))["pawn"]
        assert pawn["id"] == first and pawn["drafted"] is False

        assert (await sim.call("rimworld/select_pawn", pawnId=first))["selection"] == [first]
        both = await sim.call("rimworld/select_pawn", pawnId=second, append=True)
        assert both["selection"] == [first, second]
        assert (await sim.call("rimworld/get_ui_state"))["selection"] == [first, second]

        drafted = (await sim.call("rimworld/set_draft", pawnId=first, drafted=True))["pawn"]
        assert drafted["drafted"] is True
        start = drafted["position"]
        target = {"x": start["x"], "z": start["z"] - 3}
        moved = (await sim.call("rimworld/order_move", pawnId=first, **target))["pawn"]
        assert moved["job"]["kind"] == "Goto"
        assert moved["job"]["target"] == target
        await sim.call("rimworld/step_game_ticks", ticks=200)
        assert (await sim.call("rimworld/get_pawn", pawnId=first))["pawn"]["position"] == target


async def test_cell_and_thing_tools_spawn_and_find_things(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        pawn = (await sim.call("rimworld/list_colonists"))["colonists"][0]
        cell = pawn["position"]
        before = (await sim.call("rimworld/list_things", defName="Silver"))["count"]
        spawned = await sim.call("rimworld/spawn_thing", defName="Silver", count=120, **cell)
        assert spawned["success"] is True
        assert sum(stack["stackCount"] for stack in spawned["stacks"]) == 120
        listed = await sim.call("rimworld/list_things", defName="Silver")
        assert listed["count"] == before + len(spawned["stacks"])
        info = await sim.call("rimworld/get_cell_info", **cell)
        assert info["cell"] == cell
        assert pawn["id"] in info["pawns"]
        assert [t["defName"] for t in info["things"]] == ["Silver"]
        everything = await sim.call("rimworld/list_things")
        assert everything["count"] > listed["count"]


async def test_designation_tools_designate_list_and_cancel(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        cells = [{"x": 20, "z": 20}, {"x": 21, "z": 20}]
        result = await sim.call(
            "rimworld/apply_architect_designator", designator="Build", cells=cells, buildDef="Wall"
        )
        assert result["kind"] == "Build"
        assert [d["cell"] for d in result["accepted"]] == cells
        assert result["rejected"] == []
        listed = (await sim.call("rimworld/list_designations"))["designations"]
        assert sorted(d["id"] for d in listed) == sorted(d["id"] for d in result["accepted"])
        gone = result["accepted"][0]["id"]
        cancelled = await sim.call("rimworld/cancel_designation", designationId=gone)
        assert cancelled["designation"]["id"] == gone
        left = (await sim.call("rimworld/list_designations"))["designations"]
        assert [d["id"] for d in left] == [result["accepted"][1]["id"]]


async def test_save_list_and_load_replace_the_map_through_a_long_event(open_sim: Any) -> None:
    async with open_sim() as sim:
        saved = await sim.call("rimworld/save_game", name="before raid")
        assert saved["save"]["name"] == "before raid"
        assert [s["name"] for s in (await sim.call("rimworld/list_saves"))["saves"]] == [
            "before raid"
        ]
        loading = await sim.call("rimworld/load_game", name="before raid")
        assert (loading["success"], loading["phase"]) == (True, "loading")
        done = await sim.call(
            "rimbridge/wait_for_operation", operationId=loading["operationId"], timeoutMs=5000
        )
        assert done["operation"]["status"] == "completed"
        assert done["operation"]["method"] == "long_event/load"
        loaded = await sim.call("rimbridge/wait_for_game_loaded", timeoutMs=5000)
        assert loaded["success"] is True and loaded["mapId"] != "Map_1"
        assert (await sim.call("rimworld/get_game_info"))["mapId"] == loaded["mapId"]


async def test_main_menu_and_a_new_debug_game(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        menu = await sim.call("rimworld/go_to_main_menu")
        assert (menu["phase"], menu["mapId"]) == ("main_menu", None)
        waited = await sim.call("rimbridge/wait_for_game_loaded", timeoutMs=50)
        assert (waited["success"], waited["code"], waited["phase"]) == (
            False,
            "timeout",
            "main_menu",
        )
        started = await sim.call("rimworld/start_debug_game", seed=7, mapSize=30, colonists=2)
        assert (started["phase"], started["mapWidth"], started["colonistCount"]) == (
            "playing",
            30,
            2,
        )
        assert started["seed"] == 7


async def test_letters_open_into_windows_that_close(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        with sim.bridge.world_lock:
            letter = sim.bridge.world.send_letter("Trader arrived", "A caravan is here.")
        unread = (await sim.call("rimworld/list_letters", unreadOnly=True))["letters"]
        assert [x["id"] for x in unread] == [letter.id]
        opened = await sim.call("rimworld/open_letter", letterId=letter.id)
        assert opened["letter"]["read"] is True
        assert opened["window"]["title"] == "Trader arrived"
        assert (await sim.call("rimworld/list_letters", unreadOnly=True))["letters"] == []
        ui = await sim.call("rimworld/get_ui_state")
        assert ui["windows"] == [opened["window"]]
        closed = await sim.call("rimworld/close_window", windowId=opened["window"]["id"])
        assert closed == {"success": True, "closed": opened["window"], "windows": []}
        again = await sim.call("rimworld/close_window")
        assert again == {"success": False, "message": "no window is open", "code": "no_window"}
        assert await sim.attention() is None


async def test_a_screenshot_is_a_real_png_of_the_requested_size(
    open_sim: Any, tmp_path: Path
) -> None:
    async with open_sim(tick_rate=0) as sim:
        shot = await sim.call("rimworld/take_screenshot", width=64, height=48)
    path = Path(shot["path"])
    assert path.parent == (tmp_path / "screenshots").resolve()
    assert (shot["width"], shot["height"], shot["mapId"]) == (64, 48, "Map_1")
    data = await anyio.Path(path).read_bytes()
    assert len(data) == shot["sizeBytes"]
    assert data[:8] == PNG_SIGNATURE
    length, kind = struct.unpack(">I4s", data[8:16])
    assert (length, kind) == (13, b"IHDR")
    width, height, depth, color = struct.unpack(">IIBB", data[16:26])
    assert (width, height, depth, color) == (64, 48, 8, 2)
    assert zlib.crc32(data[12:29]) == struct.unpack(">I", data[29:33])[0]
    idat = data.index(b"IDAT")
    (idat_length,) = struct.unpack(">I", data[idat - 4 : idat])
    raw = zlib.decompress(data[idat + 4 : idat + 4 + idat_length])
    assert len(raw) == 48 * (1 + 64 * 3)


async def test_diagnostics_tools_describe_the_bridge_and_its_operations(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        ping = await sim.call("rimbridge/ping")
        assert (ping["pong"], ping["agentId"], ping["phase"]) == (True, "rimworld", "playing")
        status = await sim.call("rimbridge/get_bridge_status")
        assert (status["policy"], status["mapId"], status["attention"]) == (
            "recommended",
            "Map_1",
            None,
        )
        assert status["logs"]["capacity"] == 2000
        request_id = "0b6f1c52-0a8c-4a55-9d8e-2a1c0d7b9e11"
        await sim.call("rimworld/set_time_speed", request_id=request_id, speed=2)
        operation = (await sim.call("rimbridge/get_operation", operationId=request_id))["operation"]
        assert (operation["method"], operation["status"], operation["rootId"]) == (
            "rimworld/set_time_speed",
            "completed",
            request_id,
        )
        assert [e["kind"] for e in operation["events"]] == ["started", "completed"]
        events = await sim.call(
            "rimbridge/list_operation_events", operationId=request_id, afterIndex=1
        )
        assert [e["kind"] for e in events["events"]] == ["completed"]
        assert events["nextIndex"] == 2
        listed = (await sim.call("rimbridge/list_operations", limit=5))["operations"]
        assert request_id in [op["operationId"] for op in listed]
        missing = await sim.call("rimbridge/get_operation", operationId="nope")
        assert (missing["success"], missing["code"]) == (False, "unknown_operation")
        logs = await sim.call("rimbridge/list_logs", afterSequence=-1, minimumLevel="info")
        assert logs["entries"][0]["message"].startswith("Started a new game on Map_1")


async def test_wait_for_operation_times_out_as_a_payload_failure(open_sim: Any) -> None:
    async with open_sim(tick_rate=0, start_game=False) as sim:
        with sim.bridge.world_lock:
            sim.bridge.world.start_debug_game()
            sim.bridge.world.save_game("s")
        loading = await sim.call("rimworld/load_game", name="s")
        waited = await sim.call(
            "rimbridge/wait_for_operation", operationId=loading["operationId"], timeoutMs=30
        )
        assert (waited["success"], waited["code"]) == (False, "timeout")
        assert waited["operation"]["status"] == "running"
        sim.bridge.advance_frames(40)
        with anyio.fail_after(5):
            done = await sim.call(
                "rimbridge/wait_for_operation", operationId=loading["operationId"], timeoutMs=1000
            )
        assert done["operation"]["status"] == "completed"
