"""The selection: what is selected, what the inspect pane says about it, and its gizmos (the
command buttons at the bottom). A subsystem of the world (``world.selection``)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rimbridge_sim.world._core import WorldCore
from rimbridge_sim.world._windows import INSPECT_TABS
from rimbridge_sim.world.describe import (
    cell_payload,
    describe_pawn,
    describe_thing,
    hit_points,
    label_cap,
    label_cap_no_count,
)
from rimbridge_sim.world.errors import (
    MissingArgumentError,
    RefusedError,
    StaleIdError,
    UnknownIdError,
)
from rimbridge_sim.world.model import DesignationKind, LogLevel, ThingCategory
from rimbridge_sim.world.state import Pawn, Thing

__all__ = ["MAX_DETAILED_OBJECTS", "Gizmo", "GizmoRefusedError", "Selection", "stable_hash"]

MAX_DETAILED_OBJECTS = 12
"""The most selected objects the mod describes one by one."""


def stable_hash(*parts: str) -> str:
    """The mod's id hash: the parts trimmed and joined one a line, SHA-256 over their UTF-8,
    the first 8 bytes as 16 lowercase hex digits (the same in every run)."""
    payload = "\n".join(part.strip() for part in parts)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


class GizmoRefusedError(RefusedError):
    """A gizmo press the mod refuses in its payload, with the fields it adds to the message."""

    def __init__(self, message: str, fields: dict[str, Any], code: str = "refused") -> None:
        super().__init__(message)
        self.fields = fields
        self.code = code


@dataclass
class Gizmo:
    id: str
    ordinal: int
    gizmo_type: str
    label: str
    description: str
    owners: list[str]
    action: Callable[[], str]
    disabled_reason: str | None = None
    hot_key: tuple[str, str] | None = None
    """The key binding's def name and its main key (the draft toggle's ``R``)."""


class Selection:
    """Selecting pawns and things, inspecting them, and their gizmos."""

    def __init__(self, world: WorldCore) -> None:
        self._world = world

    # -- what is selected --------------------------------------------------------------------

    @property
    def ids(self) -> list[str]:
        return self._world.ui.selection

    def fingerprint(self) -> str:
        # the mod hashes one token per selected object, in selection order
        return "sel-" + stable_hash(*self.ids)

    def objects(self) -> list[Pawn | Thing]:
        game = self._world.game
        if game is None:
            return []
        found: list[Pawn | Thing] = []
        for some_id in self.ids:
            if some_id in game.pawns:
                found.append(game.pawns[some_id])
            elif some_id in game.things:
                found.append(game.things[some_id])
        return found

    def kinds(self) -> list[str]:
        """Each selected object's kind (``pawn``, ``thing``), in selection order."""
        return ["pawn" if isinstance(o, Pawn) else "thing" for o in self.objects()]

    def select(self, some_id: str, *, append: bool) -> None:
        self._world.require_colony()
        if not append:
            self.ids.clear()
        if some_id not in self.ids:
            self.ids.append(some_id)
        self._world.ui.inspect_tab = None

    def deselect(self, some_id: str) -> None:
        if some_id in self.ids:
            self.ids.remove(some_id)

    def clear(self) -> None:
        self.ids.clear()
        self._world.ui.inspect_tab = None

    def snapshot(self, *, details: bool = True) -> dict[str, Any]:
        objects = self.objects()
        return {
            "hasSelection": bool(objects),
            "selectionFingerprint": self.fingerprint(),
            "selectedCount": len(objects),
            "selectedObjects": [
                self.describe(o, details=details) for o in objects[:MAX_DETAILED_OBJECTS]
            ],
            "selectionDetailsTruncated": len(objects) > MAX_DETAILED_OBJECTS,
        }

    # -- inspecting --------------------------------------------------------------------------

    def inspect_lines(self, item: Pawn | Thing) -> list[str]:
        if isinstance(item, Pawn):
            job = item.job
            doing = "Idle" if job is None else _job_text(item)
            lines = [
                "Drafted" if item.drafted else "Undrafted",
                doing,
                f"Food: {item.food:.0%}",
                f"Mood: {item.mood:.0%}",
                f"Health: {item.health:.0%}" + (" (downed)" if item.downed else ""),
            ]
            if item.carrying is not None:
                lines.append(f"Carrying: {item.carrying}")
            return lines
        definition = item.definition
        lines = [
            f"{definition.label} x{item.stack_count}"
            if definition.stack_limit > 1
            else definition.label
        ]
        if definition.category is ThingCategory.PLANT:
            lines.append("Growth: 100%")
        return lines

    def tab_types(self, item: Pawn | Thing) -> list[str]:
        if isinstance(item, Pawn):
            return [f"RimWorld.{tab_type}" for tab_type, _, _ in INSPECT_TABS]
        return []

    def describe(self, item: Pawn | Thing, *, details: bool = True) -> dict[str, Any]:
        """A selected object as the mod describes it: the inspect pane's label, lines and tabs
        only with ``details``; the object's own record (``details``) always."""
        world = self._world
        lines = self.inspect_lines(item) if details else None
        if isinstance(item, Pawn):
            record = describe_pawn(world, item)
            kind, type_name, label = "pawn", "Verse.Pawn", item.nickname
        else:
            record = self.thing_details(item)
            kind, type_name, label = "thing", record["className"], label_cap(item)
        return {
            "kind": kind,
            "type": type_name,
            "id": item.id,
            "label": label,
            "inspectLabel": label,
            "inspectString": "\n".join(lines) if lines else None,
            "inspectStringLines": lines,
            "inspectTabTypes": self.tab_types(item) if details else None,
            "reference": self.reference(item),
            "details": record,
        }

    def reference(self, item: Pawn | Thing) -> dict[str, Any]:
        """The mod's owner reference: kind, id, label, map and cell."""
        game = self._world.game
        pawn = isinstance(item, Pawn)
        return {
            "kind": "pawn" if pawn else "thing",
            "id": item.id,
            "label": item.nickname if isinstance(item, Pawn) else label_cap(item),
            "mapId": None if game is None else game.map.id,
            "mapIndex": None if game is None else 0,
            "position": cell_payload(item.position),
        }

    def thing_details(self, thing: Thing) -> dict[str, Any]:
        """A selected thing's record, in the mod's order, then the sim's extra fields."""
        record = describe_thing(self._world, thing)
        points = hit_points(thing)
        return {
            "thingId": record["thingId"],
            "thingIdNumber": record["thingIdNumber"],
            "defName": record["defName"],
            "label": record["label"],
            "spawned": record["spawned"],
            "stackCount": thing.stack_count,
            "hitPoints": points,
            "maxHitPoints": max(points, 0),
            "mapId": record["mapId"],
            "mapIndex": record["mapIndex"],
            "position": record["position"],
            "className": record["className"],
            "category": record["category"],
            "stackLimit": record["stackLimit"],
        }

    # -- gizmos ------------------------------------------------------------------------------

    def gizmos(self) -> list[Gizmo]:
        """The grouped gizmos of the selection, in the order RimWorld draws them."""
        world = self._world
        objects = self.objects()
        pawns = [o for o in objects if isinstance(o, Pawn)]
        things = [o for o in objects if isinstance(o, Thing)]
        fingerprint = self.fingerprint()
        found: list[Gizmo] = []

        def add(
            gizmo_type: str,
            label: str,
            description: str,
            owners: list[str],
            action: Callable[[], str],
            disabled: str | None = None,
            hot_key: tuple[str, str] | None = None,
        ) -> None:
            ordinal = len(found) + 1
            # the mod's signature (CreateGizmoSignatureParts): type, order ("0.####" of the
            # float: a whole number here), label, description, top-right label (none), group
            # size (one gizmo per owner) and the owners' tokens, sorted
            tokens = sorted(set(owners))
            order, size = str(ordinal), str(len(owners))
            signature = stable_hash(
                gizmo_type, order, label, description, "", size, "|".join(tokens)
            )
            gizmo_id = f"selection-gizmo:{fingerprint}:{ordinal}:{signature}"
            found.append(
                Gizmo(
                    gizmo_id,
                    ordinal,
                    gizmo_type,
                    label,
                    description,
                    owners,
                    action,
                    disabled,
                    hot_key,
                )
            )

        if pawns:
            drafted = all(p.drafted for p in pawns)
            downed = [p for p in pawns if p.downed]
            add(
                "Verse.Command_Toggle",
                "Draft",
                "Draft colonists to control them directly (toggle).",
                [p.id for p in pawns],
                lambda: self._toggle_draft(pawns, not drafted),
                "Downed colonists cannot be drafted." if downed and not drafted else None,
                ("Command_ColonistDraft", "R"),
            )
        for kind, label, category in (
            (DesignationKind.HAUL, "Haul things", ThingCategory.ITEM),
            (DesignationKind.CUT, "Cut plants", ThingCategory.PLANT),
            (DesignationKind.DECONSTRUCT, "Deconstruct", ThingCategory.BUILDING),
        ):
            owners = [t for t in things if t.definition.category is category]
            if owners:
                add(
                    "RimWorld.Designator_" + kind.value,
                    label,
                    f"Designate for {label.lower()}.",
                    [t.id for t in owners],
                    lambda kind=kind, owners=owners: self._designate(kind, owners),  # type: ignore[misc]
                )
        del world
        return found

    def describe_gizmo(self, gizmo: Gizmo) -> dict[str, Any]:
        game = self._world.game
        owners = []
        for owner_id in gizmo.owners:
            item = None if game is None else game.pawns.get(owner_id) or game.things.get(owner_id)
            if item is not None:
                owners.append(self.reference(item))
        return {
            "id": gizmo.id,
            "selectionFingerprint": self.fingerprint(),
            "ordinal": gizmo.ordinal,
            "gizmoType": gizmo.gizmo_type,
            "label": gizmo.label,
            "description": gizmo.description,
            "descriptionPostfix": None,
            "topRightLabel": None,
            "disabled": gizmo.disabled_reason is not None,
            "disabledReason": gizmo.disabled_reason,
            "visible": True,
            "order": float(gizmo.ordinal),
            "groupSize": len(gizmo.owners),
            "ownerCount": len(owners),
            "owners": owners,
            "hotKeyDef": None if gizmo.hot_key is None else gizmo.hot_key[0],
            "hotKey": None if gizmo.hot_key is None else gizmo.hot_key[1],
            "supportsRightClick": False,
            "reverseDesignator": gizmo.gizmo_type.startswith("RimWorld.Designator_"),
        }

    def execute_gizmo(self, gizmo_id: str) -> tuple[Gizmo, str]:
        """Press a gizmo; a refusal is a :class:`GizmoRefusedError` with the mod's fields."""
        if not gizmo_id.strip():
            raise GizmoRefusedError("A gizmo id is required.", {}, MissingArgumentError.code)
        if not self.objects():
            raise GizmoRefusedError(
                "No objects are currently selected.", {"requestedGizmoId": gizmo_id}
            )
        fingerprint = self.fingerprint()
        gizmos = self.gizmos()
        gizmo = next((g for g in gizmos if g.id == gizmo_id), None)
        if gizmo is None:
            parts = gizmo_id.split(":")
            # the mod says "stale" only for a well-formed id from another selection
            stale = (
                len(parts) == 4
                and parts[0] == "selection-gizmo"
                and parts[1]
                not in (
                    "",
                    fingerprint,
                )
            )
            message = (
                "The requested gizmo id no longer matches the current selection."
                if stale
                else f"Could not find selected gizmo '{gizmo_id}'."
            )
            raise GizmoRefusedError(
                message,
                {
                    "requestedGizmoId": gizmo_id,
                    "selectionFingerprint": fingerprint,
                    "availableGizmoIds": [g.id for g in gizmos],
                },
                StaleIdError.code if stale else UnknownIdError.code,
            )
        if gizmo.disabled_reason is not None:
            raise GizmoRefusedError(
                gizmo.disabled_reason,
                {
                    "requestedGizmoId": gizmo_id,
                    "selectionFingerprint": fingerprint,
                    "gizmo": self.describe_gizmo(gizmo),
                },
            )
        return gizmo, gizmo.action()

    def _toggle_draft(self, pawns: list[Pawn], drafted: bool) -> str:
        colony = self._world.require_colony()
        for pawn in pawns:
            if pawn.downed and drafted:
                continue
            if pawn.drafted != drafted:
                pawn.drafted = drafted
                colony.end_job(pawn)
                state = "drafted" if drafted else "released"
                self._world.emit(LogLevel.INFO, f"{pawn.label} was {state}", "pawn")
        return f"{'drafted' if drafted else 'undrafted'} {len(pawns)} colonist(s)"

    def _designate(self, kind: DesignationKind, things: list[Thing]) -> str:
        colony = self._world.require_colony()
        added = 0
        for thing in things:
            if colony.designation_refusal(kind, thing.position) is None:
                colony.add_designation(kind, thing.position, None, self._world.cause)
                added += 1
        return f"designated {added} thing(s) for {kind.value}"

    # -- the selected pawn's inventory ----------------------------------------------------------

    def inventory(self) -> dict[str, Any]:
        pawns = [o for o in self.objects() if isinstance(o, Pawn)]
        if len(pawns) != 1:
            raise RefusedError("No single pawn is selected.")
        pawn = pawns[0]
        game = self._world.game
        carried = None
        if game is not None and pawn.carrying is not None and pawn.carrying in game.things:
            thing = game.things[pawn.carrying]
            carried = {
                "thingId": thing.id,
                "defName": thing.def_name,
                "label": label_cap_no_count(thing),
                "stackCount": thing.stack_count,
            }
        return {
            "pawnId": pawn.id,
            "pawnName": pawn.nickname,
            "currentJob": None if pawn.job is None else pawn.job.kind.value,
            "currentJobReport": None if pawn.job is None else _job_text(pawn),
            "carriedThing": carried,
            "inventoryCount": 0,
            "inventoryItems": [],
            "hauledInventoryThingIds": [],
        }


def _job_text(pawn: Pawn) -> str:
    job = pawn.job
    if job is None:
        return "Idle"
    where = "" if job.target is None else f" at {job.target}"
    return f"{job.kind.value}{where}"
