from __future__ import annotations

import time

import pytest

from rimbridge_sim.world import (
    LETTER_CAP,
    LOAD_TICKS,
    Cell,
    InvalidArgumentError,
    InvalidCellError,
    LetterKind,
    LogLevel,
    LogRecord,
    LongEventError,
    NoGameError,
    Phase,
    RefusedError,
    StaleIdError,
    Terrain,
    UnknownIdError,
    World,
)


def new_world(seed: int = 7) -> tuple[World, list[LogRecord]]:
    records: list[LogRecord] = []
    world = World(seed, log=records.append)
    world.start_debug_game(seed=seed, map_size=(40, 40), colonists=3)
    return world, records


def find_cell(world: World, terrain: Terrain) -> Cell:
    game = world.game
    assert game is not None
    for index, kind in enumerate(game.map.terrain):
        if kind is terrain:
            return Cell(index % game.map.width, index // game.map.width)
    raise AssertionError(f"no {terrain} on the map")


def empty_soil_near_centre(world: World) -> Cell:
    for z in range(14, 26):
        for x in range(14, 26):
            info = world.get_cell_info((x, z))
            if info.terrain == "Soil" and not info.things and not info.pawns:
                return Cell(x, z)
    raise AssertionError("no empty soil near the centre")


# -- phases ---------------------------------------------------------------------------------


def test_a_new_world_is_at_the_main_menu_without_a_map() -> None:
    world = World(1)

    assert world.phase is Phase.MAIN_MENU
    assert world.game is None
    assert not world.is_game_loaded()
    info = world.get_game_info()
    assert (info.phase, info.map_id, info.tick, info.colonist_count) == ("main_menu", None, None, 0)


def test_game_operations_at_the_main_menu_raise_no_game_error() -> None:
    world = World(1)

    for operation in (
        world.list_colonists,
        lambda: world.get_pawn("Thing_Human1"),
        lambda: world.step(1),
        lambda: world.get_cell_info((0, 0)),
        lambda: world.save_game("a"),
        lambda: world.set_time_speed(1),
    ):
        with pytest.raises(NoGameError, match=r"^No current map is active\.$"):
            operation()


def test_starting_a_debug_game_makes_a_paused_colony_with_named_colonists() -> None:
    world, records = new_world()

    info = world.get_game_info()
    assert info.phase == "playing"
    assert info.map_id == "Map_1"
    assert (info.map_width, info.map_height, info.tick, info.time_speed) == (40, 40, 0, 0)
    assert info.paused is True
    colonists = world.list_colonists()
    assert len(colonists) == 3
    assert all(p.id.startswith("Thing_Human") for p in colonists)
    assert len({p.nickname for p in colonists}) == 3
    assert all(p.health == 1.0 and not p.drafted and not p.downed for p in colonists)
    assert {t.def_name for t in world.list_things()} >= {"Steel", "MealSimple", "Plant_TreeOak"}
    assert records[-1].level is LogLevel.INFO
    assert records[-1].source == "world"
    assert "Started a new game on Map_1" in records[-1].message


def test_going_to_the_main_menu_drops_the_map_and_old_ids_go_stale() -> None:
    world, _ = new_world()
    pawn_id = world.list_colonists()[0].id

    info = world.go_to_main_menu()

    assert info.phase == "main_menu"
    assert world.game is None
    with pytest.raises(NoGameError):
        world.get_pawn(pawn_id)
    world.start_debug_game(seed=1, map_size=(20, 20), colonists=1)
    with pytest.raises(
        StaleIdError, match=f"Could not find current-map pawn id '{pawn_id}': ids from before"
    ):
        world.get_pawn(pawn_id)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"map_size": (5, 50)}, "map_size sides must be integers from 10 to 250"),
        ({"map_size": (251, 50)}, "map_size sides must be integers from 10 to 250"),
        ({"colonists": 0}, "colonists must be an integer from 1 to 10"),
    ],
)
def test_start_debug_game_refuses_bad_arguments(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidArgumentError, match=message):
        World(1).start_debug_game(**kwargs)  # type: ignore[arg-type]


# -- time and jobs --------------------------------------------------------------------------


def test_step_forces_ticks_even_while_paused_and_leaves_the_speed() -> None:
    world, _ = new_world()

    result = world.step(100)

    assert (result.ticks, result.tick, result.phase) == (100, 100, "playing")
    assert world.get_game_info().paused is True


