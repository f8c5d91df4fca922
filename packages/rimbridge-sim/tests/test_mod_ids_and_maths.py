"""Ids, value graphs and layout maths as the mod's own unit tests pin them: the ids an agent
passes back (gizmo, alert, mod, settings surface and architect ids) have the mod's format, so
ids stored against one work the same way against the other."""

from __future__ import annotations

import hashlib
import re
from itertools import pairwise
from typing import Any

from rimbridge_sim.world._catalogue import category_key, normalize_segment
from rimbridge_sim.world._selection import stable_hash

HASH = r"[0-9a-f]{16}"


def _mod_hash(*parts: str) -> str:
    """The mod's ``ComputeStableHash``, written out independently."""
    payload = "\n".join(p.strip() for p in parts).encode("utf-8")
    return "".join(f"{b:02x}" for b in hashlib.sha256(payload).digest()[:8])


async def _select_first_colonist(sim: Any) -> dict[str, Any]:
    pawn = (await sim.call("rimworld/list_colonists"))["colonists"][0]
    await sim.call("rimworld/select_pawn", pawnName=pawn["name"])
    return pawn


def test_id_hashes_are_sixteen_hex_digits_of_sha256_over_trimmed_lines() -> None:
    assert stable_hash("Alert_Fire", "Alert_BreakRisk") == _mod_hash(
        "Alert_Fire", "Alert_BreakRisk"
    )
    assert stable_hash(" thing:Thing_1 ") == _mod_hash("thing:Thing_1")
    assert stable_hash() == "e3b0c44298fc1c14"


def test_id_hashes_change_when_the_order_of_the_parts_changes() -> None:
    assert stable_hash("a", "b") != stable_hash("b", "a")


