"""The mod's live smoke scenarios (its maintainers' sequences of tool calls against a running
RimWorld), run against the simulation with the scenarios' own expectations.

Each scenario counts a call as failed when the answer is an error or says ``success: false``
(the harness's rule); ``ok`` applies the same rule here."""

from __future__ import annotations

import json
import struct
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any


class Smoke:
    """The harness's view of one sim: calls that must succeed, and its shared preconditions."""

    def __init__(self, sim: Any) -> None:
        self.sim = sim

    async def call(self, tool: str, **arguments: Any) -> Any:
        return await self.sim.call(tool, **arguments)

    async def ok(self, tool: str, **arguments: Any) -> Any:
        result = await self.sim.call(tool, **arguments)
        assert result.get("success") is not False, (tool, result)
        return result

    async def wait_for_long_event_idle(self) -> None:
        await self.ok("rimbridge/wait_for_long_event_idle", timeoutMs=10000, pollIntervalMs=100)

    async def wait_for_game_loaded(self) -> Any:
        return await self.ok(
            "rimbridge/wait_for_game_loaded",
            timeoutMs=10000,
            pollIntervalMs=50,
            readiness="visual",
            pauseIfNeeded=True,
        )

    async def wait_for_operation(self, operation_id: str) -> Any:
        return await self.ok(
            "rimbridge/wait_for_operation",
            operationId=operation_id,
            timeoutMs=10000,
            pollIntervalMs=50,
        )

    async def ensure_playable(self) -> None:
        status = await self.ok("rimbridge/get_bridge_status")
        if status["state"].get("automationReady") is True:
            return
        if status["state"].get("playable") is True:
            await self.wait_for_game_loaded()
            return
        await self.wait_for_long_event_idle()
        status = await self.ok("rimbridge/get_bridge_status")
        state = status["state"]
        assert state["hasCurrentGame"] is False
        assert state["programState"] == "Entry" and state["inEntryScene"] is True
        started = await self.ok("rimworld/start_debug_game")
        await self.wait_for_operation(started["operation"]["OperationId"])
        await self.wait_for_game_loaded()

    async def begin_window(self) -> tuple[int, int]:
        status = await self.ok("rimbridge/get_bridge_status")
        assert isinstance(status["latestLogSequence"], int)
        assert isinstance(status["latestOperationEventSequence"], int)
        return status["latestOperationEventSequence"], status["latestLogSequence"]

    async def capture_window(
        self, window: tuple[int, int], *, diagnostics: bool = False
    ) -> tuple[list[Any], list[Any]]:
        await self.ok("rimbridge/get_bridge_status")
        events = await self.ok(
            "rimbridge/list_operation_events",
            afterSequence=window[0],
            limit=200,
            includeDiagnostics=diagnostics,
        )
        logs = await self.ok(
            "rimbridge/list_logs", afterSequence=window[1], minimumLevel="info", limit=200
        )
        return events["events"], logs["logs"]

    async def ensure_no_dialog_windows(self) -> Any:
        """The harness's clean-UI precondition: close the dev palette or press cancel (five
        tries) until no dialog window is open."""
        for _ in range(5):
            ui = await self.ok("rimworld/get_ui_state")
            if ui["nonImmediateDialogWindowOpen"] is not True:
                return ui
            if (ui.get("topWindowType") or "").endswith("Dialog_DevPalette"):
                await self.ok("rimworld/close_window", windowType="Dialog_DevPalette")
            else:
                await self.ok("rimworld/press_cancel")
        ui = await self.ok("rimworld/get_ui_state")
        assert ui["nonImmediateDialogWindowOpen"] is not True
        return ui

    async def first_colonist_name(self) -> str:
        colonists = await self.ok("rimworld/list_colonists", currentMapOnly=True)
        assert colonists["colonists"], colonists
        name = colonists["colonists"][0]["name"]
        assert isinstance(name, str) and name.strip()
        return name


async def test_debug_game_load_starts_the_debug_colony_from_the_main_menu_and_lists_colonists(
    open_sim: Any,
) -> None:
    async with open_sim(start_game=False) as sim:
        smoke = Smoke(sim)
        await smoke.wait_for_long_event_idle()
        window = await smoke.begin_window()
        started = await smoke.ok("rimworld/start_debug_game")
        await smoke.wait_for_operation(started["operation"]["OperationId"])
        await smoke.wait_for_game_loaded()
        colonists = await smoke.ok("rimworld/list_colonists", currentMapOnly=True)
        assert colonists["count"] > 0
        events, _ = await smoke.capture_window(window)
        assert any(e["OperationId"] == started["operation"]["OperationId"] for e in events)


async def test_debug_action_discovery_executes_an_output_leaf_and_flips_a_show_setting_back(
    open_sim: Any,
) -> None:
    async with open_sim() as sim:
        smoke = Smoke(sim)
        await smoke.ensure_playable()
        await smoke.wait_for_long_event_idle()
        window = await smoke.begin_window()
        roots = (await smoke.ok("rimworld/list_debug_action_roots", includeHidden=False))["roots"]
        assert roots

        def root_path(preferred: str) -> str:
            for root in roots:
                if root["path"] == preferred:
                    return str(root["path"])
            for root in roots:
                count = root.get("visibleChildCount", root.get("childCount")) or 0
                if root.get("path") and count > 0:
                    return str(root["path"])
            raise AssertionError("no usable debug-action root")

        output_root = root_path("Outputs")
        children = await smoke.ok(
            "rimworld/list_debug_action_children", path=output_root, includeHidden=False
        )
        assert children["children"]
        # the mod's preferred leaf and setting, in the sim's path form (README: debug menu paths)
        paths = [c["path"] for c in children["children"]]
        assert output_root == "Outputs" and "Outputs/Tick Rates" in paths
        executable = "Outputs/Tick Rates"
        node = await smoke.ok("rimworld/get_debug_action", path=executable, includeChildren=False)
        assert node["node"]["execution"]["supported"] is True
        executed = await smoke.ok("rimworld/execute_debug_action", path=executable)
        assert executed["path"] == executable
        assert executed.get("effects") is not None

        settings_root = root_path("Settings")
        settings = await smoke.ok(
            "rimworld/list_debug_action_children", path=settings_root, includeHidden=False
        )
        setting = "Settings/Show Architect Menu Order"
        assert any(
            c["path"] == setting and c["hasSettingsToggle"] is True for c in settings["children"]
        )
        read = await smoke.ok("rimworld/get_debug_action", path=setting, includeChildren=False)
        original = read["node"]["on"] is True
        flipped = await smoke.ok("rimworld/set_debug_setting", path=setting, enabled=not original)
        assert flipped["value"] is (not original)
        restored = await smoke.ok("rimworld/set_debug_setting", path=setting, enabled=original)
        assert restored["value"] is original
        await smoke.capture_window(window)


