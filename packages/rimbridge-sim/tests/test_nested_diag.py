"""Records inside the answers of the diagnostics, debug, scripting, mod and profiling tools,
with the mod's keys and value kinds: capability descriptors and their parameters, the bridge
status's sdk and patches, debug menu nodes, search matches and effects, the compiled script
definition, mod entries and settings updates, the DPA runtime record; and no ``success`` where
the mod's answer has none."""

from __future__ import annotations

import hashlib
import json
from typing import Any

_TIDY = "sim.tidystockpiles"
_MSCORLIB = "mscorlib, Version=4.0.0.0, Culture=neutral, PublicKeyToken=b77a5c561934e089"
_NODE_KEYS = [
    "path",
    "parentPath",
    "label",
    "category",
    "actionType",
    "isRoot",
    "visible",
    "active",
    "on",
    "displayPriority",
    "tabId",
    "tabTitle",
    "tabRootPath",
    "tabDefName",
    "hasChildren",
    "childCount",
    "visibleChildCount",
    "hasDirectAction",
    "hasPawnAction",
    "hasSettingsToggle",
    "execution",
    "source",
]


def _plain(result: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in result.items() if k != "operation"}


async def test_ping_game_info_and_journal_reads_carry_no_success_field(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        for tool in (
            "rimbridge/ping",
            "rimworld/get_game_info",
            "rimbridge/list_operations",
            "rimbridge/list_operation_events",
            "rimbridge/list_logs",
        ):
            assert "success" not in await sim.call(tool), tool
        await sim.call("rimworld/go_to_main_menu")
        await sim.call("rimbridge/wait_for_long_event_idle")
        info = await sim.call("rimworld/get_game_info")
        assert (info["status"], "success" in info) == ("no_game", False)


async def test_a_capability_is_described_with_the_mods_descriptor_values(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        found = await sim.call(
            "rimbridge/get_capability", capabilityIdOrAlias="rimbridge/list_logs"
        )
        capability = found["capability"]
        assert list(capability) == [
            "id",
            "providerId",
            "category",
            "title",
            "summary",
            "source",
            "executionKind",
            "supportedModes",
            "defaultRequestedMode",
            "emitsEvents",
            "resultType",
            "aliases",
            "parameters",
            "tags",
        ]
        assert (
            capability["source"],
            capability["executionKind"],
            capability["supportedModes"],
            capability["emitsEvents"],
            capability["resultType"],
        ) == ("Core", "Immediate", ["Wait", "Queue"], True, "System.Object")
        types = {p["name"]: p["parameterType"] for p in capability["parameters"]}
        assert types == {
            "limit": "System.Int32",
            "minimumLevel": "System.String",
            "afterSequence": "System.Int64",
            "operationId": "System.String",
            "rootOperationId": "System.String",
            "capabilityId": "System.String",
        }
        # every parameter of list_logs is optional; the mod would say required (see the README)
        assert all(p["required"] is False for p in capability["parameters"])
        assert all(isinstance(p["description"], str) for p in capability["parameters"])
        designator = await sim.call(
            "rimbridge/get_capability",
            capabilityIdOrAlias="rimworld/apply_architect_designator",
        )
        required = {p["name"]: p["required"] for p in designator["capability"]["parameters"]}
        assert required == {
            "designatorId": True,
            "x": True,
            "z": True,
            "width": False,
            "height": False,
            "dryRun": False,
            "keepSelected": False,
        }


async def test_execution_kinds_and_parameter_types_follow_the_mods_declarations(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:

        async def describe(alias: str) -> dict[str, Any]:
            found = await sim.call("rimbridge/get_capability", capabilityIdOrAlias=alias)
            return dict(found["capability"])

        hover = await describe("rimworld/set_hover_target")
        types = {p["name"]: p["parameterType"] for p in hover["parameters"]}
        assert types["x"] == f"System.Nullable`1[[System.Int32, {_MSCORLIB}]]"
        assert types["screenX"] == f"System.Nullable`1[[System.Single, {_MSCORLIB}]]"
        assert (types["settleMs"], types["offsetX"]) == ("System.Int32", "System.Single")
        assert hover["executionKind"] == "BackgroundObserved"
        assert (await describe("rimworld/load_game"))["executionKind"] == "LongEventBound"
        assert (await describe("rimworld/list_colonists"))["executionKind"] == "MainThread"
        dpa = await describe("rimworld/dpa_status")
        assert dpa["source"] == "Optional"
        lua = await describe("rimbridge/run_lua")
        parameters = {p["name"]: p["parameterType"] for p in lua["parameters"]}
        assert parameters["parameters"].startswith("System.Collections.Generic.Dictionary`2")


async def test_listing_no_capabilities_answers_as_the_mod_does(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        empty = _plain(await sim.call("rimbridge/list_capabilities", limit=0))
        assert empty == {"success": True, "totalCount": 0, "returnedCount": 0, "capabilities": []}
        # a parameter's description is searched even when parameters are not listed
        listed = await sim.call(
            "rimbridge/list_capabilities", query="Least severe level", includeParameters=False
        )
        assert [c["aliases"] for c in listed["capabilities"]] == [["rimbridge/list_logs"]]
        assert listed["capabilities"][0]["parameters"] is None


async def test_bridge_status_describes_sdk_and_patches_with_the_mods_keys(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        status = await sim.call("rimbridge/get_bridge_status")
        sdk = status["sdk"]
        assert list(sdk)[:6] == [
            "sdkAssembly",
            "sdkVersion",
            "sdkInformationalVersion",
            "companionCount",
            "companionWarningCount",
            "companionErrorCount",
        ]
        assert (sdk["companionCount"], sdk["companionErrorCount"]) == (0, 0)
        assert status["patches"] == {
            "applied": True,
            "essentialApplied": True,
            "optionalPatchAttemptCount": 0,
            "optionalPatchSuccessCount": 0,
            "optionalPatchFailureCount": 0,
            "optionalPatchFailures": [],
            "lateInputPatches": {
                "applied": True,
                "attemptCount": 0,
                "successCount": 0,
                "failureCount": 0,
                "failures": [],
            },
        }


async def test_debug_nodes_carry_every_key_of_the_mods_node_record(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        roots = await sim.call("rimworld/list_debug_action_roots")
        actions = roots["roots"][0]
        assert list(actions) == _NODE_KEYS
        assert (actions["tabId"], actions["tabTitle"], actions["tabDefName"]) == (
            "actions",
            "Actions/tools",
            "Actions",
        )
        assert actions["execution"] == {
            "kind": "BrowseOnly",
            "supported": False,
            "reason": (
                "This debug node is a submenu. Browse its children instead of executing it "
                "directly."
            ),
            "requiredTargetKind": None,
        }
        assert (actions["actionType"], actions["on"], actions["source"]) == ("Action", False, None)
        heal = (await sim.call("rimworld/get_debug_action", path="Actions/Pawns/Heal"))["node"]
        assert heal["tabDefName"] is None
        assert heal["source"] == {
            "name": "Heal",
            "category": "Pawns",
            "allowedGameStates": "PlayingOnMap",
            "hideInSubMenu": False,
            "requiresRoyalty": False,
            "requiresIdeology": False,
            "requiresBiotech": False,
            "requiresAnomaly": False,
            "requiresOdyssey": False,
        }
        god = (await sim.call("rimworld/get_debug_action", path="Settings/God mode"))["node"]
        assert (god["execution"]["kind"], god["hasDirectAction"], god["source"]) == (
            "Direct",
            True,
            None,
        )


async def test_search_matches_are_scored_records_around_the_node(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        found = await sim.call("rimworld/search_debug_actions", query="Heal", limit=0)
        assert found["limit"] == 50
        best = found["matches"][0]
        assert list(best) == ["score", "matchFields", "path", "node"]
        assert (best["path"], best["score"]) == ("Actions/Pawns/Heal", 400 + 900 + 450)
        assert best["matchFields"] == ["path", "label.exact", "source.name.exact"]
        assert list(best["node"]) == _NODE_KEYS
        empty = await sim.call("rimworld/search_debug_actions", query="  ")
        assert (empty["success"], empty["message"]) == (False, "A non-empty query is required.")


async def test_a_debug_action_reports_its_log_lines_as_records(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        no_children = await sim.call(
            "rimworld/get_debug_action", path="Actions/Pawns", includeChildren=False
        )
        assert (no_children["childCount"], no_children["children"]) == (0, None)
        submenu = await sim.call("rimworld/execute_debug_action", path="Actions/Pawns")
        assert submenu["message"] == submenu["node"]["execution"]["reason"]
        ran = await sim.call("rimworld/execute_debug_action", path="Outputs/Log colonists")
        effects = ran["effects"]
        assert list(effects) == [
            "logCount",
            "logs",
            "windowCountDelta",
            "openedWindowTypes",
            "closedWindowTypes",
        ]
        assert effects["logCount"] == len(effects["logs"]) > 0
        for line in effects["logs"]:
            assert list(line) == [
                "sequence",
                "level",
                "message",
                "source",
                "repeatCount",
                "timestampUtc",
            ]
        assert any(line["message"].startswith("Colonists:") for line in effects["logs"])


async def test_compiled_lua_is_written_as_the_mods_script_definition(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        source = 'rb.call("rimworld/pause_game", {pause = true})\nreturn 2\n'
        compiled = await sim.call("rimbridge/compile_lua", luaSource=source)
        script = compiled["script"]
        assert list(script) == [
            "Name",
            "ContinueOnError",
            "MaxDurationMs",
            "MaxExecutedStatements",
            "MaxControlDepth",
            "Steps",
        ]
        call = next(step for step in script["Steps"] if step["Call"])
        assert call == {
            "Type": "",
            "Id": "call_1",
            "Message": "",
            "Call": "rimworld/pause_game",
            "Arguments": {"pause": True},
            "ContinueUntil": None,
            "Name": "",
            "Value": None,
            "Condition": {},
            "Body": [],
            "ElseBody": [],
            "Collection": None,
            "ItemName": "",
            "IndexName": "",
            "MaxIterations": 100,
        }
        assert json.loads(compiled["scriptJson"]) == script
        assert compiled["message"].endswith("top-level script statement(s).")
        ran = await sim.call("rimbridge/run_script", scriptJson=compiled["scriptJson"])
        assert (ran["success"], ran["result"]) == (True, 2)


async def test_mod_entries_carry_the_mods_keys_and_reason_codes(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        listed = await sim.call("rimworld/list_mods")
        entry = listed["mods"][0]
        assert list(entry) == [
            "modId",
            "packageId",
            "packageIdPlayerFacing",
            "packageIdNonUnique",
            "name",
            "shortName",
            "folderName",
            "rootDir",
            "source",
            "authors",
            "version",
            "official",
            "onSteamWorkshop",
            "isCoreMod",
            "enabled",
            "loadedInSession",
            "activeLoadOrder",
            "loadedSessionOrder",
            "versionCompatible",
            "madeForNewerVersion",
            "hasConfigurationWarning",
            "configurationWarning",
            "hasVersionWarning",
            "hasOrderingIssues",
            "matchesLoadedSession",
            "unsatisfiedDependencies",
            "loadBefore",
            "loadAfter",
            "forceLoadBefore",
            "forceLoadAfter",
            "incompatibleWith",
        ]
        assert "configurationWarnings" not in entry and "sessionMismatch" not in entry
        assert (entry["configurationWarning"], entry["matchesLoadedSession"]) == ("", True)
        status = await sim.call("rimworld/get_mod_configuration_status")
        ids = "\n".join(status["currentActiveModIds"]).encode()
        assert status["currentConfigurationHash"] == hashlib.sha256(ids).hexdigest()[:16]
        moved = await sim.call("rimworld/reorder_mod", modId=_TIDY, targetIndex=0, save=False)
        after = moved["configurationStatus"]
        assert after["restartReasons"] == ["active_mod_order_differs_from_loaded_session"]
        assert moved["mod"]["matchesLoadedSession"] is False
        assert after["sessionMismatchCount"] == sum(
            1 for m in after["activeMods"] if not m["matchesLoadedSession"]
        )
        await sim.call("rimworld/set_mod_enabled", modId="brrainz.harmony", enabled=False)
        status = await sim.call("rimworld/get_mod_configuration_status")
        assert status["restartReasons"] == ["active_mod_set_differs_from_loaded_session"]


async def test_settings_updates_describe_both_values_as_value_graphs(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        updated = await sim.call(
            "rimworld/update_mod_settings", modId=_TIDY, values={"fillPercent": 50}, write=False
        )
        update = updated["updates"][0]
        assert list(update)[:5] == ["path", "typeName", "changed", "previous", "current"]
        assert (update["typeName"], update["changed"]) == ("System.Int32", True)
        assert update["current"] == {
            "name": "",
            "path": "",
            "valueKind": "number",
            "typeName": "System.Int32",
            "value": 50,
            "count": None,
            "truncated": False,
            "children": [],
        }
        assert update["previous"]["value"] == 100
        root = updated["root"]
        assert (root["name"], root["typeName"]) == ("", "TidyStockpiles.TidySettings")
        kinds = {c["name"]: c["valueKind"] for c in root["children"]}
        assert (kinds["enabled"], kinds["sortSpeed"], kinds["allowedDefs"]) == (
            "boolean",
            "number",
            "array",
        )


async def test_dpa_answers_carry_the_mods_runtime_record(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        status = await sim.call("rimworld/dpa_status")
        dpa = status["dpa"]
        assert (dpa["available"], dpa["packageActive"], dpa["isPatched"]) == (False, False, False)
        assert not any(dpa["typeChecks"].values()) and not any(dpa["memberChecks"].values())
        assert "ludeon.rimworld" in dpa["activePackageIds"]
        assert set(status["presets"]) == {
            "general_tick",
            "general_update",
            "general_pawn_ai_methods",
        }
        assert "Verse.TickManager:DoSingleTick" in status["presets"]["general_tick"]
        for tool, action in (
            ("rimworld/dpa_patch_methods", "patch"),
            ("rimworld/dpa_snapshot", "snapshot"),
            ("rimworld/dpa_reset", "reset"),
            ("rimworld/dpa_stop", "stop"),
            ("rimworld/dpa_cleanup", "cleanup"),
        ):
            refused = await sim.call(tool)
            assert list(refused)[:4] == ["success", "action", "message", "dpa"], tool
            assert (refused["success"], refused["action"], refused["dpa"]) == (False, action, dpa)
