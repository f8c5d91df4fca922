"""The UI, notification and input tools refuse, pick and change what the mod's do: the mod's
own refusal texts, ids matched exactly as given, and the same side effects."""

from __future__ import annotations

from typing import Any

from rimbridge_sim.world.model import LetterKind

VISITORS = "RimWorld.ChoiceLetter_AcceptVisitors"

_NO_GAME = "No game is currently loaded."


async def test_notification_tools_without_a_game_fail_in_the_payload_with_the_mods_text(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0, start_game=False) as sim:
        for tool, arguments in (
            ("rimworld/list_messages", {}),
            ("rimworld/list_letters", {}),
            ("rimworld/list_alerts", {}),
            ("rimworld/open_letter", {"letterId": "Letter_1"}),
            ("rimworld/dismiss_letter", {"letterId": "Letter_1"}),
            ("rimworld/activate_alert", {"alertId": "alert:x:1:y"}),
        ):
            result = await sim.call(tool, **arguments)
            assert (result["success"], result["message"]) == (False, _NO_GAME), tool


async def test_letter_ids_are_matched_exactly_and_refused_with_the_mods_texts(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        colony = sim.bridge.world.colony
        assert colony is not None
        with sim.bridge.world_lock:
            letter = colony.add_letter("Raid", "Pirates!", LetterKind.THREAT)
            trader = colony.add_letter("Trader arrived", "A caravan.", LetterKind.NEUTRAL, VISITORS)
        for tool in ("rimworld/open_letter", "rimworld/dismiss_letter"):
            blank = await sim.call(tool, letterId="  ")
            assert (blank["success"], blank["message"]) == (False, "A letter id is required.")
            padded = await sim.call(tool, letterId=f" {letter.id} ")
            assert (padded["success"], padded["message"]) == (
                False,
                f"Could not find letter ' {letter.id} ' in the current letter stack.",
            )
        refused = await sim.call("rimworld/dismiss_letter", letterId=trader.id)
        assert refused["message"] == (
            f"Letter '{trader.id}' cannot be dismissed through the letter stack."
        )


async def test_activate_alert_tells_a_stale_snapshot_from_an_unknown_id(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        listed = await sim.call("rimworld/list_alerts")
        current = listed["alerts"][0]["id"]
        blank = await sim.call("rimworld/activate_alert", alertId=" ")
        assert (blank["success"], blank["message"]) == (False, "An alert id is required.")
        stale = await sim.call("rimworld/activate_alert", alertId="alert:alerts-0:1:abc")
        assert stale["message"] == (
            "The requested alert id no longer matches the current active alert snapshot."
        )
        unknown = await sim.call("rimworld/activate_alert", alertId="nonsense")
        assert unknown["message"] == "Could not find active alert 'nonsense'."
        padded = await sim.call("rimworld/activate_alert", alertId=f"{current} ")
        assert padded["success"] is False
        assert padded["availableAlertIds"] == [a["id"] for a in listed["alerts"]]


async def test_opening_the_open_main_tab_leaves_it_alone_and_says_so(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        opened = await sim.call("rimworld/open_main_tab", mainTabId="Work")
        assert opened["message"] == "Opened RimWorld main tab 'Work'."
        window_id = opened["after"]["windows"][-1]["id"]
        again = await sim.call("rimworld/open_main_tab", mainTabId="main-tab:work")
        assert (again["success"], again["changed"], again["message"]) == (
            True,
            False,
            "Opened RimWorld main tab 'Work'. UI state did not change.",
        )
        assert again["after"]["windows"][-1]["id"] == window_id
        closed = await sim.call("rimworld/close_main_tab")
        assert closed["message"] == "Closed RimWorld main tab 'Work'."


async def test_main_tab_refusals_carry_the_mods_texts(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        expected = {
            " ": "A RimWorld main tab id is required.",
            "window:3:RimWorld.Dialog_Options": "Target id 'window:3:RimWorld.Dialog_Options' "
            "is not a RimWorld main-tab target id.",
            "Nothing": "Could not find a RimWorld main tab matching 'Nothing'.",
        }
        for query, message in expected.items():
            refused = await sim.call("rimworld/open_main_tab", mainTabId=query)
            assert (refused["success"], refused["message"]) == (False, message)
        nothing = await sim.call("rimworld/close_main_tab")
        assert nothing["message"] == "No RimWorld main tab is currently open."
        await sim.call("rimworld/open_main_tab", mainTabId="Research")
        for other in ("Work", "Nothing"):
            wrong = await sim.call("rimworld/close_main_tab", mainTabId=other)
            assert (wrong["success"], wrong["message"]) == (
                False,
                f"The currently open main tab 'Research' does not match '{other}'.",
            )


async def test_without_a_map_main_tabs_are_listed_disabled_and_refuse_to_open(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0, start_game=False) as sim:
        listed = await sim.call("rimworld/list_main_tabs")
        work = next(t for t in listed["tabs"] if t["defName"] == "Work")
        assert (listed["count"], work["disabled"]) == (11, True)
        refused = await sim.call("rimworld/open_main_tab", mainTabId="Work")
        assert refused["message"] == "Main tab 'Work' is currently disabled and cannot be opened."


async def test_inspect_tabs_without_a_game_fail_in_the_payload(open_sim: Any) -> None:
    async with open_sim(tick_rate=0, start_game=False) as sim:
        listed = await sim.call("rimworld/list_inspect_tabs")
        assert (listed["success"], listed["message"]) == (False, _NO_GAME)
        opened = await sim.call("rimworld/open_inspect_tab", inspectTabId="Health")
        assert (opened["success"], opened["message"], opened["tabs"]) == (False, _NO_GAME, None)


async def test_open_inspect_tab_refuses_with_the_mods_reasons_and_matches_part_of_a_label(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        unselected = await sim.call("rimworld/open_inspect_tab", inspectTabId="Health")
        assert unselected["message"] == "No object is currently selected."
        await sim.call("rimworld/select_pawn", pawnName="Flint")
        blank = await sim.call("rimworld/open_inspect_tab", inspectTabId=" ")
        assert blank["message"] == (
            "Provide an inspect tab id, translated label, type name, or tutor tag."
        )
        stale = await sim.call("rimworld/open_inspect_tab", inspectTabId="inspect-tab:sel-0:1:ab")
        assert stale["message"] == (
            "The requested inspect tab id no longer matches the current selection."
        )
        unknown = await sim.call("rimworld/open_inspect_tab", inspectTabId="Nope")
        assert unknown["message"] == "Could not find inspect tab 'Nope' for the current selection."
        partial = await sim.call("rimworld/open_inspect_tab", inspectTabId="heal")
        assert (partial["success"], partial["openInspectTabType"]) == (
            True,
            "RimWorld.ITab_Pawn_Health",
        )


async def _steel_menu(sim: Any) -> dict[str, Any]:
    """Flint selected and his float menu open on a stack of steel three cells south."""
    colonists = (await sim.call("rimworld/list_colonists"))["colonists"]
    flint = next(c for c in colonists if c["name"] == "Flint")
    spot = {"x": flint["position"]["x"], "z": flint["position"]["z"] - 3}
    await sim.call("rimworld/spawn_thing", defName="Steel", stackCount=30, **spot)
    await sim.call("rimworld/select_pawn", pawnName="Flint")
    menu: dict[str, Any] = await sim.call("rimworld/open_context_menu", **spot)
    assert menu["menuId"] > 0
    return menu


async def test_a_menu_option_target_of_another_menu_is_refused_and_a_click_names_the_option(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        menu = await _steel_menu(sim)
        other = f"context-menu-option:{menu['menuId'] + 5}:1"
        refused = await sim.call("rimworld/click_screen_target", targetId=other)
        assert refused["message"] == (
            f"Context menu target id refers to menu {menu['menuId'] + 5}, but the active "
            f"debug context menu is {menu['menuId']}."
        )
        malformed = await sim.call(
            "rimworld/click_screen_target", targetId=f"context-menu-option:{menu['menuId']}:0"
        )
        assert (malformed["targetKind"], malformed["actionKind"]) == ("", "")
        index = next(o["index"] for o in menu["options"] if not o["disabled"])
        label = menu["options"][index - 1]["label"]
        clicked = await sim.call(
            "rimworld/click_screen_target", targetId=f"context-menu-option:{menu['menuId']}:{index}"
        )
        assert (clicked["success"], clicked["message"]) == (
            True,
            f"Executed menu option {index} '{label}'.",
        )
        gone = await sim.call("rimworld/click_screen_target", targetId="context-menu-option:1:1")
        assert gone["message"] == "No debug context menu is available."


async def test_menu_labels_are_matched_as_given_and_failures_name_no_unresolved_label(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        await _steel_menu(sim)
        padded = await sim.call("rimworld/execute_context_menu_option", label="hauling steel ")
        assert (padded["success"], padded["label"]) == (False, None)
        assert (
            padded["message"] == "Could not resolve menu label 'hauling steel ' to a single option."
        )
        chosen = await sim.call("rimworld/execute_context_menu_option", label="hauling")
        assert chosen["success"] is True


async def test_map_clicks_check_the_target_before_the_hold_and_the_hold_before_modifiers(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        await sim.call("rimworld/select_pawn", pawnName="Flint")
        outside = await sim.call("rimworld/right_click_cell", x=999, z=1, holdDurationMs=-1)
        assert outside["message"] == "Cell (999, 1) is out of bounds for the current map."
        for tool, cells in (
            ("rimworld/click_cell", {"x": 1, "z": 1}),
            ("rimworld/drag_cell", {"fromX": 1, "fromZ": 1, "toX": 2, "toZ": 2}),
        ):
            both = await sim.call(tool, holdDurationMs=-1, modifiers="hyper", **cells)
            assert both["message"] == "holdDurationMs must be zero or greater.", tool


async def test_mod_configuration_answers_name_the_trimmed_request_in_the_mods_words(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        core = await sim.call("rimworld/set_mod_enabled", modId=" Core ", enabled=False)
        assert (core["success"], core["requestedModId"], core["message"]) == (
            False,
            "Core",
            "Refusing to disable core mod 'Core'. Pass allowDisableCore=true to override this "
            "guard.",
        )
        unknown = await sim.call("rimworld/set_mod_enabled", modId="ludeon", enabled=True)
        assert unknown["message"] == "Could not find an installed mod matching 'ludeon'."
        blank = await sim.call("rimworld/reorder_mod", modId=" ", targetIndex=0)
        assert blank["message"] == (
            "A mod id, package id, package id (player-facing), name, folder name, or root path "
            "is required."
        )
        enabled = await sim.call(
            "rimworld/set_mod_enabled", modId="Pretty Walls", enabled=True, save=False
        )
        assert enabled["message"] == "Enabled mod 'Pretty Walls'."
        again = await sim.call("rimworld/set_mod_enabled", modId="Pretty Walls", enabled=True)
        assert again["message"] == "Mod 'Pretty Walls' was already enabled."
        idle = await sim.call("rimworld/reorder_mod", modId="Colony Journal", targetIndex=0)
        assert idle["message"] == (
            "Mod 'Colony Journal' is not currently enabled, so it has no active load-order "
            "position to reorder."
        )
        far = await sim.call("rimworld/reorder_mod", modId="Harmony", targetIndex=9)
        assert far["message"] == (
            "Target index 9 is out of range for the current active mod list (0-5)."
        )
        stay = await sim.call("rimworld/reorder_mod", modId="Harmony", targetIndex=0)
        assert stay["message"] == "Mod 'Harmony' was already at active load-order index 0."
        moved = await sim.call("rimworld/reorder_mod", modId="Harmony", targetIndex=2, save=False)
        assert moved["message"] == "Moved mod 'Harmony' to active load-order index 2."


async def test_mod_settings_resolve_loaded_handles_and_refuse_in_the_mods_words(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        surfaces = await sim.call(
            "rimworld/list_mod_settings_surfaces", includeWithoutSettings=True
        )
        packages = [s["packageId"] for s in surfaces["surfaces"]]
        assert packages == sorted(packages, key=str.lower)
        bare = await sim.call("rimworld/get_mod_settings", modId=" Harmony ")
        assert (bare["requestedModId"], bare["message"]) == (
            "Harmony",
            "Mod 'Harmony' does not currently expose a persistent ModSettings instance.",
        )
        unknown = await sim.call("rimworld/reload_mod_settings", modId="nope")
        assert unknown["message"] == "Could not find a loaded mod settings surface matching 'nope'."
        empty = await sim.call("rimworld/update_mod_settings", modId="Tidy Stockpiles", values={})
        assert empty["message"] == "At least one settings path/value pair is required."
        reloaded = await sim.call("rimworld/reload_mod_settings", modId="Tidy Stockpiles")
        assert reloaded["message"] == "Reloaded mod settings for 'Tidy Stockpiles' from disk."
        no_dialog = await sim.call("rimworld/open_mod_settings", modId="Harmony")
        assert no_dialog["message"] == "Mod 'Harmony' does not expose a settings dialog."


async def test_open_mod_settings_leaves_an_open_dialog_alone_unless_told_to_replace_it(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        opened = await sim.call("rimworld/open_mod_settings", modId="Tidy Stockpiles")
        assert opened["message"] == "Opened mod settings dialog for 'Tidy Stockpiles'."
        kept = await sim.call(
            "rimworld/open_mod_settings", modId="Tidy Stockpiles", replaceExisting=False
        )
        assert (kept["success"], kept["changed"], kept["message"]) == (
            True,
            False,
            "Settings dialog for 'Tidy Stockpiles' is already open.",
        )
        assert kept["dialog"]["windowId"] == opened["dialog"]["windowId"]
        assert kept["after"]["windowCount"] == opened["after"]["windowCount"]


async def test_switch_language_refuses_blank_and_busy_and_names_the_display_name(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        blank = await sim.call("rimworld/switch_language", language=" ")
        assert (blank["success"], blank["message"]) == (
            False,
            "A language id or exact language name is required.",
        )
        unknown = await sim.call("rimworld/switch_language", language=" Klingon ")
        assert (
            unknown["message"]
            == "Could not find an installed RimWorld language matching 'Klingon'."
        )
        same = await sim.call("rimworld/switch_language", language="english")
        assert same["message"] == "RimWorld is already configured to use language 'English'."
        queued = await sim.call("rimworld/switch_language", language="German")
        assert queued["message"] == (
            "Queued RimWorld language switch to 'Deutsch (German)'. Call "
            "rimbridge/wait_for_long_event_idle before assuming translated content is ready."
        )
        busy = await sim.call("rimworld/switch_language", language="French")
        assert (busy["success"], busy["message"]) == (
            False,
            "RimWorld is busy with another long event. Wait for it to finish before switching "
            "language.",
        )
