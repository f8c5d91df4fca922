"""RimWorld's debug menu: a tree of actions (some on a pawn), settings toggles and job
logging. Paths are stable ``/``-joined labels. A subsystem of the world (``world.debug``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from rimbridge_sim.world._core import WorldCore
from rimbridge_sim.world._debug_nodes import (
    Assessment,
    DebugNode,
    assess,
    describe_node,
    score_node,
)
from rimbridge_sim.world.errors import MissingArgumentError, NotFoundError, RefusedError
from rimbridge_sim.world.model import Cell, LetterKind, LogLevel
from rimbridge_sim.world.state import Pawn

__all__ = ["DEBUG_SETTINGS", "DebugMenu", "DebugNode"]

DEBUG_SETTINGS: Final[dict[str, str]] = {
    "godMode": "God mode",
    "neverHungry": "Never hungry",
    "showPaths": "Draw paths",
    "logIncidents": "Log incidents",
    "showArchitectMenuOrder": "Show Architect Menu Order",
}
"""Debug settings toggles: setting key -> label."""

_INCIDENT_DEFS: Final[dict[str, tuple[str, LetterKind, str, str | None]]] = {
    "WandererJoin": (
        "Wanderer joins",
        LetterKind.POSITIVE,
        "A wanderer has arrived and asks to join the colony.",
        "RimWorld.ChoiceLetter_AcceptJoiner",
    ),
    "TraderCaravanArrival": (
        "Caravan arrives",
        LetterKind.NEUTRAL,
        "A trade caravan has arrived on the map.",
        None,
    ),
}
"""``Actions/Do incident``: incident def name -> the letter it sends (label, kind, text, the
choice letter's class or ``None`` for a standard letter)."""


class DebugMenu:
    def __init__(self, world: WorldCore, spawn: Callable[[str, int, Cell], str]) -> None:
        self._world = world
        self._spawn = spawn
        self._root = DebugNode("", "")
        self._build()

    # -- the tree ----------------------------------------------------------------------------

    def _add(self, parent: DebugNode, node: DebugNode) -> DebugNode:
        node.parent = parent
        node.path = node.label if parent is self._root else f"{parent.path}/{node.label}"
        parent.children.append(node)
        return node

    def _build(self) -> None:
        actions = self._add(self._root, DebugNode("Actions", "Actions"))
        pawns = self._add(actions, DebugNode("Pawns", "Pawns"))
        for label, action in (
            ("Heal", self._heal),
            ("Down", self._down),
            ("Make hungry", self._hungry),
            ("Toggle job logging", self._toggle_job_logging),
            ("Log job details", self._log_job),
        ):
            self._add(pawns, DebugNode(label, "Pawns", action, pawn_target=True))
        spawning = self._add(actions, DebugNode("Spawning", "Spawning"))
        for def_name, count in (("Steel", 75), ("MealSimple", 10), ("WoodLog", 75)):
            self._add(
                spawning,
                DebugNode(
                    f"Spawn {def_name} x{count}",
                    "Spawning",
                    lambda _p, d=def_name, c=count: self._spawn_near_drop(d, c),  # type: ignore[misc]
                ),
            )
        incidents = self._add(actions, DebugNode("Incidents", "Incidents"))
        for label, kind, text in (
            ("Cargo pods", LetterKind.POSITIVE, "Cargo pods crashed nearby."),
            ("Cold snap", LetterKind.NEGATIVE, "Temperatures have dropped sharply."),
            ("Raid", LetterKind.THREAT, "Pirates are gathering at the edge of the map."),
        ):
            self._add(
                incidents,
                DebugNode(
                    label,
                    "Incidents",
                    lambda _p, lb=label, k=kind, t=text: (  # type: ignore[misc]
                        self._letter(lb, k, t)
                    ),
                ),
            )
        do_incident = self._add(actions, DebugNode("Do incident", "Incidents"))
        for def_name, (label, kind, text, choice) in _INCIDENT_DEFS.items():
            self._add(
                do_incident,
                DebugNode(
                    def_name,
                    "Incidents",
                    lambda _p, lb=label, k=kind, t=text, c=choice: (  # type: ignore[misc]
                        self._letter(lb, k, t, c)
                    ),
                ),
            )
        settings = self._add(
            self._root, DebugNode("Settings", "Settings", hidden_without_game=False)
        )
        for key, label in DEBUG_SETTINGS.items():
            self._add(
                settings, DebugNode(label, "Settings", setting=key, hidden_without_game=False)
            )
        output = self._add(self._root, DebugNode("Outputs", "Outputs", hidden_without_game=False))
        self._add(output, DebugNode("Log colonists", "Outputs", self._log_colonists))
        self._add(output, DebugNode("Tick Rates", "Outputs", self._log_tick_rates))
        self._add(output, DebugNode("Current Threat Points", "Outputs", self._log_threat_points))

    def _walk(self, node: DebugNode | None = None) -> list[DebugNode]:
        found = []
        for child in (node or self._root).children:
            found.append(child)
            found.extend(self._walk(child))
        return found

    def visible(self, node: DebugNode) -> bool:
        return not node.hidden_without_game or self._world.game is not None

    def resolve(self, path: str | None) -> DebugNode:
        """The node at ``path``; the mod's refusals for a blank or unknown path (it names the
        path trimmed)."""
        given = (path or "").strip()
        if not given:
            raise MissingArgumentError("A debug action path is required.")
        wanted = given.strip("/").replace("\\", "/").lower()
        for node in self._walk():
            if node.path.lower() == wanted:
                return node
        raise NotFoundError(f"Could not find debug action '{given}'.")

    def roots(self, include_hidden: bool) -> list[DebugNode]:
        """The roots in the mod's order: by their tab def's name, ordinal."""
        roots = [n for n in self._root.children if include_hidden or self.visible(n)]
        return sorted(roots, key=lambda n: n.label.encode("utf-16-be"))

    def children(self, node: DebugNode, include_hidden: bool) -> list[DebugNode]:
        return [n for n in node.children if include_hidden or self.visible(n)]

    def search(
        self, query: str, include_hidden: bool, supported_only: bool, target_kind: str | None
    ) -> list[tuple[DebugNode, int, list[str]]]:
        """The mod's search: every node scored against the query (see
        :func:`score_node`), best first, then by path."""
        wanted_kind = (target_kind or "").strip().lower()
        found = []
        for node in self._walk():
            if not include_hidden and not self.visible(node):
                continue
            assessment = assess(node)
            if supported_only and not assessment.supported:
                continue
            if wanted_kind and (assessment.required_target_kind or "") != wanted_kind:
                continue
            score, fields = score_node(node, query)
            if score > 0:
                found.append((node, score, fields))
        found.sort(key=lambda match: (-match[1], match[0].path))
        return found

    def assess(self, node: DebugNode) -> Assessment:
        """Whether the mod would run ``node`` (and how)."""
        return assess(node)

    def describe(self, node: DebugNode, tab_def_name: str | None = None) -> dict[str, Any]:
        """The mod's node record (``tab_def_name`` only for a listed root, as in the mod)."""
        return describe_node(
            node,
            is_root=node.parent is self._root,
            visible=self.visible(node),
            # RimWorld's ActiveNow: a map tool is active only while a map is drawn
            active=not node.pawn_target or self._world.game is not None,
            visible_children=sum(1 for c in node.children if self.visible(c)),
            on=node.setting is not None and self._world.debug_settings.get(node.setting, False),
            tab_def_name=tab_def_name,
        )

    # -- running -----------------------------------------------------------------------------

    def execute(self, node: DebugNode, pawn: Pawn | None) -> str:
        if node.setting is not None:
            value = not self._world.debug_settings.get(node.setting, False)
            self._world.debug_settings[node.setting] = value
            return f"{node.label} is now {'on' if value else 'off'}"
        if node.action is None:
            raise RefusedError(f"Debug node '{node.path}' is a category, not an action.")
        if not self.visible(node):
            raise RefusedError(f"Debug action '{node.path}' needs a loaded game.")
        did = node.action(pawn)
        self._world.emit(LogLevel.INFO, f"Debug action {node.path}: {did}", "debug")
        return did

    def set_setting(self, node: DebugNode, enabled: bool) -> bool:
        if node.setting is None:
            raise RefusedError(f"Debug node '{node.path}' is not a settings toggle.")
        previous = self._world.debug_settings.get(node.setting, False)
        self._world.debug_settings[node.setting] = enabled
        return previous

    def _heal(self, pawn: Pawn | None) -> str:
        assert pawn is not None
        pawn.health, pawn.downed = 1.0, False
        return f"healed {pawn.nickname}"

    def _down(self, pawn: Pawn | None) -> str:
        assert pawn is not None
        pawn.health = 0.2
        return f"{pawn.nickname} will be downed"

    def _hungry(self, pawn: Pawn | None) -> str:
        assert pawn is not None
        pawn.food = 0.05
        return f"{pawn.nickname} is hungry"

    def _toggle_job_logging(self, pawn: Pawn | None) -> str:
        assert pawn is not None
        pawn.job_logging = not pawn.job_logging
        return f"job logging for {pawn.nickname} is {'on' if pawn.job_logging else 'off'}"

    def _log_job(self, pawn: Pawn | None) -> str:
        assert pawn is not None
        job = pawn.job
        text = "no job" if job is None else f"{job.kind.value} stage {job.stage} at {job.target}"
        self._world.emit(LogLevel.INFO, f"[JobTracker] {pawn.nickname}: {text}", "jobs")
        return text

    def _spawn_near_drop(self, def_name: str, count: int) -> str:
        game = self._world.require_colony().game
        return self._spawn(def_name, count, game.drop_spot)

    def _letter(
        self, label: str, kind: LetterKind, text: str, choice_type: str | None = None
    ) -> str:
        colony = self._world.require_colony()
        colony.add_letter(label, text, kind, choice_type)
        return f"sent letter '{label}'"

    def _log_threat_points(self, _pawn: Pawn | None) -> str:
        game = self._world.require_colony().game
        colonists = sum(1 for p in game.pawns.values() if not p.downed)
        points = max(35.0, 60.0 * colonists)  # the storyteller's floor is 35 points
        self._world.emit(LogLevel.INFO, f"Current threat points: {points:.1f}", "debug")
        return f"threat points {points:.1f}"

    def _log_tick_rates(self, _pawn: Pawn | None) -> str:
        game = self._world.game
        speed = "none" if game is None else game.time_speed.value
        self._world.emit(LogLevel.INFO, f"Tick rate: time speed {speed}", "debug")
        return "logged the tick rate"

    def _log_colonists(self, _pawn: Pawn | None) -> str:
        game = self._world.game
        names = [] if game is None else [p.nickname for p in game.pawns.values()]
        self._world.emit(LogLevel.INFO, f"Colonists: {', '.join(names) or 'none'}", "debug")
        return f"logged {len(names)} colonist(s)"
