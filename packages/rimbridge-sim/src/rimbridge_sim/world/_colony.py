"""The rules of a running colony: placing things, jobs over ticks, needs and incidents.

:class:`Colony` wraps one :class:`~rimbridge_sim.world.model.Game` and changes it. It asks its
owner for ids, reports log lines and destroyed things through :class:`Services`, and never
raises for something the game itself would survive (a failed path is an error *log*, as in
RimWorld, not an exception).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from rimbridge_sim.world._pathing import find_path, neighbours
from rimbridge_sim.world.model import (
    THING_DEFS,
    Cell,
    Designation,
    DesignationKind,
    Game,
    Job,
    JobKind,
    Letter,
    LetterKind,
    LogLevel,
    Pawn,
    Terrain,
    Thing,
    ThingCategory,
)

__all__ = ["MAX_THINGS", "Colony", "Services"]

MAX_THINGS = 500
"""A map holds at most this many things (items, buildings and plants)."""

FOOD_PER_TICK = 1 / 36_000
HUNGRY_BELOW = 0.3
STARVING_HEALTH_PER_TICK = 1 / 20_000
DOWNED_BELOW = 0.25
MOOD_BASELINE = 0.6
MOOD_DRIFT_PER_TICK = 1 / 50_000
MOOD_BREAK_BELOW = 0.2
RARE_TICK = 250
INCIDENT_CHANCE = 0.02
WORK_TICKS = {
    DesignationKind.MINE: 240,
    DesignationKind.CUT: 150,
    DesignationKind.BUILD: 300,
    DesignationKind.DECONSTRUCT: 120,
}
JOB_FOR = {
    DesignationKind.MINE: JobKind.MINE,
    DesignationKind.CUT: JobKind.CUT,
    DesignationKind.BUILD: JobKind.BUILD,
    DesignationKind.DECONSTRUCT: JobKind.DECONSTRUCT,
    DesignationKind.HAUL: JobKind.HAUL,
}
EAT_TICKS = 60
WANDER_RADIUS = 10


@dataclass(frozen=True)
class Services:
    """What a colony needs from the world that owns it."""

    new_id: Callable[[str], str]
    emit: Callable[[LogLevel, str, str, str | None], None]
    destroyed: Callable[[str], None]


class Colony:
    def __init__(self, game: Game, services: Services) -> None:
        self.game = game
        self._services = services

    # -- queries ---------------------------------------------------------------------------

    def carried_ids(self) -> set[str]:
        return {p.carrying for p in self.game.pawns.values() if p.carrying is not None}

    def things_at(self, cell: Cell) -> list[Thing]:
        carried = self.carried_ids()
        return [t for t in self.game.things.values() if t.position == cell and t.id not in carried]

    def pawns_at(self, cell: Cell) -> list[Pawn]:
        return [p for p in self.game.pawns.values() if p.position == cell]

    def passable(self, cell: Cell) -> bool:
        if not self.game.map.terrain_at(cell).passable:
            return False
        return all(t.definition.passable for t in self.things_at(cell))

    def path_passable(self) -> Callable[[Cell], bool]:
        """A fast :meth:`passable` for one path search (buildings indexed once)."""
        game_map = self.game.map
        blocked = {t.position for t in self.game.things.values() if not t.definition.passable}

        def passable(cell: Cell) -> bool:
            return game_map.terrain[cell.z * game_map.width + cell.x].passable and (
                cell not in blocked
            )

        return passable

    def item_refusal(self, cell: Cell, def_name: str | None = None) -> str | None:
        """Why an item cannot be put on ``cell`` (``None`` when it can)."""
        terrain = self.game.map.terrain_at(cell)
        if terrain.is_water:
            return f"cell {cell} is {terrain.value}: things cannot be placed on water"
        if not terrain.passable:
            return f"cell {cell} is solid rock ({terrain.value})"
        for thing in self.things_at(cell):
            if thing.definition.category is ThingCategory.BUILDING:
                return f"cell {cell} holds a building ({thing.def_name})"
            if thing.definition.category is ThingCategory.ITEM and (
                thing.def_name != def_name or thing.stack_count >= thing.definition.stack_limit
            ):
                return f"cell {cell} already holds an item stack ({thing.def_name})"
        return None

    # -- things ----------------------------------------------------------------------------

    def new_thing(self, def_name: str, cell: Cell, count: int = 1) -> Thing:
        thing = Thing(self._services.new_id(f"Thing_{def_name}"), def_name, cell, count)
        self.game.things[thing.id] = thing
        return thing

    def place_items(self, def_name: str, count: int, near: Cell) -> list[Thing]:
        """Put ``count`` items near ``near``: top up same-def stacks, then fill empty cells
        outward (RimWorld's ``GenPlace``). Returns the stacks touched, in placement order."""
        limit = THING_DEFS[def_name].stack_limit
        touched: list[Thing] = []
        remaining = count
        for cell in self._cells_by_distance(near):
            if remaining == 0:
                break
            if self.item_refusal(cell, def_name) is not None:
                continue
            existing = [t for t in self.things_at(cell) if t.def_name == def_name]
            if existing:
                stack = existing[0]
                added = min(limit - stack.stack_count, remaining)
                stack.stack_count += added
            else:
                if len(self.game.things) >= MAX_THINGS:
                    break
                added = min(limit, remaining)
                stack = self.new_thing(def_name, cell, added)
            remaining -= added
            touched.append(stack)
        if remaining:
            # The caller checked capacity; anything left here is genuinely lost, and says so.
            self._services.emit(
                LogLevel.WARNING,
                f"Could not place {remaining} {def_name} near {near}: no room",
                "world",
                None,
            )
        return touched

    def room_for(self, def_name: str, near: Cell) -> int:
        """How many items of ``def_name`` :meth:`place_items` could place near ``near``."""
        limit = THING_DEFS[def_name].stack_limit
        free_slots = MAX_THINGS - len(self.game.things)
        room = 0
        for cell in self._cells_by_distance(near):
            if self.item_refusal(cell, def_name) is not None:
                continue
            existing = [t for t in self.things_at(cell) if t.def_name == def_name]
            if existing:
                room += limit - existing[0].stack_count
            elif free_slots > 0:
                free_slots -= 1
                room += limit
        return room

    def destroy(self, thing_id: str) -> None:
        self.game.things.pop(thing_id, None)
        for designation in list(self.game.designations.values()):
            if designation.thing_id == thing_id:
                self.remove_designation(designation.id)
        self._services.destroyed(thing_id)

    def _cells_by_distance(self, near: Cell) -> Iterator[Cell]:
        """Map cells nearest first (ties by z, then x); a small square first, so the common
        case does not sort the whole map."""
        game_map = self.game.map

        def key(c: Cell) -> tuple[int, int, int]:
            return ((c.x - near.x) ** 2 + (c.z - near.z) ** 2, c.z, c.x)

        radius = 8
        inner = [
            Cell(x, z)
            for z in range(max(0, near.z - radius), min(game_map.height, near.z + radius + 1))
            for x in range(max(0, near.x - radius), min(game_map.width, near.x + radius + 1))
        ]
        inner = [c for c in inner if key(c)[0] <= radius * radius]
        yield from sorted(inner, key=key)
        seen = set(inner)
        rest = [
            Cell(x, z)
            for z in range(game_map.height)
            for x in range(game_map.width)
            if Cell(x, z) not in seen
        ]
        yield from sorted(rest, key=key)

    # -- designations ----------------------------------------------------------------------

    def designation_refusal(self, kind: DesignationKind, cell: Cell) -> str | None:
        """Why ``kind`` cannot be designated on ``cell`` (``None`` when it can)."""
        if any(d.cell == cell and d.kind is kind for d in self.game.designations.values()):
            return f"cell {cell} is already designated for {kind.value}"
        terrain = self.game.map.terrain_at(cell)
        things = self.things_at(cell)
        if kind is DesignationKind.MINE:
            if terrain is not Terrain.STONE:
                return f"cell {cell} is {terrain.value}, not mineable rock"
        elif kind is DesignationKind.CUT:
            if not any(t.definition.category is ThingCategory.PLANT for t in things):
                return f"cell {cell} has no plant to cut"
        elif kind is DesignationKind.HAUL:
            items = [t for t in things if t.definition.category is ThingCategory.ITEM]
            if not items:
                return f"cell {cell} has no item to haul"
        elif kind is DesignationKind.DECONSTRUCT:
            if not any(t.definition.category is ThingCategory.BUILDING for t in things):
                return f"cell {cell} has no building to deconstruct"
        elif kind is DesignationKind.BUILD:
            if not terrain.passable or terrain in (Terrain.MARSH,):
                return f"cell {cell} is {terrain.value}: cannot build here"
            if things:
                return f"cell {cell} is not empty ({things[0].def_name})"
        return None

    def add_designation(
        self,
        kind: DesignationKind,
        cell: Cell,
        build_def: str | None,
        operation_id: str | None,
    ) -> Designation:
        thing_id = None
        things = self.things_at(cell)
        wanted = {
            DesignationKind.CUT: ThingCategory.PLANT,
            DesignationKind.HAUL: ThingCategory.ITEM,
            DesignationKind.DECONSTRUCT: ThingCategory.BUILDING,
        }.get(kind)
        if wanted is not None:
            thing_id = next(t.id for t in things if t.definition.category is wanted)
        designation = Designation(
            id=self._services.new_id("Designation_"),
            kind=kind,
            cell=cell,
            thing_id=thing_id,
            build_def=build_def if kind is DesignationKind.BUILD else None,
            operation_id=operation_id,
        )
        self.game.designations[designation.id] = designation
        return designation

    def remove_designation(self, designation_id: str) -> None:
        designation = self.game.designations.pop(designation_id, None)
        if designation is None or designation.claimed_by is None:
            return
        pawn = self.game.pawns.get(designation.claimed_by)
        if pawn is not None and pawn.job is not None and pawn.job.designation_id == designation_id:
            self.end_job(pawn)

    # -- jobs ------------------------------------------------------------------------------

    def end_job(self, pawn: Pawn) -> None:
        job = pawn.job
        pawn.job = None
        if job is not None and job.designation_id is not None:
            designation = self.game.designations.get(job.designation_id)
            if designation is not None and designation.claimed_by == pawn.id:
                designation.claimed_by = None
        if pawn.carrying is not None:
            self._drop_carried(pawn)

    def _drop_carried(self, pawn: Pawn) -> None:
        thing = self.game.things.get(pawn.carrying or "")
        pawn.carrying = None
        if thing is None:
            return
        thing.position = pawn.position
        if self.item_refusal(pawn.position, thing.def_name) is None and not any(
            t.id != thing.id and t.def_name == thing.def_name for t in self.things_at(pawn.position)
        ):
            return
        count, def_name = thing.stack_count, thing.def_name
        self.destroy(thing.id)
        self.place_items(def_name, count, pawn.position)

    def start_goto(
        self, pawn: Pawn, target: Cell, *, forced: bool, operation_id: str | None
    ) -> None:
        self.end_job(pawn)
        pawn.job = Job(
            JobKind.GOTO, target=target, forced=forced, operation_id=operation_id, stage="plan"
        )

    def start_wait(self, pawn: Pawn, ticks: int, *, forced: bool, operation_id: str | None) -> None:
        self.end_job(pawn)
        pawn.job = Job(
            JobKind.WAIT, ticks_remaining=ticks, forced=forced, operation_id=operation_id
        )

    def start_haul(
        self, pawn: Pawn, thing: Thing, destination: Cell, operation_id: str | None
    ) -> None:
        self.end_job(pawn)
        pawn.job = Job(
            JobKind.HAUL,
            target=thing.position,
            thing_id=thing.id,
            destination=destination,
            forced=True,
            operation_id=operation_id,
            stage="plan",
        )

    def _fail_job(self, pawn: Pawn, reason: str) -> None:
        job = pawn.job
        assert job is not None
        self._services.emit(
            LogLevel.ERROR,
            f"Job {job.kind.value} failed for {pawn.label} ({pawn.id}): {reason}",
            "job",
            job.operation_id,
        )
        self.end_job(pawn)

    # -- the tick --------------------------------------------------------------------------

    def tick(self) -> None:
        game = self.game
        game.tick += 1
        for entry in [s for s in game.scheduled if s.tick <= game.tick]:
            game.scheduled.remove(entry)
            self._services.emit(entry.level, entry.message, entry.source, entry.operation_id)
        for pawn in list(game.pawns.values()):
            self._needs(pawn)
            if pawn.downed:
                continue
            if pawn.job is None:
                self._choose_job(pawn)
            if pawn.job is not None:
                self._run_job(pawn)
        if game.tick % RARE_TICK == 0 and game.rng.random() < INCIDENT_CHANCE:
            self._incident()

    def _needs(self, pawn: Pawn) -> None:
        pawn.food = max(0.0, pawn.food - FOOD_PER_TICK)
        if pawn.mood < MOOD_BASELINE:
            pawn.mood = min(MOOD_BASELINE, pawn.mood + MOOD_DRIFT_PER_TICK)
        if pawn.food == 0.0:
            pawn.mood = max(0.0, pawn.mood - 2 * MOOD_DRIFT_PER_TICK)
            pawn.health = max(0.0, pawn.health - STARVING_HEALTH_PER_TICK)
            if pawn.hunger_warning < 2:
                pawn.hunger_warning = 2
                self._services.emit(
                    LogLevel.WARNING, f"Colonist {pawn.label} is starving", "needs", None
                )
        elif pawn.food < HUNGRY_BELOW and pawn.hunger_warning < 1 and not self._find_meal(pawn):
            pawn.hunger_warning = 1
            self._services.emit(
                LogLevel.WARNING,
                f"Colonist {pawn.label} is hungry and there is no food",
                "needs",
                None,
            )
        if pawn.mood < MOOD_BREAK_BELOW and not pawn.mood_warned:
            pawn.mood_warned = True
            self._services.emit(
                LogLevel.WARNING,
                f"Colonist {pawn.label} is at risk of a mental break (mood {pawn.mood:.0%})",
                "needs",
                None,
            )
        elif pawn.mood >= MOOD_BREAK_BELOW + 0.1:
            pawn.mood_warned = False
        if not pawn.downed and pawn.health < DOWNED_BELOW:
            pawn.downed = True
            pawn.drafted = False
            self.end_job(pawn)
            self._services.emit(
                LogLevel.WARNING, f"Colonist {pawn.label} has been downed", "health", None
            )
            self.add_letter(
                f"Downed: {pawn.label}",
                f"{pawn.label} is downed and needs rescue.",
                LetterKind.NEGATIVE,
            )

    def _find_meal(self, pawn: Pawn) -> Thing | None:
        reserved = {
            p.job.thing_id
            for p in self.game.pawns.values()
            if p.job is not None and p.job.kind is JobKind.INGEST
        }
        carried = self.carried_ids()
        meals = [
            t
            for t in self.game.things.values()
            if t.def_name == "MealSimple" and t.id not in reserved and t.id not in carried
        ]
        meals.sort(key=lambda t: ((t.position.x - pawn.position.x) ** 2
                                  + (t.position.z - pawn.position.z) ** 2, t.id))  # fmt: skip
        return meals[0] if meals else None

    def _choose_job(self, pawn: Pawn) -> None:
        if pawn.drafted:
            pawn.job = Job(JobKind.WAIT_DRAFTED, stage="wait")
            return
        if pawn.food < HUNGRY_BELOW:
            meal = self._find_meal(pawn)
            if meal is not None:
                pawn.job = Job(JobKind.INGEST, target=meal.position, thing_id=meal.id, stage="plan")
                return
        if self._claim_work(pawn):
            return
        rng = self.game.rng
        if rng.random() < 0.5:
            pawn.job = Job(JobKind.WAIT, ticks_remaining=rng.randint(90, 240), stage="wait")
            return
        game_map = self.game.map
        options = [
            Cell(pawn.position.x + dx, pawn.position.z + dz)
            for dx in range(-4, 5)
            for dz in range(-4, 5)
            if (dx or dz)
        ]
        options = [c for c in options if game_map.contains(c) and self.passable(c)]
        home = self.game.drop_spot

        def from_home(c: Cell) -> int:
            return (c.x - home.x) ** 2 + (c.z - home.z) ** 2

        near_home = [c for c in options if from_home(c) <= WANDER_RADIUS**2]
        if options and not near_home:
            near_home = [min(options, key=lambda c: (from_home(c), c.z, c.x))]
        options = near_home
        if not options:
            pawn.job = Job(JobKind.WAIT, ticks_remaining=120, stage="wait")
            return
        pawn.job = Job(JobKind.WANDER, target=rng.choice(options), stage="plan")

    def _stand_cells(self, designation: Designation) -> list[Cell]:
        game_map = self.game.map
        cells = [] if designation.kind is DesignationKind.BUILD else [designation.cell]
        cells += neighbours(designation.cell, game_map.width, game_map.height)
        return [c for c in cells if self.passable(c)]

    def _claim_work(self, pawn: Pawn) -> bool:
        open_work = [d for d in self.game.designations.values() if d.claimed_by is None]
        if not open_work:
            return False
        goals: dict[Cell, Designation] = {}
        for designation in open_work:
            for cell in self._stand_cells(designation):
                goals.setdefault(cell, designation)
        game_map = self.game.map
        path = find_path(
            pawn.position, goals, self.path_passable(), game_map.width, game_map.height
        )
        if path is None:
            return False
        designation = goals[path[-1] if path else pawn.position]
        designation.claimed_by = pawn.id
        kind = JOB_FOR[designation.kind]
        pawn.job = Job(
            kind,
            target=designation.cell,
            path=path,
            designation_id=designation.id,
            thing_id=designation.thing_id,
            destination=self.game.drop_spot if kind is JobKind.HAUL else None,
            work_ticks=WORK_TICKS.get(designation.kind, 0),
            operation_id=designation.operation_id,
        )
        return True

    def _goals_for(self, job: Job) -> list[Cell]:
        assert job.target is not None
        game_map = self.game.map
        if job.stage == "carry":
            assert job.destination is not None
            return [job.destination]
        if job.designation_id is not None and job.kind is not JobKind.HAUL:
            designation = self.game.designations.get(job.designation_id)
            return [] if designation is None else self._stand_cells(designation)
        if job.kind in (JobKind.HAUL, JobKind.INGEST):
            thing = self.game.things.get(job.thing_id or "")
            if thing is None:
                return []
            job.target = thing.position
            cells = [thing.position]
            cells += neighbours(thing.position, game_map.width, game_map.height)
            return [c for c in cells if self.passable(c)]
        return [job.target]

    def _plan(self, pawn: Pawn, job: Job) -> bool:
        game_map = self.game.map
        goals = self._goals_for(job)
        path = find_path(
            pawn.position, goals, self.path_passable(), game_map.width, game_map.height
        )
        if path is None:
            goal = job.destination if job.stage == "carry" else job.target
            if job.kind in (JobKind.GOTO, JobKind.HAUL):
                self._fail_job(pawn, f"no path from {pawn.position} to {goal}")
            else:
                self._services.emit(
                    LogLevel.DEBUG,
                    f"{pawn.label} gave up {job.kind.value}: {goal} is unreachable",
                    "job",
                    job.operation_id,
                )
                self.end_job(pawn)
            return False
        job.path = path
        if job.stage == "plan":
            job.stage = "walk"
        return True

    def _run_job(self, pawn: Pawn) -> None:
        job = pawn.job
        assert job is not None
        if job.stage == "wait":
            if job.ticks_remaining is not None:
                job.ticks_remaining -= 1
                if job.ticks_remaining <= 0:
                    self.end_job(pawn)
            return
        if job.stage == "plan" and not self._plan(pawn, job):
            return
        if job.stage in ("walk", "carry"):
            if job.path:
                self._walk(pawn, job)
                return
            self._arrive(pawn, job)
            return
        if job.stage == "work":
            job.work_ticks -= 1
            if job.work_ticks <= 0:
                self._complete(pawn, job)

    def _walk(self, pawn: Pawn, job: Job) -> None:
        if job.move_cooldown > 0:
            job.move_cooldown -= 1
            return
        step = job.path[0]
        if not self.passable(step):
            blocked_at = step
            if not self._plan(pawn, job) or pawn.job is not job:
                return
            if not job.path:
                return
            step = job.path[0]
            self._services.emit(
                LogLevel.DEBUG,
                f"{pawn.label} re-planned around {blocked_at}",
                "job",
                job.operation_id,
            )
        job.path.pop(0)
        pawn.position = step
        carried = self.game.things.get(pawn.carrying or "")
        if carried is not None:
            carried.position = step
        job.move_cooldown = self.game.map.terrain_at(step).ticks_per_cell - 1
        if not job.path:
            self._arrive(pawn, job)

    def _arrive(self, pawn: Pawn, job: Job) -> None:
        if job.kind in (JobKind.GOTO, JobKind.WANDER):
            if job.kind is JobKind.GOTO:
                self._services.emit(
                    LogLevel.INFO,
                    f"{pawn.label} arrived at {pawn.position}",
                    "job",
                    job.operation_id,
                )
            self.end_job(pawn)
            return
        if job.kind is JobKind.HAUL and job.stage == "walk":
            thing = self.game.things.get(job.thing_id or "")
            if thing is None or thing.id in self.carried_ids():
                self.end_job(pawn)
                return
            pawn.carrying = thing.id
            thing.position = pawn.position
            if job.designation_id is not None:
                self.game.designations.pop(job.designation_id, None)
                job.designation_id = None
            job.stage = "carry"
            self._plan(pawn, job)
            return
        if job.kind is JobKind.HAUL:
            thing_id = pawn.carrying
            pawn.carrying = None
            thing = self.game.things.get(thing_id or "")
            if thing is not None:
                count, def_name = thing.stack_count, thing.def_name
                self.destroy(thing.id)
                self.place_items(def_name, count, pawn.position)
                self._services.emit(
                    LogLevel.INFO,
                    f"{pawn.label} hauled {count} {def_name} to {pawn.position}",
                    "job",
                    job.operation_id,
                )
            self.end_job(pawn)
            return
        if job.kind is JobKind.INGEST:
            job.work_ticks = EAT_TICKS
        job.stage = "work"

    def _complete(self, pawn: Pawn, job: Job) -> None:
        game = self.game
        if job.kind is JobKind.INGEST:
            meal = game.things.get(job.thing_id or "")
            if meal is not None:
                meal.stack_count -= 1
                if meal.stack_count <= 0:
                    self.destroy(meal.id)
                pawn.food = 1.0
                pawn.hunger_warning = 0
                pawn.mood = min(1.0, pawn.mood + 0.05)
            self.end_job(pawn)
            return
        designation = game.designations.get(job.designation_id or "")
        if designation is None:
            self.end_job(pawn)
            return
        cell = designation.cell
        if designation.kind is DesignationKind.MINE:
            game.map.terrain[game.map.index(cell)] = Terrain.ROUGH_STONE
            if game.rng.random() < 0.5:
                self.new_thing("ChunkGranite", cell)
            message = f"{pawn.label} mined {cell}"
        elif designation.kind is DesignationKind.CUT:
            if designation.thing_id is not None:
                self.destroy(designation.thing_id)
            self.place_items("WoodLog", 25, cell)
            message = f"{pawn.label} cut a tree at {cell}"
        elif designation.kind is DesignationKind.DECONSTRUCT:
            if designation.thing_id is not None:
                self.destroy(designation.thing_id)
            self.place_items("Steel", 3, cell)
            message = f"{pawn.label} deconstructed the building at {cell}"
        else:
            for other in self.pawns_at(cell):
                cells = self._cells_by_distance(cell)
                free = next((c for c in cells if c != cell and self.passable(c)), None)
                if free is not None:
                    other.position = free
            self.new_thing(designation.build_def or "Wall", cell)
            message = f"{pawn.label} built {designation.build_def or 'Wall'} at {cell}"
        game.designations.pop(designation.id, None)
        job.designation_id = None
        self._services.emit(LogLevel.INFO, message, "job", job.operation_id)
        self.end_job(pawn)

    # -- letters and incidents -------------------------------------------------------------

    def add_letter(self, label: str, text: str, kind: LetterKind) -> Letter:
        letter = Letter(self._services.new_id("Letter_"), label, text, kind, self.game.tick)
        if len(self.game.letters) == self.game.letters.maxlen:
            self._services.destroyed(self.game.letters[0].id)
        self.game.letters.append(letter)
        self._services.emit(LogLevel.INFO, f"Letter ({kind.value}): {label}", "letters", None)
        return letter

    def _incident(self) -> None:
        rng = self.game.rng
        roll = rng.random()
        pawns = [p for p in self.game.pawns.values() if not p.downed]
        if roll < 0.3:
            def_name = rng.choice(("Steel", "MealSimple", "ComponentIndustrial"))
            count = {"Steel": 60, "MealSimple": 12, "ComponentIndustrial": 6}[def_name]
            count = min(count, self.room_for(def_name, self.game.drop_spot))
            if count:
                self.place_items(def_name, count, self.game.drop_spot)
            self.add_letter(
                "Cargo pods",
                f"Cargo pods with {count} {def_name} crashed nearby.",
                LetterKind.POSITIVE,
            )
        elif roll < 0.5:
            self.add_letter("Trader arrived", "A caravan would like to trade.", LetterKind.NEUTRAL)
        elif roll < 0.75 and pawns:
            pawn = rng.choice(pawns)
            pawn.mood = max(0.0, pawn.mood - 0.3)
            self._services.emit(
                LogLevel.INFO,
                f"{pawn.label}'s mood dropped: had a disturbing dream",
                "needs",
                None,
            )
        elif roll < 0.9:
            self.add_letter("Cold snap", "Temperatures have dropped sharply.", LetterKind.NEGATIVE)
        else:
            self.add_letter(
                "Raid", "Pirates are gathering at the edge of the map.", LetterKind.THREAT
            )
            self._services.emit(
                LogLevel.WARNING, "Raid: pirates are gathering at the map edge", "incidents", None
            )
