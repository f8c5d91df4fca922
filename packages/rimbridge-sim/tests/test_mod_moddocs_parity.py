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


def _setting(settings: dict[str, Any], name: str) -> Any:
    return next(c["value"] for c in settings["root"]["children"] if c["name"] == name)


async def test_a_mod_settings_dialog_checkbox_changes_the_mods_settings_and_closing_writes_them(
    open_sim: Any,
) -> None:
    # README: drive built-in UI (get_ui_layout -> click_ui_target) and change mod settings.
    # RimWorld's Dialog_ModSettings draws the mod's DoSettingsWindowContents, whose checkboxes
    # are bound to the ModSettings fields, and its PreClose calls Mod.WriteSettings()
    async with open_sim() as sim:
        mod_id = (await sim.call("rimworld/list_mod_settings_surfaces"))["surfaces"][0]["modId"]
        before = _setting(await sim.call("rimworld/get_mod_settings", modId=mod_id), "enabled")
        await sim.call("rimworld/open_mod_settings", modId=mod_id)
        layout = await sim.call("rimworld/get_ui_layout")
        elements = layout["surfaces"][0]["elements"]
        checkbox = next(e for e in elements if e["kind"] == "checkbox" and e["label"] == "enabled")
        close = next(e for e in elements if e["kind"] == "button" and e["label"] == "Close")
        assert checkbox["isChecked"] is before
        await sim.call("rimworld/click_ui_target", targetId=checkbox["targetId"])
        in_memory = await sim.call("rimworld/get_mod_settings", modId=mod_id)
        await sim.call("rimworld/reload_mod_settings", modId=mod_id)  # drops unsaved changes
        unsaved = await sim.call("rimworld/get_mod_settings", modId=mod_id)
        await sim.call("rimworld/open_mod_settings", modId=mod_id)
        layout = await sim.call("rimworld/get_ui_layout")
        elements = layout["surfaces"][0]["elements"]
        checkbox = next(e for e in elements if e["kind"] == "checkbox" and e["label"] == "enabled")
        close = next(e for e in elements if e["kind"] == "button" and e["label"] == "Close")
        await sim.call("rimworld/click_ui_target", targetId=checkbox["targetId"])
        await sim.call("rimworld/click_ui_target", targetId=close["targetId"])
        await sim.call("rimworld/reload_mod_settings", modId=mod_id)
        written = await sim.call("rimworld/get_mod_settings", modId=mod_id)
    assert _setting(in_memory, "enabled") is (not before)
    assert _setting(unsaved, "enabled") is before
    assert _setting(written, "enabled") is (not before)
