"""Colony rules, part 2: jobs. What a pawn does each tick, how it walks and works."""

from __future__ import annotations

from rimbridge_sim.world._pathing import find_path, neighbours
from rimbridge_sim.world._things import ThingRules
from rimbridge_sim.world.model import (
    FLOOR_DEFS,
    THING_DEFS,
    Cell,
    DesignationKind,
    JobKind,
    LogLevel,
    Terrain,
)
from rimbridge_sim.world.state import Designation, Job, Pawn, Thing

__all__ = ["HUNGRY_BELOW", "JobRules"]

HUNGRY_BELOW = 0.3
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


class JobRules(ThingRules):
    # -- jobs ------------------------------------------------------------------------------

    def destroy(self, thing_id: str) -> None:
        self.game.things.pop(thing_id, None)
        for designation in list(self.game.designations.values()):
            if designation.thing_id == thing_id:
                self.remove_designation(designation.id)
        self._services.destroyed(thing_id)

    def remove_designation(self, designation_id: str) -> None:
        designation = self.game.designations.pop(designation_id, None)
        if designation is None or designation.claimed_by is None:
            return
        pawn = self.game.pawns.get(designation.claimed_by)
        if pawn is not None and pawn.job is not None and pawn.job.designation_id == designation_id:
            self.end_job(pawn)

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
        meals.sort(
            key=lambda t: (
                (t.position.x - pawn.position.x) ** 2 + (t.position.z - pawn.position.z) ** 2,
                t.id,
            )
        )
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
        return self._take_work(pawn, open_work, forced=False, operation_id=None)

    def claim_designation(self, pawn: Pawn, designation_id: str) -> bool:
        """Give ``pawn`` the work of one designation now (RimWorld's "Prioritize ..."),
        taking it from another pawn if needed. False when it cannot be reached."""
        designation = self.game.designations.get(designation_id)
        if designation is None:
            return False
        holder = self.game.pawns.get(designation.claimed_by or "")
        if holder is not None and holder is not pawn:
            self.end_job(holder)
        self.end_job(pawn)
        return self._take_work(pawn, [designation], forced=True, operation_id=None)

    def _take_work(
        self,
        pawn: Pawn,
        work: list[Designation],
        *,
        forced: bool,
        operation_id: str | None,
    ) -> bool:
        if not work:
            return False
        goals: dict[Cell, Designation] = {}
        for designation in work:
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
            work_ticks=self._work_ticks(designation),
            forced=forced,
            operation_id=operation_id or designation.operation_id,
        )
        return True

    def start_ingest(self, pawn: Pawn, thing: Thing, operation_id: str | None) -> None:
        """Make ``pawn`` walk to a meal and eat it."""
        self.end_job(pawn)
        pawn.job = Job(
            JobKind.INGEST,
            target=thing.position,
            thing_id=thing.id,
            forced=True,
            operation_id=operation_id,
            stage="plan",
        )

    def _work_ticks(self, designation: Designation) -> int:
        if (
            designation.kind is DesignationKind.BUILD
            and designation.build_def is not None
            and designation.build_def in THING_DEFS
        ):
            return THING_DEFS[designation.build_def].work
        return WORK_TICKS.get(designation.kind, 0)

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
                cells = self.cells_by_distance(cell)
                free = next((c for c in cells if c != cell and self.passable(c)), None)
                if free is not None:
                    other.position = free
            built = designation.build_def or "Wall"
            floor = FLOOR_DEFS.get(built)
            if floor is not None:
                game.map.terrain[game.map.index(cell)] = floor
            else:
                self.new_thing(built, cell)
            message = f"{pawn.label} built {built} at {cell}"
        game.designations.pop(designation.id, None)
        job.designation_id = None
        self._services.emit(LogLevel.INFO, message, "job", job.operation_id)
        self.end_job(pawn)
