"""Colony rules, part 3: the tick. Needs, letters and incidents, on top of the jobs.

:class:`Colony` is what the world holds for a running game: :class:`ThingRules` (what is
where), :class:`JobRules` (what pawns do) and, here, what happens each tick.
"""

from __future__ import annotations

from rimbridge_sim.world._jobs import HUNGRY_BELOW, JobRules
from rimbridge_sim.world._things import MAX_THINGS, Services
from rimbridge_sim.world.model import LetterKind, LogLevel
from rimbridge_sim.world.state import Letter, Pawn

__all__ = ["MAX_THINGS", "Colony", "Services"]

FOOD_PER_TICK = 1 / 36_000
STARVING_HEALTH_PER_TICK = 1 / 20_000
DOWNED_BELOW = 0.25
MOOD_BASELINE = 0.6
MOOD_DRIFT_PER_TICK = 1 / 50_000
MOOD_BREAK_BELOW = 0.2
RARE_TICK = 250
INCIDENT_CHANCE = 0.02


class Colony(JobRules):
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
            before = pawn.job
            if pawn.job is None:
                self._choose_job(pawn)
            if pawn.job_logging and pawn.job is not None and pawn.job is not before:
                self._log_job(pawn)
            if pawn.job is not None:
                self._run_job(pawn)
        if game.tick % RARE_TICK == 0 and game.rng.random() < INCIDENT_CHANCE:
            self._incident()

    def _log_job(self, pawn: Pawn) -> None:
        job = pawn.job
        assert job is not None
        target = "" if job.target is None else f" at {job.target}"
        self._services.emit(
            LogLevel.INFO,
            f"[JobTracker] {pawn.label} ({pawn.id}) starting job {job.kind.value}{target}",
            "jobs",
            job.operation_id,
        )

    def _needs(self, pawn: Pawn) -> None:
        if not self._services.setting("neverHungry"):
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

    # -- letters and incidents -------------------------------------------------------------

    def add_letter(
        self, label: str, text: str, kind: LetterKind, choice_type: str | None = None
    ) -> Letter:
        letter = Letter(
            self._services.new_id("Letter_"), label, text, kind, self.game.tick, False, choice_type
        )
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
            self.add_letter(
                "Trader arrived",
                "A caravan would like to trade.",
                LetterKind.NEUTRAL,
                "RimWorld.ChoiceLetter_AcceptVisitors",
            )
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
