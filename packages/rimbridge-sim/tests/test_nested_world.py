"""The records inside the world tools' answers, in the mod's shapes: a cell's things and areas,
a selected object and its detail record, a gizmo, the UI state the inspection tools return as
the mod's class (PascalCase), a gizmo press's refusals, and the cell tools' refusals with the
Architect failure fields."""

from __future__ import annotations

from typing import Any

_WALL = "architect-designator:structure:build-wall"
_ALLOWED = "architect-designator:zone:label-expand-allowed-area"

_PAWN_KEYS = [
    "pawnId",
    "thingIdNumber",
    "name",
    "fullName",
    "label",
    "selected",
    "drafted",
    "downed",
    "dead",
    "spawned",
    "map",
    "mapId",
    "mapIndex",
    "position",
    "job",
    "mentalState",
    "faction",
]
_THING_AT_CELL_KEYS = [
    "defName",
    "label",
    "className",
    "stuffDefName",
    "isBlueprint",
    "isBlueprintBuild",
    "blueprintBuildDefName",
    "isFrame",
    "frameBuildDefName",
    "hitPoints",
]
_SELECTED_THING_KEYS = [
    "thingId",
    "thingIdNumber",
    "defName",
    "label",
    "spawned",
    "stackCount",
    "hitPoints",
    "maxHitPoints",
    "mapId",
    "mapIndex",
    "position",
]
_UI_STATE_KEYS = [
    "Success",
    "ProgramState",
    "InEntryScene",
    "HasCurrentGame",
    "NonImmediateDialogWindowOpen",
    "CurrentWindowGetsInput",
    "MouseObscuredNow",
    "WindowsForcePause",
    "WindowsPreventCameraMotion",
    "WindowsPreventSave",
    "AnyWindowAbsorbingAllInput",
    "AnySearchWidgetFocused",
    "FloatMenuOpen",
    "WindowCount",
    "FocusedWindowType",
    "FocusedWindowTitle",
    "TopWindowType",
    "TopWindowTitle",
    "MainTabOpen",
    "OpenMainTabId",
    "OpenMainTabType",
    "OpenMainTabLabel",
    "MainTab",
    "Windows",
]
_WINDOW_KEYS = [
    "Index",
    "Id",
    "Type",
    "Title",
    "Layer",
    "IsOpen",
    "GetsInput",
    "CloseOnAccept",
    "CloseOnCancel",
    "ForcePause",
    "PreventCameraMotion",
    "AbsorbInputAroundWindow",
    "DrawInScreenshotMode",
    "SemanticKind",
    "SemanticDetails",
    "Rect",
]
_MAIN_TAB_KEYS = [
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
]


async def _steel_at(sim: Any, x: int, z: int) -> str:
    await sim.call("rimworld/spawn_thing", defName="Steel", x=x, z=z, stackCount=30)
    things = (await sim.call("rimworld/get_cell_info", x=x, z=z))["cell"]["things"]
    return str(next(t["thingId"] for t in things if t["defName"] == "Steel"))


