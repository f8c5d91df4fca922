"""Mods and mod settings (real files), the debug menu, notifications and capabilities."""

from __future__ import annotations

from typing import Any

TIDY = "sim.tidystockpiles"


async def test_mods_are_enabled_reordered_and_saved_to_mods_config(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        mods = await sim.call("rimworld/list_mods")
        assert (mods["activeCount"], mods["restartRequired"]) == (5, False)
        core = next(m for m in mods["mods"] if m["isCoreMod"])
        assert core["modId"].startswith("mod-config:ludeon.rimworld:")
        refused = await sim.call("rimworld/set_mod_enabled", modId="Core", enabled=False)
        assert "allowDisableCore" in refused["message"]
        enabled = await sim.call("rimworld/set_mod_enabled", modId="Pretty Walls", enabled=True)
        assert (enabled["changed"], enabled["saved"]) == (True, True)
        assert enabled["configurationStatus"]["restartRequired"] is True
        config = (sim.bridge.data_dir / "Config" / "ModsConfig.xml").read_text(encoding="utf-8")
        assert "<li>sim.prettywalls</li>" in config
        moved = await sim.call("rimworld/reorder_mod", modId="ludeon.rimworld", targetIndex=0)
        assert (moved["previousIndex"], moved["currentIndex"]) == (1, 0)
        status = await sim.call("rimworld/get_mod_configuration_status")
        assert status["configurationIssues"] == ["Harmony should load before Core."]


async def test_mod_settings_are_updated_by_path_written_and_reloaded(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        surfaces = await sim.call("rimworld/list_mod_settings_surfaces")
        assert [s["packageId"] for s in surfaces["surfaces"]] == [TIDY]
        read = await sim.call("rimworld/get_mod_settings", modId=TIDY)
        paths = {c["path"]: c for c in read["root"]["children"]}
        assert paths["limits"]["children"][0]["path"] == "limits.meals"
        updated = await sim.call(
            "rimworld/update_mod_settings",
            modId=TIDY,
            values={"limits.meals": 35, "allowedDefs[1]": "Silver", "enabled": False},
        )
        assert (updated["wroteSettings"], updated["updateCount"]) == (True, 3)
        file = sim.bridge.data_dir / "Config" / f"Mod_{TIDY}_TidySettings.xml"
        text = file.read_text(encoding="utf-8")
        assert "<meals>35</meals>" in text and "<li>Silver</li>" in text
        wrong = await sim.call(
            "rimworld/update_mod_settings", modId=TIDY, values={"fillPercent": "lots"}
        )
        assert "holds a int" in wrong["message"]
        await sim.call(
            "rimworld/update_mod_settings", modId=TIDY, values={"fillPercent": 10}, write=False
        )
        reloaded = await sim.call("rimworld/reload_mod_settings", modId=TIDY)
        values = {c["name"]: c["value"] for c in reloaded["root"]["children"]}
        assert (values["fillPercent"], values["enabled"]) == (100, False)
        opened = await sim.call("rimworld/open_mod_settings", modId=TIDY)
        assert opened["dialog"]["windowType"] == "Verse.Dialog_ModSettings"


async def test_the_debug_menu_is_discovered_searched_and_run_on_a_pawn(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        roots = await sim.call("rimworld/list_debug_action_roots")
        assert [r["path"] for r in roots["roots"]] == ["Actions", "Outputs", "Settings"]
        children = await sim.call("rimworld/list_debug_action_children", path="Actions/Pawns")
        assert "Actions/Pawns/Heal" in [c["path"] for c in children["children"]]
        found = await sim.call(
            "rimworld/search_debug_actions", query="job logging", requiredTargetKind="pawn"
        )
        assert [m["path"] for m in found["matches"]] == ["Actions/Pawns/Toggle job logging"]
        node = await sim.call("rimworld/get_debug_action", path="Actions/Pawns/Down")
        assert node["node"]["execution"] == {
            "kind": "PawnTarget",
            "supported": True,
            "reason": "This debug action requires a pawn target input.",
            "requiredTargetKind": "pawn",
        }
        without = await sim.call("rimworld/execute_debug_action", path="Actions/Pawns/Down")
        assert "requires a current-map pawn target" in without["message"]
        pawn = (await sim.call("rimworld/list_colonists"))["colonists"][0]
        downed = await sim.call(
            "rimworld/execute_debug_action", path="Actions/Pawns/Down", pawnName=pawn["name"]
        )
        assert downed["targetPawn"]["pawnId"] == pawn["pawnId"]
        await sim.call("rimworld/step_game_ticks", ticks=2)
        alerts = await sim.call("rimworld/list_alerts")
        rescue = next(a for a in alerts["alerts"] if a["label"] == "Colonist needs rescue")
        assert rescue["targets"][0]["id"] == pawn["pawnId"]
        activated = await sim.call("rimworld/activate_alert", alertId=rescue["id"])
        assert activated["effects"]["selectionChanged"] is True
        assert activated["stateAfter"]["selection"]["count"] == 1


async def test_debug_settings_and_job_logging(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        setting = await sim.call(
            "rimworld/set_debug_setting", path="Settings/God mode", enabled=True
        )
        assert (setting["changed"], setting["node"]["on"]) == (True, True)
        assert (await sim.call("rimworld/get_designator_state"))["godMode"] is True
        pawn = (await sim.call("rimworld/list_colonists"))["colonists"][0]
        logging = await sim.call("rimworld/set_colonist_job_logging", pawnName=pawn["name"])
        assert logging["consumeLogs"]["tool"] == "rimbridge/list_logs"
        await sim.call("rimworld/step_game_ticks", ticks=400)
        lines = await sim.call(
            "rimbridge/list_logs", **logging["consumeLogs"]["recommendedArguments"]
        )
        assert any(e["Message"].startswith(f"[JobTracker] {pawn['name']}") for e in lines["logs"])


async def test_letters_are_opened_accepted_and_dismissed(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        for incident in ("Cargo pods", "Raid"):
            await sim.call("rimworld/execute_debug_action", path=f"Actions/Incidents/{incident}")
        letters = (await sim.call("rimworld/list_letters"))["letters"]
        assert [x["label"] for x in letters] == ["Raid", "Cargo pods"]
        assert letters[0]["letterDef"] == "ThreatBig"
        opened = await sim.call("rimworld/open_letter", letterId=letters[1]["id"])
        assert (opened["stillPresentInLetterStack"], opened["effects"]["windowCountDelta"]) == (
            True,
            1,
        )
        await sim.call("rimworld/press_accept")
        dismissed = await sim.call("rimworld/dismiss_letter", letterId=letters[0]["id"])
        assert dismissed["dismissed"] is True
        assert (await sim.call("rimworld/list_letters"))["totalCount"] == 0


async def test_things_spawn_clamped_and_unknown_defs_are_a_payload_failure(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        spawned = await sim.call(
            "rimworld/spawn_thing", defName="MealSimple", x=3, z=3, stackCount=99
        )
        assert (spawned["stackCount"], spawned["cell"]) == (10, {"x": 3, "z": 3})
        # the game's LabelCap: the label with a capital, and the stack's count
        assert spawned["label"] == "Simple meal x10"
        unknown = await sim.call("rimworld/spawn_thing", defName="Unobtainium", x=3, z=3)
        assert unknown["message"] == "Could not resolve ThingDef 'Unobtainium'."


async def test_capabilities_describe_the_live_surface(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        everything = await sim.call("rimbridge/list_capabilities", includeParameters=False)
        assert everything["totalCount"] == 123
        # the mod's provider categories: the selection provider has six tools, the pawn
        # inspection ones are the inspection provider's
        selection = await sim.call("rimbridge/list_capabilities", category="Selection")
        assert selection["returnedCount"] == 6
        assert {c["providerId"] for c in selection["capabilities"]} == {"rimbridge.core/selection"}
        found = await sim.call("rimbridge/list_capabilities", query="designatorId", limit=3)
        assert (found["returnedCount"], found["truncated"]) == (3, True)
        one = await sim.call("rimbridge/get_capability", capabilityIdOrAlias="rimworld/set_draft")
        names = [p["name"] for p in one["capability"]["parameters"]]
        assert names == ["pawnName", "pawnId", "drafted"]
        assert one["capability"]["aliases"] == ["rimworld/set_draft"]


async def test_profiling_is_reported_as_not_available(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        status = await sim.call("rimworld/dpa_status")
        assert (status["success"], status["dpa"]["available"]) == (True, False)
        snapshot = await sim.call("rimworld/dpa_snapshot")
        assert (snapshot["success"], snapshot["code"]) == (False, "not_available_in_simulation")
