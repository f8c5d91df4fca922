"""A blank or missing argument is answered as the mod answers it: in the payload
(``success: false``) with the mod's own text and fields, and the sim's ``code``
``invalid_argument``, as the package README's rules say. The operation completes (a payload
failure opens no attention)."""

from __future__ import annotations

import os
from typing import Any

_INVALID = "invalid_argument"
_COMPLETED = 2  # the mod's OperationStatus.Completed


def _fields(result: dict[str, Any]) -> list[str]:
    return [key for key in result if key != "operation"]


def _blank_refusal(result: dict[str, Any], message: str) -> None:
    assert (result["success"], result["message"], result["code"]) == (False, message, _INVALID)
    assert _fields(result)[-1] == "code"
    assert result["operation"]["Status"] == _COMPLETED


async def test_architect_tools_answer_a_blank_category_or_designator_id_in_the_payload(
    open_sim: Any,
) -> None:
    architect = ["success", "message", "devModeEnabled", "godMode", "state", "code"]
    async with open_sim(tick_rate=0) as sim:
        category = await sim.call("rimworld/list_architect_designators", categoryId=" ")
        _blank_refusal(category, "A category id is required.")
        assert _fields(category) == architect
        for tool, extra in (
            ("rimworld/select_architect_designator", {}),
            ("rimworld/apply_architect_designator", {"x": 1, "z": 1}),
            ("rimworld/set_zone_target", {}),
        ):
            result = await sim.call(tool, designatorId="  ", **extra)
            _blank_refusal(result, "A designator id is required.")
            assert _fields(result) == architect, tool
        assert await sim.attention() is None


