"""Placing the virtual cursor for ``rimworld/set_hover_target``: on a layout element, a
screen target, explicit screen coordinates, a map cell, a thing or a pawn, with the kinds,
ids, labels and details the mod records for each."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rimbridge_sim.world._core import WorldCore
from rimbridge_sim.world._layout import Rect
from rimbridge_sim.world._screen import Screen
from rimbridge_sim.world.describe import cell_payload, describe_pawn, describe_thing
from rimbridge_sim.world.errors import (
    InvalidArgumentError,
    InvalidCellError,
    MissingArgumentError,
)
from rimbridge_sim.world.model import Cell

__all__ = ["HoverRequest", "number_text", "place_hover"]


@dataclass(frozen=True)
class HoverRequest:
    """What ``rimworld/set_hover_target`` was asked to hover."""

    target_id: str | None = None
    x: int | None = None
    z: int | None = None
    thing_id: str | None = None
    pawn_name: str | None = None
    pawn_id: str | None = None
    anchor: str = "center"
    offset_x: float = 0.0
    offset_y: float = 0.0
    screen_x: float | None = None
    screen_y: float | None = None
    duration_ms: int | None = None


_BOTH_CELL_COORDINATES = "Both x and z are required when hovering a map cell."


def number_text(value: float) -> str:
    """``0.##``: at most two decimals, no trailing zeros."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _check(request: HoverRequest) -> None:
    has_ui = bool(request.target_id and request.target_id.strip())
    has_screen = request.screen_x is not None or request.screen_y is not None
    has_map = (
        request.x is not None
        or request.z is not None
        or bool(request.thing_id and request.thing_id.strip())
        or bool((request.pawn_name or "").strip() or (request.pawn_id or "").strip())
    )
    kinds = sum((has_ui, has_screen, has_map))
    if kinds == 0:
        raise MissingArgumentError(
            "Provide a UI target id, explicit screen coordinates, or a map target (cell, pawn, "
            "or thing)."
        )
    if kinds > 1:
        raise InvalidArgumentError(
            "UI target ids, explicit screen coordinates, and map hover targets are mutually "
            "exclusive. Provide only one target."
        )


def _anchor_name(anchor: str | None) -> str:
    """The anchor as the mod records it: as given, ``center`` when blank."""
    return anchor if anchor and anchor.strip() else "center"


def _hover_element(screen: Screen, request: HoverRequest, target_id: str) -> dict[str, Any]:
    surface, element = screen.layouts.find_element(target_id)
    anchor = _anchor_name(request.anchor)
    rect = element["screenRect"]
    x, y = screen_point(rect, anchor, request.offset_x, request.offset_y)
    described = {
        "kind": "ui_element",
        "targetId": target_id,
        "surfaceTargetId": surface["surfaceTargetId"],
        "elementIndex": int(target_id.rsplit(":", 1)[-1]),
        "elementKind": element["kind"],
        "source": element["source"],
        "label": element["label"] or None,
        "anchor": anchor,
        "offsetX": request.offset_x,
        "offsetY": request.offset_y,
    }
    details = {
        "surfaceTargetId": surface["surfaceTargetId"],
        "elementKind": element["kind"],
        "source": element["source"],
        "actionable": element["actionable"],
        "anchor": anchor,
        "offsetX": request.offset_x,
        "offsetY": request.offset_y,
        "rect": dict(rect),
    }
    label = element["label"] or element["kind"]
    screen.set_hover(
        "ui_element", target_id, label, (x, y), request.duration_ms, details, described
    )
    return described


def screen_point(
    rect: dict[str, float], anchor: str, offset_x: float, offset_y: float
) -> tuple[float, float]:
    x, y = Rect(**rect).anchor(anchor)
    return x + offset_x, y + offset_y


def place_hover(world: WorldCore, screen: Screen, request: HoverRequest) -> tuple[str, Any]:
    """Put the cursor where ``request`` says: ``(message, hoverTarget)`` as the mod answers;
    a refusal for a missing, ambiguous or unknown target."""
    _check(request)
    target_id = request.target_id or ""
    if target_id.strip():  # the mod reads the id as given, only its prefix trimmed
        if target_id.strip().lower().startswith("ui-"):
            return f"Hover target '{target_id}' is active.", _hover_element(
                screen, request, target_id
            )
        kind, label, rect = screen.resolve_rect(target_id)
        anchor = _anchor_name(request.anchor)
        point = screen_point(rect.to_wire(), anchor, request.offset_x, request.offset_y)
        details = {
            "source": "screen_target",
            "anchor": anchor,
            "offsetX": request.offset_x,
            "offsetY": request.offset_y,
            "rect": rect.to_wire(),
        }
        screen.set_hover(kind, target_id, label, point, request.duration_ms, details)
        return f"Hover target '{request.target_id}' is active.", screen.describe_hover()
    if request.screen_x is not None or request.screen_y is not None:
        if request.screen_x is None or request.screen_y is None:
            raise MissingArgumentError(
                "Both screenX and screenY are required when hovering an explicit screen coordinate."
            )
        sx, sy = request.screen_x, request.screen_y
        screen.set_hover(
            "screen",
            f"screen:{number_text(sx)}:{number_text(sy)}",
            f"Screen ({number_text(sx)}, {number_text(sy)})",
            (sx, sy),
            request.duration_ms,
            {"source": "screen_coordinate", "screenPosition": {"x": sx, "y": sy}},
        )
        return "Hover target is active.", screen.describe_hover()
    if (request.x is None) != (request.z is None):  # checked first, a thing or pawn given too
        raise MissingArgumentError(_BOTH_CELL_COORDINATES)
    kind, ref, label, cell, details = _map_target(world, request)
    x, y = screen.cell_to_screen(cell)
    point = (x + request.offset_x, y + request.offset_y)
    screen.set_hover(kind, ref, label, point, request.duration_ms, details)
    return "Hover target is active.", screen.describe_hover()


def _map_target(
    world: WorldCore, request: HoverRequest
) -> tuple[str, str, str, Cell, dict[str, Any]]:
    if request.thing_id and request.thing_id.strip():
        game = world.require_colony().game
        pawn = game.pawns.get(request.thing_id.strip())
        if pawn is not None:  # the mod finds a pawn by its thing id too
            described = describe_pawn(world, pawn)
            return "pawn", pawn.id, described["label"], pawn.position, described
        thing = world.thing_by_id(request.thing_id.strip())
        described = describe_thing(world, thing)
        label = described["label"][:1].upper() + described["label"][1:]
        return "thing", thing.id, label, thing.position, described
    if (request.pawn_name or "").strip() or (request.pawn_id or "").strip():
        pawn = world.resolve_pawn(request.pawn_name, request.pawn_id, what="current-map pawn")
        described = describe_pawn(world, pawn)
        return "pawn", pawn.id, described["name"], pawn.position, described
    if request.x is None or request.z is None:
        raise MissingArgumentError(_BOTH_CELL_COORDINATES)
    game = world.require_colony().game
    cell = Cell(request.x, request.z)
    if not game.map.contains(cell):
        raise InvalidCellError(f"Cell ({cell.x}, {cell.z}) is out of bounds for the current map.")
    details = {"cell": cell_payload(cell), "mapId": game.map.id, "mapIndex": 0}
    return "cell", f"cell:{cell.x}:{cell.z}", f"Cell ({cell.x}, {cell.z})", cell, details