def test_realtime_frames_respect_pause_and_the_speed_multiplier() -> None:
    world, _ = new_world()

    assert world.advance_realtime(10).ticks == 0
    world.set_time_speed(1)
    assert world.advance_realtime(10).ticks == 10
    world.set_time_speed(4)
    assert world.advance_realtime(10).ticks == 150
    assert world.get_game_info().tick == 160
    world.pause()
    assert world.advance_realtime(10).ticks == 0


def test_an_unknown_time_speed_is_refused() -> None:
    world, _ = new_world()

    with pytest.raises(InvalidArgumentError, match="time speed must be 0"):
        world.set_time_speed(5)


def test_a_goto_job_moves_the_pawn_one_cell_at_a_time_and_logs_the_arrival() -> None:
    world, records = new_world()
    pawn = world.list_colonists()[0]
    world.set_draft(pawn.id, True)
    target = Cell(pawn.position.x + 3, pawn.position.z)

    with world.caused_by("op-7"):
        ordered = world.order_move(pawn.id, target)

    assert ordered.job is not None
    assert (ordered.job.kind, ordered.job.target, ordered.job.operation_id) == (
        "Goto",
        target,
        "op-7",
    )
    world.step(1)
    assert world.get_pawn(pawn.id).position == Cell(pawn.position.x + 1, pawn.position.z)
    world.step(60)
    arrived = world.get_pawn(pawn.id)
    assert arrived.position == target
    assert arrived.job is not None and arrived.job.kind == "Wait_Combat"
    assert LogRecord(LogLevel.INFO, f"{pawn.nickname} arrived at {target}", "job", 15, "op-7") in (
        records
    )


def test_a_goto_to_an_unreachable_cell_fails_with_an_error_log_after_the_call() -> None:
    world, records = new_world()
    pawn = world.list_colonists()[0]
    target = empty_soil_near_centre(world)
    ring = [Cell(target.x + dx, target.z + dz) for dx in (-1, 0, 1) for dz in (-1, 0, 1)]
    for cell in ring:
        info = world.get_cell_info(cell)
        if cell != target and info.passable and not info.pawns and not info.things:
            world.spawn_thing("Wall", 1, cell)
    assert not any(world.get_cell_info(c).passable for c in ring if c != target)

    with world.caused_by("op-9"):
        world.order_move(pawn.id, target)
    assert not [r for r in records if r.level is LogLevel.ERROR]
    world.step(1)

    errors = [r for r in records if r.level is LogLevel.ERROR]
    assert len(errors) == 1
    assert errors[0].source == "job"
    assert errors[0].operation_id == "op-9"
    assert errors[0].message.startswith(f"Job Goto failed for {pawn.nickname} ({pawn.id}): ")
    assert f"no path from {pawn.position} to {target}" in errors[0].message


def test_drafting_drops_the_job_and_releasing_lets_the_pawn_work_again() -> None:
    world, _ = new_world()
    pawn = world.list_colonists()[0]
    world.order_wait(pawn.id, 500)

    drafted = world.set_draft(pawn.id, True)

    assert drafted.drafted is True
    assert drafted.job is None
    world.step(1)
    job = world.get_pawn(pawn.id).job
    assert job is not None and job.kind == "Wait_Combat"
    released = world.set_draft(pawn.id, False)
    assert released.drafted is False and released.job is None


def test_an_idle_colonist_mines_designated_rock_over_ticks() -> None:
    world, records = new_world()
    rock = find_cell(world, Terrain.STONE)

    with world.caused_by("op-mine"):
        result = world.apply_designator("Mine", [rock])
    assert [d.cell for d in result.accepted] == [rock]
    world.step(6000)

    assert world.get_cell_info(rock).terrain == Terrain.ROUGH_STONE.value
    assert world.list_designations() == []
    mined = [r for r in records if r.message.endswith(f"mined {rock}")]
    assert len(mined) == 1 and mined[0].operation_id == "op-mine"


# -- things, designations, cells ------------------------------------------------------------


def test_spawning_more_than_a_stack_splits_into_stacks_on_nearby_cells() -> None:
    world, _ = new_world()
    cell = empty_soil_near_centre(world)

    result = world.spawn_thing("Steel", 200, cell)

    assert [s.stack_count for s in result.stacks] == [75, 75, 50]
    assert result.stacks[0].position == cell
    assert len({s.position for s in result.stacks}) == 3
    assert all(s.stack_limit == 75 and s.def_name == "Steel" for s in result.stacks)


