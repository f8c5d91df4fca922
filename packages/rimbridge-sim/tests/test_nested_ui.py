"""The records inside the UI tools' answers, with the mod's keys and kinds of value: window
records, screen targets, layout surfaces and elements, the hover cursor, languages, inspect
tabs, float-menu gestures, letters, messages and alerts, and screenshot clip rectangles."""

from __future__ import annotations

from typing import Any

_RECT = {"x", "y", "width", "height"}
_WINDOW_KEYS = [
    "index",
    "id",
    "type",
    "title",
    "layer",
    "isOpen",
    "getsInput",
    "closeOnAccept",
    "closeOnCancel",
    "forcePause",
    "preventCameraMotion",
    "absorbInputAroundWindow",
    "drawInScreenshotMode",
    "semanticKind",
    "semanticDetails",
    "rect",
]
_POINTER_KEYS = [
    "kind",
    "targetId",
    "label",
    "screenPosition",
    "expiresAtUtc",
    "durationMs",
    "clearOnRealInput",
    "details",
    "inputDiagnostics",
]


def _floats(rect: dict[str, Any]) -> bool:
    return set(rect) == _RECT and all(isinstance(v, float) for v in rect.values())


async def _colonist(sim: Any) -> dict[str, Any]:
    return (await sim.call("rimworld/list_colonists"))["colonists"][0]


