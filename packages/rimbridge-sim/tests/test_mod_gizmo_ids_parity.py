"""Gizmo ids hashed from the parts the mod hashes (``RimWorldSelectionSemantics``
``CreateGizmoSignatureParts`` through ``SelectionGizmoIds.CreateGizmoId``)."""

from __future__ import annotations

import hashlib
from typing import Any


def _mod_gizmo_id(gizmo: dict[str, Any]) -> str:
    owners = sorted({owner["id"] for owner in gizmo["owners"]})
    parts = [
        gizmo["gizmoType"],
        f"{gizmo['order']:g}",  # "0.####" of a whole number
        gizmo["label"],
        gizmo["description"],
        gizmo["topRightLabel"] or "",
        str(gizmo["groupSize"]),
        "|".join(owners),
    ]
    digest = hashlib.sha256("\n".join(p.strip() for p in parts).encode()).hexdigest()[:16]
    return f"selection-gizmo:{gizmo['selectionFingerprint']}:{gizmo['ordinal']}:{digest}"


async def test_gizmo_ids_hash_the_mods_signature_parts(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        colonists = (await sim.call("rimworld/list_colonists"))["colonists"]
        await sim.call("rimworld/select_pawn", pawnId=colonists[0]["pawnId"])
        await sim.call("rimworld/select_pawn", pawnId=colonists[1]["pawnId"], append=True)
        gizmos = (await sim.call("rimworld/list_selected_gizmos"))["gizmos"]
        assert gizmos and gizmos[0]["groupSize"] == 2
        assert [g["id"] for g in gizmos] == [_mod_gizmo_id(g) for g in gizmos]