async def test_mod_configuration_roundtrip_disables_reenables_and_restores_one_mod(
    open_sim: Any,
) -> None:
    async with open_sim() as sim:
        smoke = Smoke(sim)
        await smoke.wait_for_long_event_idle()
        window = await smoke.begin_window()
        mods = await smoke.ok("rimworld/list_mods", includeInactive=True)
        assert mods["mods"]
        initial = await smoke.ok("rimworld/get_mod_configuration_status")
        baseline_hash = initial["currentConfigurationHash"]
        baseline_session = initial["loadedSessionHash"]
        baseline_restart = initial["restartRequired"] is True
        candidates = [
            m for m in initial["activeMods"] if m["enabled"] is True and m["isCoreMod"] is not True
        ]
        preferred = [m for m in candidates if m["packageId"].lower() == "brrainz.rimbridgeserver"]
        target = (preferred or candidates)[0]
        mod_id, index = target["modId"], target["activeLoadOrder"]
        assert isinstance(index, int)

        disabled = await smoke.ok(
            "rimworld/set_mod_enabled", modId=mod_id, enabled=False, save=True
        )
        assert disabled["currentEnabled"] is False
        assert disabled["mod"]["enabled"] is False
        assert disabled["mod"]["loadedInSession"] is True
        assert disabled["configurationStatus"]["currentConfigurationHash"] != baseline_hash

        enabled = await smoke.ok("rimworld/set_mod_enabled", modId=mod_id, enabled=True, save=True)
        assert enabled["currentEnabled"] is True
        assert isinstance(enabled["mod"]["activeLoadOrder"], int)
        if enabled["mod"]["activeLoadOrder"] != index:
            reordered = await smoke.ok(
                "rimworld/reorder_mod", modId=mod_id, targetIndex=index, save=True
            )
            assert reordered["configurationStatus"] is not None
        else:
            assert enabled["configurationStatus"] is not None

        final = await smoke.ok("rimworld/get_mod_configuration_status")
        assert final["currentConfigurationHash"] == baseline_hash
        assert final["loadedSessionHash"] == baseline_session
        assert (final["restartRequired"] is True) == baseline_restart
        restored = next(m for m in final["activeMods"] if m["modId"] == mod_id)
        assert restored["activeLoadOrder"] == index
        await smoke.capture_window(window)


def nearby_cells(x: int, z: int) -> list[tuple[int, int]]:
    return [(x + 1, z), (x - 1, z), (x, z + 1), (x, z - 1), (x + 2, z), (x, z + 2)]


def element_of(layout: Any, surface_id: str, kind: str) -> Any:
    surface = next(s for s in layout["surfaces"] if s["surfaceTargetId"] == surface_id)
    return next(e for e in surface["elements"] if e["kind"] == kind)


async def test_main_tab_navigation_opens_work_shows_it_in_ui_state_and_targets_and_closes_it(
    open_sim: Any,
) -> None:
    async with open_sim() as sim:
        smoke = Smoke(sim)
        await smoke.ensure_playable()
        await smoke.wait_for_long_event_idle()
        window = await smoke.begin_window()
        tabs = (await smoke.ok("rimworld/list_main_tabs", includeHidden=False))["tabs"]
        work = next(
            t for t in tabs if t["defName"] == "Work" and t["type"] == "RimWorld.MainTabWindow_Work"
        )
        tab_id = work["targetId"]
        await smoke.ok("rimworld/open_main_tab", mainTabId=tab_id)
        ui = await smoke.ok("rimworld/get_ui_state")
        assert ui["mainTabOpen"] is True
        assert ui["openMainTabId"] == tab_id
        assert ui["openMainTabType"] == "RimWorld.MainTabWindow_Work"
        targets = await smoke.ok("rimworld/get_screen_targets")
        assert targets["targets"]["mainTab"]["targetId"] == tab_id
        shot = await smoke.ok(
            "rimworld/take_screenshot",
            fileName="smoke_work_tab",
            includeTargets=True,
            clipTargetId=tab_id,
        )
        assert shot["clipped"] is True
        assert shot["clipTargetId"] == tab_id
        assert shot["sizeBytes"] > 0
        await smoke.ok("rimworld/close_main_tab", mainTabId=tab_id)
        assert (await smoke.ok("rimworld/get_ui_state"))["mainTabOpen"] is not True
        await smoke.capture_window(window)


async def test_ui_layout_roundtrip_hovers_clips_toggles_and_restores_a_work_tab_checkbox(
    open_sim: Any,
) -> None:
    async with open_sim() as sim:
        smoke = Smoke(sim)
        await smoke.ensure_playable()
        await smoke.wait_for_long_event_idle()
        window = await smoke.begin_window()
        surface = "main-tab:Work"
        await smoke.ok("rimworld/open_main_tab", mainTabId=surface)
        layout = await smoke.ok("rimworld/get_ui_layout", surfaceId=surface, timeoutMs=3000)
        checkbox = element_of(layout, surface, "checkbox")
        target_id, initial = checkbox["targetId"], checkbox["isChecked"]
        assert isinstance(initial, bool)
        await smoke.ok("rimworld/set_hover_target", targetId=target_id)
        hover = (await smoke.ok("rimworld/get_screen_targets"))["targets"]["hoverTarget"]
        assert (hover["kind"], hover["targetId"]) == ("ui_element", target_id)
        shot = await smoke.ok(
            "rimworld/take_screenshot",
            fileName="smoke_ui_checkbox",
            includeTargets=True,
            clipTargetId=target_id,
        )
        assert shot["clipped"] is True
        await smoke.ok("rimworld/clear_hover_target")
        cleared = await smoke.ok("rimworld/get_screen_targets")
        assert cleared["targets"].get("hoverTarget") is None
        await smoke.ok("rimworld/click_ui_target", targetId=target_id, timeoutMs=3000)
        toggled = element_of(
            await smoke.ok("rimworld/get_ui_layout", surfaceId=surface, timeoutMs=3000),
            surface,
            "checkbox",
        )
        assert isinstance(toggled["isChecked"], bool) and toggled["isChecked"] != initial
        await smoke.ok("rimworld/click_ui_target", targetId=toggled["targetId"], timeoutMs=3000)
        restored = element_of(
            await smoke.ok("rimworld/get_ui_layout", surfaceId=surface, timeoutMs=3000),
            surface,
            "checkbox",
        )
        assert restored["isChecked"] == initial
        await smoke.ok("rimworld/close_main_tab", mainTabId=surface)

        colonists = await smoke.ok("rimworld/list_colonists", currentMapOnly=True)
        pawn_id = next(c["pawnId"] for c in colonists["colonists"] if c.get("pawnId"))
        await smoke.ok("rimworld/set_hover_target", pawnId=pawn_id)
        hover = (await smoke.ok("rimworld/get_screen_targets"))["targets"]["hoverTarget"]
        assert (hover["kind"], hover["targetId"]) == ("pawn", pawn_id)
        await smoke.ok("rimworld/clear_hover_target")
        await smoke.capture_window(window)


