"""Mouse input on the map: clicks, drags, and the right-click (float) menu of the selected
colonists. This is how orders are given: draft a colonist, then right-click a cell (it goes
there), or open the menu on an item or a designation and pick an option."""

from __future__ import annotations

from typing import Any

from rimbridge_annotations import parameter, tool
from rimbridge_sim.calls import (
    DEFAULT_PAYLOAD_CODES,
    NO_GAME_SENTENCE,
    call_spec,
    without_game,
)
from rimbridge_sim.host import ToolHost
from rimbridge_sim.world import Cell, InvalidCellError, MissingArgumentError, RefusedError, World
from rimbridge_sim.world._map_input import OptionRefusedError
from rimbridge_sim.world.describe import cell_payload

__all__ = ["MapInputTools"]

_NO_GAME = DEFAULT_PAYLOAD_CODES | {"no_game"}
_MODIFIERS = {
    "shift": "shift",
    "ctrl": "ctrl",
    "control": "ctrl",
    "alt": "alt",
    "option": "alt",
    "cmd": "command",
    "command": "command",
    "meta": "command",
}
"""The mod's text when a map click (context menu, right-click, click, drag) finds no game."""
_HOLD = "How long to hold the button down, in milliseconds."
_MODS = "Modifier keys: shift, ctrl, alt, command (comma, space or + separated)."
_MENU = (
    "{success, menuId, provider, clickCell, target, button, holdDurationMs, modifiers, "
    "selectedPawns, optionCount, options: [{index, label, disabled, priority, "
    "orderInPriority, autoTakeable, hasAction}], message}"
)


def _modifiers(text: str | None) -> str:
    if text is None or not text.strip():
        return "none"
    seen: list[str] = []
    for token in text.replace("+", " ").replace(",", " ").replace("|", " ").split():
        key = token.strip().lower()
        if key == "none":
            continue
        if key not in _MODIFIERS:
            raise RefusedError(
                f"Unsupported modifier '{token}'. Supported values are shift, ctrl, alt, "
                "and command."
            )
        if _MODIFIERS[key] not in seen:
            seen.append(_MODIFIERS[key])
    return ",".join(seen) or "none"


def completion_message(button: str, hold_ms: int, *, drag: bool, menu_open: bool) -> str:
    """The mod's answer text for a gesture its injector saw through (``BuildCompletionMessage``
    in its ``RimBridgeMapClickInjector``): it names the gesture, not what the game did."""
    gesture = "drag" if drag else "click"
    held = f" held for {hold_ms}ms" if hold_ms > 0 else ""
    start = f"Dispatched a live {button}-{gesture}{held} through RimWorld's play UI"
    if menu_open:
        return start + " and a context menu remained open."
    return start + f". No context menu remained open after the {gesture}."


def _target(
    world: World, pawn_name: str | None, pawn_id: str | None, x: int, z: int
) -> tuple[Cell, str]:
    if (pawn_name and pawn_name.strip()) or (pawn_id and pawn_id.strip()):
        pawn = world.resolve_pawn(pawn_name, pawn_id, what="current-map pawn")
        return pawn.position, pawn.nickname
    return _cell(world, x, z), f"cell {x},{z}"


def _cell(world: World, x: int, z: int) -> Cell:
    game = world.require_colony().game
    cell = Cell(x, z)
    if not game.map.contains(cell):
        raise InvalidCellError(f"Cell ({x}, {z}) is out of bounds for the current map.")
    return cell


