"""Layouts, UI clicks and scrolls, the hover cursor and screenshot clips refuse, pick and
change what the mod's do: its texts, ids read as it reads them, its timeouts and messages."""

from __future__ import annotations

from typing import Any

import anyio

_ELEMENT_ONLY = "is not a UI element target id returned by rimworld/get_ui_layout."


async def _options_layout(sim: Any) -> dict[str, Any]:
    await sim.call("rimworld/open_window_by_type", windowType="Dialog_Options")
    layout = await sim.call("rimworld/get_ui_layout")
    return dict(layout["surfaces"][0])


def _element(surface: dict[str, Any], kind: str) -> dict[str, Any]:
    return dict(next(e for e in surface["elements"] if e["kind"] == kind))


async def test_a_layout_with_nothing_drawn_times_out_with_the_mods_text(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        nothing = await sim.call("rimworld/get_ui_layout", timeoutMs=0)
        assert (nothing["success"], nothing["message"]) == (
            False,
            "Timed out waiting 2000ms for a UI surface to draw. Open a dialog, main tab, or "
            "selected gizmo grid and retry.",
        )
        await sim.call("rimworld/open_main_tab", mainTabId="Research")
        windows = (await sim.call("rimworld/get_screen_targets"))["targets"]["windows"]
        # a main tab's surface is main-tab:<defName>; its window id names no surface
        by_window = await sim.call(
            "rimworld/get_ui_layout", surfaceId=windows[0]["windowTargetId"], timeoutMs=500
        )
        assert by_window["message"] == (
            f"Timed out waiting 500ms for UI surface '{windows[0]['windowTargetId']}' to draw. "
            "Verify that the surface is open and retry."
        )
        padded = await sim.call("rimworld/get_ui_layout", surfaceId=" main-tab:Research ")
        assert [s["surfaceTargetId"] for s in padded["surfaces"]] == ["main-tab:Research"]


async def test_click_ui_target_refuses_and_reports_in_the_mods_words(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        surface = await _options_layout(sim)
        title = _element(surface, "label")
        refused = await sim.call("rimworld/click_ui_target", targetId=title["targetId"])
        assert refused["message"] == f"UI layout target '{title['targetId']}' is not actionable."
        for wrong in (surface["captureTargetId"], "ui-element:x:1:1"):
            answer = await sim.call("rimworld/click_ui_target", targetId=wrong)
            assert answer["message"] == f"Target id '{wrong}' {_ELEMENT_ONLY}"
        checkbox = _element(surface, "checkbox")
        clicked = await sim.call("rimworld/click_ui_target", targetId=checkbox["targetId"])
        assert clicked["message"] == (
            f"Activated UI target '{checkbox['label']}' on surface "
            f"'{surface['surfaceTargetId']}'. UI state did not change."
        )
        button = next(e for e in surface["elements"] if e["kind"] == "button")
        await sim.call("rimworld/close_window")
        gone = await sim.call("rimworld/click_ui_target", targetId=button["targetId"], timeoutMs=-5)
        assert (gone["success"], gone["message"]) == (
            False,
            f"Timed out waiting 2000ms for UI target '{button['targetId']}' to be redrawn. "
            "Capture a fresh layout and retry.",
        )


async def test_scroll_ui_target_needs_a_movement_and_says_where_it_went(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        surface = await _options_layout(sim)
        scroll = _element(surface, "scroll_view")["targetId"]
        still = await sim.call("rimworld/scroll_ui_target", targetId=scroll)
        assert (still["success"], still["message"]) == (
            False,
            "Provide a non-zero deltaX/deltaY or a targetX/targetY offset.",
        )
        label = _element(surface, "label")["targetId"]
        not_scroll = await sim.call("rimworld/scroll_ui_target", targetId=label, deltaY=10.0)
        assert not_scroll["message"] == f"UI layout target '{label}' is not a scroll view target."
        moved = await sim.call(
            "rimworld/scroll_ui_target", targetId=scroll, deltaY=999.0, targetY=20.5
        )
        assert (moved["changed"], moved["after"]["offsetY"]) == (True, 20.5)
        assert moved["message"] == f"Scrolled UI target '{scroll}' from (0, 0) to (0, 20.5)."
        sideways = await sim.call("rimworld/scroll_ui_target", targetId=scroll, deltaX=40.0)
        assert (sideways["success"], sideways["changed"]) == (True, False)
        assert sideways["message"] == (
            f"Scrolled UI target '{scroll}' from (0, 20.5) to (0, 20.5). "
            "Scroll offset did not change."
        )
        await sim.call("rimworld/close_window")
        gone = await sim.call("rimworld/scroll_ui_target", targetId=scroll, deltaY=5.0)
        assert gone["message"] == (
            f"Timed out waiting 2000ms for scroll target '{scroll}' to be redrawn. Capture a "
            "fresh layout and retry."
        )


async def test_hover_failures_are_payload_failures_with_the_mods_texts(open_sim: Any) -> None:
    async with open_sim(tick_rate=0, start_game=False) as sim:
        no_map = await sim.call("rimworld/set_hover_target", x=1, z=1, settleMs=0)
        assert (no_map["success"], no_map["message"]) == (False, "No current map is active.")
    async with open_sim(tick_rate=0) as sim:
        unknown = await sim.call("rimworld/set_hover_target", thingId="Thing_999999", settleMs=0)
        assert (unknown["success"], unknown["message"]) == (
            False,
            "Could not find current-map thing id 'Thing_999999'.",
        )
        malformed = await sim.call("rimworld/set_hover_target", targetId="ui-element:1", settleMs=0)
        assert malformed["message"] == f"Target id 'ui-element:1' {_ELEMENT_ONLY}"


async def test_a_pawns_thing_id_hovers_the_pawn(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        pawn = (await sim.call("rimworld/list_colonists"))["colonists"][0]
        hovered = await sim.call("rimworld/set_hover_target", thingId=pawn["pawnId"], settleMs=0)
        assert hovered["success"] is True
        assert (hovered["hoverTarget"]["kind"], hovered["hoverTarget"]["targetId"]) == (
            "pawn",
            pawn["pawnId"],
        )


async def test_hover_anchors_are_read_as_the_mod_reads_them(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        await sim.call("rimworld/open_window_by_type", windowType="Dialog_Options")
        window = (await sim.call("rimworld/get_screen_targets"))["targets"]["windows"][0]
        rect = window["rect"]
        corner = await sim.call(
            "rimworld/set_hover_target",
            targetId=window["windowTargetId"],
            anchor=" Bottom_Right ",
            settleMs=0,
        )
        assert corner["hoverTarget"]["screenPosition"] == {
            "x": rect["x"] + rect["width"],
            "y": rect["y"] + rect["height"],
        }
        # not one of the mod's names: the centre, where "left" inside it meant the left edge
        odd = await sim.call(
            "rimworld/set_hover_target", targetId=window["windowTargetId"], anchor="leftish"
        )
        assert odd["hoverTarget"]["screenPosition"]["x"] == rect["x"] + rect["width"] / 2
        blank = await sim.call(
            "rimworld/set_hover_target", targetId=window["windowTargetId"], anchor=" ", settleMs=0
        )
        assert blank["hoverTarget"]["details"]["anchor"] == "center"


async def test_the_hover_cursor_ends_by_the_clock_while_frames_stand_still(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        await sim.call("rimworld/set_hover_target", x=10, z=10, durationMs=250, settleMs=0)
        await anyio.sleep(0.35)
        targets = (await sim.call("rimworld/get_screen_targets"))["targets"]
        assert targets["hoverTarget"] is None


async def test_clip_targets_are_matched_as_the_mod_matches_them(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        await sim.call("rimworld/open_window_by_type", windowType="Dialog_Options")
        window = (await sim.call("rimworld/get_screen_targets"))["targets"]["windows"][0]
        wrong_type = f"window:{window['id']}:RimWorld.Dialog_Other"
        shot = await sim.call("rimworld/take_screenshot", clipTargetId=wrong_type)
        assert shot["message"] == (
            f"Could not find an open window matching target id '{wrong_type}'."
        )
        bad_ui = await sim.call("rimworld/take_screenshot", clipTargetId="ui-surface:1")
        assert bad_ui["message"] == (
            "Target id 'ui-surface:1' is not a supported screen target identifier."
        )
        await sim.call("rimworld/close_window")
        pawn = (await sim.call("rimworld/list_colonists"))["colonists"][0]
        await sim.call("rimworld/select_pawn", pawnName=pawn["name"])
        spot = {"x": pawn["position"]["x"], "z": pawn["position"]["z"] - 3}
        await sim.call("rimworld/spawn_thing", defName="MealSimple", **spot)
        await sim.call("rimworld/open_context_menu", **spot)
        menu = (await sim.call("rimworld/get_screen_targets"))["targets"]["contextMenu"]
        other = f"context-menu-option:{menu['menuId'] + 1}:1"
        mismatch = await sim.call("rimworld/take_screenshot", clipTargetId=other)
        assert mismatch["message"] == f"The active context menu does not match target id '{other}'."
        past = f"context-menu-option:{menu['menuId']}:99"
        out_of_range = await sim.call("rimworld/set_hover_target", targetId=past, settleMs=0)
        assert out_of_range["message"] == f"Context menu option target '{past}' is out of range."


async def test_a_clip_target_off_the_image_fails_and_names_the_full_shot(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        await sim.call("rimworld/open_window_by_type", windowType="Dialog_Options")
        window = (await sim.call("rimworld/get_screen_targets"))["targets"]["windows"][0]
        with sim.bridge.world_lock:
            opened = sim.bridge.world.windows.stack[0]
            opened.rect = (5000.0, 5000.0, 300.0, 250.0)
        shot = await sim.call(
            "rimworld/take_screenshot", fileName="away", clipTargetId=window["windowTargetId"]
        )
        assert (shot["success"], shot["clipped"], shot["fileName"]) == (False, False, "away")
        assert shot["message"] == (
            f"Target id '{window['windowTargetId']}' did not resolve to a valid clip rect."
        )
        assert shot["path"] == shot["sourcePath"] and shot["path"].endswith("away.png")