def test_spawning_onto_a_partial_stack_tops_it_up_first() -> None:
    world, _ = new_world()
    cell = empty_soil_near_centre(world)
    first = world.spawn_thing("MealSimple", 4, cell).stacks[0]

    result = world.spawn_thing("MealSimple", 8, cell)

    assert (result.stacks[0].id, result.stacks[0].stack_count) == (first.id, 10)
    assert sum(s.stack_count for s in world.list_things("MealSimple")) == 20 + 12


def test_spawning_on_water_or_outside_the_map_or_an_unknown_def_is_refused() -> None:
    world, _ = new_world()
    water = find_cell(world, Terrain.WATER)

    with pytest.raises(InvalidCellError, match=r"is WaterDeep: things cannot be spawned on water"):
        world.spawn_thing("Steel", 10, water)
    with pytest.raises(InvalidCellError, match=r"cell \(40, 0\) is outside the map \(40x40"):
        world.spawn_thing("Steel", 10, (40, 0))
    with pytest.raises(InvalidArgumentError, match="unknown thing def 'Plasteel'"):
        world.spawn_thing("Plasteel", 10, (20, 20))


def test_designators_accept_valid_cells_and_reject_invalid_ones_with_reasons() -> None:
    world, _ = new_world()
    rock = find_cell(world, Terrain.STONE)
    soil = empty_soil_near_centre(world)

    result = world.apply_designator("Mine", [rock, soil])

    assert [d.cell for d in result.accepted] == [rock]
    assert [(r.cell, r.reason) for r in result.rejected] == [
        (soil, f"cell {soil} is Soil, not mineable rock")
    ]
    again = world.apply_designator("Mine", [rock])
    assert again.rejected[0].reason == f"cell {rock} is already designated for Mine"
    with pytest.raises(InvalidArgumentError, match="unknown designator 'Dig'"):
        world.apply_designator("Dig", [rock])


def test_a_cancelled_designation_disappears_and_its_id_becomes_unknown() -> None:
    world, _ = new_world()
    rock = find_cell(world, Terrain.STONE)
    designation = world.apply_designator("Mine", [rock]).accepted[0]

    cancelled = world.cancel_designation(designation.id)

    assert cancelled == designation
    assert world.get_cell_info(rock).designations == ()
    with pytest.raises(UnknownIdError, match="it was destroyed or removed"):
        world.cancel_designation(designation.id)


def test_cell_info_lists_terrain_things_pawns_and_designations() -> None:
    world, _ = new_world()
    pawn = world.list_colonists()[0]

    info = world.get_cell_info(pawn.position)

    assert info.cell == pawn.position
    assert info.terrain == "Soil"
    assert info.passable is True
    assert pawn.id in info.pawns
    assert info.to_dict()["cell"] == {"x": pawn.position.x, "z": pawn.position.z}


def test_selection_holds_pawns_and_things_and_refuses_unknown_ids() -> None:
    world, _ = new_world()
    pawn = world.list_colonists()[0]
    thing = world.list_things("Steel")[0]

    assert world.select([pawn.id]) == (pawn.id,)
    assert world.select([thing.id], append=True) == (pawn.id, thing.id)
    assert world.get_pawn(pawn.id).selected is True
    assert world.ui.selection == [pawn.id, thing.id]
    with pytest.raises(
        UnknownIdError, match="Could not find current-map pawn or thing id 'Thing_Nope1'"
    ):
        world.select(["Thing_Nope1"])


# -- windows and letters --------------------------------------------------------------------


def test_windows_stack_and_accept_runs_the_top_windows_action_before_closing_it() -> None:
    world, _ = new_world()
    options = world.windows.open_by_type("Dialog_Options", replace_existing=True)
    accepted: list[str] = []
    letter = world.windows.open(
        "Verse.Dialog_NodeTree", "Cargo pods", on_accept=lambda: accepted.append("ok") or "ok"
    )

    assert [w.id for w in world.windows.stack] == [options.id, letter.id]
    assert world.windows.ui_state()["focusedWindowType"] == "Verse.Dialog_NodeTree"
    world.windows.press_accept()
    assert (accepted, [w.id for w in world.windows.stack]) == (["ok"], [options.id])
    world.windows.press_cancel()
    assert world.windows.stack == []
    world.windows.press_cancel()  # nothing to cancel: the key does nothing, as in the game
    assert world.windows.stack == []
    with pytest.raises(RefusedError, match="parameterless constructor"):
        world.windows.open_by_type("Verse.Dialog_MessageBox", replace_existing=True)