async def test_a_cells_things_carry_the_mods_thing_record_then_the_sims_id_and_stack(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        steel = await _steel_at(sim, 10, 10)
        cell = (await sim.call("rimworld/get_cell_info", x=10, z=10))["cell"]
        assert cell["things"] == [
            {
                "defName": "Steel",
                "label": "Steel x30",
                "className": "Verse.ThingWithComps",
                "stuffDefName": None,
                "isBlueprint": False,
                "isBlueprintBuild": False,
                "blueprintBuildDefName": None,
                "isFrame": False,
                "frameBuildDefName": None,
                "hitPoints": 100,
                "thingId": steel,
                "stackCount": 30,
            }
        ]
        pawn = (await sim.call("rimworld/list_colonists"))["colonists"][0]
        assert list(pawn)[: len(_PAWN_KEYS)] == _PAWN_KEYS
        under = (await sim.call("rimworld/get_cell_info", **pawn["position"]))["cell"]
        record = next(t for t in under["things"] if t["defName"] == "Human")
        assert list(record) == [*_THING_AT_CELL_KEYS, "thingId", "stackCount"]
        assert (record["label"], record["className"], record["hitPoints"]) == (
            pawn["name"],
            "Verse.Pawn",
            -1,
        )


async def test_a_blueprint_on_a_cell_says_what_it_builds_and_of_which_stuff(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        placed = await sim.call("rimworld/apply_architect_designator", designatorId=_WALL, x=5, z=5)
        assert placed["success"] is True
        cell = (await sim.call("rimworld/get_cell_info", x=5, z=5))["cell"]
        blueprint = next(t for t in cell["things"] if t["isBlueprint"])
        assert {k: blueprint[k] for k in _THING_AT_CELL_KEYS} == {
            "defName": "Blueprint_Wall",
            "label": "Wall (blueprint)",
            "className": "RimWorld.Blueprint_Build",
            "stuffDefName": "WoodLog",
            "isBlueprint": True,
            "isBlueprintBuild": True,
            "blueprintBuildDefName": "Wall",
            "isFrame": False,
            "frameBuildDefName": None,
            "hitPoints": -1,
        }
        assert cell["blueprintBuildDefs"] == ["Wall"]


async def test_a_cells_areas_are_listed_by_ascending_list_priority(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        pawn = (await sim.call("rimworld/list_colonists"))["colonists"][0]
        await sim.call("rimworld/create_allowed_area", label="Pen")
        await sim.call(
            "rimworld/apply_architect_designator", designatorId=_ALLOWED, **pawn["position"]
        )
        cell = (await sim.call("rimworld/get_cell_info", **pawn["position"]))["cell"]
        assert [(a["label"], a["listPriority"]) for a in cell["areas"]] == [
            ("Pen", 1),
            ("Home", 10),
        ]


async def test_cell_tools_refuse_with_the_architect_failure_fields(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        state_keys = (await sim.call("rimworld/get_cell_info", x=1, z=1))["state"].keys()
        refusals = {
            ("rimworld/get_cells_info", "x=0 z=0 33x32"): (
                await sim.call("rimworld/get_cells_info", x=0, z=0, width=33, height=32),
                "Requested rectangle contains 1056 cells, which exceeds the limit of 1024.",
            ),
            ("rimworld/get_cell_info", "outside"): (
                await sim.call("rimworld/get_cell_info", x=-1, z=3),
                "Cell (-1, 3) is out of bounds for the current map.",
            ),
            ("rimworld/find_random_cell_near", "radius 0"): (
                await sim.call("rimworld/find_random_cell_near", x=1, z=1, startingSearchRadius=0),
                "startingSearchRadius must be positive.",
            ),
            ("rimworld/flood_fill_cells", "minimum -1"): (
                await sim.call("rimworld/flood_fill_cells", x=1, z=1, minimumCellCount=-1),
                "minimumCellCount cannot be negative.",
            ),
            ("rimworld/flood_fill_cells", "returned -1"): (
                await sim.call("rimworld/flood_fill_cells", x=1, z=1, maxReturnedCells=-1),
                "maxReturnedCells cannot be negative.",
            ),
        }
        for what, (refused, message) in refusals.items():
            assert list(refused)[:5] == [
                "success",
                "message",
                "devModeEnabled",
                "godMode",
                "state",
            ], what
            assert (refused["success"], refused["message"]) == (False, message), what
            assert refused["state"].keys() == state_keys, what
        await sim.call("rimworld/go_to_main_menu")
        await sim.call("rimbridge/wait_for_long_event_idle")
        menu = await sim.call("rimworld/get_cell_info", x=1, z=1)
        assert (menu["success"], menu["message"], menu["code"]) == (
            False,
            "No game is currently loaded.",
            "no_game",
        )
        assert menu["state"]["hasCurrentGame"] is False


async def test_a_selected_thing_is_described_with_the_mods_detail_record(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        steel = await _steel_at(sim, 10, 10)
        await sim.call("rimworld/click_cell", x=10, z=10)
        semantics = await sim.call("rimworld/get_selection_semantics")
        (selected,) = semantics["selectedObjects"]
        assert (selected["kind"], selected["id"], selected["label"]) == (
            "thing",
            steel,
            "Steel x30",
        )
        assert selected["reference"]["label"] == "Steel x30"
        details = selected["details"]
        assert list(details)[: len(_SELECTED_THING_KEYS)] == _SELECTED_THING_KEYS
        assert (details["stackCount"], details["hitPoints"], details["maxHitPoints"]) == (
            30,
            100,
            100,
        )
        target = await sim.call("rimworld/get_map_target_info", thingId=steel)
        assert (target["label"], target["target"]["label"]) == ("Steel x30", "Steel x30")
        gizmos = (await sim.call("rimworld/list_selected_gizmos"))["gizmos"]
        assert [o["label"] for g in gizmos for o in g["owners"]] == ["Steel x30"]


async def test_a_selection_snapshot_without_details_keeps_the_record_and_nulls_the_pane(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        pawn = (await sim.call("rimworld/list_colonists"))["colonists"][0]
        await sim.call("rimworld/select_pawn", pawnName=pawn["name"])
        draft = (await sim.call("rimworld/list_selected_gizmos"))["gizmos"][0]
        pressed = await sim.call("rimworld/execute_gizmo", gizmoId=draft["id"])
        (before,) = pressed["selectionBefore"]["selectedObjects"]
        assert (
            before["inspectString"],
            before["inspectStringLines"],
            before["inspectTabTypes"],
        ) == (None, None, None)
        assert before["details"]["pawnId"] == pawn["pawnId"]
        assert pressed["selectionAfter"]["selectedObjects"][0]["details"]["drafted"] is True


async def test_gizmos_carry_a_float_order_and_the_draft_toggles_hotkey(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        pawn = (await sim.call("rimworld/list_colonists"))["colonists"][0]
        await sim.call("rimworld/select_pawn", pawnName=pawn["name"])
        (draft,) = (await sim.call("rimworld/list_selected_gizmos"))["gizmos"]
        assert (draft["order"], draft["hotKeyDef"], draft["hotKey"]) == (
            1.0,
            "Command_ColonistDraft",
            "R",
        )
        assert isinstance(draft["order"], float)


async def test_the_ui_state_of_inspection_answers_is_the_mods_class_in_pascal_case(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        pawn = (await sim.call("rimworld/list_colonists"))["colonists"][0]
        await sim.call("rimworld/select_pawn", pawnName=pawn["name"])
        await sim.call("rimworld/open_main_tab", mainTabId="main-tab:Work")
        ui = (await sim.call("rimworld/get_selection_semantics"))["uiState"]
        assert list(ui) == _UI_STATE_KEYS
        assert list(ui["MainTab"]) == _MAIN_TAB_KEYS
        assert ui["MainTab"]["Id"] == ui["OpenMainTabId"] == "main-tab:Work"
        assert list(ui["Windows"][0]) == _WINDOW_KEYS
        assert list(ui["Windows"][0]["Rect"]) == ["X", "Y", "Width", "Height"]
        plain = await sim.call("rimworld/get_ui_state")
        assert ui["WindowCount"] == plain["windowCount"] == 1
        draft = (await sim.call("rimworld/list_selected_gizmos"))["gizmos"][0]
        pressed = await sim.call("rimworld/execute_gizmo", gizmoId=draft["id"])
        assert list(pressed["uiBefore"]) == list(pressed["uiAfter"]) == _UI_STATE_KEYS


async def test_gizmo_refusals_carry_the_mods_fields(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        nothing = await sim.call("rimworld/execute_gizmo", gizmoId="selection-gizmo:sel-x:1:y")
        assert nothing == {
            **nothing,
            "success": False,
            "message": "No objects are currently selected.",
            "requestedGizmoId": "selection-gizmo:sel-x:1:y",
        }
        assert list(nothing)[:3] == ["success", "message", "requestedGizmoId"]
        pawn = (await sim.call("rimworld/list_colonists"))["colonists"][0]
        await sim.call("rimworld/select_pawn", pawnName=pawn["name"])
        listed = await sim.call("rimworld/list_selected_gizmos")
        fields = {
            "requestedGizmoId",
            "selectionFingerprint",
            "availableGizmoIds",
        }
        stale = await sim.call("rimworld/execute_gizmo", gizmoId="selection-gizmo:sel-x:1:y")
        assert stale["message"] == "The requested gizmo id no longer matches the current selection."
        assert fields <= stale.keys()
        assert stale["availableGizmoIds"] == [g["id"] for g in listed["gizmos"]]
        assert stale["selectionFingerprint"] == listed["selectionFingerprint"]
        unknown = await sim.call("rimworld/execute_gizmo", gizmoId="draft")
        assert unknown["message"] == "Could not find selected gizmo 'draft'."
        assert fields <= unknown.keys()


async def test_inspection_tools_without_a_game_answer_with_the_mods_failure(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        await sim.call("rimworld/go_to_main_menu")
        await sim.call("rimbridge/wait_for_long_event_idle")
        for tool, arguments in (
            ("rimworld/get_selection_semantics", {}),
            ("rimworld/list_selected_gizmos", {}),
            ("rimworld/execute_gizmo", {"gizmoId": "selection-gizmo:sel-x:1:y"}),
        ):
            answer = await sim.call(tool, **arguments)
            assert {k: v for k, v in answer.items() if k != "operation"} == {
                "success": False,
                "message": "No game is currently loaded.",
                "code": "no_game",
            }, tool


async def test_a_carried_thing_is_labelled_as_the_game_labels_it(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        steel = await _steel_at(sim, 20, 20)
        await sim.call("rimworld/click_cell", x=20, z=20)
        haul = (await sim.call("rimworld/list_selected_gizmos"))["gizmos"][0]
        await sim.call("rimworld/execute_gizmo", gizmoId=haul["id"])
        carrier = None
        for _ in range(40):
            await sim.call("rimworld/step_game_ticks", ticks=30)
            colonists = (await sim.call("rimworld/list_colonists"))["colonists"]
            carrier = next((c for c in colonists if c["carriedThingId"] == steel), None)
            if carrier is not None:
                break
        assert carrier is not None
        await sim.call("rimworld/select_pawn", pawnId=carrier["pawnId"])
        state = await sim.call("rimworld/get_selected_pawn_inventory_state")
        assert state["carriedThing"] == {
            "thingId": steel,
            "defName": "Steel",
            "label": "Steel",
            "stackCount": 30,
        }


async def test_a_step_reports_frames_and_ticks_as_the_mods_stepper_counts_them(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        step = await sim.call("rimworld/step_game_ticks", ticks=3)
        assert step["advancedFrames"] == step["lastFrame"] - step["initialFrame"] + 1 == 3
        assert step["advancedTicks"] == step["endTicksGame"] - step["startTicksGame"] == 3
        for arguments, message in (
            ({"timeoutMs": -1}, "timeoutMs cannot be negative."),
            ({"pollIntervalMs": -1}, "pollIntervalMs cannot be negative."),
        ):
            refused = await sim.call("rimworld/step_game_ticks", **arguments)
            assert (refused["success"], refused["message"]) == (False, message)


async def test_framing_a_cell_rectangle_pads_within_the_map_and_refuses_with_the_rect(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        framed = await sim.call("rimworld/frame_cell_rect", x=1, z=1, width=3, height=2)
        assert framed["paddedRect"] == {
            "x": 0,
            "z": 0,
            "width": 8,
            "height": 7,
            "maxX": 7,
            "maxZ": 6,
        }
        assert framed["camera"]["mapPosition"] == {"x": 4, "z": 3}
        for arguments, message in (
            (
                {"x": -5, "z": 0},
                "Requested rect (-5, 0, 1, 1) is out of bounds for the current map.",
            ),
            ({"x": 1, "z": 1, "width": 0}, "width and height must both be greater than zero."),
        ):
            refused = await sim.call("rimworld/frame_cell_rect", **arguments)
            assert list(refused)[:5] == [
                "success",
                "message",
                "requestedRect",
                "paddingCells",
                "rootSize",
            ]
            assert (refused["success"], refused["message"]) == (False, message)
            assert (refused["paddingCells"], refused["rootSize"]) == (4, 0.0)
        assert refused["requestedRect"] == {
            "x": 1,
            "z": 1,
            "width": 0,
            "height": 1,
            "maxX": 0,
            "maxZ": 1,
        }


async def test_areas_are_listed_by_ascending_list_priority_and_empty_ones_only_on_request(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        await sim.call("rimworld/create_allowed_area", label="Pen")
        listed = await sim.call("rimworld/list_areas", includeEmpty=True)
        priorities = [area["listPriority"] for area in listed["areas"]]
        assert priorities == sorted(priorities) and len(set(priorities)) > 1
        assert listed["areas"][0]["label"] == "Pen"
        # the new allowed area has no cells yet: without includeEmpty it is not listed
        default = await sim.call("rimworld/list_areas")
        assert [area["label"] for area in default["areas"]] == [
            area["label"] for area in listed["areas"] if area["cellCount"] > 0
        ]
        assert "Pen" not in [area["label"] for area in default["areas"]]