async def test_debug_action_pawn_target_finds_job_logging_by_search_and_runs_it_on_a_colonist(
    open_sim: Any,
) -> None:
    async with open_sim() as sim:
        smoke = Smoke(sim)
        await smoke.ensure_playable()
        await smoke.wait_for_long_event_idle()
        window = await smoke.begin_window()

        async def find(query: str) -> str:
            found = await smoke.ok(
                "rimworld/search_debug_actions",
                query=query,
                limit=10,
                includeHidden=False,
                supportedOnly=True,
                requiredTargetKind="pawn",
            )
            for match in found["matches"]:
                path = match.get("path") or (match.get("node") or {}).get("path")
                if path:
                    return str(path)
            raise AssertionError(f"no match for {query!r}: {found}")

        toggle_path = await find("Toggle Job Logging")
        details_path = await find("Log Job Details")
        pawn_name = await smoke.first_colonist_name()
        node = (
            await smoke.ok("rimworld/get_debug_action", path=toggle_path, includeChildren=False)
        )["node"]
        assert node["execution"]["kind"] == "PawnTarget"
        assert node["execution"]["supported"] is True
        assert node["execution"]["requiredTargetKind"] == "pawn"
        original = node["on"] is True
        current = original
        if current:
            await smoke.ok("rimworld/execute_debug_action", path=toggle_path, pawnName=pawn_name)
            current = False
        enabled = await smoke.ok(
            "rimworld/execute_debug_action", path=toggle_path, pawnName=pawn_name
        )
        current = True
        assert enabled["targetPawn"]["name"].lower() == pawn_name.lower()
        details = await smoke.ok(
            "rimworld/execute_debug_action", path=details_path, pawnName=pawn_name
        )
        assert details["effects"]["logs"], details
        if current != original:
            await smoke.ok("rimworld/execute_debug_action", path=toggle_path, pawnName=pawn_name)
        await smoke.capture_window(window)


async def test_context_menu_cancel_roundtrip_opens_a_vanilla_menu_near_a_colonist_and_cancels_it(
    open_sim: Any,
) -> None:
    async with open_sim() as sim:
        smoke = Smoke(sim)
        await smoke.ensure_playable()
        await smoke.wait_for_long_event_idle()
        baseline = await smoke.ok("rimworld/get_ui_state")
        assert baseline["nonImmediateDialogWindowOpen"] is not True
        colonists = await smoke.ok("rimworld/list_colonists", currentMapOnly=True)
        first = colonists["colonists"][0]
        pawn_name, position = first["name"], first["position"]
        await smoke.ok("rimworld/select_pawn", pawnName=pawn_name, append=False)
        window = await smoke.begin_window()
        opened = None
        for x, z in nearby_cells(position["x"], position["z"]):
            result = await smoke.ok("rimworld/open_context_menu", x=x, z=z, mode="vanilla")
            if (result.get("optionCount") or 0) > 0:
                opened = result
                break
        assert opened is not None, "no context menu with options near the colonist"
        assert (await smoke.ok("rimworld/get_ui_state"))["floatMenuOpen"] is True
        menu = (await smoke.ok("rimworld/get_screen_targets"))["targets"]["contextMenu"]
        assert menu is not None
        assert menu["optionCount"] == opened["optionCount"]
        rect = menu["options"][0]["rect"]
        assert rect["width"] > 0 and rect["height"] > 0
        cancel = await smoke.ok("rimworld/press_cancel")
        assert cancel["after"]["floatMenuOpen"] is not True
        assert "Verse.FloatMenu" in cancel["closedWindowTypes"]
        await smoke.capture_window(window)


async def open_menu_near(smoke: Smoke, position: Any, *, direct: bool) -> tuple[Any, int]:
    """The scenario's menu near a colonist; with ``direct`` one with an option it can click
    (enabled, with an action, a label not ending in ``...``), and that option's 1-based index."""
    for x, z in nearby_cells(position["x"], position["z"]):
        opened = await smoke.ok("rimworld/open_context_menu", x=x, z=z, mode="vanilla")
        if (opened.get("optionCount") or 0) <= 0:
            continue
        index = next(
            (
                i + 1
                for i, o in enumerate(opened["options"])
                if o.get("disabled") is not True
                and o.get("hasAction") is True
                and (o.get("label") or "").strip()
                and not o["label"].endswith("...")
            ),
            -1,
        )
        if not direct or index > 0:
            return opened, index
    raise AssertionError("no context menu near the colonist")


async def test_screen_target_click_roundtrip_clicks_a_menu_dismiss_target_then_an_option(
    open_sim: Any,
) -> None:
    async with open_sim() as sim:
        smoke = Smoke(sim)
        await smoke.ensure_playable()
        await smoke.wait_for_long_event_idle()
        colonists = await smoke.ok("rimworld/list_colonists", currentMapOnly=True)
        first = colonists["colonists"][0]
        await smoke.ok("rimworld/select_pawn", pawnName=first["name"], append=False)
        window = await smoke.begin_window()
        await open_menu_near(smoke, first["position"], direct=False)
        menu = (await smoke.ok("rimworld/get_screen_targets"))["targets"]["contextMenu"]
        assert menu is not None and menu["dismissTargetId"]
        dismissed = await smoke.ok("rimworld/click_screen_target", targetId=menu["dismissTargetId"])
        assert dismissed["after"]["floatMenuOpen"] is not True
        assert dismissed["targetKind"] == "window_dismiss"
        assert dismissed["actionKind"] == "dismiss_window"
        assert "Verse.FloatMenu" in dismissed["closedWindowTypes"]

        _, index = await open_menu_near(smoke, first["position"], direct=True)
        options = (await smoke.ok("rimworld/get_screen_targets"))["targets"]["contextMenu"][
            "options"
        ]
        assert 0 < index <= len(options)
        target = options[index - 1]
        assert target["targetId"]
        clicked = await smoke.ok("rimworld/click_screen_target", targetId=target["targetId"])
        assert clicked["after"]["floatMenuOpen"] is not True
        assert clicked["targetKind"] == "context_menu_option"
        assert clicked["actionKind"] == "execute_context_menu_option"
        assert clicked["executedOptionIndex"] == index
        assert clicked["executedLabel"] == target["label"]
        await smoke.capture_window(window)


async def test_selection_roundtrip_selects_one_colonist_jumps_the_camera_and_clears(
    open_sim: Any,
) -> None:
    async with open_sim() as sim:
        smoke = Smoke(sim)
        await smoke.ensure_playable()
        await smoke.wait_for_long_event_idle()
        window = await smoke.begin_window()
        name = await smoke.first_colonist_name()
        selected = await smoke.ok("rimworld/select_pawn", pawnName=name, append=False)
        assert selected["selectedCount"] == 1
        assert selected["selected"]["name"].lower() == name.lower()
        await smoke.ok("rimworld/jump_camera_to_pawn", pawnName=name)
        await smoke.ok("rimworld/get_camera_state")
        cleared = await smoke.ok("rimworld/clear_selection")
        assert cleared["selectedCount"] == 0
        await smoke.capture_window(window)


async def test_save_load_roundtrip_saves_to_a_named_slot_lists_it_and_loads_colonists_back(
    open_sim: Any,
) -> None:
    async with open_sim() as sim:
        smoke = Smoke(sim)
        await smoke.ensure_playable()
        await smoke.wait_for_long_event_idle()
        window = await smoke.begin_window()
        name = "rimbridge_live_smoke_save_load_roundtrip"
        saved = await smoke.ok("rimworld/save_game", saveName=name)
        assert saved["path"] and saved["exists"] is True and saved["sizeBytes"] > 0
        saves = (await smoke.ok("rimworld/list_saves"))["saves"]
        assert any(s["name"].lower() == name.lower() for s in saves)
        await smoke.ok(
            "rimworld/load_game_ready",
            saveName=name,
            timeoutMs=10000,
            pollIntervalMs=50,
            readiness="visual",
            pauseIfNeeded=True,
        )
        colonists = await smoke.ok("rimworld/list_colonists", currentMapOnly=True)
        assert colonists["count"] > 0
        await smoke.capture_window(window)


