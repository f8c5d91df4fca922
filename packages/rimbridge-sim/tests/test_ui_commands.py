"""The window commands answer as the mod's do: accept and cancel always reach the window stack
(nothing to act on is a success that changed nothing), ``close_window`` closes one window, and
``open_window_by_type`` leaves an open window alone unless told to replace it; a command that
changed nothing says so at the end of its message. Without a game, the camera moves fail in
band, as the mod's throw."""

from __future__ import annotations

from typing import Any

import pytest

from gabp import RemoteError

_OPTIONS = "RimWorld.Dialog_Options"


async def test_accept_and_cancel_with_nothing_to_act_on_succeed_and_change_nothing(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        for tool, command in (
            ("rimworld/press_accept", "accept"),
            ("rimworld/press_cancel", "cancel"),
        ):
            result = await sim.call(tool)
            assert (
                result["success"],
                result["command"],
                result["changed"],
                result["windowCountDelta"],
                result["message"],
            ) == (
                True,
                command,
                False,
                0,
                f"Dispatched semantic '{command}' input to RimWorld's window stack. "
                "UI state did not change.",
            )
            assert result["before"] == result["after"]


async def test_cancel_closes_the_top_window_and_says_it_was_dispatched(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        await sim.call("rimworld/open_window_by_type", windowType="Dialog_Options")
        result = await sim.call("rimworld/press_cancel")
        assert (result["changed"], result["windowCountDelta"], result["closedWindowTypes"]) == (
            True,
            -1,
            [_OPTIONS],
        )
        assert result["message"] == (
            "Dispatched semantic 'cancel' input to RimWorld's window stack."
        )


async def test_close_window_closes_the_last_window_of_the_type_only(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        await sim.call("rimworld/open_window_by_type", windowType="Dialog_Options")
        await sim.call(
            "rimworld/open_window_by_type", windowType="Page_ModsConfig", replaceExisting=False
        )
        closed = await sim.call("rimworld/close_window", windowType="dialog_options")
        assert (closed["success"], closed["message"], closed["windowCountDelta"]) == (
            True,
            f"Closed RimWorld window '{_OPTIONS}'.",
            -1,
        )
        assert closed["after"]["windowCount"] == 1
        missing = await sim.call("rimworld/close_window", windowType="Dialog_Options")
        assert (missing["success"], missing["changed"], missing["message"]) == (
            False,
            False,
            "Could not find an open window matching 'Dialog_Options'.",
        )
        assert missing["before"] == missing["after"]
        await sim.call("rimworld/close_window")
        nothing = await sim.call("rimworld/close_window")
        assert nothing["message"] == "No open window was available to close."


async def test_open_window_by_type_keeps_an_open_window_unless_told_to_replace_it(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        opened = await sim.call("rimworld/open_window_by_type", windowType="Dialog_Options")
        assert opened["message"] == f"Opened RimWorld window '{_OPTIONS}'."
        kept = await sim.call(
            "rimworld/open_window_by_type", windowType="Dialog_Options", replaceExisting=False
        )
        assert (kept["success"], kept["changed"], kept["message"]) == (
            True,
            False,
            f"Window '{_OPTIONS}' is already open.",
        )
        assert kept["after"]["windowCount"] == 1
        unknown = await sim.call("rimworld/open_window_by_type", windowType="Dialog_Nope")
        assert (unknown["success"], unknown["message"]) == (
            False,
            "Could not resolve a loaded Verse.Window type matching 'Dialog_Nope' with a public "
            "parameterless constructor.",
        )
        blank = await sim.call("rimworld/open_window_by_type", windowType="  ")
        assert blank["message"] == "A short or full .NET type name is required."


async def test_camera_moves_without_a_game_fail_in_band_as_the_mods_throw(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        await sim.call("rimworld/go_to_main_menu")
        await sim.call("rimbridge/wait_for_long_event_idle")
        for tool, arguments in (
            ("rimworld/jump_camera_to_cell", {"x": 1, "z": 1}),
            ("rimworld/jump_camera_to_pawn", {"pawnName": "Flint"}),
            ("rimworld/move_camera", {"deltaX": 1.0, "deltaZ": 0.0}),
            ("rimworld/frame_pawns", {}),
            ("rimworld/frame_cell_rect", {"x": 1, "z": 1}),
        ):
            with pytest.raises(RemoteError) as caught:
                await sim.call(tool, **arguments)
            assert (caught.value.code, caught.value.data["code"]) == (-32000, "no_game"), tool
        # reading the camera still answers
        assert (await sim.call("rimworld/get_camera_state"))["mapId"] is None


async def test_a_cell_rect_that_cannot_be_framed_is_refused_with_the_rect_and_the_camera(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        camera = await sim.call("rimworld/get_camera_state")
        del camera["operation"]
        for tool in ("rimworld/frame_cell_rect", "rimworld/screenshot_cell_rect"):
            refused = await sim.call(tool, x=2, z=3, width=0, height=2, paddingCells=-1)
            assert refused["success"] is False, tool
            assert refused["requestedRect"] == {
                "x": 2,
                "z": 3,
                "width": 0,
                "height": 2,
                "maxX": 1,
                "maxZ": 4,
            }
            assert (refused["paddingCells"], refused["rootSize"]) == (0, 0.0)
        assert refused["cameraBefore"] == camera
        await sim.call("rimworld/go_to_main_menu")
        await sim.call("rimbridge/wait_for_long_event_idle")
        with pytest.raises(RemoteError) as caught:
            await sim.call("rimworld/screenshot_cell_rect", x=1, z=1)
        assert caught.value.data["code"] == "no_game"


async def test_click_ui_target_answers_with_the_mods_keys_in_order(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        await sim.call("rimworld/open_window_by_type", windowType="Dialog_Options")
        layout = await sim.call("rimworld/get_ui_layout")
        checkbox = next(e for e in layout["surfaces"][0]["elements"] if e["kind"] == "checkbox")
        clicked = await sim.call("rimworld/click_ui_target", targetId=checkbox["targetId"])
        del clicked["operation"]
        assert list(clicked) == [
            "success",
            "command",
            "changed",
            "message",
            "targetId",
            "before",
            "after",
            "openedWindowTypes",
            "closedWindowTypes",
        ]
        refused = await sim.call("rimworld/click_ui_target", targetId="ui-element:nope")
        del refused["operation"]
        assert list(refused) == [
            "success",
            "command",
            "changed",
            "message",
            "targetId",
            "before",
            "after",
            "code",
        ]
        assert (refused["success"], refused["changed"]) == (False, False)
        assert refused["before"] == refused["after"]