def test_letters_are_capped_and_the_oldest_are_dropped() -> None:
    world, _ = new_world()
    colony = world.colony
    assert colony is not None
    for number in range(LETTER_CAP + 25):
        colony.add_letter(f"Letter {number}", "text", LetterKind.NEUTRAL)

    letters = world.notifications.letters()

    assert len(letters) == LETTER_CAP
    assert letters[0].label == "Letter 25"
    assert letters[-1].label == f"Letter {LETTER_CAP + 24}"


def test_opening_a_letter_marks_it_read_and_its_ok_removes_it_from_the_stack() -> None:
    world, _ = new_world()
    colony = world.colony
    assert colony is not None
    letter = colony.add_letter("Raid", "Pirates!", LetterKind.THREAT)

    world.notifications.open_letter(letter.id)

    top = world.windows.top()
    assert top is not None
    assert (top.type, top.title, letter.read) == ("Verse.Dialog_NodeTree", "Raid", True)
    assert world.notifications.letter_present(letter)
    world.windows.press_accept()
    assert not world.notifications.letter_present(letter)


# -- saves and loads ------------------------------------------------------------------------


def test_a_save_is_listed_with_its_tick_colonists_and_size() -> None:
    world, records = new_world()
    world.step(50)

    save = world.save_game("colony one")

    assert (save.name, save.tick, save.colonist_count, save.map_width) == ("colony one", 50, 3, 40)
    assert save.size_bytes > 0
    assert world.list_saves() == [save]
    assert save.path == f"{world.storage.root}/Saves/colony one.rws"
    stored = world.storage.read("Saves/colony one.rws")
    assert stored is not None
    assert b"<ticksGame>50</ticksGame>" in stored
    assert records[-1].message == "Saved game 'colony one' at tick 50"


def test_save_names_keep_non_ascii_and_lose_what_a_file_name_cannot_hold() -> None:
    world, _ = new_world()

    assert world.save_game("Kolonie Ärger 北").name == "Kolonie Ärger 北"
    assert world.save_game("../x:y").name == ".._x_y"
    assert world.find_save("Kolonie Ärger 北") is not None
    before = time.time()
    blank = world.save_game("   ").name
    stamps = {
        time.strftime("%Y%m%d_%H%M%S", time.localtime(second))
        for second in range(int(before), int(time.time()) + 1)
    }
    assert blank in {f"rimbridge_save_{stamp}" for stamp in stamps}


def test_loading_is_a_long_event_that_replaces_the_map_and_renews_every_id() -> None:
    world, records = new_world()
    old_pawns = world.list_colonists()
    old_map = world.get_game_info().map_id
    world.save_game("s1")
    world.step(200)

    with world.caused_by("op-load"):
        world.load_game("s1")

    assert world.phase is Phase.LOADING
    assert world.get_game_info().long_event == "loading s1"
    with pytest.raises(LongEventError, match="a long event is running: loading s1"):
        world.list_colonists()
    with pytest.raises(LongEventError):
        world.step(1)
    world.advance_realtime(LOAD_TICKS - 1)
    assert not world.is_game_loaded()
    world.advance_realtime(1)

    assert world.is_game_loaded()
    info = world.get_game_info()
    assert info.map_id != old_map
    assert info.tick == 0
    assert info.paused is True
    new_pawns = world.list_colonists()
    assert [p.nickname for p in new_pawns] == [p.nickname for p in old_pawns]
    assert [p.position for p in new_pawns] == [p.position for p in old_pawns]
    assert not {p.id for p in new_pawns} & {p.id for p in old_pawns}
    with pytest.raises(
        StaleIdError,
        match=(
            f"^Could not find current-map pawn id '{old_pawns[0].id}': ids from before the "
            "last load are stale"
        ),
    ):
        world.set_draft(old_pawns[0].id, True)
    loaded = [r for r in records if r.source == "load"]
    assert [r.message for r in loaded] == [
        "Loading save 's1'",
        f"Loaded save 's1' on {info.map_id} with 3 colonists",
    ]
    assert all(r.operation_id == "op-load" for r in loaded)


def test_loading_clears_the_selection_and_the_windows() -> None:
    world, _ = new_world()
    world.save_game("s1")
    world.select([world.list_colonists()[0].id])
    world.windows.open_by_type("Dialog_Options", replace_existing=True)

    world.load_game("s1")
    world.advance_realtime(LOAD_TICKS)

    assert (world.phase, world.ui.selection, world.windows.stack) == (Phase.PLAYING, [], [])


