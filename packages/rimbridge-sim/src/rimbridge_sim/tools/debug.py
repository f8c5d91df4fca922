"""The debug menu: discover and run debug actions (some on a pawn), debug settings, god
mode, job logging and spawning things."""

from __future__ import annotations

from collections import Counter
from typing import Any

from rimbridge_annotations import parameter, tool
from rimbridge_sim.calls import DEFAULT_PAYLOAD_CODES, call_spec
from rimbridge_sim.host import ToolHost
from rimbridge_sim.world import (
    Cell,
    InvalidArgumentError,
    MissingArgumentError,
    RefusedError,
    WorldError,
)
from rimbridge_sim.world._debug import DebugNode
from rimbridge_sim.world.describe import cell_payload, describe_pawn, label_cap

__all__ = ["DebugTools"]

_NO_GAME = DEFAULT_PAYLOAD_CODES | {"no_game"}
_PATH = "A debug action path from the discovery tools, e.g. Actions/Pawns/Heal."
_NODE = (
    "{path, parentPath, label, category, actionType, isRoot, visible, active, on, "
    "displayPriority, tabId, tabTitle, tabRootPath, tabDefName, hasChildren, childCount, "
    "visibleChildCount, hasDirectAction, hasPawnAction, hasSettingsToggle, execution {kind: "
    "BrowseOnly | Direct | PawnTarget, supported, reason, requiredTargetKind}, source (null, "
    "or the action's {name, category, allowedGameStates, hideInSubMenu, requiresRoyalty, "
    "requiresIdeology, requiresBiotech, requiresAnomaly, requiresOdyssey})}"
)
_EFFECTS = (
    "effects {logCount, logs: [{sequence, level, message, source, repeatCount, "
    "timestampUtc}], windowCountDelta, openedWindowTypes, closedWindowTypes}"
)


# What set_colonist_job_logging's consumeLogs says, the mod's fields in the sim's words.
_LOGGING_ON = (
    "From now on this colonist's job changes are written to the bridge log as they happen. "
    "Nothing is logged until the colonist's next job change, which may take a while."
)
_LOGGING_OFF = (
    "This colonist's job changes are no longer logged: expect no new job lines for it after "
    "the returned cursor, unless logging is switched on again."
)
_HINT_ON = (
    "Read new lines with rimbridge/list_logs from logCursor (afterSequence) while the "
    "colonist works; the cursor marks where its job lines will start, not a line already there."
)
_HINT_OFF = (
    "A reader following this colonist's lines with rimbridge/list_logs can stop at logCursor."
)


def _effect_line(entry: dict[str, Any]) -> dict[str, Any]:
    """A log line as the mod's debug effects list it."""
    return {
        "sequence": entry["Sequence"],
        "level": entry["Level"],
        "message": entry["Message"],
        "source": entry["Source"],
        "repeatCount": entry["RepeatCount"],
        "timestampUtc": entry["TimestampUtc"],
    }


def _added(baseline: list[str], updated: list[str]) -> list[str]:
    """Window types ``updated`` holds more often than ``baseline`` (once per extra window)."""
    counts = Counter(baseline)
    extra: list[str] = []
    for window_type, count in Counter(updated).items():
        extra.extend([window_type] * max(0, count - counts[window_type]))
    return extra