async def test_screenshot_capture_frames_a_colonist_and_writes_a_png_with_targets(
    open_sim: Any,
) -> None:
    async with open_sim() as sim:
        smoke = Smoke(sim)
        await smoke.ensure_playable()
        name = await smoke.first_colonist_name()
        await smoke.ok("rimworld/jump_camera_to_pawn", pawnName=name)
        await smoke.wait_for_long_event_idle()
        window = await smoke.begin_window()
        shot = await smoke.ok(
            "rimworld/take_screenshot", fileName="smoke_screenshot", includeTargets=True
        )
        assert shot["path"] and shot["sizeBytes"] > 0
        targets = shot["screenTargets"]
        assert targets is not None
        # the scenario also expects windowCount > 0: RimWorld's per-frame immediate windows,
        # which the sim does not model (README: window counts)
        assert targets["uiState"]["windowCount"] == 0
        assert targets["selectedPawns"], targets
        await smoke.capture_window(window)


async def test_a_clean_start_logs_the_startup_line_and_none_of_the_startup_failure_markers(
    open_sim: Any,
) -> None:
    failure_markers = (
        "[RimBridge] STARTUP_ESSENTIAL_PATCH_FAILURE:",
        "[RimBridge] STARTUP_OPTIONAL_PATCH_FAILURE:",
        "[RimBridge] STARTUP_INIT_FAILURE:",
        "[RimBridge] Failed to initialize server:",
    )
    async with open_sim() as sim:
        logs = (await sim.call("rimbridge/list_logs", limit=400))["logs"]
        messages = [entry["Message"] for entry in logs]
        assert any(m.startswith("[RimBridge] GABP server ") for m in messages), messages
        for marker in failure_markers:
            assert not any(marker.lower() in m.lower() for m in messages), marker


async def test_the_work_tabs_manual_priorities_is_a_game_setting_kept_when_the_tab_reopens(
    open_sim: Any,
) -> None:
    async with open_sim() as sim:
        smoke = Smoke(sim)
        surface = "main-tab:Work"

        async def checkbox() -> Any:
            layout = await smoke.ok("rimworld/get_ui_layout", surfaceId=surface, timeoutMs=3000)
            return element_of(layout, surface, "checkbox")

        await smoke.ok("rimworld/open_main_tab", mainTabId=surface)
        initial = await checkbox()
        await smoke.ok("rimworld/click_ui_target", targetId=initial["targetId"], timeoutMs=3000)
        await smoke.ok("rimworld/close_main_tab", mainTabId=surface)
        await smoke.ok("rimworld/open_main_tab", mainTabId=surface)
        assert (await checkbox())["isChecked"] is (not initial["isChecked"])
        await smoke.ok("rimworld/close_main_tab", mainTabId=surface)

        name = "rimbridge_smoke_work_priorities"
        await smoke.ok("rimworld/save_game", saveName=name)
        await smoke.ok("rimworld/open_main_tab", mainTabId=surface)
        flipped = await checkbox()
        await smoke.ok("rimworld/click_ui_target", targetId=flipped["targetId"], timeoutMs=3000)
        assert (await checkbox())["isChecked"] is initial["isChecked"]
        await smoke.ok("rimworld/close_main_tab", mainTabId=surface)
        await smoke.ok(
            "rimworld/load_game_ready", saveName=name, timeoutMs=10000, pollIntervalMs=50
        )
        await smoke.ok("rimworld/open_main_tab", mainTabId=surface)
        assert (await checkbox())["isChecked"] is (not initial["isChecked"])


def ids(result: Any, key: str) -> set[str]:
    return {node["id"] for node in result[key] if node.get("id")}


def new_node(result: Any, key: str, baseline: set[str], predicate: Any) -> Any:
    """The first entry of ``result[key]`` with an id not in ``baseline`` that matches."""
    for node in result[key]:
        if node.get("id") and node["id"] not in baseline and predicate(node):
            return node
    raise AssertionError(f"no new {key} entry matched: {result[key]}")