async def test_gizmo_ids_carry_a_sel_fingerprint_and_sixteen_digit_hashes(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        await _select_first_colonist(sim)
        gizmos = await sim.call("rimworld/list_selected_gizmos")
        fingerprint = gizmos["selectionFingerprint"]
        assert re.fullmatch(f"sel-{HASH}", fingerprint)
        for ordinal, gizmo in enumerate(gizmos["gizmos"], 1):
            assert re.fullmatch(f"selection-gizmo:{fingerprint}:{ordinal}:{HASH}", gizmo["id"])


async def test_the_selection_fingerprint_follows_the_selection_order(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        first, second = (await sim.call("rimworld/list_colonists"))["colonists"][:2]
        await sim.call("rimworld/select_pawn", pawnId=first["pawnId"])
        await sim.call("rimworld/select_pawn", pawnId=second["pawnId"], append=True)
        one_way = (await sim.call("rimworld/list_selected_gizmos"))["selectionFingerprint"]
        await sim.call("rimworld/select_pawn", pawnId=second["pawnId"])
        await sim.call("rimworld/select_pawn", pawnId=first["pawnId"], append=True)
        other_way = (await sim.call("rimworld/list_selected_gizmos"))["selectionFingerprint"]
        assert one_way != other_way


async def test_alert_ids_carry_an_alerts_fingerprint_and_sixteen_digit_hashes(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        alerts = (await sim.call("rimworld/list_alerts"))["alerts"]
        assert alerts
        for ordinal, alert in enumerate(alerts, 1):
            assert re.fullmatch(f"alert:alerts-{HASH}:{ordinal}:{HASH}", alert["id"])


async def test_mod_ids_and_settings_surface_ids_end_in_sixteen_digit_hashes(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        mods = (await sim.call("rimworld/list_mods"))["mods"]
        for mod in mods:
            assert re.fullmatch(f"mod-config:{re.escape(mod['packageId'])}:{HASH}", mod["modId"])
        surfaces = (await sim.call("rimworld/list_mod_settings_surfaces"))["surfaces"]
        for surface in surfaces:
            expected = f"mod-settings:{surface['packageId']}:{_mod_hash(surface['handleType'])}"
            assert surface["modId"] == expected


def test_id_segments_keep_letters_of_any_script_and_fold_other_runs_into_one_dash() -> None:
    assert normalize_segment("Build Wall") == "build-wall"
    assert normalize_segment("build:wall") == "build-wall"
    assert normalize_segment("  Wall / Granite  ") == "wall-granite"
    assert normalize_segment("Mauer Ä/Ö") == "mauer-ä-ö"


def test_a_category_is_named_by_its_id_in_any_case_or_by_its_def_name() -> None:
    assert category_key("Structure") == "structure"
    assert category_key("architect-category:structure") == "structure"
    assert category_key("  architect-category:Orders  ") == "orders"
    assert category_key("ARCHITECT-CATEGORY:Orders") == "orders"
    assert category_key("///") is None
    assert category_key("   ") is None


async def test_architect_categories_resolve_by_prefix_in_any_case_and_loose_punctuation(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        for query in ("ARCHITECT-CATEGORY:Orders", "orders!", " Orders "):
            listed = await sim.call("rimworld/list_architect_designators", categoryId=query)
            assert listed["success"] is True, query


async def test_designator_ids_are_matched_exactly_apart_from_surrounding_blanks(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        listed = await sim.call("rimworld/list_architect_designators", categoryId="Orders")
        designator = listed["designators"][0]["id"]
        padded = await sim.call(
            "rimworld/select_architect_designator", designatorId=f" {designator} "
        )
        assert padded["success"] is True
        shouted = await sim.call(
            "rimworld/select_architect_designator", designatorId=designator.upper()
        )
        assert shouted["success"] is False
        assert shouted["message"] == f"Could not find architect designator '{designator.upper()}'."


TIDY = "sim.tidystockpiles"


def _child(node: dict[str, Any], name: str) -> dict[str, Any]:
    (found,) = [c for c in node["children"] if c["name"] == name]
    return found


async def test_settings_fields_are_listed_in_ordinal_name_order(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        root = (await sim.call("rimworld/get_mod_settings", modId=TIDY))["root"]
        names = [c["name"] for c in root["children"]]
        assert names == sorted(names)
        assert names[0] == "allowedDefs"


async def test_list_items_are_named_by_their_index_in_brackets(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        root = (await sim.call("rimworld/get_mod_settings", modId=TIDY))["root"]
        first = _child(root, "allowedDefs")["children"][0]
        assert (first["name"], first["path"], first["value"]) == ("[0]", "allowedDefs[0]", "Steel")


async def test_containers_at_the_depth_limit_are_marked_truncated(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        root = (await sim.call("rimworld/get_mod_settings", modId=TIDY, maxDepth=1))["root"]
        limits = _child(root, "limits")
        assert (limits["valueKind"], limits["truncated"], limits["children"]) == (
            "object",
            True,
            [],
        )
        listed = _child(root, "allowedDefs")
        assert (listed["truncated"], listed["count"], listed["children"]) == (True, 2, [])
        assert _child(root, "enabled")["truncated"] is False


async def test_the_entry_limit_cuts_collections_but_not_the_fields_of_an_object(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        read = await sim.call("rimworld/get_mod_settings", modId=TIDY, maxCollectionEntries=1)
        root = read["root"]
        assert (len(root["children"]), root["truncated"]) == (6, False)
        listed = _child(root, "allowedDefs")
        assert (len(listed["children"]), listed["truncated"], listed["count"]) == (1, True, 2)


async def _update(sim: Any, values: dict[str, Any]) -> dict[str, Any]:
    return await sim.call("rimworld/update_mod_settings", modId=TIDY, values=values, write=False)


async def test_settings_updates_apply_and_report_in_ordinal_path_order(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        updated = await _update(sim, {"sortSpeed": 2.0, "enabled": False, "limits.meals": 5})
        assert [u["path"] for u in updated["updates"]] == ["enabled", "limits.meals", "sortSpeed"]


async def test_settings_field_names_match_ignoring_case_when_none_matches_exactly(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        updated = await _update(sim, {"FillPercent": 40, "LIMITS.Meals": 7})
        assert updated["success"] is True
        root = updated["root"]
        assert _child(root, "fillPercent")["value"] == 40
        assert _child(_child(root, "limits"), "meals")["value"] == 7


async def test_an_index_past_the_end_of_a_list_grows_the_list(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        updated = await _update(sim, {"allowedDefs[3]": "Gold"})
        listed = _child(updated["root"], "allowedDefs")
        assert [c["value"] for c in listed["children"]] == ["Steel", "WoodLog", None, "Gold"]
        (record,) = updated["updates"]
        assert (record["changed"], record["previous"]["valueKind"]) == (True, "null")
        await sim.call("rimworld/update_mod_settings", modId=TIDY, values={"enabled": True})
        reloaded = await sim.call("rimworld/reload_mod_settings", modId=TIDY)
        listed = _child(reloaded["root"], "allowedDefs")
        assert [c["value"] for c in listed["children"]] == ["Steel", "WoodLog", None, "Gold"]


async def test_settings_values_are_converted_to_the_type_of_their_field(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        updated = await _update(
            sim, {"fillPercent": "55", "sortSpeed": 3, "enabled": "false", "haulPriority": 2}
        )
        values = {c["name"]: c["value"] for c in updated["root"]["children"]}
        assert (values["fillPercent"], values["sortSpeed"]) == (55, 3.0)
        assert (values["enabled"], values["haulPriority"]) == (False, "2")
        rounded = await _update(sim, {"fillPercent": 2.5})
        assert _child(rounded["root"], "fillPercent")["value"] == 2


async def test_a_settings_update_that_cannot_be_applied_says_which_mod_failed(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        refused = await _update(sim, {"enabled": False, "noSuchField": 1})
        assert refused["success"] is False
        assert refused["message"] == (
            f"Updating mod settings for '{TIDY}' failed: Could not resolve field 'noSuchField' "
            "on 'TidyStockpiles.TidySettings'."
        )
        read = await sim.call("rimworld/get_mod_settings", modId=TIDY)
        assert _child(read["root"], "enabled")["value"] is True


async def test_context_menu_option_rows_overlap_by_the_float_menu_spacing(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        pawn = await _select_first_colonist(sim)
        spot = {"x": pawn["position"]["x"], "z": pawn["position"]["z"] - 3}
        await sim.call("rimworld/spawn_thing", defName="MealSimple", **spot)
        await sim.call("rimworld/open_context_menu", **spot)
        menu = (await sim.call("rimworld/get_screen_targets"))["targets"]["contextMenu"]
        rects = [o["rect"] for o in menu["options"]]
        assert len(rects) >= 2
        window = menu["menuRect"]
        assert (rects[0]["x"], rects[0]["y"]) == (window["x"], window["y"])
        for above, below in pairwise(rects):
            assert below["y"] == above["y"] + above["height"] - 1
        assert rects[-1]["y"] + rects[-1]["height"] == window["y"] + window["height"]
        for ordinal, option in enumerate(menu["options"], 1):
            assert option["targetId"] == f"context-menu-option:{menu['menuId']}:{ordinal}"