class DebugTools:
    def __init__(self, host: ToolHost) -> None:
        self.host = host

    def _failure(self, message: str, code: str = RefusedError.code) -> dict[str, Any]:
        world = self.host.world
        return {
            "success": False,
            "message": message,
            "devModeEnabled": world.dev_mode,
            "state": world.state_snapshot(),
            "code": code,
        }

    @tool(
        "rimworld/list_debug_action_roots",
        "List the debug menu's top-level roots (Actions, Settings, Outputs).",
        title="List debug action roots",
        result_description=f"{{success, devModeEnabled, rootCount, roots: [{_NODE}]}}.",
    )
    @parameter("include_hidden", "Include roots hidden now (those needing a loaded game).")
    @call_spec(world=True)
    def list_debug_action_roots(self, include_hidden: bool = False) -> dict[str, Any]:
        debug = self.host.world.debug
        roots = debug.roots(include_hidden)
        return {
            "success": True,
            "devModeEnabled": self.host.world.dev_mode,
            "rootCount": len(roots),
            "roots": [debug.describe(n, tab_def_name=n.label) for n in roots],
        }

    @tool(
        "rimworld/list_debug_action_children",
        "List the children of a debug menu path.",
        title="List debug action children",
        result_description=f"{{success, devModeEnabled, path, childCount, children: [{_NODE}]}}.",
    )
    @parameter("path", _PATH)
    @parameter("include_hidden", "Include children hidden now.")
    @call_spec(world=True)
    def list_debug_action_children(self, path: str, include_hidden: bool = False) -> dict[str, Any]:
        debug = self.host.world.debug
        try:
            node = debug.resolve(path)
        except (RefusedError, MissingArgumentError) as error:
            return self._failure(error.message, error.code)
        children = debug.children(node, include_hidden)
        return {
            "success": True,
            "devModeEnabled": self.host.world.dev_mode,
            "path": node.path,
            "childCount": len(children),
            "children": [debug.describe(c) for c in children],
        }

    @tool(
        "rimworld/search_debug_actions",
        "Search the whole debug menu by path, label, category, action type and execution kind, "
        "scored as the mod scores it (a whole-field match beats a partial one; a query of "
        "several words also matches when every word appears somewhere).",
        title="Search debug actions",
        result_description=f"{{success, devModeEnabled, query, includeHidden, supportedOnly, "
        f"requiredTargetKind, limit, matchCount, totalMatchCount, truncated, matches: [{{score, "
        f"matchFields, path, node: {_NODE}}}]}}, best score first; an empty query is "
        "{success: false, message, devModeEnabled, state}.",
    )
    @parameter("query", "Words to find, e.g. job logging.")
    @parameter("limit", "Most matches to return.")
    @parameter("include_hidden", "Include nodes hidden now.")
    @parameter("supported_only", "Only nodes that can be run.")
    @parameter("required_target_kind", "Only actions on this target kind, e.g. pawn.")
    @call_spec(world=True)
    def search_debug_actions(
        self,
        query: str,
        limit: int = 50,
        include_hidden: bool = False,
        supported_only: bool = False,
        required_target_kind: str | None = None,
    ) -> dict[str, Any]:
        debug = self.host.world.debug
        query = (query or "").strip()
        if not query:
            return self._failure("A non-empty query is required.", InvalidArgumentError.code)
        if limit <= 0:
            limit = 50
        kind = (required_target_kind or "").strip() or None
        found = debug.search(query, include_hidden, supported_only, kind)
        returned = found[:limit]
        return {
            "success": True,
            "devModeEnabled": self.host.world.dev_mode,
            "query": query,
            "includeHidden": include_hidden,
            "supportedOnly": supported_only,
            "requiredTargetKind": kind,
            "limit": limit,
            "matchCount": len(returned),
            "totalMatchCount": len(found),
            "truncated": len(returned) < len(found),
            "matches": [
                {
                    "score": score,
                    "matchFields": fields,
                    "path": node.path,
                    "node": debug.describe(node),
                }
                for node, score, fields in returned
            ],
        }

    @tool(
        "rimworld/get_debug_action",
        "Describe one debug menu path and, optionally, its children.",
        title="Get debug action",
        result_description=f"{{success, devModeEnabled, path, node: {_NODE}, childCount, "
        "children (null without includeChildren)}.",
    )
    @parameter("path", _PATH)
    @parameter("include_children", "Include the node's children.")
    @parameter("include_hidden_children", "Include children hidden now.")
    @call_spec(world=True)
    def get_debug_action(
        self, path: str, include_children: bool = True, include_hidden_children: bool = False
    ) -> dict[str, Any]:
        debug = self.host.world.debug
        try:
            node = debug.resolve(path)
        except (RefusedError, MissingArgumentError) as error:
            return self._failure(error.message, error.code)
        children = debug.children(node, include_hidden_children) if include_children else None
        return {
            "success": True,
            "devModeEnabled": self.host.world.dev_mode,
            "path": node.path,
            "node": debug.describe(node),
            "childCount": 0 if children is None else len(children),
            "children": None if children is None else [debug.describe(c) for c in children],
        }

    @tool(
        "rimworld/execute_debug_action",
        "Run a debug action by path; pawn actions need pawnName or pawnId. Settings toggles "
        "flip (see rimworld/set_debug_setting for a fixed state).",
        title="Execute debug action",
        result_description=f"{{success, path, node: {_NODE}, targetPawn, stateBefore, "
        f"stateAfter, {_EFFECTS}}}; a blank or unknown path is "
        "{success: false, message, devModeEnabled, state}, a submenu (message: the "
        "node's execution reason) or a missing pawn adds node (and requiredTargetKind: pawn for "
        "the pawn).",
    )
    @parameter("path", _PATH)
    @parameter("pawn_name", "The pawn a pawn action runs on (by name).")
    @parameter("pawn_id", "The pawn a pawn action runs on (by id).")
    @call_spec(world=True)
    def execute_debug_action(
        self, path: str, pawn_name: str | None = None, pawn_id: str | None = None
    ) -> dict[str, Any]:
        host = self.host
        world = host.world
        debug = world.debug
        try:
            node = debug.resolve(path)
        except (RefusedError, MissingArgumentError) as error:
            return self._failure(error.message, error.code)
        assessment = debug.assess(node)
        if not assessment.supported:
            return self._node_failure(assessment.reason or "", node)
        pawn = None
        if node.pawn_target:
            refused, code = None, InvalidArgumentError.code
            if not (pawn_name or pawn_id):
                refused = (
                    f"Debug action '{node.path}' requires a current-map pawn target. "
                    "Provide pawnName or pawnId."
                )
            else:
                try:
                    pawn = world.resolve_pawn(pawn_name, pawn_id, what="current-map pawn")
                except WorldError as error:  # the mod answers any failure to resolve
                    refused = (
                        f"Could not resolve pawn target for debug action '{node.path}': "
                        f"{error.message}"
                    )
                    code = error.code
            if refused is not None:
                return self._node_failure(refused, node, code, requiredTargetKind="pawn")
        before = self._capture()
        try:
            debug.execute(node, pawn)
        except RefusedError as error:
            return self._node_failure(error.message, node, error.code)
        return {
            "success": True,
            "path": node.path,
            "node": debug.describe(node),
            "targetPawn": None if pawn is None else describe_pawn(world, pawn),
            "stateBefore": before[0],
            "stateAfter": world.state_snapshot(),
            "effects": self._effects(before),
        }

    def _node_failure(
        self, message: str, node: DebugNode, code: str = RefusedError.code, **extra: Any
    ) -> dict[str, Any]:
        """The mod's refusal about a resolved debug node: its path, the node and the state,
        then the sim's ``code``."""
        world = self.host.world
        failure = self._failure(message, code)
        del failure["code"]
        return {
            **failure,
            "path": node.path,
            "node": world.debug.describe(node),
            **extra,
            "code": code,
        }

    def _capture(self) -> tuple[dict[str, Any], list[str], int]:
        """What the mod's CaptureExecution keeps: the state, the open windows' types, the log
        cursor."""
        world = self.host.world
        types = [w.type for w in world.windows.stack]
        return world.state_snapshot(), types, self.host.ring.latest_sequence or 0

    def _effects(self, before: tuple[dict[str, Any], list[str], int]) -> dict[str, Any]:
        """The mod's DescribeEffects: the log lines since ``before`` (up to 50, any level) and
        the windows opened and closed."""
        logs = self.host.ring.query(after_sequence=before[2], minimum_level="debug", limit=50)
        after = [w.type for w in self.host.world.windows.stack]
        return {
            "logCount": len(logs.entries),
            "logs": [_effect_line(e.to_wire()) for e in logs.entries],
            "windowCountDelta": len(after) - len(before[1]),
            "openedWindowTypes": _added(before[1], after),
            "closedWindowTypes": _added(after, before[1]),
        }

    @tool(
        "rimworld/set_debug_setting",
        "Set a debug settings toggle (Settings/God mode, Settings/Never hungry, ...) on or off.",
        title="Set debug setting",
        result_description=f"{{success, changed, path, value, node: {_NODE}, stateBefore, "
        f"stateAfter, {_EFFECTS}}}; a path that is not a settings toggle is {{success: false, "
        "message, path, node, state}.",
    )
    @parameter("path", "A settings path, e.g. Settings/God mode.")
    @parameter("enabled", "The state to set.")
    @call_spec(world=True)
    def set_debug_setting(self, path: str, enabled: bool) -> dict[str, Any]:
        world = self.host.world
        debug = world.debug
        try:
            node = debug.resolve(path)
        except (RefusedError, MissingArgumentError) as error:
            return self._failure(error.message, error.code)
        before = self._capture()
        try:
            previous = debug.set_setting(node, enabled)
        except RefusedError as error:
            return self._node_failure(error.message, node, error.code)
        return {
            "success": True,
            "changed": previous != enabled,
            "path": node.path,
            "value": enabled,
            "node": debug.describe(node),
            "stateBefore": before[0],
            "stateAfter": world.state_snapshot(),
            "effects": self._effects(before),
        }

    @tool(
        "rimworld/set_colonist_job_logging",
        "Turn a colonist's job logging on or off: each job it starts is logged as "
        "'[JobTracker] ...'. Returns a log cursor and ready-made rimbridge/list_logs arguments "
        "to read those lines.",
        title="Set colonist job logging",
        result_description="{success, changed, enabled, pawn, state, logCursor, consumeLogs "
        "{tool, recommendedArguments, expectedBehavior, usageHint}}.",
    )
    @parameter("pawn_name", "The colonist's name.")
    @parameter("pawn_id", "The colonist's id.")
    @parameter("enabled", "True to log its jobs, false to stop.")
    @call_spec(world=True)
    def set_colonist_job_logging(
        self, pawn_name: str | None = None, pawn_id: str | None = None, enabled: bool = True
    ) -> dict[str, Any]:
        host = self.host
        world = host.world
        try:
            pawn = world.resolve_pawn(pawn_name, pawn_id, what="current-map colonist")
        except WorldError as error:  # the mod answers any failure to resolve, no game included
            return {
                "success": False,
                "message": f"Could not resolve current-map colonist for job logging: "
                f"{error.message}",
                "requestedPawnName": pawn_name,
                "requestedPawnId": pawn_id,
                "state": world.state_snapshot(),
                "code": error.code,
            }
        changed = pawn.job_logging != enabled
        pawn.job_logging = enabled
        cursor = host.ring.latest_sequence or 0
        return {
            "success": True,
            "changed": changed,
            "enabled": enabled,
            "pawn": describe_pawn(world, pawn),
            "state": world.state_snapshot(),
            "logCursor": cursor,
            "consumeLogs": {
                "tool": "rimbridge/list_logs",
                "recommendedArguments": {
                    "afterSequence": cursor,
                    "minimumLevel": "info",
                    "limit": 200,
                },
                "expectedBehavior": _LOGGING_ON if enabled else _LOGGING_OFF,
                "usageHint": _HINT_ON if enabled else _HINT_OFF,
            },
        }

    @tool(
        "rimworld/set_god_mode",
        "Turn god mode on or off: with it on, Architect designators act at once (buildings "
        "appear, rock is mined).",
        title="Set god mode",
        result_description="{success, changed, previousGodMode, godMode, devModeEnabled, "
        "selectionStillValid (null without a map; else whether a designator is still "
        "selected), designatorState, state}.",
    )
    @parameter("enabled", "True for god mode.")
    @call_spec(world=True)
    def set_god_mode(self, enabled: bool = True) -> dict[str, Any]:
        world = self.host.world
        previous = world.architect.set_god_mode(enabled)
        return {
            "success": True,
            "changed": previous != enabled,
            "previousGodMode": previous,
            "godMode": world.god_mode,
            "devModeEnabled": world.dev_mode,
            # RimWorld's DesignatorManager.CheckSelectedDesignatorValid: false with nothing
            # selected; every sim designator may stay selected whatever god mode is.
            "selectionStillValid": None if world.game is None else world.ui.designator is not None,
            "designatorState": world.architect.state(),
            "state": world.state_snapshot(),
        }

    @tool(
        "rimworld/spawn_thing",
        "Spawn one thing on a cell as the debug spawner does: the stack count is clamped to "
        "the thing's stack limit and whatever would clash on the cell is removed.",
        title="Spawn thing",
        result_description="{success, defName, label, stackCount, cell {x, z}} (the thing's "
        "id is in rimworld/get_cell_info); an unknown def or a cell outside the map is "
        "{success: false, message}.",
    )
    @parameter("def_name", "The thing def, e.g. Steel, MealSimple, Wall, Bed.")
    @parameter("x", "Cell x.")
    @parameter("z", "Cell z.")
    @parameter("stack_count", "How many (clamped to the def's stack limit).")
    @call_spec(world=True, payload_codes=_NO_GAME)
    def spawn_thing(self, def_name: str, x: int, z: int, stack_count: int = 1) -> dict[str, Any]:
        world = self.host.world
        game = world.require_colony().game
        if not game.map.contains(Cell(x, z)):
            return {
                "success": False,
                "message": f"Cell ({x}, {z}) is out of bounds for the current map.",
                "code": "invalid_cell",
            }
        try:
            thing = world.spawn_stack(def_name, stack_count, (x, z))
        except InvalidArgumentError as error:
            return {
                "success": False,
                "message": f"Could not resolve ThingDef '{def_name}'.",
                "exception": error.message,
                "code": error.code,
            }
        return {
            "success": True,
            "defName": thing.def_name,
            "label": label_cap(thing),
            "stackCount": thing.stack_count,
            "cell": cell_payload(thing.position),
        }
