"""The Architect menu as data: categories and their designators, with the stable ids the
real mod gives them (``architect-category:<def>``, ``architect-designator:<def>:<key>``)."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from typing import Final

from rimbridge_sim.world.model import DesignationKind

__all__ = [
    "CATEGORIES",
    "Category",
    "DesignatorSpec",
    "all_designators",
    "category_id",
    "category_key",
    "designator_id",
    "normalize_segment",
]


_CATEGORY_PREFIX: Final = "architect-category:"


def normalize_segment(value: str) -> str:
    """The mod's id segment: letters and digits (any script) lowercased, every other run
    turned into one ``-``, none at either end."""
    out: list[str] = []
    for char in value.strip():
        if _letter_or_digit(char):
            out.append(char.lower())
        elif out and out[-1] != "-":
            out.append("-")
    text = "".join(out).rstrip("-")
    if not text:
        raise ValueError(f"{value!r} has no usable characters for an id")
    return text


def _letter_or_digit(char: str) -> bool:
    # .NET's char.IsLetterOrDigit: the Unicode letter categories and decimal digits only
    return unicodedata.category(char) in ("Lu", "Ll", "Lt", "Lm", "Lo", "Nd")


def category_key(text: str | None) -> str | None:
    """The category a category id or def name names (the mod's ``TryGetCategoryKey``): the
    text trimmed, an ``architect-category:`` prefix in any case removed, the rest normalized;
    ``None`` when nothing usable is left."""
    if not text or not text.strip():
        return None
    candidate = text.strip()
    if candidate[: len(_CATEGORY_PREFIX)].lower() == _CATEGORY_PREFIX:
        candidate = candidate[len(_CATEGORY_PREFIX) :]
    try:
        return normalize_segment(candidate)
    except ValueError:
        return None


def category_id(def_name: str) -> str:
    return _CATEGORY_PREFIX + normalize_segment(def_name)


def designator_id(category: str, *keys: str) -> str:
    return "architect-designator:" + ":".join(normalize_segment(k) for k in (category, *keys))


@dataclass(frozen=True)
class DesignatorSpec:
    """One designator of the Architect menu."""

    key: str
    label: str
    class_name: str
    application: str
    """``designation``, ``build``, ``zone`` or ``area``."""
    description: str
    designation: DesignationKind | None = None
    build_def: str | None = None
    zone_kind: str | None = None
    """``Stockpile``, ``DumpingStockpile``, ``Growing`` or ``delete`` for zone designators."""
    area: tuple[str, bool] | None = None
    """Area designators: (area kind, expand?)."""
    cancel: bool = False
    children: tuple[DesignatorSpec, ...] = ()
    drag_measurements: bool = False

    @property
    def kind(self) -> str:
        if self.children:
            return "dropdown"
        return "build" if self.application == "build" else "designator"


@dataclass(frozen=True)
class Category:
    def_name: str
    label: str
    order: int
    preferred_column: int
    designators: tuple[DesignatorSpec, ...] = field(default=())
    show_power_grid: bool = False

    @property
    def id(self) -> str:
        return category_id(self.def_name)


def _order(
    key: str, label: str, kind: DesignationKind | None, text: str, **extra: object
) -> DesignatorSpec:
    class_name = "RimWorld.Designator_" + key
    return DesignatorSpec(
        "label-" + normalize_segment(label),
        label,
        class_name,
        "designation",
        text,
        kind,
        **extra,  # type: ignore[arg-type]
    )


def _build(def_name: str, label: str) -> DesignatorSpec:
    return DesignatorSpec(
        "build-" + def_name,
        label,
        "RimWorld.Designator_Build",
        "build",
        f"Place a blueprint for a {label.lower()}; colonists build it.",
        build_def=def_name,
        drag_measurements=def_name in ("Wall", "WoodPlankFloor", "MetalTile", "SilverTile"),
    )


def _zone(key: str, label: str, kind: str, text: str) -> DesignatorSpec:
    return DesignatorSpec(
        "label-" + normalize_segment(label),
        label,
        "RimWorld.Designator_" + key,
        "zone",
        text,
        zone_kind=kind,
        drag_measurements=True,
    )


def _area(key: str, label: str, area: str, expand: bool, text: str) -> DesignatorSpec:
    return DesignatorSpec(
        "label-" + normalize_segment(label),
        label,
        "RimWorld.Designator_" + key,
        "area",
        text,
        area=(area, expand),
        drag_measurements=True,
    )


_STOCKPILES: Final = (
    _zone("ZoneAddStockpile_Resources", "Stockpile zone", "Stockpile", "Store items here."),
    _zone("ZoneAddStockpile_Dumping", "Dumping stockpile", "DumpingStockpile", "Dump chunks here."),
)

CATEGORIES: Final[tuple[Category, ...]] = (
    Category(
        "Orders",
        "Orders",
        1,
        0,
        (
            _order(
                "Deconstruct", "Deconstruct", DesignationKind.DECONSTRUCT, "Take a building apart."
            ),
            _order("Cancel", "Cancel", None, "Remove designations and blueprints.", cancel=True),
            _order("Mine", "Mine", DesignationKind.MINE, "Dig through rock."),
            _order("PlantsCut", "Cut plants", DesignationKind.CUT, "Cut plants down."),
            _order("Haul", "Haul things", DesignationKind.HAUL, "Carry items to storage."),
        ),
    ),
    Category(
        "Zone",
        "Zone",
        2,
        0,
        (
            DesignatorSpec(
                "dropdown-label-stockpile-zone",
                "Stockpile zone",
                "Verse.Designator_Dropdown",
                "zone",
                "Stockpile zones.",
                children=_STOCKPILES,
            ),
            _zone("ZoneAdd_Growing", "Growing zone", "Growing", "Grow crops here."),
            _zone("ZoneDelete_Shrink", "Delete zone", "delete", "Remove cells from zones."),
            _area("AreaHomeExpand", "Expand home area", "Home", True, "Colonists keep it tidy."),
            _area("AreaHomeClear", "Clear home area", "Home", False, "Shrink the home area."),
            _area(
                "AreaAllowedExpand",
                "Expand allowed area",
                "Allowed",
                True,
                "Add cells to the selected allowed area.",
            ),
            _area(
                "AreaAllowedClear",
                "Clear allowed area",
                "Allowed",
                False,
                "Remove cells from the selected allowed area.",
            ),
            _area("AreaBuildRoof", "Build roof", "BuildRoof", True, "Colonists build a roof."),
            _area("AreaNoRoof", "No roof", "NoRoof", True, "Colonists remove the roof."),
        ),
    ),
    Category(
        "Structure",
        "Structure",
        3,
        1,
        (_build("Wall", "Wall"), _build("Door", "Door"), _build("Column", "Column")),
    ),
    Category(
        "Production",
        "Production",
        4,
        1,
        (_build("Campfire", "Campfire"), _build("ButcherSpot", "Butcher spot")),
    ),
    Category(
        "Furniture",
        "Furniture",
        5,
        1,
        (_build("Bed", "Bed"), _build("Table1x2c", "Table (1x2)"), _build("Stool", "Stool")),
    ),
    Category("Power", "Power", 6, 2, (), show_power_grid=True),
    Category(
        "Floors",
        "Floors",
        7,
        2,
        (
            _build("WoodPlankFloor", "Wood floor"),
            # RimWorld groups the tiles in a dropdown, named after its first child
            DesignatorSpec(
                "dropdown-label-steel-tile",
                "Steel tile",
                "Verse.Designator_Dropdown",
                "build",
                "Metal tiles.",
                children=(_build("MetalTile", "Steel tile"), _build("SilverTile", "Silver tile")),
            ),
        ),
    ),
    Category("Misc", "Misc", 8, 2, (_build("TorchLamp", "Torch lamp"),)),
)


@dataclass(frozen=True)
class Placed:
    """A designator in its category: its id, its parent's id, its position."""

    spec: DesignatorSpec
    category: Category
    id: str
    parent_id: str | None
    index: int
    child_index: int | None


def all_designators(category: Category) -> list[Placed]:
    """A category's designators with dropdowns flattened (the parent, then its children)."""
    placed: list[Placed] = []
    for index, spec in enumerate(category.designators, start=1):
        root = designator_id(category.def_name, spec.key)
        placed.append(Placed(spec, category, root, None, index, None))
        for child_index, child in enumerate(spec.children, start=1):
            child_id = designator_id(category.def_name, spec.key, child.key)
            placed.append(Placed(child, category, child_id, root, index, child_index))
    return placed