async def test_debug_tools_answer_a_blank_path_in_the_payload(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        for tool, extra in (
            ("rimworld/list_debug_action_children", {}),
            ("rimworld/get_debug_action", {}),
            ("rimworld/execute_debug_action", {}),
            ("rimworld/set_debug_setting", {"enabled": True}),
        ):
            result = await sim.call(tool, path=" ", **extra)
            _blank_refusal(result, "A debug action path is required.")
            assert _fields(result) == ["success", "message", "devModeEnabled", "state", "code"]


async def test_a_blank_gizmo_id_is_refused_before_the_selection_is_looked_at(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        result = await sim.call("rimworld/execute_gizmo", gizmoId=" ")
        _blank_refusal(result, "A gizmo id is required.")
        assert _fields(result) == ["success", "message", "code"]


async def test_a_blank_main_tab_or_window_type_is_a_failed_ui_command(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        tab = await sim.call("rimworld/open_main_tab", mainTabId=" ")
        _blank_refusal(tab, "A RimWorld main tab id is required.")
        assert _fields(tab) == [
            "success",
            "command",
            "changed",
            "message",
            "before",
            "after",
            "code",
        ]
        assert tab["before"] == tab["after"]
        window = await sim.call("rimworld/open_window_by_type", windowType="\t")
        _blank_refusal(window, "A short or full .NET type name is required.")
        assert (window["command"], window["changed"]) == ("open_window_by_type", False)


async def test_a_blank_window_type_closes_the_top_window(open_sim: Any) -> None:
    # the mod's ResolveWindow reads a blank type as "the top window", as an omitted one
    async with open_sim(tick_rate=0) as sim:
        await sim.call("rimworld/open_window_by_type", windowType="Dialog_Options")
        closed = await sim.call("rimworld/close_window", windowType=" ")
        assert (closed["success"], closed["message"]) == (
            True,
            "Closed RimWorld window 'RimWorld.Dialog_Options'.",
        )
        nothing = await sim.call("rimworld/close_window", windowType=" ")
        assert (nothing["success"], nothing["message"], nothing["code"]) == (
            False,
            "No open window was available to close.",
            "refused",
        )


async def test_mod_tools_answer_a_blank_mod_id_or_no_values_in_the_payload(open_sim: Any) -> None:
    installed = (
        "A mod id, package id, package id (player-facing), name, folder name, or root path is "
        "required."
    )
    loaded = "A mod id, package id, settings category, or handle type is required."
    async with open_sim(tick_rate=0) as sim:
        for tool, extra in (
            ("rimworld/set_mod_enabled", {"enabled": True}),
            ("rimworld/reorder_mod", {"targetIndex": 1}),
        ):
            result = await sim.call(tool, modId=" ", **extra)
            _blank_refusal(result, installed)
            assert (result["requestedModId"], result["mod"]) == ("", None)
            assert _fields(result)[-2:] == ["configurationStatus", "code"]
        for tool, extra in (
            ("rimworld/get_mod_settings", {}),
            ("rimworld/update_mod_settings", {"values": {"x": 1}}),
            ("rimworld/reload_mod_settings", {}),
            ("rimworld/open_mod_settings", {}),
        ):
            result = await sim.call(tool, modId=" ", **extra)
            _blank_refusal(result, loaded)
            assert _fields(result) == ["success", "message", "requestedModId", "code"]
        empty = await sim.call("rimworld/update_mod_settings", modId="Tidy Stockpiles", values={})
        _blank_refusal(empty, "At least one settings path/value pair is required.")
        assert _fields(empty) == ["success", "message", "requestedModId", "mod", "code"]


async def test_a_menu_option_named_by_neither_index_nor_label_is_refused(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        flint = next(
            c
            for c in (await sim.call("rimworld/list_colonists"))["colonists"]
            if c["name"] == "Flint"
        )
        spot = {"x": flint["position"]["x"], "z": flint["position"]["z"] - 3}
        await sim.call("rimworld/spawn_thing", defName="Steel", stackCount=30, **spot)
        await sim.call("rimworld/select_pawn", pawnName="Flint")
        menu = await sim.call("rimworld/open_context_menu", **spot)
        assert menu["optionCount"] > 0
        for arguments in ({}, {"optionIndex": 0, "label": " "}):
            result = await sim.call("rimworld/execute_context_menu_option", **arguments)
            _blank_refusal(result, "Either optionIndex or label must be provided.")
            assert (_fields(result), result["label"]) == (
                ["success", "message", "label", "code"],
                None,
            )


async def test_set_hover_target_answers_missing_coordinates_and_targets_as_the_mod(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        none = await sim.call("rimworld/set_hover_target", settleMs=0)
        _blank_refusal(
            none,
            "Provide a UI target id, explicit screen coordinates, or a map target (cell, pawn, "
            "or thing).",
        )
        assert _fields(none) == ["success", "command", "message", "code"]
        half_screen = await sim.call("rimworld/set_hover_target", screenX=10.0, settleMs=0)
        _blank_refusal(
            half_screen,
            "Both screenX and screenY are required when hovering an explicit screen coordinate.",
        )
        # the mod checks a half-given cell before it looks at a pawn or thing given too
        half_cell = await sim.call("rimworld/set_hover_target", x=5, pawnName="Flint", settleMs=0)
        _blank_refusal(half_cell, "Both x and z are required when hovering a map cell.")
        two = await sim.call("rimworld/set_hover_target", x=5, z=5, screenX=1.0, settleMs=0)
        assert (two["success"], two["code"]) == (False, _INVALID)
        assert two["message"] == (
            "UI target ids, explicit screen coordinates, and map hover targets are mutually "
            "exclusive. Provide only one target."
        )


async def test_a_scroll_without_a_movement_is_refused_in_the_payload(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        await sim.call("rimworld/open_window_by_type", windowType="Dialog_Options")
        surface = (await sim.call("rimworld/get_ui_layout"))["surfaces"][0]
        scroll = next(e for e in surface["elements"] if e["kind"] == "scroll_view")
        result = await sim.call("rimworld/scroll_ui_target", targetId=scroll["targetId"])
        _blank_refusal(result, "Provide a non-zero deltaX/deltaY or a targetX/targetY offset.")
        assert _fields(result) == ["success", "command", "changed", "message", "targetId", "code"]


async def test_a_blank_settings_path_is_refused_in_the_words_of_the_mods_argument_exception(
    open_sim: Any,
) -> None:
    # ObjectPathUpdater throws ArgumentException(..., "path") before it parses the path; Mono
    # puts the parameter's name on a line of its own
    async with open_sim(tick_rate=0) as sim:
        for path in ("", "  "):
            result = await sim.call(
                "rimworld/update_mod_settings", modId="Tidy Stockpiles", values={path: 1}
            )
            _blank_refusal(
                result,
                "Updating mod settings for 'Tidy Stockpiles' failed: An object path is required."
                f"{os.linesep}Parameter name: path",
            )
            assert _fields(result) == ["success", "message", "requestedModId", "mod", "code"]