async def test_semantic_diagnostics_roundtrip_walks_discovery_selection_notifications_and_journal(
    open_sim: Any,
) -> None:
    async with open_sim() as sim:
        smoke = Smoke(sim)
        await smoke.ensure_playable()
        await smoke.wait_for_long_event_idle()
        await smoke.ensure_no_dialog_windows()
        window = await smoke.begin_window()
        status = await smoke.ok("rimbridge/get_bridge_status")
        assert status["state"]["automationReady"] is True

        found = await smoke.ok(
            "rimbridge/list_capabilities", query="notification", includeParameters=True, limit=32
        )
        capabilities = found["capabilities"]
        assert len(capabilities) >= 6
        assert any(c["id"] == "rimbridge.core/notifications/list-messages" for c in capabilities)
        assert any("rimworld/activate_alert" in c["aliases"] for c in capabilities)
        detail = await smoke.ok(
            "rimbridge/get_capability", capabilityIdOrAlias="rimworld/execute_gizmo"
        )
        assert detail["capability"]["id"]
        assert "gizmoId" in [p["name"] for p in detail["capability"]["parameters"]]

        colonists = await smoke.ok("rimworld/list_colonists", currentMapOnly=True)
        first = colonists["colonists"][0]
        pawn_id, map_id = first["pawnId"], first["mapId"]
        assert pawn_id and map_id and first["name"]
        initial_drafted = first["drafted"] is True
        selected = await smoke.ok("rimworld/select_pawn", pawnId=pawn_id, append=False)
        assert selected["selected"]["pawnId"] == pawn_id
        semantics = await smoke.ok("rimworld/get_selection_semantics")
        assert semantics["hasSelection"] is True and semantics["selectedCount"] == 1
        details = semantics["selectedObjects"][0]["details"]
        assert (details["pawnId"], details["mapId"]) == (pawn_id, map_id)

        gizmos = (await smoke.ok("rimworld/list_selected_gizmos"))["gizmos"]
        draft = next(
            g
            for g in gizmos
            if g.get("disabled") is not True
            and (
                "draft" in (g.get("label") or "").lower()
                or "draft" in (g.get("description") or "").lower()
            )
        )
        assert draft["id"] and draft["label"]
        await smoke.ok("rimworld/execute_gizmo", gizmoId=draft["id"])
        after = await smoke.ok("rimworld/list_colonists", currentMapOnly=True)
        drafted = next(c for c in after["colonists"] if c["pawnId"] == pawn_id)["drafted"]
        assert (drafted is True) != initial_drafted
        restored = await smoke.ok("rimworld/set_draft", pawnId=pawn_id, drafted=initial_drafted)
        assert restored["drafted"] is initial_drafted
        await smoke.ok("rimworld/jump_camera_to_pawn", pawnId=pawn_id)
        assert (await smoke.ok("rimworld/get_camera_state"))["mapId"] == map_id

        messages_before = ids(await smoke.call("rimworld/list_messages", limit=20), "messages")
        letters_before = ids(await smoke.call("rimworld/list_letters", limit=40), "letters")
        file_name = "smoke_semantic_notifications"
        await smoke.ok(
            "rimworld/take_screenshot",
            fileName=file_name,
            includeTargets=False,
            suppressMessage=False,
        )
        messages = await smoke.ok("rimworld/list_messages", limit=20)
        message = new_node(
            messages, "messages", messages_before, lambda m: file_name in m["text"].lower()
        )
        assert message["id"]

        await smoke.ok("rimworld/execute_debug_action", path="Actions\\Do incident\\WandererJoin")
        letters = await smoke.ok("rimworld/list_letters", limit=40)
        choice = new_node(
            letters,
            "letters",
            letters_before,
            lambda n: (
                (n.get("choiceCount") or 0) > 0 and n.get("canDismissWithRightClick") is False
            ),
        )
        assert choice["id"] and choice["label"] and choice["text"].strip()
        opened = await smoke.ok("rimworld/open_letter", letterId=choice["id"])
        effects = opened["effects"]
        assert (effects.get("windowCountDelta") or 0) > 0 or effects.get("topWindowChanged") is True
        focused = opened["stateAfter"]["uiState"].get("FocusedWindowType")
        if focused and focused.strip():
            await smoke.ok("rimworld/close_window", windowType=focused)
        await smoke.ensure_no_dialog_windows()

        await smoke.ok(
            "rimworld/execute_debug_action", path="Actions\\Do incident\\TraderCaravanArrival"
        )
        standard = await smoke.ok("rimworld/list_letters", limit=40)
        dismissible = new_node(
            standard, "letters", ids(letters, "letters"), lambda n: n["canDismissWithRightClick"]
        )
        assert dismissible["id"] and dismissible["label"]
        dismissed = await smoke.ok("rimworld/dismiss_letter", letterId=dismissible["id"])
        assert dismissed["dismissed"] is True
        remaining = await smoke.ok("rimworld/list_letters", limit=40)
        assert dismissible["id"] not in ids(remaining, "letters")
        await smoke.ensure_no_dialog_windows()

        alerts = await smoke.ok("rimworld/list_alerts", limit=20)
        for _ in range(8):
            if alerts["returnedCount"]:
                break
            await smoke.ok("rimworld/pause_game", pause=False)
            await smoke.ok("rimworld/step_game_ticks", ticks=180)
            await smoke.ok("rimworld/pause_game", pause=True)
            alerts = await smoke.ok("rimworld/list_alerts", limit=20)
        activatable = [a for a in alerts["alerts"] if a.get("activatable") is True]
        alert = next((a for a in activatable if a.get("anyCulpritValid") is True), None)
        alert = alert or (activatable[0] if activatable else None)
        assert alert is not None, alerts
        assert alert["id"] and alert["label"]
        await smoke.ok("rimworld/activate_alert", alertId=alert["id"])

        threat = await smoke.ok(
            "rimworld/execute_debug_action", path="Outputs\\Current Threat Points"
        )
        operation_id = threat["operation"]["OperationId"]
        assert operation_id
        await smoke.wait_for_operation(operation_id)
        tracked = (await smoke.ok("rimbridge/get_operation", operationId=operation_id))[
            "trackedOperation"
        ]
        assert tracked["OperationId"] == operation_id and tracked["Success"] is True
        assert tracked["Status"] in (2, "Completed")
        recent = await smoke.ok("rimbridge/list_operations", limit=20, includeResults=True)
        listed = next(o for o in recent["operations"] if o["OperationId"] == operation_id)
        assert listed["HasResult"] is True and listed["CapabilityId"]
        events = await smoke.ok(
            "rimbridge/list_operation_events", operationId=operation_id, limit=20
        )
        assert any(
            e["OperationId"] == operation_id and e["EventType"] == "operation.completed"
            for e in events["events"]
        )
        logs = await smoke.ok(
            "rimbridge/list_logs", operationId=operation_id, limit=20, minimumLevel="info"
        )
        assert any(
            entry["OperationId"] == operation_id
            and entry["CapabilityId"] == "rimbridge.core/debug_actions/execute-debug-action"
            and entry["Message"].strip()
            for entry in logs["logs"]
        )
        await smoke.ok("rimworld/clear_selection")
        await smoke.capture_window(window, diagnostics=True)


def is_file(path: str) -> bool:
    return Path(path).is_file()


def png_size(path: str) -> tuple[int, int]:
    header = Path(path).read_bytes()[:24]
    assert header[:4] == b"\x89PNG", path
    width, height = struct.unpack(">ii", header[16:24])
    return width, height


async def test_screen_target_clip_crops_a_screenshot_to_a_context_menu_option_with_padding(
    open_sim: Any,
) -> None:
    async with open_sim() as sim:
        smoke = Smoke(sim)
        await smoke.ensure_playable()
        await smoke.wait_for_long_event_idle()
        await smoke.ensure_no_dialog_windows()
        colonists = await smoke.ok("rimworld/list_colonists", currentMapOnly=True)
        first = colonists["colonists"][0]
        await smoke.ok("rimworld/select_pawn", pawnName=first["name"], append=False)
        window = await smoke.begin_window()
        _, index = await open_menu_near(smoke, first["position"], direct=True)
        menu = (await smoke.ok("rimworld/get_screen_targets"))["targets"]["contextMenu"]
        assert menu is not None and 0 < index <= len(menu["options"])
        option = menu["options"][index - 1]
        assert option["targetId"] and option["rect"] is not None
        shot = await smoke.ok(
            "rimworld/take_screenshot",
            fileName="smoke_target_clip",
            includeTargets=True,
            clipTargetId=option["targetId"],
            clipPadding=12,
        )
        assert shot["clipped"] is True and shot["clipRect"] is not None
        assert shot["path"] and shot["sourcePath"] and shot["sourcePath"] != shot["path"]
        assert is_file(shot["path"]) and is_file(shot["sourcePath"])
        assert shot["clipTargetId"] == option["targetId"]
        assert shot["clipTargetKind"] == "context_menu_option"
        clipped, full = png_size(shot["path"]), png_size(shot["sourcePath"])
        assert clipped == (int(shot["clipRect"]["width"]), int(shot["clipRect"]["height"]))
        assert clipped[0] < full[0] and clipped[1] < full[1]
        await smoke.capture_window(window)


def probe_cells(origin: tuple[int, int], low: int, high: int) -> Iterator[tuple[int, int]]:
    """The harness's ring walk: square rings from ``low`` to ``high`` in steps of two."""
    seen: set[tuple[int, int]] = set()
    x0, z0 = origin
    for radius in range(low, high + 1, 2):
        ring = []
        for x in range(x0 - radius, x0 + radius + 1):
            ring += [(x, z0 - radius), (x, z0 + radius)]
        for z in range(z0 - radius + 1, z0 + radius):
            ring += [(x0 - radius, z), (x0 + radius, z)]
        for cell in ring:
            if cell not in seen:
                seen.add(cell)
                yield cell


Preflight = Callable[[int, int, int, int], Awaitable[bool]]


