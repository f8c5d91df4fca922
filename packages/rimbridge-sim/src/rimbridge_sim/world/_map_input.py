"""Mouse input on the map: clicks, drags and the right-click (float) menu of the selected
colonists, built from what is on the clicked cell, as RimWorld's float menu maker does.
A subsystem of the world (``world.map_input``)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any, Final

from rimbridge_sim.world._core import WorldCore
from rimbridge_sim.world._selection import Selection
from rimbridge_sim.world._windows import Windows
from rimbridge_sim.world.describe import SCREEN_HEIGHT, SCREEN_WIDTH, cell_payload
from rimbridge_sim.world.errors import MissingArgumentError, RefusedError
from rimbridge_sim.world.model import Cell, DesignationKind, LogLevel, ThingCategory
from rimbridge_sim.world.state import ContextMenu, MenuOption, Pawn

__all__ = [
    "BUTTONS",
    "OPTION_HEIGHT",
    "OPTION_SPACING",
    "Dispatch",
    "MapInput",
    "OptionRefusedError",
]

BUTTONS: Final = ("left", "right", "middle")
_MENU_WIDTH: Final = 300.0
OPTION_HEIGHT: Final = 30.0
OPTION_SPACING: Final = -1.0
"""RimWorld's ``FloatMenu.OptionSpacing``: the rows of a context menu overlap by a pixel."""
_PRIORITIES: Final = {"GoHere": 1, "Default": 2, "High": 3}


class OptionRefusedError(RefusedError):
    """A menu option that was found but cannot be chosen; ``label`` names it."""

    def __init__(self, message: str, label: str) -> None:
        super().__init__(message)
        self.label = label


@dataclass
class Dispatch:
    """What one click or drag did: whether a float menu stayed open (``menu``). The answer's
    text is the mod's, which names the gesture only (see the tools' ``completion_message``)."""

    gesture: str
    action_kind: str
    menu: ContextMenu | None = None


