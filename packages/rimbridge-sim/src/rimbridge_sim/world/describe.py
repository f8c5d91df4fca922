"""Plain JSON views of the world in the shapes RimBridge's tools return.

The real mod describes pawns, things, cells, zones, areas and the camera the same way across
its tools; these functions are the one place the simulation builds those objects (camelCase
keys, cells as ``{"x", "z"}``). They read the world and change nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from rimbridge_sim.world.model import (
    FLOOR_DEFS,
    THING_DEFS,
    Cell,
    DesignationKind,
    Terrain,
    ThingCategory,
)
from rimbridge_sim.world.state import Area, Designation, Pawn, Thing, Zone

if TYPE_CHECKING:
    from rimbridge_sim.world._core import WorldCore

__all__ = [
    "DESIGNATION_DEFS",
    "SCREEN_HEIGHT",
    "SCREEN_WIDTH",
    "cell_payload",
    "describe_area",
    "describe_camera",
    "describe_cell",
    "describe_pawn",
    "describe_thing",
    "describe_zone",
    "fogged",
    "hit_points",
    "label_cap",
    "label_cap_no_count",
    "pawn_name",
    "stuff_def_name",
    "thing_number",
    "view_rect",
    "walkable",
    "zone_base_label",
]

SCREEN_WIDTH: Final = 1280
"""The simulated screen, in RimWorld UI logical pixels."""
SCREEN_HEIGHT: Final = 720

DESIGNATION_DEFS: Final[dict[DesignationKind, str]] = {
    DesignationKind.MINE: "Mine",
    DesignationKind.CUT: "CutPlant",
    DesignationKind.HAUL: "Haul",
    DesignationKind.DECONSTRUCT: "Deconstruct",
    DesignationKind.BUILD: "Build",
}
_ROOF: Final = {True: "RoofRockThick", False: None}
_STUFFED: Final = frozenset({"Wall", "Door", "Bed"})
"""The buildings the sim's Architect places with a stuff (wood, as its designators say)."""
_HIT_POINTS: Final[dict[str, int]] = {
    "MealSimple": 50,
    "ComponentIndustrial": 70,
    "MedicineHerbal": 60,
    "Plant_TreeOak": 300,
    "Plant_Potato": 85,
    "Wall": 195,
    "Door": 104,
    "Bed": 91,
    "TorchLamp": 50,
    "ButcherSpot": -1,
}
_CATEGORY_HIT_POINTS: Final = {
    ThingCategory.ITEM: 100,
    ThingCategory.PLANT: 100,
    ThingCategory.BUILDING: 150,
}


def cell_payload(cell: Cell) -> dict[str, int]:
    return {"x": cell.x, "z": cell.z}


def thing_number(some_id: str) -> int | None:
    """RimWorld's ``thingIDNumber``: the digits at the end of a load id."""
    digits = ""
    for ch in reversed(some_id):
        if not ch.isdigit():
            break
        digits = ch + digits
    return int(digits) if digits else None


def label_cap_no_count(thing: Thing) -> str:
    """RimWorld's ``LabelCapNoCount``: the def's label with its first letter in capitals."""
    label = thing.definition.label
    return label[:1].upper() + label[1:]


def label_cap(thing: Thing) -> str:
    """RimWorld's ``LabelCap``: ``Steel x30`` for a stack, ``Wall`` for one thing."""
    label = label_cap_no_count(thing)
    return label if thing.stack_count <= 1 else f"{label} x{thing.stack_count}"


def hit_points(thing: Thing) -> int:
    """``HitPoints``: the sim models no damage, so a thing has its def's maximum (-1 for a def
    without hit points, as RimWorld reports it)."""
    definition = thing.definition
    return _HIT_POINTS.get(thing.def_name, _CATEGORY_HIT_POINTS[definition.category])


def stuff_def_name(def_name: str) -> str | None:
    """The stuff a building is made of (``None`` for things made of no stuff)."""
    return "WoodLog" if def_name in _STUFFED else None


def pawn_name(pawn: Pawn) -> str:
    """RimWorld's short name (``Name.ToStringShort``): the nickname."""
    return pawn.nickname


def describe_pawn(world: WorldCore, pawn: Pawn) -> dict[str, Any]:
    """A pawn as the mod describes it, plus the needs and job detail the simulation tracks."""
    game = world.game
    job = pawn.job
    return {
        "pawnId": pawn.id,
        "thingIdNumber": thing_number(pawn.id),
        "name": pawn_name(pawn),
        "fullName": pawn.full_name,
        "label": pawn.nickname,
        "selected": pawn.id in world.ui.selection,
        "drafted": pawn.drafted,
        "downed": pawn.downed,
        "dead": False,
        "spawned": True,
        "map": "0",
        "mapId": None if game is None else game.map.id,
        "mapIndex": 0,
        "position": cell_payload(pawn.position),
        "job": None if job is None else job.kind.value,
        "mentalState": None,
        "faction": "New Arrivals",
        "health": round(pawn.health, 4),
        "needs": {"food": round(pawn.food, 4), "mood": round(pawn.mood, 4)},
        "carriedThingId": pawn.carrying,
        "jobTarget": None if job is None or job.target is None else cell_payload(job.target),
        "jobOperationId": None if job is None else job.operation_id,
    }