async def find_placement(
    smoke: Smoke,
    designator_id: str,
    colonists: Any,
    blocked: set[tuple[int, int]],
    *,
    width: int = 1,
    height: int = 1,
    low: int = 6,
    high: int = 18,
    preflight: Preflight | None = None,
) -> tuple[int, int]:
    """The harness's placement search: ``find_random_cell_near`` around the colonists' mean
    position first, then dry runs over rings until every cell of the footprint is accepted."""
    positions = [c["position"] for c in colonists["colonists"]]
    origin = (
        round(sum(p["x"] for p in positions) / len(positions)),
        round(sum(p["z"] for p in positions) / len(positions)),
    )
    fast = await smoke.call(
        "rimworld/find_random_cell_near",
        x=origin[0],
        z=origin[1],
        startingSearchRadius=low,
        maxSearchRadius=high,
        width=width,
        height=height,
        footprintAnchor="top_left",
        designatorId=designator_id,
    )
    cell = (fast.get("cell") or {}) if fast.get("success") is not False else {}
    if isinstance(cell.get("x"), int) and isinstance(cell.get("z"), int):
        candidate = (cell["x"], cell["z"])
        if candidate not in blocked:
            blocked.add(candidate)
            if preflight is None or await preflight(*candidate, width, height):
                return candidate
    for candidate in probe_cells(origin, low, high):
        if candidate in blocked:
            continue
        blocked.add(candidate)
        if preflight is not None and not await preflight(*candidate, width, height):
            continue
        dry = await smoke.call(
            "rimworld/apply_architect_designator",
            designatorId=designator_id,
            x=candidate[0],
            z=candidate[1],
            width=width,
            height=height,
            dryRun=True,
            keepSelected=False,
        )
        assert dry["operation"]["Success"] is True, dry
        if (dry.get("acceptedCellCount") or 0) >= width * height:
            return candidate
    raise AssertionError("no accepted placement cell")


async def designator_id(smoke: Smoke, category: str, build_def: str, *, child: bool = False) -> str:
    categories = await smoke.ok(
        "rimworld/list_architect_categories", includeHidden=False, includeEmpty=False
    )
    category_id = next(
        c["id"] for c in categories["categories"] if c["categoryDefName"] == category
    )
    designators = await smoke.ok(
        "rimworld/list_architect_designators", categoryId=category_id, includeHidden=False
    )
    return str(
        next(
            d["id"]
            for d in designators["designators"]
            if d.get("buildableDefName") == build_def and (not child or d.get("parentId"))
        )
    )


async def set_god_mode(smoke: Smoke, enabled: bool) -> None:
    result = await smoke.ok("rimworld/set_god_mode", enabled=enabled)
    assert result["godMode"] is enabled


async def test_script_wall_sequence_builds_two_walls_in_god_mode_and_captures_a_screenshot(
    open_sim: Any,
) -> None:
    async with open_sim() as sim:
        smoke = Smoke(sim)
        await smoke.ensure_playable()
        await smoke.wait_for_long_event_idle()
        window = await smoke.begin_window()
        state = await smoke.ok("rimworld/get_designator_state")
        original_god_mode = state["godMode"] is True
        try:
            wall = await designator_id(smoke, "Structure", "Wall")
            colonists = await smoke.ok("rimworld/list_colonists", currentMapOnly=True)
            blocked: set[tuple[int, int]] = set()
            first = await find_placement(smoke, wall, colonists, blocked, low=18, high=30)
            second = await find_placement(smoke, wall, colonists, blocked, low=18, high=34)
            steps = [
                {"id": "god_on", "call": "rimworld/set_god_mode", "arguments": {"enabled": True}},
                *(
                    {
                        "id": step_id,
                        "call": "rimworld/apply_architect_designator",
                        "arguments": {
                            "designatorId": wall,
                            "x": cell[0],
                            "z": cell[1],
                            "keepSelected": False,
                        },
                    }
                    for step_id, cell in (("wall_a", first), ("wall_b", second))
                ),
                {
                    "id": "capture",
                    "call": "rimworld/take_screenshot",
                    "arguments": {
                        "fileName": "rimbridge_script_wall_sequence",
                        "includeTargets": False,
                    },
                },
            ]
            script = {"name": "script-wall-sequence", "continueOnError": False, "steps": steps}
            ran = await smoke.ok(
                "rimbridge/run_script", scriptJson=json.dumps(script), includeStepResults=True
            )
            report = ran["script"]
            assert report["stepCount"] == 4 and report["executedStepCount"] == 4
            assert report["success"] is True
            capture = next(s for s in report["steps"] if s["id"] == "capture")
            assert is_file(capture["result"]["path"])
            for x, z in (first, second):
                cell = (await smoke.ok("rimworld/get_cell_info", x=x, z=z))["cell"]
                assert "Wall" not in cell["blueprintBuildDefs"]
                assert "Wall" in cell["solidThingDefs"]
        finally:
            await set_god_mode(smoke, original_god_mode)
        await smoke.capture_window(window)


async def test_architect_wall_placement_leaves_a_blueprint_without_god_mode_and_a_wall_with_it(
    open_sim: Any,
) -> None:
    async with open_sim() as sim:
        smoke = Smoke(sim)
        await smoke.ensure_playable()
        await smoke.wait_for_long_event_idle()
        window = await smoke.begin_window()
        state = await smoke.ok("rimworld/get_designator_state")
        original_god_mode = state["godMode"] is True
        try:
            wall = await designator_id(smoke, "Structure", "Wall")
            colonists = await smoke.ok("rimworld/list_colonists", currentMapOnly=True)
            blocked: set[tuple[int, int]] = set()
            await set_god_mode(smoke, False)
            x, z = await find_placement(smoke, wall, colonists, blocked)
            await smoke.ok(
                "rimworld/apply_architect_designator",
                designatorId=wall,
                x=x,
                z=z,
                keepSelected=False,
            )
            cell = (await smoke.ok("rimworld/get_cell_info", x=x, z=z))["cell"]
            assert "Wall" in cell["blueprintBuildDefs"]
            assert "Wall" not in cell["solidThingDefs"]
            await smoke.ok("rimworld/jump_camera_to_cell", x=x, z=z)

            await set_god_mode(smoke, True)
            x, z = await find_placement(smoke, wall, colonists, blocked)
            await smoke.ok(
                "rimworld/apply_architect_designator",
                designatorId=wall,
                x=x,
                z=z,
                keepSelected=False,
            )
            cell = (await smoke.ok("rimworld/get_cell_info", x=x, z=z))["cell"]
            assert "Wall" in cell["solidThingDefs"]
            assert "Wall" not in cell["blueprintBuildDefs"]
            await smoke.ok("rimworld/jump_camera_to_cell", x=x, z=z)
        finally:
            await set_god_mode(smoke, original_god_mode)
        await smoke.capture_window(window)