async def test_window_records_have_a_semantic_kind_only_for_a_mod_settings_dialog(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        await sim.call("rimworld/open_main_tab", mainTabId="Research")
        await sim.call("rimworld/open_window_by_type", windowType="Dialog_Options")
        state = await sim.call("rimworld/get_ui_state")
        assert [list(w) for w in state["windows"]] == [_WINDOW_KEYS, _WINDOW_KEYS]
        for window in state["windows"]:
            assert (window["semanticKind"], window["semanticDetails"]) == (None, None)
            assert _floats(window["rect"])
        surfaces = (await sim.call("rimworld/list_mod_settings_surfaces"))["surfaces"]
        mod_id = next(s["modId"] for s in surfaces if s["hasSettingsWindow"])
        opened = await sim.call("rimworld/open_mod_settings", modId=mod_id)
        dialog = opened["after"]["windows"][-1]
        assert dialog["semanticKind"] == "mod_settings_dialog"
        assert dialog["semanticDetails"] == opened["dialog"]
        assert set(opened["dialog"]) == {"windowType", "windowId", "mod"}


async def test_a_float_menu_window_has_no_title(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        pawn = await _colonist(sim)
        spot = {"x": pawn["position"]["x"], "z": pawn["position"]["z"] - 3}
        await sim.call("rimworld/spawn_thing", defName="MealSimple", **spot)
        await sim.call("rimworld/select_pawn", pawnName=pawn["name"])
        await sim.call("rimworld/open_context_menu", **spot)
        state = await sim.call("rimworld/get_ui_state")
        assert (state["topWindowType"], state["topWindowTitle"]) == ("Verse.FloatMenu", None)
        assert state["windows"][-1]["title"] is None


async def test_screen_targets_summarise_the_ui_and_describe_the_selected_pawns(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        pawn = await _colonist(sim)
        await sim.call("rimworld/select_pawn", pawnName=pawn["name"])
        await sim.call("rimworld/open_main_tab", mainTabId="Research")
        targets = (await sim.call("rimworld/get_screen_targets"))["targets"]
        assert list(targets["uiState"]) == [
            "programState",
            "inEntryScene",
            "hasCurrentGame",
            "windowCount",
            "floatMenuOpen",
            "nonImmediateDialogWindowOpen",
            "mainTabOpen",
            "openMainTabId",
            "openMainTabType",
            "focusedWindowType",
            "topWindowType",
        ]
        [selected] = targets["selectedPawns"]
        colonist = {k: v for k, v in pawn.items() if k in selected}
        assert selected["pawnId"] == pawn["pawnId"]
        assert {k: selected[k] for k in colonist if k != "selected"} == {
            k: v for k, v in colonist.items() if k != "selected"
        }
        tab = targets["mainTab"]
        assert list(tab) == [
            "kind",
            "targetId",
            "defName",
            "label",
            "type",
            "order",
            "visible",
            "disabled",
            "rect",
        ]
        [window] = targets["windows"]
        assert tab["rect"] == window["rect"]
        assert list(window) == [
            "kind",
            "index",
            "id",
            "type",
            "title",
            "layer",
            "isTopWindow",
            "isFocusedWindow",
            "getsInput",
            "windowTargetId",
            "dismissTargetId",
            "rect",
        ]


async def test_layouts_number_surfaces_and_elements_from_one_like_the_mod(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        await sim.call("rimworld/open_main_tab", mainTabId="Research")
        await sim.call("rimworld/open_window_by_type", windowType="Dialog_Options")
        layout = await sim.call("rimworld/get_ui_layout")
        tab, options = layout["surfaces"]
        capture = layout["captureId"]
        assert (tab["captureTargetId"], options["captureTargetId"]) == (
            f"ui-surface:{capture}:1",
            f"ui-surface:{capture}:2",
        )
        assert (tab["surfaceTargetId"], tab["surfaceKind"], tab["title"], tab["label"]) == (
            "main-tab:Research",
            "main_tab",
            None,
            "Research",
        )
        assert (options["surfaceKind"], options["title"], options["label"]) == (
            "window",
            "Options",
            None,
        )
        state = await sim.call("rimworld/get_ui_state")
        assert options["rect"] == options["screenRect"] == state["windows"][1]["rect"]
        elements = {e["kind"]: e for e in options["elements"]}
        assert options["elements"][0]["targetId"] == f"ui-element:{capture}:2:1"
        assert {k: elements["label"][k] for k in ("source", "isChecked", "disabled")} == {
            "source": "widgets.label",
            "isChecked": None,
            "disabled": None,
        }
        assert (elements["button"]["source"], elements["button"]["disabled"]) == (
            "widgets.button_text",
            False,
        )
        assert elements["checkbox"]["source"] == "widgets.checkbox_labeled"
        scroll = elements["scroll_view"]
        assert (scroll["source"], scroll["actionable"]) == ("widgets.begin_scroll_view", False)
        assert all((e["depth"], e["parentTargetId"]) == (0, None) for e in options["elements"])
        assert options["actionableElementCount"] == sum(
            1 for e in options["elements"] if e["actionable"]
        )
        assert all(_floats(e["rect"]) and _floats(e["screenRect"]) for e in options["elements"])
        only = await sim.call("rimworld/get_ui_layout", surfaceId="main-tab:Research")
        assert [s["surfaceTargetId"] for s in only["surfaces"]] == ["main-tab:Research"]


async def test_the_hover_cursor_is_described_as_the_mods_persistent_pointer(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        hovered = await sim.call("rimworld/set_hover_target", x=20, z=21, settleMs=0)
        pointer = hovered["hoverTarget"]
        assert list(pointer) == _POINTER_KEYS
        assert (pointer["kind"], pointer["targetId"], pointer["label"]) == (
            "cell",
            "cell:20:21",
            "Cell (20, 21)",
        )
        assert pointer["details"]["cell"] == {"x": 20, "z": 21}
        assert pointer["durationMs"] == 15000
        assert set(pointer["inputDiagnostics"]) == {
            "uiMousePosition",
            "uiMousePositionInverted",
            "eventMousePosition",
            "recentMouseIsOverChecks",
            "recentMouseIsOverMatches",
        }
        screen = await sim.call(
            "rimworld/set_hover_target", screenX=100.5, screenY=40.0, settleMs=0
        )
        assert (screen["hoverTarget"]["kind"], screen["hoverTarget"]["targetId"]) == (
            "screen",
            "screen:100.5:40",
        )
        pawn = await _colonist(sim)
        on_pawn = await sim.call("rimworld/set_hover_target", pawnName=pawn["name"], settleMs=0)
        assert (on_pawn["hoverTarget"]["kind"], on_pawn["hoverTarget"]["targetId"]) == (
            "pawn",
            pawn["pawnId"],
        )
        assert on_pawn["hoverTarget"]["details"]["pawnId"] == pawn["pawnId"]
        both = await sim.call("rimworld/set_hover_target", x=1, z=1, screenX=1.0, screenY=1.0)
        assert both["success"] is False
        assert "mutually exclusive" in both["message"]
        cleared = await sim.call("rimworld/clear_hover_target")
        assert (cleared["message"], cleared["hoverTarget"]) == ("Hover target cleared.", None)


async def test_hovering_a_layout_element_answers_the_hovered_element(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        await sim.call("rimworld/open_window_by_type", windowType="Dialog_Options")
        layout = await sim.call("rimworld/get_ui_layout")
        surface = layout["surfaces"][0]
        element = surface["elements"][1]
        hovered = await sim.call(
            "rimworld/set_hover_target", targetId=element["targetId"], settleMs=0
        )
        assert hovered["hoverTarget"] == {
            "kind": "ui_element",
            "targetId": element["targetId"],
            "surfaceTargetId": surface["surfaceTargetId"],
            "elementIndex": 2,
            "elementKind": element["kind"],
            "source": element["source"],
            "label": element["label"],
            "anchor": "center",
            "offsetX": 0.0,
            "offsetY": 0.0,
        }
        pointer = (await sim.call("rimworld/get_screen_targets"))["targets"]["hoverTarget"]
        assert (pointer["kind"], pointer["details"]["elementKind"]) == (
            "ui_element",
            element["kind"],
        )
        window = (await sim.call("rimworld/get_screen_targets"))["targets"]["windows"][0]
        on_dismiss = await sim.call(
            "rimworld/set_hover_target", targetId=window["dismissTargetId"], settleMs=0
        )
        assert on_dismiss["hoverTarget"]["kind"] == "window_dismiss"
        assert on_dismiss["hoverTarget"]["details"]["source"] == "screen_target"


async def test_screen_target_clicks_name_the_mods_target_and_action_kinds(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        await sim.call("rimworld/open_main_tab", mainTabId="Research")
        await sim.call("rimworld/open_window_by_type", windowType="Dialog_Options")
        targets = (await sim.call("rimworld/get_screen_targets"))["targets"]
        options = targets["windows"][1]
        body = await sim.call("rimworld/click_screen_target", targetId=options["windowTargetId"])
        assert (body["success"], body["targetKind"], body["actionKind"]) == (False, "window", "")
        assert "descriptive only" in body["message"]
        tab = await sim.call(
            "rimworld/click_screen_target", targetId=targets["mainTab"]["targetId"]
        )
        assert (tab["success"], tab["targetKind"]) == (False, "main_tab")
        dismissed = await sim.call(
            "rimworld/click_screen_target", targetId=options["dismissTargetId"]
        )
        assert [k for k in dismissed if k != "operation"] == [
            "success",
            "command",
            "changed",
            "windowCountDelta",
            "message",
            "targetId",
            "targetKind",
            "actionKind",
            "executedOptionIndex",
            "executedLabel",
            "before",
            "after",
            "openedWindowTypes",
            "closedWindowTypes",
        ]
        assert (dismissed["targetKind"], dismissed["actionKind"]) == (
            "window_dismiss",
            "dismiss_window",
        )
        assert dismissed["closedWindowTypes"] == ["RimWorld.Dialog_Options"]
        unknown = await sim.call("rimworld/click_screen_target", targetId="nonsense")
        assert (unknown["targetKind"], unknown["actionKind"]) == ("", "")


async def test_accept_and_cancel_report_the_mods_command_names(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        await sim.call("rimworld/open_window_by_type", windowType="Dialog_Options")
        cancelled = await sim.call("rimworld/press_cancel")
        assert cancelled["command"] == "cancel"
        await sim.call("rimworld/open_window_by_type", windowType="Dialog_Options")
        accepted = await sim.call("rimworld/press_accept")
        assert accepted["command"] == "accept"


async def test_languages_are_identified_by_folder_and_switching_answers_records(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        listed = await sim.call("rimworld/list_languages")
        german = next(x for x in listed["languages"] if x["legacyFolderName"] == "German")
        assert (german["id"], german["folderName"], german["recommendedQuery"]) == (
            "German (Deutsch)",
            "German (Deutsch)",
            "German",
        )
        chinese = next(
            x for x in listed["languages"] if x["legacyFolderName"] == "ChineseSimplified"
        )
        assert chinese["recommendedQuery"] == "ChineseSimplified"
        english = listed["activeLanguage"]
        switched = await sim.call("rimworld/switch_language", language="German")
        assert switched["requestedLanguage"] == german
        assert switched["previousLanguage"] == english
        assert switched["activeLanguage"] == english  # until the long event has run
        assert set(switched["before"]) == set(switched["after"])
        assert "programState" in switched["before"]
        assert "windows" in switched["beforeUi"] and "windows" in switched["afterUi"]
        assert switched["after"]["longEventPending"] is True
        await sim.call("rimbridge/wait_for_long_event_idle")
        again = await sim.call("rimworld/switch_language", language="German (Deutsch)")
        assert again["status"] == "noop"
        assert again["requestedLanguage"]["isActive"] is True
        assert again["activeLanguage"] == again["requestedLanguage"]
        assert {"before", "beforeUi"} <= set(again)


async def test_inspect_tabs_carry_the_mods_keys_ids_and_snapshot_class(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        pawn = await _colonist(sim)
        await sim.call("rimworld/select_pawn", pawnName=pawn["name"])
        listed = await sim.call("rimworld/list_inspect_tabs")
        health = listed["tabs"][0]
        assert (health["labelKey"], health["tutorTag"]) == ("TabHealth", "Health")
        prefix, fingerprint, ordinal, digest = health["inspectTabId"].split(":")
        assert (prefix, fingerprint, ordinal) == (
            "inspect-tab",
            listed["selectionFingerprint"],
            "1",
        )
        assert len(digest) == 16 and int(digest, 16) >= 0
        ui = listed["uiState"]
        assert {"Success", "ProgramState", "WindowCount", "MainTab", "Windows"} <= set(ui)
        await sim.call("rimworld/open_main_tab", mainTabId="Research")
        ui = (await sim.call("rimworld/list_inspect_tabs"))["uiState"]
        assert set(ui["MainTab"]) == {
            "Id",
            "DefName",
            "Label",
            "Type",
            "Order",
            "IsOpen",
            "Visible",
            "Disabled",
            "ValidWithoutMap",
            "Minimized",
            "Rect",
        }
        [window] = ui["Windows"]
        assert (window["SemanticKind"], window["SemanticDetails"]) == ("", None)
        assert set(window["Rect"]) == {"X", "Y", "Width", "Height"}
        opened = await sim.call("rimworld/open_inspect_tab", inspectTabId="TabGear")
        assert opened["openedInspectTab"]["shortType"] == "ITab_Pawn_Gear"


async def test_map_gestures_join_modifiers_with_commas_and_order_menu_fields(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        pawn = await _colonist(sim)
        spot = {"x": pawn["position"]["x"], "z": pawn["position"]["z"] - 3}
        await sim.call("rimworld/spawn_thing", defName="MealSimple", **spot)
        await sim.call("rimworld/select_pawn", pawnName=pawn["name"])
        menu = await sim.call("rimworld/open_context_menu", modifiers="shift+ctrl", **spot)
        assert menu["modifiers"] == "shift,ctrl"
        await sim.call("rimworld/close_context_menu")
        clicked = await sim.call("rimworld/click_cell", button="right", **spot)
        assert clicked["actionKind"] == "menu_opened"
        assert [k for k in clicked if k != "operation"] == [
            "success",
            "command",
            "actionKind",
            "gestureKind",
            "menuId",
            "provider",
            "clickCell",
            "startCell",
            "endCell",
            "target",
            "button",
            "holdDurationMs",
            "modifiers",
            "optionCount",
            "options",
            "selectionBefore",
            "selectionAfter",
            "message",
        ]


async def test_notification_clicks_capture_the_mods_state_records(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        pawn = await _colonist(sim)
        await sim.call(
            "rimworld/execute_debug_action", path="Actions/Pawns/Down", pawnName=pawn["name"]
        )
        await sim.call("rimworld/step_game_ticks", ticks=2)
        alerts = (await sim.call("rimworld/list_alerts"))["alerts"]
        rescue = next(a for a in alerts if a["targets"])
        assert rescue["targets"][0]["kind"] == "pawn"
        activated = await sim.call("rimworld/activate_alert", alertId=rescue["id"])
        before, after = activated["stateBefore"], activated["stateAfter"]
        assert list(before) == ["bridge", "uiState", "camera", "selection"]
        assert "automationReady" in before["bridge"]
        assert "WindowCount" in before["uiState"]
        assert before["camera"]["mapPosition"] is not None
        assert list(after["selection"]) == ["count", "truncated", "selectedObjects"]
        [selected] = after["selection"]["selectedObjects"]
        assert list(selected) == ["kind", "id", "label", "mapId", "mapIndex", "position"]
        assert (selected["kind"], selected["id"]) == ("pawn", pawn["pawnId"])
        assert activated["effects"]["selectionChanged"] is True
        await sim.call("rimworld/execute_debug_action", path="Actions/Incidents/Cargo pods")
        letter = (await sim.call("rimworld/list_letters"))["letters"][0]
        opened = await sim.call("rimworld/open_letter", letterId=letter["id"])
        assert opened["effects"]["openedWindowTypes"] == ["Verse.Dialog_NodeTree"]
        assert opened["effects"]["topWindowChanged"] is True


async def test_messages_have_string_ids_and_full_look_targets(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        await sim.call("rimworld/take_screenshot", fileName="note", suppressMessage=False)
        [message] = (await sim.call("rimworld/list_messages"))["messages"]
        assert isinstance(message["id"], str) and message["id"].startswith("Message_")
        assert message["lookTargets"] == {
            "isValid": False,
            "any": False,
            "targetCount": 0,
            "targetsTruncated": False,
            "primaryTarget": None,
            "targets": [],
        }


async def test_screenshot_clips_are_whole_image_pixels(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        await sim.call("rimworld/open_window_by_type", windowType="Dialog_Options")
        window = (await sim.call("rimworld/get_screen_targets"))["targets"]["windows"][0]
        shot = await sim.call(
            "rimworld/take_screenshot", clipTargetId=window["dismissTargetId"], clipPadding=8
        )
        assert shot["clipTargetKind"] == "window_dismiss"
        assert shot["clipRect"] == {"x": 166, "y": 51, "width": 308, "height": 258}
        assert shot["screenTargets"]["uiState"]["windowCount"] == 1
