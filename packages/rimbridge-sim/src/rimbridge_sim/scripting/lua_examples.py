"""The worked examples of the Lua reference (``examples``) and the polling patterns built on
them (``pollingGuidance.patterns``), under the mod's names. Every example compiles, and all
but ``wait_for_entry_scene`` (which waits for the main menu) finish in a running simulated
game; ``params_binding`` needs a ``screenshotFileName`` parameter."""

from __future__ import annotations

from typing import Any, Final

__all__ = ["EXAMPLES", "STARTER", "polling_patterns"]

STARTER: Final = (
    'local snapshot = rb.call("rimworld/list_colonists", { currentMapOnly = true })\n'
    "local colonists = snapshot.result.colonists\n"
    'rb.assert(colonists ~= nil, "Expected colonists.")\n'
    "return colonists[1]\n"
)

_MINIMAL: Final = (
    'local colonists = rb.call("rimworld/list_colonists", { currentMapOnly = true })\n'
    "return colonists.result.count\n"
)
_POLL_AND_ASSERT: Final = (
    'local settled = rb.poll("rimworld/list_colonists", { currentMapOnly = true }, {\n'
    "  timeoutMs = 10000,\n"
    "  pollIntervalMs = 100,\n"
    "  condition = {\n"
    "    all = {\n"
    '      { path = "result.colonists", countEquals = 3 },\n'
    '      { path = "result.colonists", allItems = { path = "dead", equals = false } }\n'
    "    }\n"
    "  }\n"
    "})\n"
    'rb.print("settled_attempts", settled.attempts)\n'
    'rb.assert(settled.attempts >= 1, "Expected at least one poll attempt.")\n'
    "return settled.result.count\n"
)
_ENTRY_SCENE: Final = (
    'local entry = rb.poll("rimbridge/get_bridge_status", {}, {\n'
    "  timeoutMs = 30000,\n"
    "  pollIntervalMs = 100,\n"
    "  condition = {\n"
    "    all = {\n"
    '      { path = "result.state.inEntryScene", equals = true },\n'
    '      { path = "result.state.hasCurrentGame", equals = false },\n'
    '      { path = "result.state.longEventPending", equals = false }\n'
    "    }\n"
    "  }\n"
    "})\n"
    "return entry.result.state\n"
)
_SEARCH: Final = (
    "local radius = 2\n"
    "local tries = 0\n"
    "local chosen = nil\n"
    "while chosen == nil and tries < 6 do\n"
    "  tries = tries + 1\n"
    '  local candidate = rb.call("rimworld/find_random_cell_near", {\n'
    "    x = 25, z = 25,\n"
    "    startingSearchRadius = radius, maxSearchRadius = radius + 8,\n"
    '    width = 3, height = 3, footprintAnchor = "center",\n'
    "    requireWalkable = true, requireStandable = true, requireNoImpassableThings = true\n"
    "  })\n"
    "  if candidate.result.success == true then\n"
    "    chosen = candidate\n"
    "  end\n"
    "  radius = radius + 2\n"
    "end\n"
    'rb.assert(chosen ~= nil, "Expected to find a free 3x3 footprint.")\n'
    'rb.print("search_tries", tries)\n'
    "return chosen.result.cell\n"
)
_FOREACH: Final = (
    'local snapshot = rb.call("rimworld/list_colonists", { currentMapOnly = true })\n'
    "for i, colonist in ipairs(snapshot.result.colonists) do\n"
    '  rb.call("rimworld/select_pawn", { pawnName = colonist.name, append = i > 1 })\n'
    "end\n"
    "return snapshot.result.count\n"
)
_PARAMS: Final = (
    'rb.assert(params.screenshotFileName ~= nil, "params.screenshotFileName is required.")\n'
    "local retryLimit = params.retryLimit or 6\n"
    'rb.print("screenshot", params.screenshotFileName)\n'
    "return { screenshotFileName = params.screenshotFileName, retryLimit = retryLimit }\n"
)


def _example(name: str, description: str, source: str) -> dict[str, str]:
    return {"name": name, "description": description, "luaSource": source}


EXAMPLES: Final = (
    _example("minimal", "Count the colonists on the current map.", _MINIMAL),
    _example(
        "poll_and_assert",
        "Poll with rb.poll, print the attempts it took and assert on them.",
        _POLL_AND_ASSERT,
    ),
    _example(
        "wait_for_entry_scene",
        "Poll the bridge status until the game is back at the main menu.",
        _ENTRY_SCENE,
    ),
    _example(
        "bounded_search_and_validate",
        "Search for a free footprint in a bounded while loop before changing the map.",
        _SEARCH,
    ),
    _example(
        "foreach_selection",
        "Select every colonist with ipairs, static field access and a boolean argument.",
        _FOREACH,
    ),
    _example(
        "params_binding", "Read the call's parameters from the read-only params table.", _PARAMS
    ),
)


def polling_patterns() -> list[dict[str, Any]]:
    """``pollingGuidance.patterns``: when to wait which way, each with its example's source."""

    def pattern(name: str, source: str, tools: list[str], description: str, when: str) -> Any:
        return {
            "name": name,
            "description": description,
            "preferredCapabilities": tools,
            "whenToUse": when,
            "luaSource": source,
        }

    return [
        pattern(
            "wait_for_entry_scene",
            _ENTRY_SCENE,
            ["rimbridge/get_bridge_status"],
            "Poll the bridge status until the game is at the main menu.",
            "Before starting a new game, or to check the menu, after leaving a game.",
        ),
        pattern(
            "wait_for_colonists_in_area",
            _POLL_AND_ASSERT,
            ["rimworld/list_colonists"],
            "Poll list_colonists until the colonists are where, and doing what, the next "
            "step needs.",
            "After a move or draft order, when what follows depends on positions or jobs.",
        ),
        pattern(
            "bounded_search_and_validate",
            _SEARCH,
            ["rimworld/find_random_cell_near", "rimworld/apply_architect_designator"],
            "Try candidates in a bounded while loop when one search is not enough and each "
            "must be checked.",
            "Planning: finding room for a footprint, or checking one before building on it.",
        ),
    ]