async def test_architect_floor_dropdown_selects_a_child_floor_and_lays_it_over_a_rectangle(
    open_sim: Any,
) -> None:
    async with open_sim() as sim:
        smoke = Smoke(sim)
        await smoke.ensure_playable()
        await smoke.wait_for_long_event_idle()
        window = await smoke.begin_window()
        state = await smoke.ok("rimworld/get_designator_state")
        original_god_mode = state["godMode"] is True
        try:
            categories = await smoke.ok(
                "rimworld/list_architect_categories", includeHidden=False, includeEmpty=False
            )
            floors = next(
                c["id"] for c in categories["categories"] if c["categoryDefName"] == "Floors"
            )
            designators = (
                await smoke.ok(
                    "rimworld/list_architect_designators", categoryId=floors, includeHidden=False
                )
            )["designators"]
            tile = next(
                d
                for d in designators
                if d.get("buildableDefName") == "MetalTile" and d.get("parentId")
            )
            await smoke.ok("rimworld/select_architect_designator", designatorId=tile["id"])
            selected = (await smoke.ok("rimworld/get_designator_state"))["designatorState"]
            assert selected["selectedDesignatorId"] == tile["id"]
            assert selected["selectedContainerDesignatorId"] == tile["parentId"]
            colonists = await smoke.ok("rimworld/list_colonists", currentMapOnly=True)
            await set_god_mode(smoke, True)
            x, z = await find_placement(
                smoke, tile["id"], colonists, set(), width=2, height=2, low=20, high=34
            )
            await smoke.ok(
                "rimworld/apply_architect_designator",
                designatorId=tile["id"],
                x=x,
                z=z,
                width=2,
                height=2,
                keepSelected=False,
            )
            for cx, cz in rectangle(x, z, 2, 2):
                cell = (await smoke.ok("rimworld/get_cell_info", x=cx, z=cz))["cell"]
                assert cell["terrainDefName"] == "MetalTile"
                assert "MetalTile" not in cell["blueprintBuildDefs"]
            await smoke.ok("rimworld/jump_camera_to_cell", x=x, z=z)
        finally:
            await set_god_mode(smoke, original_god_mode)
        await smoke.capture_window(window)


def rectangle(x: int, z: int, width: int, height: int) -> list[tuple[int, int]]:
    return [(x + dx, z + dz) for dz in range(height) for dx in range(width)]


async def cell_info(smoke: Smoke, x: int, z: int) -> Any:
    return (await smoke.ok("rimworld/get_cell_info", x=x, z=z))["cell"]


def no_zone(smoke: Smoke) -> Preflight:
    async def check(x: int, z: int, width: int, height: int) -> bool:
        for cx, cz in rectangle(x, z, width, height):
            if (await cell_info(smoke, cx, cz)).get("zone") is not None:
                return False
        return True

    return check


def without_area(
    smoke: Smoke, *, class_name: str | None = None, area_id: str | None = None
) -> Preflight:
    async def check(x: int, z: int, width: int, height: int) -> bool:
        for cx, cz in rectangle(x, z, width, height):
            for area in (await cell_info(smoke, cx, cz))["areas"]:
                if area["className"] == class_name or area["id"] == area_id:
                    return False
        return True

    return check


async def zone_designators(smoke: Smoke) -> list[Any]:
    categories = await smoke.ok(
        "rimworld/list_architect_categories", includeHidden=False, includeEmpty=False
    )
    zone = next(c["id"] for c in categories["categories"] if c["categoryDefName"] == "Zone")
    listed = await smoke.ok(
        "rimworld/list_architect_designators", categoryId=zone, includeHidden=False
    )
    return list(listed["designators"])


def by_class(designators: list[Any], class_name: str) -> str:
    return str(next(d["id"] for d in designators if d["className"] == class_name))


async def test_architect_zone_area_drag_makes_a_new_stockpile_and_grows_the_home_area(
    open_sim: Any,
) -> None:
    async with open_sim() as sim:
        smoke = Smoke(sim)
        await smoke.ensure_playable()
        await smoke.wait_for_long_event_idle()
        window = await smoke.begin_window()
        designators = await zone_designators(smoke)
        stockpile = by_class(designators, "RimWorld.Designator_ZoneAddStockpile_Resources")
        home = by_class(designators, "RimWorld.Designator_AreaHomeExpand")
        colonists = await smoke.ok("rimworld/list_colonists", currentMapOnly=True)
        zones_before = await smoke.ok(
            "rimworld/list_zones", includeHidden=False, includeEmpty=False
        )
        areas_before = await smoke.ok(
            "rimworld/list_areas", includeEmpty=True, includeAssignableOnly=False
        )
        home_before = next(
            a for a in areas_before["areas"] if a["className"] == "RimWorld.Area_Home"
        )
        blocked: set[tuple[int, int]] = set()
        x, z = await find_placement(
            smoke,
            stockpile,
            colonists,
            blocked,
            width=3,
            height=2,
            low=20,
            high=34,
            preflight=no_zone(smoke),
        )
        await smoke.ok(
            "rimworld/apply_architect_designator",
            designatorId=stockpile,
            x=x,
            z=z,
            width=3,
            height=2,
            keepSelected=False,
        )
        zone = (await cell_info(smoke, x, z))["zone"]
        assert zone["id"] and zone["className"] == "RimWorld.Zone_Stockpile"
        zones_after = await smoke.ok("rimworld/list_zones", includeHidden=False, includeEmpty=False)
        assert (zones_after["count"] or 0) > (zones_before["count"] or 0)
        created = next(n for n in zones_after["zones"] if n["id"] == zone["id"])
        assert created["cellCount"] >= 6
        assert zone["id"] not in {n["id"] for n in zones_before["zones"]}
        await smoke.ok("rimworld/jump_camera_to_cell", x=x, z=z)

        x, z = await find_placement(
            smoke,
            home,
            colonists,
            blocked,
            width=2,
            height=2,
            low=24,
            high=40,
            preflight=without_area(smoke, class_name="RimWorld.Area_Home"),
        )
        await smoke.ok(
            "rimworld/apply_architect_designator",
            designatorId=home,
            x=x,
            z=z,
            width=2,
            height=2,
            keepSelected=False,
        )
        areas = (await cell_info(smoke, x, z))["areas"]
        assert any(a["className"] == "RimWorld.Area_Home" for a in areas)
        areas_after = await smoke.ok(
            "rimworld/list_areas", includeEmpty=True, includeAssignableOnly=False
        )
        home_after = next(a for a in areas_after["areas"] if a["className"] == "RimWorld.Area_Home")
        assert home_after["cellCount"] >= home_before["cellCount"] + 4
        await smoke.ok("rimworld/jump_camera_to_cell", x=x, z=z)
        await smoke.capture_window(window)