def describe_thing(world: WorldCore, thing: Thing) -> dict[str, Any]:
    """A thing as the mod describes it (``thingId``, ``defName``, ``position``, ...)."""
    game = world.game
    definition = thing.definition
    return {
        "thingId": thing.id,
        "thingIdNumber": thing_number(thing.id),
        "defName": thing.def_name,
        "label": label_cap(thing),
        "className": _class_name(thing),
        "spawned": True,
        "mapId": None if game is None else game.map.id,
        "mapIndex": 0,
        "position": cell_payload(thing.position),
        "category": definition.category.value,
        "stackCount": thing.stack_count,
        "stackLimit": definition.stack_limit,
    }


def _class_name(thing: Thing) -> str:
    category = thing.definition.category
    if category is ThingCategory.PLANT:
        return "RimWorld.Plant"
    if category is ThingCategory.BUILDING:
        return "RimWorld.Building_Door" if thing.def_name == "Door" else "Verse.Building"
    return "Verse.ThingWithComps"


def zone_base_label(zone: Zone) -> str:
    """RimWorld's ``Zone.BaseLabel``: the label without the number the zone manager adds."""
    return zone.label.rstrip("0123456789 ")


def describe_zone(zone: Zone | None) -> dict[str, Any] | None:
    if zone is None:
        return None
    cells = sorted(zone.cells, key=lambda c: (c.z, c.x))
    first = cells[0] if cells else Cell(0, 0)
    kind_class = {
        "Stockpile": "RimWorld.Zone_Stockpile",
        "DumpingStockpile": "RimWorld.Zone_Stockpile",
        "Growing": "RimWorld.Zone_Growing",
    }
    return {
        "id": zone.id,
        "label": zone.label,
        "baseLabel": zone_base_label(zone),
        "inspectLabel": zone.label,
        "className": kind_class.get(zone.kind, "RimWorld.Zone"),
        "cellCount": len(zone.cells),
        "hidden": zone.hidden,
        "position": cell_payload(first),
        "kind": zone.kind,
        "plantDefName": zone.plant_def,
    }


def describe_area(area: Area | None) -> dict[str, Any] | None:
    if area is None:
        return None
    class_name = {
        "Home": "RimWorld.Area_Home",  # RimWorld's home area lives in its RimWorld namespace
        "BuildRoof": "Verse.Area_BuildRoof",
        "NoRoof": "Verse.Area_NoRoof",
        "SnowClear": "Verse.Area_SnowClear",
    }.get(area.kind, "Verse.Area_Allowed")
    return {
        "id": area.id,
        "label": area.label,
        "baseLabel": area.label if area.kind != "Allowed" else "Area",
        "renamableLabel": area.label,
        "className": class_name,
        "cellCount": len(area.cells),
        "listPriority": area.list_priority,
        "mutable": area.mutable,
        "assignableAsAllowed": area.assignable,
    }


def fogged(world: WorldCore, cell: Cell) -> bool:
    """RimWorld fogs the inside of mountains: rock whose neighbours are all rock."""
    game = world.game
    if game is None:
        return False
    game_map = game.map
    if game_map.terrain_at(cell) is not Terrain.STONE:
        return False
    for dx in (-1, 0, 1):
        for dz in (-1, 0, 1):
            other = Cell(cell.x + dx, cell.z + dz)
            if game_map.contains(other) and game_map.terrain_at(other) is not Terrain.STONE:
                return False
    return True


def walkable(world: WorldCore, cell: Cell) -> bool:
    colony = world.colony
    return colony is not None and colony.passable(cell)


def describe_cell(world: WorldCore, cell: Cell) -> dict[str, Any]:
    """Everything on one cell, as ``rimworld/get_cell_info`` returns it."""
    colony = world.colony
    assert colony is not None
    game = colony.game
    things = colony.things_at(cell)
    pawns = colony.pawns_at(cell)
    designations = [d for d in game.designations.values() if d.cell == cell]
    # a build order is a blueprint thing on the cell, not a designation (as in the game)
    blueprints = [d for d in designations if d.kind is DesignationKind.BUILD]
    builds = sorted({d.build_def or "Wall" for d in blueprints})
    others = [d for d in designations if d.kind is not DesignationKind.BUILD]
    zone = next((z for z in game.zones.values() if cell in z.cells), None)
    areas = sorted(
        (a for a in game.areas.values() if cell in a.cells),
        key=lambda a: (a.list_priority, a.label),
    )
    terrain = game.map.terrain_at(cell)
    return {
        "x": cell.x,
        "z": cell.z,
        "terrainDefName": terrain.value,
        "roofDefName": _ROOF[game.map.roofed_at(cell)],
        "fogged": fogged(world, cell),
        "walkable": colony.passable(cell),
        "thingCount": len(things) + len(pawns) + len(blueprints),
        "designationCount": len(others),
        "blueprintBuildDefs": builds,
        "frameBuildDefs": [],
        "solidThingDefs": sorted({t.def_name for t in things} | {"Human" for _ in pawns}),
        "zone": describe_zone(zone),
        "areaCount": len(areas),
        "areas": [describe_area(a) for a in areas],
        "things": [_thing_at_cell(t) for t in things]
        + [_pawn_at_cell(p) for p in pawns]
        + [_blueprint_at_cell(d) for d in blueprints],
        "designations": [_designation_at_cell(world, d) for d in others],
    }


