"""Colonists, the selection, drafting, and the selection's inspect pane and gizmos.

Pawns are named by ``pawnName`` (nickname or full name, ``First 'Nick' Last``; case ignored;
a unique part of either is enough) or ``pawnId`` (``Thing_Human12``), as the mod resolves
them. A name or id that matches no colonist is a payload failure (``unknown_id`` / ``stale_id``).
"""

from __future__ import annotations

from typing import Any

from rimbridge_annotations import parameter, tool
from rimbridge_sim.calls import (
    DEFAULT_PAYLOAD_CODES,
    NO_GAME_MESSAGE,
    NO_GAME_SENTENCE,
    call_spec,
    without_game,
)
from rimbridge_sim.host import ToolHost
from rimbridge_sim.world import InvalidArgumentError, NoGameError, RefusedError
from rimbridge_sim.world._selection import MAX_DETAILED_OBJECTS, GizmoRefusedError
from rimbridge_sim.world._ui_records import pascal_ui_state
from rimbridge_sim.world.describe import describe_pawn
from rimbridge_sim.world.state import Pawn

__all__ = ["SelectionTools"]

_NO_GAME = DEFAULT_PAYLOAD_CODES | {"no_game"}
_PAWN = (
    "{pawnId, thingIdNumber, name, fullName, label, selected, drafted, downed, dead, spawned, "
    "mapId, position {x, z}, job, mentalState, faction, health, needs {food, mood}, "
    "carriedThingId, jobTarget, jobOperationId}"
)
_NAME = "The colonist's name: nickname or full name, or a unique part of one (case ignored)."
_ID = "The colonist's id from rimworld/list_colonists (wins over pawnName)."
_COLONIST = "player-controlled colonist"
"""What the mod's select and draft lookups say they searched (every map's colonists)."""
"""The inspection tools' text without a game (with a full stop, as the mod's)."""


