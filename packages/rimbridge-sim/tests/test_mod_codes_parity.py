"""Every payload failure (``success: false``) carries the sim's ``code`` after the mod's own
fields and text: a stale snapshot id says ``stale_id``, an id that was never there
``unknown_id``, as the package README promises."""

from __future__ import annotations

from typing import Any

_TIDY = "sim.tidystockpiles"


def _fields(result: dict[str, Any]) -> list[str]:
    return [key for key in result if key != "operation"]


async def test_activate_alert_names_a_stale_and_an_unknown_id_by_code(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        listed = await sim.call("rimworld/list_alerts")
        stale = await sim.call("rimworld/activate_alert", alertId="alert:alerts-0:1:abc")
        unknown = await sim.call("rimworld/activate_alert", alertId="nonsense")
        for result, code in ((stale, "stale_id"), (unknown, "unknown_id")):
            assert _fields(result) == [
                "success",
                "message",
                "requestedAlertId",
                "alertSnapshotFingerprint",
                "availableAlertIds",
                "code",
            ]
            assert (result["success"], result["code"]) == (False, code)
            assert result["alertSnapshotFingerprint"] == listed["alertSnapshotFingerprint"]


async def test_a_gizmo_id_from_another_selection_is_a_stale_id(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        colonists = (await sim.call("rimworld/list_colonists"))["colonists"]
        await sim.call("rimworld/select_pawn", pawnName=colonists[0]["name"])
        old = await sim.call("rimworld/list_selected_gizmos")
        await sim.call("rimworld/select_pawn", pawnName=colonists[1]["name"])
        now = await sim.call("rimworld/list_selected_gizmos")
        stale = await sim.call("rimworld/execute_gizmo", gizmoId=old["gizmos"][0]["id"])
        assert stale == {
            "success": False,
            "message": "The requested gizmo id no longer matches the current selection.",
            "requestedGizmoId": old["gizmos"][0]["id"],
            "selectionFingerprint": now["selectionFingerprint"],
            "availableGizmoIds": [g["id"] for g in now["gizmos"]],
            "code": "stale_id",
            "operation": stale["operation"],
        }
        unknown = await sim.call("rimworld/execute_gizmo", gizmoId="draft")
        assert (unknown["message"], unknown["code"]) == (
            "Could not find selected gizmo 'draft'.",
            "unknown_id",
        )
        # the mod reads no selection fingerprint from an empty segment: not stale, unknown
        blank = "selection-gizmo::1:abc"
        empty = await sim.call("rimworld/execute_gizmo", gizmoId=blank)
        assert (empty["message"], empty["code"]) == (
            f"Could not find selected gizmo '{blank}'.",
            "unknown_id",
        )


async def test_open_inspect_tab_refusals_carry_a_code_after_the_mods_fields(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        unselected = await sim.call("rimworld/open_inspect_tab", inspectTabId="Health")
        await sim.call("rimworld/select_pawn", pawnName="Flint")
        blank = await sim.call("rimworld/open_inspect_tab", inspectTabId=" ")
        stale = await sim.call("rimworld/open_inspect_tab", inspectTabId="inspect-tab:sel-0:1:ab")
        unknown = await sim.call("rimworld/open_inspect_tab", inspectTabId="Nope")
        for result, code in (
            (unselected, "refused"),
            (blank, "invalid_argument"),
            (stale, "stale_id"),
            (unknown, "unknown_id"),
        ):
            assert _fields(result) == [
                "success",
                "command",
                "changed",
                "message",
                "requestedInspectTabId",
                "selectionFingerprint",
                "availableInspectTabIds",
                "tabs",
                "before",
                "after",
                "code",
            ]
            assert (result["success"], result["code"]) == (False, code), result["message"]


async def test_mod_configuration_and_settings_refusals_carry_a_code(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        far = await sim.call("rimworld/reorder_mod", modId=_TIDY, targetIndex=99)
        assert _fields(far)[-2:] == ["configurationStatus", "code"]
        unknown = await sim.call("rimworld/get_mod_settings", modId="no.such.mod")
        assert _fields(unknown) == ["success", "message", "requestedModId", "code"]
        empty = await sim.call("rimworld/update_mod_settings", modId=_TIDY, values={})
        assert _fields(empty) == ["success", "message", "requestedModId", "mod", "code"]
        assert (far["success"], far["code"]) == (False, "refused")
        # nothing matches the mod named: the caller's to correct (`Could not find ...`)
        assert (unknown["success"], unknown["code"]) == (False, "unknown_id")
        # no values at all is a missing argument (test_mod_blank_parity)
        assert (empty["success"], empty["code"]) == (False, "invalid_argument")


async def test_lifecycle_refusals_and_timed_out_waits_carry_a_code(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        for tool in ("rimworld/load_game", "rimworld/load_game_ready"):
            missing = await sim.call(tool, saveName="nowhere")
            assert _fields(missing) == ["success", "message", "path", "code"]
            assert missing["code"] == "unknown_id"
        await sim.call("rimworld/go_to_main_menu")
        await sim.call("rimworld/start_debug_game")
        late = await sim.call("rimworld/load_game_ready", saveName="nowhere", timeoutMs=0)
        assert late["code"] == "unknown_id"
    async with open_sim(tick_rate=0, start_game=False) as sim:
        waited = await sim.call("rimbridge/wait_for_game_loaded", timeoutMs=0)
        assert (waited["success"], waited["satisfied"]) == (False, False)
        assert _fields(waited)[-1] == "code"
        assert waited["code"] == "timed_out"
        ready = await sim.call("rimworld/start_debug_game_ready", timeoutMs=0)
        assert (ready["success"], ready["code"]) == (False, "timed_out")
        assert ready["wait"]["code"] == "timed_out"


async def test_journal_and_capability_refusals_carry_a_code(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        unknown = await sim.call("rimbridge/get_capability", capabilityIdOrAlias="rimworld/nope")
        blank = await sim.call("rimbridge/get_capability", capabilityIdOrAlias=" ")
        missing = await sim.call("rimbridge/get_operation", operationId="op_missing")
        waited = await sim.call(
            "rimbridge/wait_for_operation", operationId="op_missing", timeoutMs=0
        )
        assert [r["code"] for r in (unknown, blank, missing, waited)] == [
            "unknown_id",
            "invalid_argument",
            "unknown_id",
            "timed_out",
        ]
        assert waited["success"] is False


async def test_other_tools_payload_failures_all_carry_a_code(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        for tool, arguments, code in (
            ("rimworld/list_debug_action_children", {"path": "Nope/Nothing"}, "unknown_id"),
            ("rimworld/search_debug_actions", {"query": " "}, "invalid_argument"),
            ("rimworld/get_context_menu_options", {}, "refused"),
            ("rimworld/get_map_target_info", {}, "invalid_argument"),
            ("rimworld/open_main_tab", {"mainTabId": "NoSuchTab"}, "unknown_id"),
            ("rimworld/switch_language", {"language": " "}, "invalid_argument"),
            ("rimworld/scroll_ui_target", {"targetId": "ui-element:nope"}, "refused"),
            ("rimworld/step_game_ticks", {"ticks": 0}, "invalid_argument"),
            ("rimbridge/run_script", {"scriptJson": " "}, "invalid_argument"),
            ("rimbridge/run_lua_file", {"scriptPath": "/nowhere/at/all.lua"}, "unknown_id"),
        ):
            result = await sim.call(tool, **arguments)
            assert result["success"] is False, tool
            assert result.get("code") == code, (tool, result["message"])


async def test_answers_whose_success_is_computed_carry_a_code_when_it_is_false(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        outside = await sim.call(
            "rimworld/apply_architect_designator",
            designatorId="architect-designator:structure:build-wall",
            x=-5,
            z=-5,
            dryRun=True,
        )
        assert (outside["success"], outside["acceptedCellCount"]) == (False, 0)
        assert outside["code"] == "invalid_cell"
        failed = await sim.call("rimbridge/run_lua", luaSource="rb.assert(false)")
        assert failed["success"] is False
        assert failed["code"] == failed["error"]["Code"] == "script.assertion_failed"
        passed = await sim.call("rimbridge/run_lua", luaSource="rb.assert(true)")
        assert passed["success"] is True
        assert "code" not in passed


async def test_an_id_or_query_that_matches_nothing_is_unknown_id(open_sim: Any) -> None:
    # Where the mod answers `Could not find ...` in its payload, the caller named something
    # that is not there: `unknown_id`, as for a pawn, zone or alert (README, codes).
    async with open_sim(tick_rate=0) as sim:
        for tool, arguments, message in (
            (
                "rimworld/set_mod_enabled",
                {"modId": "no.such.mod", "enabled": True},
                "Could not find an installed mod matching 'no.such.mod'.",
            ),
            (
                "rimworld/switch_language",
                {"language": "Klingon"},
                "Could not find an installed RimWorld language matching 'Klingon'.",
            ),
            (
                "rimworld/get_debug_action",
                {"path": "Nope"},
                "Could not find debug action 'Nope'.",
            ),
            (
                "rimworld/take_screenshot",
                {"clipTargetId": "window:999:Dialog_Nothing"},
                "Could not find an open window matching target id 'window:999:Dialog_Nothing'.",
            ),
            (
                "rimworld/take_screenshot",
                {"clipTargetId": "main-tab:Work"},
                "Could not find an open main tab matching target id 'main-tab:Work'.",
            ),
            (
                "rimworld/take_screenshot",
                {"clipTargetId": "context-menu-option:1:1"},
                "Could not find an open context menu matching target id 'context-menu-option:1:1'.",
            ),
            (
                "rimworld/click_screen_target",
                {"targetId": "window-dismiss:999:Dialog_Nothing"},
                "Could not find an open window matching target id "
                "'window-dismiss:999:Dialog_Nothing'.",
            ),
        ):
            result = await sim.call(tool, **arguments)
            assert (result["success"], result["message"]) == (False, message), tool
            assert result["code"] == "unknown_id", tool
