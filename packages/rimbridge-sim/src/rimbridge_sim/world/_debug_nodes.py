"""How the mod describes a debug menu node and scores it in a search: the node record
(``RimWorldDebugActions.DescribeNode``), the execution assessment
(``DebugActionExecutionPolicy``) and the search score (``TryCreateSearchMatch``)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from rimbridge_sim.world.state import Pawn

__all__ = ["Assessment", "DebugNode", "assess", "describe_node", "score_node"]

# The mod's execution reasons, its own short wire texts.
_SUBMENU: Final = (
    "This debug node is a submenu. Browse its children instead of executing it directly."
)
_PAWN_INPUT: Final = "This debug action requires a pawn target input."
_NO_DELEGATE: Final = "No direct action delegate is exposed for this debug node."


@dataclass
class DebugNode:
    label: str
    category: str
    action: Callable[[Pawn | None], str] | None = None
    pawn_target: bool = False
    setting: str | None = None
    hidden_without_game: bool = True
    children: list[DebugNode] = field(default_factory=list)
    path: str = ""
    parent: DebugNode | None = None


_TABS: Final = {
    # the mod's ResolveTabMetadata: root path -> (tabId, tabTitle)
    "Actions": ("actions", "Actions/tools"),
    "Outputs": ("output", "Output"),
    "Settings": ("settings", "Settings"),
}
_TOKEN_SPLIT: Final = re.compile(r"[ \t\-_\\/]+")


@dataclass(frozen=True, slots=True)
class Assessment:
    """Whether and how a node can be run: kind ``BrowseOnly``, ``Direct`` or
    ``PawnTarget`` (the mod's ``MapTarget`` and ``WorldTarget`` have no node in the sim)."""

    kind: str
    supported: bool
    reason: str | None
    required_target_kind: str | None


def action_type(node: DebugNode) -> str:
    """RimWorld's ``DebugActionType``: a category node keeps the default, ``Action``."""
    return "ToolMapForPawns" if node.pawn_target else "Action"


def assess(node: DebugNode) -> Assessment:
    if node.children:
        return Assessment("BrowseOnly", False, _SUBMENU, None)
    if node.pawn_target:
        return Assessment("PawnTarget", True, _PAWN_INPUT, "pawn")
    if node.action is not None or node.setting is not None:
        return Assessment("Direct", True, None, None)
    return Assessment("BrowseOnly", False, _NO_DELEGATE, None)


def _source(node: DebugNode) -> dict[str, Any] | None:
    """The ``DebugAction`` attribute of an action method; settings toggles and submenus have
    none."""
    if node.action is None:
        return None
    return {
        "name": node.label,
        "category": node.category,
        # RimWorld's AllowedGameStates flags, as the enum prints them
        "allowedGameStates": "PlayingOnMap" if node.hidden_without_game else "Entry, Playing",
        "hideInSubMenu": False,
        "requiresRoyalty": False,
        "requiresIdeology": False,
        "requiresBiotech": False,
        "requiresAnomaly": False,
        "requiresOdyssey": False,
    }


def describe_node(
    node: DebugNode,
    *,
    is_root: bool,
    visible: bool,
    active: bool,
    visible_children: int,
    on: bool,
    tab_def_name: str | None = None,
) -> dict[str, Any]:
    """The mod's node record, in its key order. ``tabDefName`` is set only for the roots
    ``list_debug_action_roots`` lists, as in the mod."""
    assessment = assess(node)
    tab_root = node.path.split("/", 1)[0]
    tab_id, tab_title = _TABS.get(
        tab_root, ((tab_def_name or "").lower(), tab_def_name or tab_root)
    )
    return {
        "path": node.path,
        "parentPath": None if is_root or node.parent is None else node.parent.path,
        "label": node.label,
        "category": node.category,
        "actionType": action_type(node),
        "isRoot": is_root,
        "visible": visible,
        "active": active,
        "on": on,
        "displayPriority": 0,
        "tabId": tab_id,
        "tabTitle": tab_title,
        "tabRootPath": tab_root,
        "tabDefName": tab_def_name,
        "hasChildren": bool(node.children),
        "childCount": len(node.children),
        "visibleChildCount": visible_children,
        "hasDirectAction": (node.action is not None and not node.pawn_target)
        or node.setting is not None,
        "hasPawnAction": node.pawn_target,
        "hasSettingsToggle": node.setting is not None,
        "execution": {
            "kind": assessment.kind,
            "supported": assessment.supported,
            "reason": assessment.reason,
            "requiredTargetKind": assessment.required_target_kind,
        },
        "source": _source(node),
    }


def _field_score(
    value: str | None, query: str, name: str, contains: int, exact: int, fields: list[str]
) -> int:
    if not value or not value.strip():
        return 0
    text = value.strip().lower()
    if text == query.lower():
        fields.append(f"{name}.exact")
        return exact
    if query.lower() in text:
        fields.append(name)
        return contains
    return 0


def score_node(node: DebugNode, query: str) -> tuple[int, list[str]]:
    """The mod's search score of a node for a (trimmed) query and the fields that matched;
    0 when nothing matched."""
    assessment = assess(node)
    source = _source(node)
    texts: list[tuple[str | None, str, int, int]] = [
        (node.path, "path", 400, 1000),
        (node.label, "label", 350, 900),
        (node.category, "category", 200, 500),
        (None if source is None else source["name"], "source.name", 180, 450),
        (None if source is None else source["category"], "source.category", 160, 425),
        (action_type(node), "actionType", 120, 300),
        (assessment.kind, "execution.kind", 120, 300),
        (assessment.required_target_kind, "execution.requiredTargetKind", 110, 275),
    ]
    fields: list[str] = []
    score = sum(
        _field_score(value, query, name, contains, exact, fields)
        for value, name, contains, exact in texts
    )
    combined = " ".join(value for value, *_ in texts if value and value.strip()).lower()
    tokens = [t for t in _TOKEN_SPLIT.split(query.lower()) if t]
    if len(tokens) > 1 and all(token in combined for token in tokens):
        score += 150
        fields.append("allTokens")
    return score, fields