class SelectionTools:
    def __init__(self, host: ToolHost) -> None:
        self.host = host

    def _colonist(self, pawn_name: str | None, pawn_id: str | None) -> Pawn:
        """The colonist ``select_pawn`` and ``set_draft`` name. Without a game the mod looks
        among no colonists, so it throws its lookup text (not the missing-map one)."""
        world = self.host.world
        world.require_no_long_event()
        if world.game is not None:
            return world.resolve_pawn(pawn_name, pawn_id, what=_COLONIST)
        if pawn_id is not None and pawn_id.strip():
            raise NoGameError(f"Could not find {_COLONIST} id '{pawn_id}'.")
        if pawn_name is None or not pawn_name.strip():
            raise InvalidArgumentError(f"A {_COLONIST} name or id is required.")
        raise NoGameError(f"Could not find {_COLONIST} '{pawn_name}'.")

    @tool(
        "rimworld/list_colonists",
        "List the player's colonists with their ids, positions, draft state, job and needs, "
        "sorted by name.",
        title="List colonists",
        result_description=f"{{success, count, colonists: [{_PAWN}]}}; without a game "
        "{success: false, message: 'No game is currently loaded', code: 'no_game'}.",
    )
    @parameter("current_map_only", "Only colonists on the current map.")
    @call_spec(world=True, payload_codes=_NO_GAME)
    def list_colonists(self, current_map_only: bool = False) -> dict[str, Any]:
        world = self.host.world
        if (failure := without_game(world, NO_GAME_MESSAGE)) is not None:
            return failure
        game = world.require_colony().game
        pawns = sorted(game.pawns.values(), key=lambda p: p.nickname.lower())
        return {
            "success": True,
            "count": len(pawns),
            "colonists": [describe_pawn(world, p) for p in pawns],
        }

    @tool(
        "rimworld/clear_selection",
        "Deselect everything on the map. Throws without a game: there is no map selector.",
        title="Clear selection",
        result_description="{success, selectedCount}.",
    )
    @call_spec(world=True)
    def clear_selection(self) -> dict[str, Any]:
        world = self.host.world
        world.require_colony()
        world.selection.clear()
        return {"success": True, "selectedCount": 0}

    @tool(
        "rimworld/select_pawn",
        "Select a colonist by name or id, replacing the selection unless append is set.",
        title="Select pawn",
        result_description=f"{{success, selected: {_PAWN}, selectedCount}}.",
    )
    @parameter("pawn_name", _NAME)
    @parameter("pawn_id", _ID)
    @parameter("append", "Add to the selection instead of replacing it.")
    @call_spec(world=True)
    def select_pawn(
        self, pawn_name: str | None = None, pawn_id: str | None = None, append: bool = False
    ) -> dict[str, Any]:
        world = self.host.world
        pawn = self._colonist(pawn_name, pawn_id)
        world.selection.select(pawn.id, append=append)
        return {
            "success": True,
            "selected": describe_pawn(world, pawn),
            "selectedCount": len(world.selection.ids),
        }

    @tool(
        "rimworld/deselect_pawn",
        "Deselect one selected colonist by name or id.",
        title="Deselect pawn",
        result_description=f"{{success, deselected (its name), deselectedPawn: {_PAWN}, "
        "selectedCount}.",
    )
    @parameter("pawn_name", "The selected colonist's name.")
    @parameter("pawn_id", "The selected colonist's id.")
    @call_spec(world=True)
    def deselect_pawn(
        self, pawn_name: str | None = None, pawn_id: str | None = None
    ) -> dict[str, Any]:
        world = self.host.world
        pawn = world.resolve_pawn(
            pawn_name, pawn_id, among=world.selected_pawns(), what="selected pawn"
        )
        world.selection.deselect(pawn.id)
        return {
            "success": True,
            "deselected": pawn.nickname,
            "deselectedPawn": describe_pawn(world, pawn),
            "selectedCount": len(world.selection.ids),
        }

    @tool(
        "rimworld/set_draft",
        "Draft or release a colonist by name or id. Drafting drops the current job; a drafted "
        "colonist waits for orders (rimworld/right_click_cell).",
        title="Set draft",
        result_description=f"{{success, pawn (its name), pawnInfo: {_PAWN}, drafted}}.",
    )
    @parameter("pawn_name", _NAME)
    @parameter("pawn_id", _ID)
    @parameter("drafted", "True to draft, false to release.")
    @call_spec(world=True)
    def set_draft(
        self, pawn_name: str | None = None, pawn_id: str | None = None, drafted: bool = True
    ) -> dict[str, Any]:
        world = self.host.world
        pawn = self._colonist(pawn_name, pawn_id)
        world.set_draft(pawn.id, drafted)
        return {
            "success": True,
            "pawn": pawn.nickname,
            "pawnInfo": describe_pawn(world, pawn),
            "drafted": pawn.drafted,
        }

    @tool(
        "rimworld/get_selected_pawn_inventory_state",
        "Show what the one selected colonist carries and holds.",
        title="Get selected pawn inventory",
        result_description="{success, pawnId, pawnName, currentJob, currentJobReport, "
        "carriedThing, inventoryCount, inventoryItems, hauledInventoryThingIds}; unless exactly "
        "one pawn is selected {success: false, error}; throws without a game.",
    )
    @call_spec(world=True, quick=True)
    def get_selected_pawn_inventory_state(self) -> dict[str, Any]:
        self.host.world.require_colony()
        try:
            return {"success": True, **self.host.world.selection.inventory()}
        except RefusedError as error:
            return {"success": False, "error": error.message, "code": error.code}

    @tool(
        "rimworld/get_selection_semantics",
        "Describe the selection as the inspect pane does: each selected object's inspect "
        "lines and tabs, and the selection fingerprint gizmo ids are scoped to.",
        title="Get selection semantics",
        result_description="{success, hasSelection, selectionFingerprint, selectedCount, "
        "detailedObjectCount, selectionDetailsTruncated, selectedKinds, selectedObjects, "
        "visibleGizmoCount, uiState}; selectedObjects: [{kind, type, id, label, inspectLabel, "
        "inspectString, inspectStringLines, inspectTabTypes, reference, details}] (at most 12); "
        "uiState is the UI state class as the mod writes it (PascalCase keys: ProgramState, "
        "WindowCount, Windows, ...); without a game {success: false, message}.",
    )
    @call_spec(world=True, quick=True, payload_codes=_NO_GAME)
    def get_selection_semantics(self) -> dict[str, Any]:
        world = self.host.world
        if (failure := without_game(world, NO_GAME_SENTENCE)) is not None:
            return failure
        snapshot = world.selection.snapshot(details=True)
        objects = snapshot["selectedObjects"]
        return {
            "success": True,
            "hasSelection": snapshot["hasSelection"],
            "selectionFingerprint": snapshot["selectionFingerprint"],
            "selectedCount": snapshot["selectedCount"],
            "detailedObjectCount": min(snapshot["selectedCount"], MAX_DETAILED_OBJECTS),
            "selectionDetailsTruncated": snapshot["selectionDetailsTruncated"],
            "selectedKinds": list(dict.fromkeys(world.selection.kinds())),
            "selectedObjects": objects,
            "visibleGizmoCount": len(world.selection.gizmos()),
            "uiState": pascal_ui_state(world.windows.ui_state()),
        }

    @tool(
        "rimworld/list_selected_gizmos",
        "List the selection's command buttons (draft toggle, designate, ...) grouped across "
        "the selected objects, with ids scoped to the current selection.",
        title="List selected gizmos",
        result_description="{success, hasSelection, selectionFingerprint, selectedCount, "
        "gizmoCount, gizmos: [{id, selectionFingerprint, ordinal, gizmoType, label, "
        "description, descriptionPostfix, topRightLabel, disabled, disabledReason, visible, "
        "order, groupSize, ownerCount, owners, hotKeyDef, hotKey, supportsRightClick, "
        "reverseDesignator}]}.",
    )
    @call_spec(world=True, quick=True, payload_codes=_NO_GAME)
    def list_selected_gizmos(self) -> dict[str, Any]:
        world = self.host.world
        if (failure := without_game(world, NO_GAME_SENTENCE)) is not None:
            return failure
        selection = world.selection
        gizmos = selection.gizmos()
        return {
            "success": True,
            "hasSelection": bool(selection.ids),
            "selectionFingerprint": selection.fingerprint(),
            "selectedCount": len(selection.ids),
            "gizmoCount": len(gizmos),
            "gizmos": [selection.describe_gizmo(g) for g in gizmos],
        }

    @tool(
        "rimworld/execute_gizmo",
        "Press one of the selection's gizmos by the id rimworld/list_selected_gizmos gave; an "
        "id from another selection is refused.",
        title="Execute gizmo",
        result_description="{success, requestedGizmoId, gizmo, selectionBefore, "
        "selectionAfter, selectionChanged, uiBefore, uiAfter} (the UI states in PascalCase, as "
        "get_selection_semantics' uiState); a refusal is {success: false, message, "
        "requestedGizmoId} plus selectionFingerprint and availableGizmoIds for an unknown or "
        "stale id, or selectionFingerprint and gizmo for a disabled one.",
    )
    @parameter("gizmo_id", "A gizmo id from rimworld/list_selected_gizmos.")
    @call_spec(world=True, payload_codes=_NO_GAME)
    def execute_gizmo(self, gizmo_id: str) -> dict[str, Any]:
        world = self.host.world
        if (failure := without_game(world, NO_GAME_SENTENCE)) is not None:
            return failure
        before = world.selection.snapshot(details=False)
        ui_before = pascal_ui_state(world.windows.ui_state())
        try:
            gizmo, _ = world.selection.execute_gizmo(gizmo_id)
        except GizmoRefusedError as refused:
            # the mod's fields in its order, then the sim's code
            return {
                "success": False,
                "message": refused.message,
                **refused.fields,
                "code": refused.code,
            }
        after = world.selection.snapshot(details=False)
        return {
            "success": True,
            "requestedGizmoId": gizmo_id,
            "gizmo": world.selection.describe_gizmo(gizmo),
            "selectionBefore": before,
            "selectionAfter": after,
            "selectionChanged": before["selectionFingerprint"] != after["selectionFingerprint"],
            "uiBefore": ui_before,
            "uiAfter": pascal_ui_state(world.windows.ui_state()),
        }
