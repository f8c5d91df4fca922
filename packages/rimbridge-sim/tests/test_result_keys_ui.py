"""Top-level result keys of the UI, notification and scripting-reference tools, with the
mod's meaning: the UI state's top window and open main tab (``get_ui_state`` and every UI
command's ``before`` / ``after``), a refused ``dismiss_letter``'s ``letter``, and the keys of
the script and Lua authoring references."""

from __future__ import annotations

from typing import Any

from rimbridge_sim.world.model import LetterKind

VISITORS = "RimWorld.ChoiceLetter_AcceptVisitors"

_UI_STATE_KEYS = {
    "topWindowType",
    "topWindowTitle",
    "mainTabOpen",
    "openMainTabId",
    "openMainTabType",
    "openMainTabLabel",
    "mainTab",
}


async def test_the_ui_state_names_the_top_window_and_the_open_main_tab(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        idle = await sim.call("rimworld/get_ui_state")
        assert idle.keys() >= _UI_STATE_KEYS
        assert (idle["topWindowType"], idle["mainTabOpen"], idle["mainTab"]) == (None, False, None)
        opened = await sim.call("rimworld/open_main_tab", mainTabId="Research")
        assert (opened["before"]["mainTabOpen"], opened["after"]["mainTabOpen"]) == (False, True)
        state = await sim.call("rimworld/get_ui_state")
        assert state["openMainTabId"] == "main-tab:Research"
        assert state["openMainTabType"] == "RimWorld.MainTabWindow_Research"
        assert state["openMainTabLabel"] == "Research"
        assert state["mainTab"]["targetId"] == "main-tab:Research"
        assert state["mainTab"]["isOpen"] is True
        tab_window = next(w for w in state["windows"] if w["type"] == state["openMainTabType"])
        assert state["mainTab"]["rect"] == tab_window["rect"]
        await sim.call("rimworld/open_window_by_type", windowType="Dialog_Options")
        top = await sim.call("rimworld/get_ui_state")
        assert (top["topWindowType"], top["topWindowTitle"]) == (
            "RimWorld.Dialog_Options",
            "Options",
        )
        closed = await sim.call("rimworld/press_cancel")
        assert closed["before"]["topWindowType"] == "RimWorld.Dialog_Options"
        assert closed["after"]["topWindowType"] == "RimWorld.MainTabWindow_Research"
        after_close = await sim.call("rimworld/close_main_tab")
        assert after_close["after"]["openMainTabId"] is None


async def test_a_letter_that_cannot_be_dismissed_is_named_in_the_refusal(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        colony = sim.bridge.world.colony
        assert colony is not None
        with sim.bridge.world_lock:
            letter = colony.add_letter("Trader arrived", "A caravan.", LetterKind.NEUTRAL, VISITORS)
        refused = await sim.call("rimworld/dismiss_letter", letterId=letter.id)
        assert refused["success"] is False
        assert refused["requestedLetterId"] == letter.id
        assert (refused["letter"]["id"], refused["letter"]["label"]) == (
            letter.id,
            "Trader arrived",
        )


async def test_the_script_reference_has_the_mods_keys(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        reference = await sim.call("rimbridge/get_script_reference")
        assert {
            "tool",
            "definition",
            "statementTypes",
            "expressionForms",
            "references",
            "continueUntil",
            "conditionModel",
            "resultShape",
            "limits",
            "failureCodes",
            "authoringTips",
            "examples",
        } <= reference.keys()
        fields = [f["name"] for f in reference["continueUntil"]["fields"]]
        assert fields == ["timeoutMs", "pollIntervalMs", "timeoutMessage", "condition"]
        assert all(isinstance(tip, str) for tip in reference["authoringTips"])


async def test_the_lua_reference_has_the_mods_keys(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        reference = await sim.call("rimbridge/get_lua_reference")
        assert {
            "quickStart",
            "tool",
            "fileTool",
            "compileTool",
            "compileFileTool",
            "runtimeModel",
            "parameterBinding",
            "supportedSubset",
            "commonPitfalls",
            "hostApi",
            "accessRules",
            "unsupported",
            "compileErrors",
            "runtimeResultShape",
            "pollingGuidance",
            "authoringTips",
            "examples",
        } <= reference.keys()
        tools = [reference[k]["name"] for k in ("tool", "fileTool", "compileTool")]
        assert tools == ["rimbridge/run_lua", "rimbridge/run_lua_file", "rimbridge/compile_lua"]
        assert reference["compileFileTool"]["name"] == "rimbridge/compile_lua_file"
        host = [h["name"] for h in reference["hostApi"]]
        assert {"rb.call", "rb.poll", "rb.print", "rb.assert", "rb.fail", "ipairs"} <= set(host)
        await sim.call("rimworld/go_to_main_menu")
        await sim.call("rimbridge/wait_for_long_event_idle")
        pattern = reference["pollingGuidance"]["patterns"][0]
        ran = await sim.call("rimbridge/run_lua", luaSource=pattern["luaSource"])
        assert ran["success"] is True, ran["message"]
        assert ran["result"]["inEntryScene"] is True


async def test_a_screenshot_that_was_not_taken_has_the_shots_fields_empty(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        taken = await sim.call("rimworld/take_screenshot", fileName="ok")
        refused = await sim.call("rimworld/take_screenshot", clipTargetId="window:999")
        assert (refused["success"], refused["code"]) == (False, "refused")
        assert "window:999" in refused["message"]
        assert list(taken) == [key for key in refused if key != "code"]
        # the mod's SizeBytes is a long? left unset on every failure: null
        assert (refused["path"], refused["sizeBytes"], refused["clipped"]) == (None, None, False)
        assert (refused["capturedAtUtc"], refused["screenTargets"]) == (None, None)