class MapInputTools:
    def __init__(self, host: ToolHost) -> None:
        self.host = host

    def _menu_result(
        self, menu_id: int, provider: str, cell: Cell, label: str, options: list[Any]
    ) -> dict[str, Any]:
        return {
            "menuId": menu_id,
            "provider": provider,
            "clickCell": cell_payload(cell),
            "target": label,
            "optionCount": len(options),
            "options": options,
        }

    def _dispatch(
        self,
        pawn_name: str | None,
        pawn_id: str | None,
        x: int,
        z: int,
        button: str,
        hold_duration_ms: int,
        modifiers: str | None,
    ) -> tuple[dict[str, Any], Any]:
        world = self.host.world
        world.require_colony()
        pawns = world.selected_pawns()
        if not pawns:
            raise RefusedError("No pawns are currently selected.")
        # the mod's order: the target, then the button, the hold and the modifiers
        cell, label = _target(world, pawn_name, pawn_id, x, z)
        if hold_duration_ms < 0:
            raise RefusedError("holdDurationMs must be zero or greater.")
        mods = _modifiers(modifiers)
        if button == "right":
            dispatch = world.map_input.right_click(cell, label, pawns)
        else:
            dispatch = world.map_input.click(cell, button)
        common = {
            "success": True,
            "clickCell": cell_payload(cell),
            "target": label,
            "button": button,
            "holdDurationMs": hold_duration_ms,
            "modifiers": mods,
            "selectedPawns": [p.nickname for p in pawns],
            "message": completion_message(
                button, hold_duration_ms, drag=False, menu_open=dispatch.menu is not None
            ),
        }
        return common, dispatch

    @tool(
        "rimworld/open_context_menu",
        "Right-click a pawn or cell with colonists selected and report the float menu that "
        "opens (a drafted colonist's plain goto happens at once and opens no menu). Needs a "
        "selected colonist.",
        title="Open context menu",
        result_description=_MENU + "; menuId 0 and no options when no menu stayed open.",
    )
    @parameter("target_pawn_name", "Click this pawn's cell instead of x/z.")
    @parameter("target_pawn_id", "Click this pawn's cell (by id) instead of x/z.")
    @parameter("x", "Cell x (west to east, from 0).")
    @parameter("z", "Cell z (south to north, from 0).")
    @parameter("mode", "vanilla, auto or live (all take the live click path).")
    @parameter("button", "left, right or middle.")
    @parameter("hold_duration_ms", _HOLD)
    @parameter("modifiers", _MODS)
    @call_spec(world=True, payload_codes=_NO_GAME)
    def open_context_menu(
        self,
        target_pawn_name: str | None = None,
        target_pawn_id: str | None = None,
        x: int = 0,
        z: int = 0,
        mode: str = "vanilla",
        button: str = "right",
        hold_duration_ms: int = 0,
        modifiers: str | None = None,
    ) -> dict[str, Any]:
        if (failure := without_game(self.host.world, NO_GAME_SENTENCE)) is not None:
            return failure
        common, dispatch = self._dispatch(
            target_pawn_name, target_pawn_id, x, z, button, hold_duration_ms, modifiers
        )
        menu = dispatch.menu
        options = [] if menu is None else self.host.world.map_input.describe_options(menu)
        return {
            **common,
            "menuId": 0 if menu is None else menu.id,
            "provider": "ui_event" if menu is None else menu.provider,
            "optionCount": len(options),
            "options": options,
        }

    @tool(
        "rimworld/right_click_cell",
        "Right-click a pawn or cell with colonists selected, as a player does: drafted "
        "colonists go to an open cell at once; where there is more to choose, the float menu "
        "opens (pick with rimworld/execute_context_menu_option).",
        title="Right-click cell",
        result_description="{success, actionKind: 'click_dispatched' | 'menu_opened', "
        "clickCell, target, button, holdDurationMs, modifiers, selectedPawns, message} and, "
        "when a menu opened, menuId, provider, optionCount, options.",
    )
    @parameter("target_pawn_name", "Click this pawn's cell instead of x/z.")
    @parameter("target_pawn_id", "Click this pawn's cell (by id) instead of x/z.")
    @parameter("x", "Cell x.")
    @parameter("z", "Cell z.")
    @parameter("button", "left, right or middle.")
    @parameter("hold_duration_ms", _HOLD)
    @parameter("modifiers", _MODS)
    @call_spec(world=True, payload_codes=_NO_GAME)
    def right_click_cell(
        self,
        target_pawn_name: str | None = None,
        target_pawn_id: str | None = None,
        x: int = 0,
        z: int = 0,
        button: str = "right",
        hold_duration_ms: int = 0,
        modifiers: str | None = None,
    ) -> dict[str, Any]:
        if (failure := without_game(self.host.world, NO_GAME_SENTENCE)) is not None:
            return failure
        common, dispatch = self._dispatch(
            target_pawn_name, target_pawn_id, x, z, button, hold_duration_ms, modifiers
        )
        result = {"actionKind": dispatch.action_kind, **common}
        if dispatch.menu is not None:
            options = self.host.world.map_input.describe_options(dispatch.menu)
            result.update(
                menuId=dispatch.menu.id,
                provider=dispatch.menu.provider,
                optionCount=len(options),
                options=options,
            )
        return result

    def _gesture(
        self,
        command: str,
        dispatch: Any,
        start: Cell,
        end: Cell | None,
        before: Any,
        button: str,
        hold: int,
        mods: str,
    ) -> dict[str, Any]:
        world = self.host.world
        menu = dispatch.menu
        options = [] if menu is None else world.map_input.describe_options(menu)
        opened = {} if menu is None else {"menuId": menu.id, "provider": menu.provider}
        result: dict[str, Any] = {
            "success": True,
            "command": command,
            "actionKind": dispatch.action_kind,
            "gestureKind": dispatch.gesture,
            **opened,
            "clickCell": cell_payload(start) if end is None or menu is not None else None,
            "startCell": None if end is None else cell_payload(start),
            "endCell": None if end is None else cell_payload(end),
            "target": f"cell {start.x},{start.z}"
            + ("" if end is None else f" to cell {end.x},{end.z}"),
            "button": button,
            "holdDurationMs": hold,
            "modifiers": mods,
        }
        if menu is not None:
            result.update(optionCount=len(options), options=options)
        result.update(
            selectionBefore=before,
            selectionAfter=world.selection.snapshot(details=False),
            message=completion_message(button, hold, drag=end is not None, menu_open=bool(opened)),
        )
        return result

    @tool(
        "rimworld/click_cell",
        "Click a map cell: left selects what is there (or clears the selection), right acts "
        "for the selected colonists as rimworld/right_click_cell does, middle does nothing.",
        title="Click cell",
        result_description="{success, command, actionKind, gestureKind, clickCell, target, "
        "button, holdDurationMs, modifiers, selectionBefore, selectionAfter, message} and, "
        "when a menu opened, menuId, provider, optionCount, options.",
    )
    @parameter("x", "Cell x.")
    @parameter("z", "Cell z.")
    @parameter("button", "left, right or middle.")
    @parameter("hold_duration_ms", _HOLD)
    @parameter("modifiers", _MODS)
    @call_spec(world=True, payload_codes=_NO_GAME)
    def click_cell(
        self,
        x: int = 0,
        z: int = 0,
        button: str = "left",
        hold_duration_ms: int = 0,
        modifiers: str | None = None,
    ) -> dict[str, Any]:
        world = self.host.world
        if (failure := without_game(world, NO_GAME_SENTENCE)) is not None:
            return failure
        cell = _cell(world, x, z)
        if hold_duration_ms < 0:
            raise RefusedError("holdDurationMs must be zero or greater.")
        mods = _modifiers(modifiers)
        before = world.selection.snapshot(details=False)
        dispatch = world.map_input.click(cell, button)
        return self._gesture(
            "click_cell", dispatch, cell, None, before, button, hold_duration_ms, mods
        )

    @tool(
        "rimworld/drag_cell",
        "Drag across the map: left box-selects colonists, right with drafted colonists lines "
        "them up along the drag, middle pans the camera.",
        title="Drag cell",
        result_description="{success, command, actionKind, gestureKind, startCell, endCell, "
        "target, button, holdDurationMs, modifiers, selectionBefore, selectionAfter, message} "
        "and, when a menu opened, menuId, provider, optionCount, options.",
    )
    @parameter("from_x", "Start cell x.")
    @parameter("from_z", "Start cell z.")
    @parameter("to_x", "End cell x.")
    @parameter("to_z", "End cell z.")
    @parameter("button", "left, right or middle.")
    @parameter("hold_duration_ms", "How long to hold at the end cell, in milliseconds.")
    @parameter("modifiers", _MODS)
    @call_spec(world=True, payload_codes=_NO_GAME)
    def drag_cell(
        self,
        from_x: int = 0,
        from_z: int = 0,
        to_x: int = 0,
        to_z: int = 0,
        button: str = "left",
        hold_duration_ms: int = 0,
        modifiers: str | None = None,
    ) -> dict[str, Any]:
        world = self.host.world
        if (failure := without_game(world, NO_GAME_SENTENCE)) is not None:
            return failure
        start, end = _cell(world, from_x, from_z), _cell(world, to_x, to_z)
        if hold_duration_ms < 0:
            raise RefusedError("holdDurationMs must be zero or greater.")
        mods = _modifiers(modifiers)
        before = world.selection.snapshot(details=False)
        dispatch = world.map_input.drag(start, end, button)
        return self._gesture(
            "drag_cell", dispatch, start, end, before, button, hold_duration_ms, mods
        )

    @tool(
        "rimworld/get_context_menu_options",
        "List the options of the open float menu.",
        title="Get context menu options",
        result_description="{success, menuId, provider, target, clickCell, optionCount, "
        "options}; without an open menu {success: false, message}.",
    )
    @call_spec(world=True, quick=True)
    def get_context_menu_options(self) -> dict[str, Any]:
        world = self.host.world
        menu = world.ui.context_menu
        if menu is None:
            return {
                "success": False,
                "message": "No debug context menu has been opened yet.",
                "code": RefusedError.code,
            }
        options = world.map_input.describe_options(menu)
        return {
            "success": True,
            **self._menu_result(
                menu.id, menu.provider, menu.click_cell, menu.target_label, options
            ),
        }

    @tool(
        "rimworld/execute_context_menu_option",
        "Choose an option of the open float menu by its 1-based index, or by label (exact, "
        "else a unique partial match) when optionIndex is -1.",
        title="Execute context menu option",
        result_description="{success, executedIndex, label}; a bad index, an unknown "
        "label or a disabled option is {success: false, message, label}.",
    )
    @parameter("option_index", "1-based option index; -1 to choose by label.")
    @parameter("label", "The option's label (or part of it) when optionIndex is -1.")
    @call_spec(world=True)
    def execute_context_menu_option(
        self, option_index: int = -1, label: str | None = None
    ) -> dict[str, Any]:
        try:
            index, option, _ = self.host.world.map_input.execute_option(option_index, label)
        except (RefusedError, MissingArgumentError) as error:
            # the refused option's label; none when no option was resolved, as in the mod
            refused = error.label if isinstance(error, OptionRefusedError) else None
            return {
                "success": False,
                "message": error.message,
                "label": refused,
                "code": error.code,
            }
        return {"success": True, "executedIndex": index, "label": option.label}

    @tool(
        "rimworld/close_context_menu",
        "Close the open float menu, if any.",
        title="Close context menu",
        result_description="{success: true}.",
    )
    @call_spec(world=True)
    def close_context_menu(self) -> dict[str, Any]:
        self.host.world.map_input.close_menu()
        return {"success": True}