def test_a_save_can_be_loaded_from_the_main_menu() -> None:
    world, _ = new_world()
    world.save_game("s1")
    world.go_to_main_menu()

    world.load_game("s1")
    assert world.get_game_info().long_event == "loading s1"
    world.advance_realtime(LOAD_TICKS)

    assert world.phase is Phase.PLAYING
    assert world.get_game_info().colonist_count == 3


def test_loading_an_unknown_save_names_the_saves_there_are() -> None:
    world, _ = new_world()
    world.save_game("a")

    with pytest.raises(UnknownIdError, match=r"no save named 'b' \(saves: a\)"):
        world.load_game("b")


def test_an_id_that_never_existed_is_unknown_rather_than_stale() -> None:
    world, _ = new_world()

    with pytest.raises(
        UnknownIdError, match=r"^Could not find current-map pawn id 'Thing_Human999'\.$"
    ):
        world.get_pawn("Thing_Human999")


# -- determinism and logs -------------------------------------------------------------------


def run_scenario(seed: int) -> tuple[list[LogRecord], list[dict[str, object]], list[str]]:
    records: list[LogRecord] = []
    world = World(seed, log=records.append)
    world.start_debug_game(map_size=(60, 45), colonists=4)
    rock = find_cell(world, Terrain.STONE)
    world.apply_designator("Mine", [rock])
    pawn = world.list_colonists()[1]
    world.order_move(pawn.id, (30, 20))
    world.step(20_000)
    world.save_game("x")
    world.load_game("x")
    world.advance_realtime(LOAD_TICKS)
    world.step(20_000)
    colonists = [p.to_dict() for p in world.list_colonists()]
    return records, colonists, [t.id for t in world.list_things()]


def test_the_same_seed_and_calls_give_the_same_results() -> None:
    assert run_scenario(11) == run_scenario(11)


def test_different_seeds_give_different_worlds() -> None:
    assert run_scenario(11)[1] != run_scenario(12)[1]


def test_scheduled_and_written_log_lines_carry_their_operation_and_tick() -> None:
    world, records = new_world()
    with world.caused_by("op-late"):
        due = world.schedule_log(2, "error", "Exception in MapComponentTick")
    world.write_log("warning", "right now", "sim")

    world.step(2)

    assert due == 2
    assert records[-2:] == [
        LogRecord(LogLevel.WARNING, "right now", "sim", 0, None),
        LogRecord(LogLevel.ERROR, "Exception in MapComponentTick", "sim", 2, "op-late"),
    ]


def test_a_long_quiet_day_emits_incident_records_but_no_errors() -> None:
    world, records = new_world(seed=3)

    world.step(60_000)

    assert world.get_game_info().tick == 60_000
    assert {r.level for r in records} <= {LogLevel.INFO, LogLevel.WARNING, LogLevel.DEBUG}
    assert [r.source for r in records if r.source in ("letters", "needs", "incidents")]
    assert all(r.tick <= 60_000 for r in records)


def test_the_render_is_an_rgb_image_of_the_requested_size_in_every_phase() -> None:
    world = World(1)
    assert len(world.render_rgb(8, 4)) == 8 * 4 * 3
    world.start_debug_game(map_size=(20, 20))
    image = world.render_rgb(40, 40)
    assert len(image) == 40 * 40 * 3
    assert len(set(zip(image[::3], image[1::3], image[2::3], strict=True))) > 2
    grid = world.terrain_grid()
    assert len(grid) == 20 and all(len(row) == 20 for row in grid)


def test_a_ui_click_reads_a_narrower_change_than_the_other_window_commands() -> None:
    from rimbridge_sim.world._windows import CLICK_CHANGE_KEYS

    world, _ = new_world()
    world.windows.open_by_type("Dialog_Options", replace_existing=True)
    # the same windows, but a dialog flag that differs: the mod's window commands call that a
    # change, its click answer does not
    before = {**world.windows.ui_state(), "nonImmediateDialogWindowOpen": False}
    command = world.windows.command("close_window", before, "Done.")
    click = world.windows.command("click_ui_target", before, "Done.", change_keys=CLICK_CHANGE_KEYS)
    assert (command["changed"], command["message"]) == (True, "Done.")
    assert (click["changed"], click["message"]) == (False, "Done. UI state did not change.")
