"""What happens on the map: pawns and their orders, cells and things, designations, log
lines and rendering. A part of the :class:`~rimbridge_sim.world.World`."""

from __future__ import annotations

from collections.abc import Iterable

from rimbridge_sim.world._colony import MAX_THINGS
from rimbridge_sim.world._core import CellLike, WorldCore
from rimbridge_sim.world._lifecycle import MAX_STEP_TICKS
from rimbridge_sim.world._render import render_rgb, terrain_grid
from rimbridge_sim.world.errors import InvalidArgumentError, InvalidCellError
from rimbridge_sim.world.model import (
    Cell,
    DesignationKind,
    LogLevel,
    LogRecord,
    Terrain,
    ThingCategory,
)
from rimbridge_sim.world.state import Designation, Letter, Pawn, ScheduledLog, Thing
from rimbridge_sim.world.views import (
    CellInfo,
    DesignationInfo,
    DesignatorResult,
    JobInfo,
    LetterInfo,
    PawnInfo,
    RejectedCell,
    SpawnResult,
    ThingInfo,
)

__all__ = ["MapOps", "designation_info", "letter_info"]


class MapOps(WorldCore):
    """Pawns, things, designations, scheduled log lines and rendering."""

    # -- pawns -----------------------------------------------------------------------------

    def list_colonists(self) -> list[PawnInfo]:
        colony = self.require_colony()
        return [self.pawn_info(p) for p in colony.game.pawns.values()]

    def get_pawn(self, pawn_id: str) -> PawnInfo:
        return self.pawn_info(self.pawn_by_id(pawn_id))

    def set_draft(self, pawn_id: str, drafted: bool = True) -> PawnInfo:
        """Draft or release a colonist. Drafting drops the current job (and anything
        carried); a drafted colonist stands still until ordered. A downed colonist is drafted
        too, as RimWorld's draft setter allows (it lies there all the same)."""
        pawn = self.pawn_by_id(pawn_id)
        colony = self.require_colony()
        if pawn.drafted != drafted:
            pawn.drafted = drafted
            colony.end_job(pawn)
            state = "drafted" if drafted else "released"
            self.emit(LogLevel.INFO, f"{pawn.label} was {state}", "pawn")
        return self.pawn_info(pawn)

    def order_move(self, pawn_id: str, cell: CellLike) -> PawnInfo:
        """Give a colonist a forced ``Goto`` job to ``cell``.

        The job walks one cell every 7 ticks (slower on sand and marsh). A target that cannot
        be reached is not refused here: the job fails on its first tick with an error log, as
        RimWorld's pather does. Undrafted colonists may be ordered too (RimWorld's
        "prioritize"); they return to their own work on arrival."""
        pawn = self.pawn_by_id(pawn_id)
        colony = self.require_colony()
        target = self.cell(cell)
        terrain = colony.game.map.terrain_at(target)
        if not colony.passable(target):
            raise InvalidCellError(
                f"cell {target} is impassable ({terrain.value}): cannot go there"
            )
        self.require_able(pawn)
        colony.start_goto(pawn, target, forced=True, operation_id=self._cause)
        return self.pawn_info(pawn)

    def order_wait(self, pawn_id: str, ticks: int) -> PawnInfo:
        """Make a colonist wait where it stands for ``ticks`` ticks."""
        pawn = self.pawn_by_id(pawn_id)
        colony = self.require_colony()
        if not isinstance(ticks, int) or not 1 <= ticks <= MAX_STEP_TICKS:
            raise InvalidArgumentError(
                f"ticks must be an integer from 1 to {MAX_STEP_TICKS}, got {ticks!r}"
            )
        self.require_able(pawn)
        colony.start_wait(pawn, ticks, forced=True, operation_id=self._cause)
        return self.pawn_info(pawn)

    def order_haul(self, pawn_id: str, thing_id: str, cell: CellLike) -> PawnInfo:
        """Make a colonist carry an item stack to ``cell`` (a ``HaulToCell`` job)."""
        pawn = self.pawn_by_id(pawn_id)
        colony = self.require_colony()
        thing = self.thing_by_id(thing_id)
        destination = self.cell(cell)
        if thing.definition.category is not ThingCategory.ITEM:
            raise InvalidArgumentError(f"thing {thing.id} ({thing.def_name}) cannot be hauled")
        if thing.id in colony.carried_ids():
            raise InvalidArgumentError(f"thing {thing.id} is being carried already")
        refusal = colony.item_refusal(destination, thing.def_name)
        if refusal is not None and destination != thing.position:
            raise InvalidCellError(refusal)
        self.require_able(pawn)
        colony.start_haul(pawn, thing, destination, self._cause)
        return self.pawn_info(pawn)

    # -- selection -------------------------------------------------------------------------

    def select(self, ids: Iterable[str], *, append: bool = False) -> tuple[str, ...]:
        """Select pawns or things by id (replacing the selection unless ``append``)."""
        colony = self.require_colony()
        wanted = [ids] if isinstance(ids, str) else list(ids)
        for thing_id in wanted:
            if thing_id not in colony.game.pawns and thing_id not in colony.game.things:
                self.missing("pawn or thing", thing_id)
        selection = list(self.ui.selection) if append else []
        for thing_id in wanted:
            if thing_id not in selection:
                selection.append(thing_id)
        self.ui.selection = selection
        return tuple(self.ui.selection)

    def clear_selection(self) -> tuple[str, ...]:
        self.require_colony()
        self.ui.selection = []
        return ()

    # -- cells and things ------------------------------------------------------------------

    def get_cell_info(self, cell: CellLike) -> CellInfo:
        colony = self.require_colony()
        target = self.cell(cell)
        game_map = colony.game.map
        return CellInfo(
            cell=target,
            terrain=game_map.terrain_at(target).value,
            passable=colony.passable(target),
            roofed=game_map.roofed_at(target),
            things=tuple(self.thing_info(t) for t in colony.things_at(target)),
            pawns=tuple(p.id for p in colony.pawns_at(target)),
            designations=tuple(
                designation_info(d) for d in colony.game.designations.values() if d.cell == target
            ),
        )

    def list_things(self, def_name: str | None = None) -> list[ThingInfo]:
        """Things on the map (carried ones excluded), optionally of one def."""
        colony = self.require_colony()
        if def_name is not None:
            self.thing_def(def_name)
        carried = colony.carried_ids()
        return [
            self.thing_info(t)
            for t in colony.game.things.values()
            if (def_name is None or t.def_name == def_name) and t.id not in carried
        ]

    def get_thing(self, thing_id: str) -> ThingInfo:
        return self.thing_info(self.thing_by_id(thing_id))

    def spawn_thing(self, def_name: str, count: int, cell: CellLike) -> SpawnResult:
        """Spawn ``count`` of ``def_name`` at ``cell``, split into stacks of the def's stack
        limit; extra stacks go to the nearest free cells. Buildings and plants spawn one at a
        time on an empty cell. Refuses water and rock, and anything that would not fit."""
        colony = self.require_colony()
        definition = self.thing_def(def_name)
        target = self.cell(cell)
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise InvalidArgumentError(f"count must be a positive integer, got {count!r}")
        terrain = colony.game.map.terrain_at(target)
        if terrain.is_water:
            raise InvalidCellError(
                f"cell {target} is {terrain.value}: things cannot be spawned on water"
            )
        if terrain is Terrain.STONE:
            raise InvalidCellError(f"cell {target} is solid rock ({terrain.value})")
        if definition.category is not ThingCategory.ITEM:
            if count != 1:
                raise InvalidArgumentError(
                    f"count must be 1 for {def_name} (a {definition.category.value})"
                )
            occupied = colony.things_at(target) or colony.pawns_at(target)
            if occupied:
                raise InvalidCellError(f"cell {target} is not empty: cannot spawn {def_name}")
            if len(colony.game.things) >= MAX_THINGS:
                raise InvalidArgumentError(f"the map already holds {MAX_THINGS} things")
            stacks = [colony.new_thing(def_name, target)]
        else:
            refusal = colony.item_refusal(target, def_name)
            if refusal is not None and "already holds" not in refusal:
                raise InvalidCellError(refusal)
            room = colony.room_for(def_name, target)
            if count > room:
                raise InvalidArgumentError(
                    f"count {count} does not fit: room for {room} {def_name} on this map "
                    f"(at most {MAX_THINGS} things)"
                )
            stacks = colony.place_items(def_name, count, target)
        self.emit(LogLevel.INFO, f"Spawned {count} {def_name} at {target}", "debug")
        return SpawnResult(
            def_name=def_name,
            requested=count,
            stacks=tuple(self.thing_info(t) for t in stacks),
        )

    def spawn_stack(self, def_name: str, stack_count: int, cell: CellLike) -> Thing:
        """Spawn one thing of ``def_name`` on ``cell`` as the debug spawner does: the stack
        count clamped to 1..stack limit, and whatever would conflict on the cell (another
        item stack, a building or plant under a building) removed first."""
        colony = self.require_colony()
        definition = self.thing_def(def_name)
        target = self.cell(cell)
        terrain = colony.game.map.terrain_at(target)
        if not terrain.passable:
            raise InvalidCellError(
                f"cell {target} is {terrain.value}: nothing can be spawned there"
            )
        count = max(1, min(int(stack_count), definition.stack_limit))
        for other in colony.things_at(target):
            clash = (
                other.definition.category is definition.category
                or definition.category is ThingCategory.BUILDING
            )
            if clash and not (other.def_name == def_name and definition.stack_limit > 1):
                colony.destroy(other.id)
        same = [t for t in colony.things_at(target) if t.def_name == def_name]
        if same and definition.stack_limit > 1:
            thing = same[0]
            thing.stack_count = min(definition.stack_limit, thing.stack_count + count)
        else:
            if len(colony.game.things) >= MAX_THINGS:
                raise InvalidArgumentError(f"the map already holds {MAX_THINGS} things")
            thing = colony.new_thing(def_name, target, count)
        self.emit(LogLevel.INFO, f"Spawned {count} {def_name} at {target}", "debug")
        return thing

    def destroy_thing(self, thing_id: str) -> ThingInfo:
        colony = self.require_colony()
        thing = self.thing_by_id(thing_id)
        info = self.thing_info(thing)
        for pawn in colony.game.pawns.values():
            if pawn.carrying == thing.id:
                pawn.carrying = None
                colony.end_job(pawn)
        colony.destroy(thing.id)
        return info

    # -- designations ----------------------------------------------------------------------

    def apply_designator(
        self, kind: str, cells: Iterable[CellLike], *, build_def: str = "Wall"
    ) -> DesignatorResult:
        """Designate ``cells`` for ``kind`` (Mine, Cut, Haul, Build, Deconstruct).

        Like dragging a designator in RimWorld, cells that are not valid targets are skipped
        and reported in ``rejected`` with the reason; cells outside the map refuse the whole
        call. Idle colonists take designated work on their own."""
        colony = self.require_colony()
        try:
            designation_kind = DesignationKind(kind)
        except ValueError:
            known = ", ".join(k.value for k in DesignationKind)
            raise InvalidArgumentError(f"unknown designator {kind!r} (known: {known})") from None
        if designation_kind is DesignationKind.BUILD:
            definition = self.thing_def(build_def)
            if definition.category is not ThingCategory.BUILDING:
                raise InvalidArgumentError(f"build_def {build_def!r} is not a building")
        targets = [self.cell(c) for c in ([cells] if isinstance(cells, Cell) else cells)]
        if not targets:
            raise InvalidArgumentError("cells must name at least one cell")
        if len(targets) > 400:
            raise InvalidArgumentError(f"at most 400 cells per call, got {len(targets)}")
        accepted: list[DesignationInfo] = []
        rejected: list[RejectedCell] = []
        for cell in targets:
            reason = colony.designation_refusal(designation_kind, cell)
            if reason is not None:
                rejected.append(RejectedCell(cell, reason))
                continue
            designation = colony.add_designation(designation_kind, cell, build_def, self._cause)
            accepted.append(designation_info(designation))
        if accepted:
            self.emit(
                LogLevel.INFO,
                f"Designated {len(accepted)} cell(s) for {designation_kind.value}",
                "designator",
            )
        return DesignatorResult(designation_kind.value, tuple(accepted), tuple(rejected))

    def list_designations(self, kind: str | None = None) -> list[DesignationInfo]:
        colony = self.require_colony()
        return [
            designation_info(d)
            for d in colony.game.designations.values()
            if kind is None or d.kind.value == kind
        ]

    def cancel_designation(self, designation_id: str) -> DesignationInfo:
        """Remove a designation; a colonist working on it stops."""
        colony = self.require_colony()
        designation = colony.game.designations.get(designation_id)
        if designation is None:
            self.missing("designation", designation_id)
        info = designation_info(designation)
        colony.remove_designation(designation_id)
        self.retire(designation_id, destroyed=True)
        return info

    # -- logs and faults -------------------------------------------------------------------

    def write_log(self, level: str, message: str, source: str = "sim") -> LogRecord:
        """Write one log line now (for fault injection and tests)."""
        level_value = self.parse_level(level)
        record = LogRecord(level_value, message, source, self.current_tick(), self._cause)
        if self._log is not None:
            self._log(record)
        return record

    def schedule_log(self, after_ticks: int, level: str, message: str, source: str = "sim") -> int:
        """Write a log line once ``after_ticks`` game ticks have passed, attributed to the
        current cause; returns the tick it is due. Dropped with the game if it is unloaded."""
        colony = self.require_colony()
        if not isinstance(after_ticks, int) or not 1 <= after_ticks <= MAX_STEP_TICKS:
            raise InvalidArgumentError(
                f"after_ticks must be an integer from 1 to {MAX_STEP_TICKS}, got {after_ticks!r}"
            )
        if len(colony.game.scheduled) >= 1000:
            raise InvalidArgumentError("at most 1000 log lines can be scheduled")
        due = colony.game.tick + after_ticks
        colony.game.scheduled.append(
            ScheduledLog(due, self.parse_level(level), message, source, self._cause)
        )
        return due

    # -- rendering --------------------------------------------------------------------------

    def terrain_grid(self) -> list[list[str]]:
        """Terrain def names per cell: one list per row, north (highest z) first, each row
        from west (x = 0) to east."""
        colony = self.require_colony()
        return terrain_grid(colony)

    def render_rgb(self, width: int, height: int) -> bytes:
        """An RGB image (``width * height * 3`` bytes, rows top to bottom, north up) of what
        the screen shows: the map with things and pawns, the main menu, or a loading screen."""
        if not (isinstance(width, int) and isinstance(height, int)) or not (
            1 <= width <= 2048 and 1 <= height <= 2048
        ):
            raise InvalidArgumentError(
                f"image size must be 1 to 2048 pixels each way, got {width!r}x{height!r}"
            )
        return render_rgb(self._colony, self.phase, width, height)

    def pawn_info(self, pawn: Pawn) -> PawnInfo:
        job = pawn.job
        return PawnInfo(
            id=pawn.id,
            name=f"{pawn.first_name} '{pawn.nickname}' {pawn.last_name}",
            nickname=pawn.nickname,
            position=pawn.position,
            health=pawn.health,
            downed=pawn.downed,
            drafted=pawn.drafted,
            mood=pawn.mood,
            food=pawn.food,
            job=None
            if job is None
            else JobInfo(
                kind=job.kind.value,
                stage=job.stage,
                target=job.target,
                ticks_remaining=job.ticks_remaining,
                thing_id=job.thing_id,
                designation_id=job.designation_id,
                forced=job.forced,
                operation_id=job.operation_id,
            ),
            carrying=pawn.carrying,
            selected=pawn.id in self.ui.selection,
        )

    def thing_info(self, thing: Thing) -> ThingInfo:
        definition = thing.definition
        return ThingInfo(
            id=thing.id,
            def_name=thing.def_name,
            label=definition.label,
            category=definition.category.value,
            position=thing.position,
            stack_count=thing.stack_count,
            stack_limit=definition.stack_limit,
        )


def designation_info(designation: Designation) -> DesignationInfo:
    return DesignationInfo(
        id=designation.id,
        kind=designation.kind.value,
        cell=designation.cell,
        thing_id=designation.thing_id,
        build_def=designation.build_def,
        claimed_by=designation.claimed_by,
    )


def letter_info(letter: Letter) -> LetterInfo:
    return LetterInfo(
        letter.id, letter.label, letter.text, letter.kind.value, letter.tick, letter.read
    )
