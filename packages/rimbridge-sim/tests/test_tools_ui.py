"""Windows, main and inspect tabs, layouts, screen targets, hover, languages, camera and
screenshots."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path
from typing import Any


def _png_size(path: str) -> tuple[int, int]:
    data = Path(path).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    body = b"".join(
        data[i + 8 : i + 8 + struct.unpack(">I", data[i : i + 4])[0]]
        for i in range(8, len(data), 1)
        if data[i + 4 : i + 8] == b"IDAT"
    )
    assert len(zlib.decompress(body)) == height * (1 + 3 * width)
    return width, height


async def test_windows_open_by_type_lay_out_and_take_clicks(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        opened = await sim.call("rimworld/open_window_by_type", windowType="Dialog_Options")
        assert (opened["success"], opened["openedWindowTypes"]) == (
            True,
            ["RimWorld.Dialog_Options"],
        )
        needs_args = await sim.call("rimworld/open_window_by_type", windowType="Dialog_MessageBox")
        assert "parameterless constructor" in needs_args["message"]
        state = await sim.call("rimworld/get_ui_state")
        assert (state["windowCount"], state["focusedWindowTitle"]) == (1, "Options")
        layout = await sim.call("rimworld/get_ui_layout")
        elements = {e["label"]: e for e in layout["surfaces"][0]["elements"]}
        checkbox = elements["Pause on load"]
        assert (checkbox["kind"], checkbox["isChecked"]) == ("checkbox", False)
        clicked = await sim.call("rimworld/click_ui_target", targetId=checkbox["targetId"])
        # a checkbox changes no window: the mod's note says so
        assert clicked["message"] == (
            "Activated UI target 'Pause on load' on surface "
            "'window:1:RimWorld.Dialog_Options'. UI state did not change."
        )
        again = await sim.call("rimworld/get_ui_layout")
        scroll = next(e for e in again["surfaces"][0]["elements"] if e["kind"] == "scroll_view")
        scrolled = await sim.call(
            "rimworld/scroll_ui_target", targetId=scroll["targetId"], deltaY=5000.0
        )
        assert scrolled["after"]["atBottom"] is True
        assert scrolled["after"]["offsetY"] == scrolled["after"]["maxOffsetY"]
        cancelled = await sim.call("rimworld/press_cancel")
        assert cancelled["closedWindowTypes"] == ["RimWorld.Dialog_Options"]
        nothing = await sim.call("rimworld/close_window")
        assert nothing["success"] is False


async def test_main_tabs_and_the_selected_colonists_inspect_tabs(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        tabs = await sim.call("rimworld/list_main_tabs")
        assert tabs["tabs"][0]["targetId"] == "main-tab:Work"
        opened = await sim.call("rimworld/open_main_tab", mainTabId="Research")
        del opened["operation"]
        # the mod's main-tab answer: no window counts or lists
        assert list(opened) == ["success", "command", "changed", "message", "before", "after"]
        assert (opened["changed"], opened["after"]["openMainTabId"]) == (
            True,
            "main-tab:Research",
        )
        assert (await sim.call("rimworld/list_main_tabs"))["openMainTabLabel"] == "Research"
        wrong = await sim.call("rimworld/close_main_tab", mainTabId="Work")
        assert (wrong["success"], wrong["changed"]) == (False, False)
        assert wrong["after"] == wrong["before"] and "windowCountDelta" not in wrong
        closed = await sim.call("rimworld/close_main_tab")
        assert closed["success"] is True
        pawn = (await sim.call("rimworld/list_colonists"))["colonists"][0]
        await sim.call("rimworld/select_pawn", pawnName=pawn["name"])
        inspect = await sim.call("rimworld/list_inspect_tabs")
        assert [t["label"] for t in inspect["tabs"]][:3] == ["Health", "Needs", "Gear"]
        opened_tab = await sim.call("rimworld/open_inspect_tab", inspectTabId="ITab_Pawn_Gear")
        assert opened_tab["openInspectTabType"] == "RimWorld.ITab_Pawn_Gear"


async def test_a_float_menu_option_is_a_screen_target_that_can_be_clicked(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        pawn = (await sim.call("rimworld/list_colonists"))["colonists"][0]
        spot = {"x": pawn["position"]["x"], "z": pawn["position"]["z"] - 3}
        await sim.call("rimworld/spawn_thing", defName="MealSimple", **spot)
        await sim.call("rimworld/select_pawn", pawnName=pawn["name"])
        await sim.call("rimworld/open_context_menu", **spot)
        targets = (await sim.call("rimworld/get_screen_targets"))["targets"]
        option = next(o for o in targets["contextMenu"]["options"] if o["label"].startswith("Cons"))
        clicked = await sim.call("rimworld/click_screen_target", targetId=option["targetId"])
        assert (clicked["actionKind"], clicked["executedLabel"]) == (
            "execute_context_menu_option",
            "Consume simple meal",
        )
        assert (await sim.call("rimworld/list_colonists"))["colonists"][0]["job"] == "Ingest"


async def test_hover_targets_follow_the_camera_and_screenshots_crop_to_targets(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        await sim.call("rimworld/jump_camera_to_cell", x=25, z=25)
        hover = await sim.call("rimworld/set_hover_target", x=25, z=25, settleMs=0)
        assert hover["hoverTarget"]["screenPosition"] == {"x": 640.0, "y": 360.0}
        full = await sim.call("rimworld/take_screenshot", fileName="full")
        assert _png_size(full["path"]) == (640, 360)
        assert full["screenTargets"]["hoverTarget"]["kind"] == "cell"
        await sim.call("rimworld/open_window_by_type", windowType="RimWorld.Dialog_Options")
        window = (await sim.call("rimworld/get_screen_targets"))["targets"]["windows"][0]
        clipped = await sim.call(
            "rimworld/take_screenshot",
            clipTargetId=window["windowTargetId"],
            clipPadding=0,
            suppressMessage=False,
        )
        assert clipped["clipped"] is True
        assert _png_size(clipped["path"]) == (300, 250)
        messages = await sim.call("rimworld/list_messages")
        assert messages["messages"][0]["text"].startswith("Screenshot saved as")
        cleared = await sim.call("rimworld/clear_hover_target")
        assert cleared["hoverTarget"] is None


async def test_the_camera_moves_zooms_and_frames(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        jumped = await sim.call("rimworld/jump_camera_to_cell", x=10, z=12)
        assert jumped["camera"]["mapPosition"] == {"x": 10, "z": 12}
        moved = await sim.call("rimworld/move_camera", deltaX=5.0, deltaZ=-100.0)
        assert moved["cell"] == {"x": 15, "z": 0}
        assert (await sim.call("rimworld/zoom_camera", delta=-100.0))["rootSize"] == 8.0
        assert (await sim.call("rimworld/set_camera_zoom", rootSize=30.0))["rootSize"] == 30.0
        colonists = (await sim.call("rimworld/list_colonists"))["colonists"]
        framed = await sim.call(
            "rimworld/frame_pawns", pawnNamesCsv=",".join(c["name"] for c in colonists)
        )
        assert sorted(framed["framedPawns"]) == sorted(c["name"] for c in colonists)
        rect = await sim.call("rimworld/frame_cell_rect", x=5, z=5, width=20, height=20)
        assert (rect["rootSizeMode"], rect["requiredRootSize"]) == ("current", 14.0)
        before = await sim.call("rimworld/get_camera_state")
        del before["operation"]
        shot = await sim.call(
            "rimworld/screenshot_cell_rect",
            x=20,
            z=20,
            width=4,
            height=4,
            paddingCells=0,
            rootSize=8.0,
        )
        assert (shot["cameraWasReset"], shot["cameraRestored"]) == (True, before)
        assert shot["cameraAfterCapture"] is None  # the mod's: only a camera left in place
        assert _png_size(shot["path"]) == (90, 90)  # 4 cells of 45 logical pixels, half scale


async def test_languages_switch_through_a_short_long_event_and_persist(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        languages = await sim.call("rimworld/list_languages")
        german = next(x for x in languages["languages"] if x["friendlyNameNative"] == "Deutsch")
        assert (languages["activeLanguageId"], german["recommendedQuery"]) == ("English", "German")
        switched = await sim.call("rimworld/switch_language", language="Deutsch")
        assert (switched["status"], switched["longEventQueued"]) == ("queued", True)
        await sim.call("rimbridge/wait_for_long_event_idle")
        active = (await sim.call("rimworld/list_languages"))["activeLanguageId"]
        assert active == "German (Deutsch)"
        prefs = (sim.bridge.data_dir / "Config" / "Prefs.xml").read_text(encoding="utf-8")
        assert "<langFolderName>German (Deutsch)</langFolderName>" in prefs
        again = await sim.call("rimworld/switch_language", language="German")
        assert again["status"] == "noop"