def _at_cell(
    def_name: str,
    label: str,
    class_name: str,
    *,
    stuff: str | None = None,
    blueprint_of: str | None = None,
    hit_points: int = -1,
) -> dict[str, Any]:
    """A thing on a cell as the mod's ``DescribeThingAtCell`` gives it (the sim has no
    frames: construction finishes in place)."""
    return {
        "defName": def_name,
        "label": label,
        "className": class_name,
        "stuffDefName": stuff,
        "isBlueprint": blueprint_of is not None,
        "isBlueprintBuild": blueprint_of is not None,
        "blueprintBuildDefName": blueprint_of,
        "isFrame": False,
        "frameBuildDefName": None,
        "hitPoints": hit_points,
    }


def _thing_at_cell(thing: Thing) -> dict[str, Any]:
    return {
        **_at_cell(
            thing.def_name,
            label_cap(thing),
            _class_name(thing),
            stuff=stuff_def_name(thing.def_name),
            hit_points=hit_points(thing),
        ),
        "thingId": thing.id,
        "stackCount": thing.stack_count,
    }


def _pawn_at_cell(pawn: Pawn) -> dict[str, Any]:
    return {**_at_cell("Human", pawn.nickname, "Verse.Pawn"), "thingId": pawn.id, "stackCount": 1}


def _blueprint_at_cell(designation: Designation) -> dict[str, Any]:
    build = designation.build_def or "Wall"
    definition = THING_DEFS.get(build)
    label = build if definition is None else definition.label
    return {
        **_at_cell(
            f"Blueprint_{build}",
            f"{label[:1].upper()}{label[1:]} (blueprint)",
            "RimWorld.Blueprint_Build",
            stuff=stuff_def_name(build),
            blueprint_of=build,
        ),
        "thingId": designation.id,
        "stackCount": 1,
    }


def _designation_at_cell(world: WorldCore, designation: Designation) -> dict[str, Any]:
    game = world.game
    target = None
    if game is not None and designation.thing_id is not None:
        thing = game.things.get(designation.thing_id)
        target = None if thing is None else thing.def_name
    return {
        "defName": DESIGNATION_DEFS[designation.kind],
        "targetCell": cell_payload(designation.cell),
        "targetThingDefName": target,
        "designationId": designation.id,
        "claimedBy": designation.claimed_by,
    }


def view_rect(world: WorldCore) -> dict[str, int]:
    """The cells the camera shows (clipped to the map)."""
    camera = world.ui.camera
    half_height = camera.root_size
    half_width = camera.root_size * SCREEN_WIDTH / SCREEN_HEIGHT
    game = world.game
    width, height = (game.map.width, game.map.height) if game is not None else (0, 0)
    min_x = max(0, int(camera.x - half_width))
    min_z = max(0, int(camera.z - half_height))
    max_x = min(max(0, width - 1), int(camera.x + half_width))
    max_z = min(max(0, height - 1), int(camera.z + half_height))
    return {
        "minX": min_x,
        "minZ": min_z,
        "maxX": max_x,
        "maxZ": max_z,
        "width": max(0, max_x - min_x + 1),
        "height": max(0, max_z - min_z + 1),
    }


def describe_camera(world: WorldCore) -> dict[str, Any]:
    """``rimworld/get_camera_state``: position, zoom and the visible rect."""
    camera = world.ui.camera
    game = world.game
    size = camera.root_size
    zoom = "Closest" if size < 15 else "Close" if size < 24 else "Middle" if size < 40 else "Far"
    return {
        "success": True,
        "map": None if game is None else "0",
        "mapId": None if game is None else game.map.id,
        "mapIndex": None if game is None else 0,
        "rootSize": round(size, 3),
        "zoomRootSize": round(size, 3),
        "zoomRange": zoom,
        "mapPosition": {"x": int(camera.x), "z": int(camera.z)},
        "viewRect": view_rect(world),
    }


def floor_def(def_name: str) -> Terrain | None:
    return FLOOR_DEFS.get(def_name)