class MapInput:
    """Clicks, drags and float menus on the current map."""

    def __init__(self, world: WorldCore, windows: Windows, selection: Selection) -> None:
        self._world = world
        self._windows = windows
        self._selection = selection
        self._next_menu = 1

    # -- float menus -------------------------------------------------------------------------

    def options_at(self, pawns: list[Pawn], cell: Cell) -> list[MenuOption]:
        """The options selected colonists get for a right-click on ``cell``."""
        colony = self._world.require_colony()
        game = colony.game
        options: list[MenuOption] = []
        able = [p for p in pawns if not p.downed]
        if not able:
            return options
        many = len(able) > 1
        worker = able[0]
        suffix = f" ({worker.nickname})" if many else ""
        for designation in [d for d in game.designations.values() if d.cell == cell]:
            verb = {
                DesignationKind.MINE: "mining",
                DesignationKind.CUT: "cutting",
                DesignationKind.BUILD: "constructing",
                DesignationKind.DECONSTRUCT: "deconstructing",
                DesignationKind.HAUL: "hauling",
            }[designation.kind]
            what = designation.build_def or ""
            label = f"Prioritize {verb}{' ' + what if what else ''}{suffix}"
            options.append(
                MenuOption(
                    label, partial(self._prioritize, worker, designation.id), priority="High"
                )
            )
        for thing in colony.things_at(cell):
            category = thing.definition.category
            if category is ThingCategory.ITEM and thing.id not in colony.carried_ids():
                label = f"Prioritize hauling {thing.definition.label}{suffix}"
                options.append(MenuOption(label, partial(self._haul, worker, thing.id)))
                if thing.def_name == "MealSimple":
                    options.append(
                        MenuOption(
                            f"Consume {thing.definition.label}{suffix}",
                            partial(self._eat, worker, thing.id),
                        )
                    )
        drafted = [p for p in able if p.drafted]
        if drafted:
            if colony.passable(cell):
                options.append(
                    MenuOption(
                        "Go here",
                        lambda: self._go(drafted, cell),
                        priority="GoHere",
                        auto_takeable=True,
                    )
                )
            else:
                options.append(MenuOption("Cannot go here", None, disabled=True, priority="GoHere"))
        options.sort(key=lambda o: -_PRIORITIES.get(o.priority, 0))
        for order, option in enumerate(options):
            option.order_in_priority = order
        return options

    def open_menu(self, target_label: str, cell: Cell, options: list[MenuOption]) -> ContextMenu:
        self.close_menu()
        rows = max(1, len(options))
        height = rows * OPTION_HEIGHT + (rows - 1) * OPTION_SPACING
        x = min(SCREEN_WIDTH - _MENU_WIDTH, SCREEN_WIDTH / 2 + 20)
        y = min(SCREEN_HEIGHT - height, SCREEN_HEIGHT / 2 - height / 2)
        window = self._windows.open(
            "Verse.FloatMenu",
            "",
            semantic_kind="float_menu",
            layer="Super",
            rect=(x, max(0.0, y), _MENU_WIDTH, height),
            buttons=[(o.label, f"option:{i + 1}") for i, o in enumerate(options)],
            details={"target": target_label},
        )
        menu = ContextMenu(self._next_menu, window.id, target_label, cell, options)
        self._next_menu += 1
        self._world.ui.context_menu = menu
        window.details["menuId"] = menu.id
        window.close_on_accept = False
        return menu

    def close_menu(self) -> None:
        menu = self._world.ui.context_menu
        self._world.ui.context_menu = None
        if menu is not None:
            for window in [w for w in self._windows.stack if w.id == menu.window_id]:
                self._windows.close(window)

    def describe_options(self, menu: ContextMenu) -> list[dict[str, Any]]:
        return [
            {
                "index": index,
                "label": option.label,
                "disabled": option.disabled,
                "priority": option.priority,
                "orderInPriority": option.order_in_priority,
                "autoTakeable": option.auto_takeable,
                "hasAction": option.action is not None,
            }
            for index, option in enumerate(menu.options, start=1)
        ]

    def execute_option(self, index: int, label: str | None) -> tuple[int, MenuOption, str]:
        """Choose an option of the open menu (1-based ``index``, else by ``label``)."""
        menu = self._world.ui.context_menu
        if menu is None:
            raise RefusedError("No debug context menu is available.")
        options = menu.options
        if index > 0:
            if index > len(options):
                raise RefusedError(
                    f"Option index {index} is out of range for a menu with {len(options)} options."
                )
            chosen = index
        else:
            if label is None or not label.strip():
                raise MissingArgumentError("Either optionIndex or label must be provided.")
            wanted = label.lower()  # as given: the mod does not trim the label
            exact = [i for i, o in enumerate(options, 1) if o.label.lower() == wanted]
            partial = exact or [i for i, o in enumerate(options, 1) if wanted in o.label.lower()]
            if len(exact) > 1:
                raise RefusedError(f"Label '{label}' is ambiguous within the current menu.")
            if len(partial) != 1:
                raise RefusedError(f"Could not resolve menu label '{label}' to a single option.")
            chosen = partial[0]
        option = options[chosen - 1]
        if option.disabled or option.action is None:
            reason = "is disabled" if option.disabled else "has no executable action"
            raise OptionRefusedError(f"Menu option {chosen} {reason}.", option.label)
        did = option.action()
        self.close_menu()
        self._world.emit(LogLevel.INFO, f"Menu option '{option.label}': {did}", "input")
        return chosen, option, did

    # -- clicks and drags --------------------------------------------------------------------

    def right_click(self, cell: Cell, target_label: str, pawns: list[Pawn]) -> Dispatch:
        """A right-click with ``pawns`` selected: a drafted goto on an open cell happens at
        once; anything else with options opens the float menu."""
        options = self.options_at(pawns, cell)
        if not options:
            return Dispatch("click", "click_dispatched")
        only_goto = len(options) == 1 and options[0].priority == "GoHere"
        if only_goto and options[0].action is not None:
            did = options[0].action()
            self._world.emit(LogLevel.INFO, f"Right-click at {cell}: {did}", "input")
            return Dispatch("click", "click_dispatched")
        menu = self.open_menu(target_label, cell, options)
        return Dispatch("click", "menu_opened", menu)

    def click(self, cell: Cell, button: str) -> Dispatch:
        if button == "left":
            self.close_menu()
            game = self._world.game
            assert game is not None
            colony = self._world.require_colony()
            pawn = next(iter(colony.pawns_at(cell)), None)
            thing = next(iter(colony.things_at(cell)), None)
            target = pawn or thing
            if target is None:
                self._selection.clear()
                return Dispatch("click", "click_dispatched")
            self._selection.select(target.id, append=False)
            return Dispatch("click", "click_dispatched")
        if button == "right":
            return self.right_click(cell, f"cell {cell.x},{cell.z}", self._world.selected_pawns())
        return Dispatch("click", "click_dispatched")

    def drag(self, start: Cell, end: Cell, button: str) -> Dispatch:
        colony = self._world.require_colony()
        low_x, high_x = sorted((start.x, end.x))
        low_z, high_z = sorted((start.z, end.z))
        if button == "left":
            inside = [
                p
                for p in colony.game.pawns.values()
                if low_x <= p.position.x <= high_x and low_z <= p.position.z <= high_z
            ]
            self._selection.clear()
            for pawn in inside:
                self._selection.select(pawn.id, append=True)
            return Dispatch("drag", "drag_dispatched")
        if button == "right":
            drafted = [p for p in self._world.selected_pawns() if p.drafted and not p.downed]
            if drafted:
                self._go(drafted, end, along=_line(start, end))
            return Dispatch("drag", "drag_dispatched")
        camera = self._world.ui.camera
        camera.x -= end.x - start.x
        camera.z -= end.z - start.z
        return Dispatch("drag", "drag_dispatched")

    # -- what options do ---------------------------------------------------------------------

    def _go(self, pawns: list[Pawn], target: Cell, along: list[Cell] | None = None) -> str:
        colony = self._world.require_colony()
        spots: list[Cell] = []
        candidates = along or [target]
        taken: set[Cell] = set()
        for pawn in pawns:
            spot = next((c for c in candidates if c not in taken and colony.passable(c)), None)
            if spot is None:
                spot = next(
                    (
                        c
                        for c in colony.cells_by_distance(target)
                        if c not in taken and colony.passable(c)
                    ),
                    target,
                )
            taken.add(spot)
            spots.append(spot)
            colony.start_goto(pawn, spot, forced=True, operation_id=self._world.cause)
        return ", ".join(f"{p.nickname} to {c}" for p, c in zip(pawns, spots, strict=True))

    def _haul(self, pawn: Pawn, thing_id: str) -> str:
        colony = self._world.require_colony()
        thing = colony.game.things[thing_id]
        destination = self._stockpile_cell(thing.def_name) or colony.game.drop_spot
        colony.start_haul(pawn, thing, destination, self._world.cause)
        return f"{pawn.nickname} hauls {thing.def_name} to {destination}"

    def _eat(self, pawn: Pawn, thing_id: str) -> str:
        colony = self._world.require_colony()
        thing = colony.game.things[thing_id]
        colony.start_ingest(pawn, thing, self._world.cause)
        return f"{pawn.nickname} eats {thing.def_name}"

    def _prioritize(self, pawn: Pawn, designation_id: str) -> str:
        colony = self._world.require_colony()
        if not colony.claim_designation(pawn, designation_id):
            return f"{pawn.nickname} cannot reach the work"
        return f"{pawn.nickname} works on {designation_id}"

    def _stockpile_cell(self, def_name: str) -> Cell | None:
        colony = self._world.require_colony()
        for zone in colony.game.zones.values():
            if zone.kind not in ("Stockpile", "DumpingStockpile"):
                continue
            for cell in sorted(zone.cells, key=lambda c: (c.z, c.x)):
                if colony.item_refusal(cell, def_name) is None:
                    return cell
        return None

    def describe_click(self, cell: Cell) -> dict[str, int]:
        return cell_payload(cell)


def _line(start: Cell, end: Cell) -> list[Cell]:
    steps = max(abs(end.x - start.x), abs(end.z - start.z))
    if steps == 0:
        return [start]
    return [
        Cell(
            round(start.x + (end.x - start.x) * i / steps),
            round(start.z + (end.z - start.z) * i / steps),
        )
        for i in range(steps + 1)
    ]
