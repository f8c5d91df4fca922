"""The sim against the mod's user pages: its README, its generated tool reference, the SDK
README and the companion-tools skill. Each test names the claim it pins; where a page leaves
the rule open, the mod's source decides (``RimWorldState.ResolvePawn`` for pawn names)."""

from __future__ import annotations

from typing import Any


async def test_a_pawn_name_is_a_short_or_full_name_not_first_and_last_name(
    open_sim: Any,
) -> None:
    # "pawnName: Optional colonist name, short name, or full name": the mod compares the
    # query with the pawn's short name and its full name ("First 'Nick' Last"), exactly and
    # then as a part of either, ignoring case; "First Last" is neither
    async with open_sim() as sim:
        colonists = (await sim.call("rimworld/list_colonists"))["colonists"]
        firsts = [c["fullName"].split()[0] for c in colonists]
        pawn = next(c for c, f in zip(colonists, firsts, strict=True) if firsts.count(f) == 1)
        first, *_, last = pawn["fullName"].split()
        refused = await sim.call("rimworld/select_pawn", pawnName=f"{first} {last}")
        by_full = await sim.call("rimworld/select_pawn", pawnName=pawn["fullName"].upper())
        by_short = await sim.call("rimworld/select_pawn", pawnName=pawn["name"].lower())
        by_first = await sim.call("rimworld/select_pawn", pawnName=first)
    assert refused["success"] is False
    assert refused["message"] == f"Could not find player-controlled colonist '{first} {last}'."
    for answer in (by_full, by_short, by_first):
        assert answer["success"] is True
        assert answer["selected"]["pawnId"] == pawn["pawnId"]