async def test_architect_stateful_targeting_selects_an_allowed_area_expands_a_zone_and_cleans_up(
    open_sim: Any,
) -> None:
    async with open_sim() as sim:
        smoke = Smoke(sim)
        await smoke.ensure_playable()
        await smoke.wait_for_long_event_idle()
        window = await smoke.begin_window()
        designators = await zone_designators(smoke)
        stockpile = by_class(designators, "RimWorld.Designator_ZoneAddStockpile_Resources")
        allowed = by_class(designators, "RimWorld.Designator_AreaAllowedExpand")
        colonists = await smoke.ok("rimworld/list_colonists", currentMapOnly=True)
        zones_before = await smoke.ok(
            "rimworld/list_zones", includeHidden=False, includeEmpty=False
        )
        areas_before = await smoke.ok(
            "rimworld/list_areas", includeEmpty=True, includeAssignableOnly=False
        )
        area_id: str | None = None
        zone_id: str | None = None
        area_rect: tuple[int, int] | None = None
        second: tuple[int, int] | None = None
        try:
            created = await smoke.ok(
                "rimworld/create_allowed_area", label="RimBridge Live Allowed 120000", select=True
            )
            area_id = created["area"]["id"]
            assert area_id
            chosen = await smoke.ok("rimworld/select_allowed_area", areaId=area_id)
            assert chosen["selectedAllowedArea"]["id"] == area_id
            state = await smoke.ok("rimworld/get_designator_state")
            assert state["designatorState"]["selectedAllowedArea"]["id"] == area_id
            area_rect = await find_placement(
                smoke,
                allowed,
                colonists,
                set(),
                width=2,
                height=2,
                low=28,
                high=44,
                preflight=without_area(smoke, area_id=area_id),
            )
            await smoke.ok(
                "rimworld/apply_architect_designator",
                designatorId=allowed,
                x=area_rect[0],
                z=area_rect[1],
                width=2,
                height=2,
                keepSelected=False,
            )
            assert any(a["id"] == area_id for a in (await cell_info(smoke, *area_rect))["areas"])
            areas = await smoke.ok(
                "rimworld/list_areas", includeEmpty=True, includeAssignableOnly=False
            )
            assert areas["count"] > areas_before["count"]
            assert next(a for a in areas["areas"] if a["id"] == area_id)["cellCount"] >= 4

            tried: set[tuple[int, int]] = set()
            first = await find_placement(
                smoke,
                stockpile,
                colonists,
                tried,
                width=3,
                height=2,
                low=20,
                high=34,
                preflight=no_zone(smoke),
            )
            await smoke.ok(
                "rimworld/apply_architect_designator",
                designatorId=stockpile,
                x=first[0],
                z=first[1],
                width=3,
                height=2,
                keepSelected=False,
            )
            zone_id = (await cell_info(smoke, *first))["zone"]["id"]
            assert zone_id
            zones = await smoke.ok("rimworld/list_zones", includeHidden=False, includeEmpty=False)
            assert zones["count"] > zones_before["count"]
            cells_before = next(z for z in zones["zones"] if z["id"] == zone_id)["cellCount"]
            assert cells_before >= 6
            target = await smoke.ok(
                "rimworld/set_zone_target", designatorId=stockpile, zoneId=zone_id
            )
            assert target["zone"]["id"] == zone_id
            second = await find_placement(
                smoke,
                stockpile,
                colonists,
                tried,
                width=2,
                height=2,
                low=36,
                high=52,
                preflight=no_zone(smoke),
            )
            await smoke.ok(
                "rimworld/apply_architect_designator",
                designatorId=stockpile,
                x=second[0],
                z=second[1],
                width=2,
                height=2,
                keepSelected=False,
            )
            assert (await cell_info(smoke, *second))["zone"]["id"] == zone_id
            expanded = await smoke.ok(
                "rimworld/list_zones", includeHidden=False, includeEmpty=False
            )
            assert expanded["count"] == zones["count"]
            grown = next(z for z in expanded["zones"] if z["id"] == zone_id)["cellCount"]
            assert grown >= cells_before + 4
            await smoke.ok("rimworld/jump_camera_to_cell", x=area_rect[0], z=area_rect[1])
            await smoke.ok("rimworld/jump_camera_to_cell", x=second[0], z=second[1])
        finally:
            if zone_id:
                await smoke.ok("rimworld/set_zone_target", designatorId=stockpile)
                await smoke.ok("rimworld/delete_zone", zoneId=zone_id)
            if area_id:
                await smoke.ok("rimworld/clear_area", areaId=area_id)
                await smoke.ok("rimworld/delete_area", areaId=area_id)
        areas = await smoke.ok(
            "rimworld/list_areas", includeEmpty=True, includeAssignableOnly=False
        )
        assert area_id not in {a["id"] for a in areas["areas"]}
        zones = await smoke.ok("rimworld/list_zones", includeHidden=False, includeEmpty=False)
        assert zone_id not in {z["id"] for z in zones["zones"]}
        assert second is not None and area_rect is not None
        assert (await cell_info(smoke, *second))["zone"] is None
        assert all(a["id"] != area_id for a in (await cell_info(smoke, *area_rect))["areas"])
        await smoke.capture_window(window)


PRISON_SCRIPT = Path(__file__).parent / "fixtures" / "script-colonist-prison.lua"
"""The Lua script of the script-colonist-prison scenario: the tools the mod's fixture calls, the
values its checks read."""


async def test_script_colonist_prison_groups_three_colonists_walls_them_in_and_undrafts_them(
    open_sim: Any,
) -> None:
    async with open_sim() as sim:
        smoke = Smoke(sim)
        await smoke.ensure_playable()
        await smoke.wait_for_long_event_idle()
        window = await smoke.begin_window()
        state = await smoke.ok("rimworld/get_designator_state")
        original_god_mode = state["godMode"] is True
        path = str(PRISON_SCRIPT)
        parameters = {"screenshotFileName": "rimbridge_script_colonist_prison"}
        try:
            compiled = await smoke.ok(
                "rimbridge/compile_lua_file", scriptPath=path, parameters=parameters
            )
            assert compiled["resolvedScriptPath"] == path
            assert compiled["script"]["Steps"]
            ran = await smoke.ok(
                "rimbridge/run_lua_file",
                scriptPath=path,
                parameters=parameters,
                includeStepResults=True,
            )
            assert ran["resolvedScriptPath"] == path
            assert ran["returned"] is True
            result, report = ran["result"], ran["script"]
            assert report["success"] is True
            steps = report["steps"]
            assert any("#2" in (s.get("id") or "") for s in steps)
            assert len(ran["output"]) >= 3
            messages = {o.get("message") for o in ran["output"]}
            assert {"planning_attempts", "rally", "grouped_attempts"} <= messages
            calls = {s.get("call") for s in steps}
            assert "rimworld/find_random_cell_near" in calls
            assert "rimworld/list_architect_designators" in calls
            capture = next(s for s in steps if s.get("call") == "rimworld/take_screenshot")
            assert is_file(result["screenshotPath"])
            assert result["screenshotPath"] == capture["result"]["path"]
            assert result["wallDesignatorId"]
            for key in ("planningAttempts", "groupedAttempts", "capturedAttempts"):
                assert result[key] >= 1
            x, z = result["rallyX"], result["rallyZ"]
            low_x, high_x = result["interiorMinX"], result["interiorMaxX"]
            low_z, high_z = result["interiorMinZ"], result["interiorMaxZ"]
            for cx, cz in ((x, low_z - 1), (x, high_z + 1), (low_x - 1, z), (high_x + 1, z)):
                cell = await cell_info(smoke, cx, cz)
                assert "Wall" in cell["solidThingDefs"]
                assert "Wall" not in cell["blueprintBuildDefs"]
            colonists = (await smoke.ok("rimworld/list_colonists", currentMapOnly=True))[
                "colonists"
            ]
            assert len(colonists) >= 3
            for colonist in colonists[:3]:
                assert colonist["drafted"] is not True
                position = colonist["position"]
                assert low_x <= position["x"] <= high_x and low_z <= position["z"] <= high_z
            flood = await smoke.ok(
                "rimworld/flood_fill_cells",
                x=x,
                z=z,
                maxCellsToProcess=16,
                minimumCellCount=9,
                maxReturnedCells=16,
                requireWalkable=True,
                requireStandable=True,
                requireNoImpassableThings=True,
            )
            assert flood["visitedCellCount"] == 9
        finally:
            await set_god_mode(smoke, original_god_mode)
        await smoke.capture_window(window)
