"""The mod's live smoke scenarios (its maintainers' sequences of tool calls against a running
RimWorld), run against the simulation with the scenarios' own expectations.

Each scenario counts a call as failed when the answer is an error or says ``success: false``
(the harness's rule); ``ok`` applies the same rule here."""

from __future__ import annotations

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

    async def capture_window(self, window: tuple[int, int]) -> tuple[list[Any], list[Any]]:
        await self.ok("rimbridge/get_bridge_status")
        events = await self.ok(
            "rimbridge/list_operation_events",
            afterSequence=window[0],
            limit=200,
            includeDiagnostics=False,
        )
        logs = await self.ok(
            "rimbridge/list_logs", afterSequence=window[1], minimumLevel="info", limit=200
        )
        return events["events"], logs["logs"]

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
