from __future__ import annotations

from rimbridge_sim.world import Cell, LogLevel, LogRecord, Terrain, World


def new_world() -> tuple[World, list[LogRecord]]:
    records: list[LogRecord] = []
    world = World(5, log=records.append)
    world.start_debug_game(seed=5, map_size=(40, 40), colonists=2)
    return world, records


def test_a_haul_order_carries_a_stack_to_the_destination_cell() -> None:
    world, records = new_world()
    pawn = world.list_colonists()[0]
    thing = world.list_things("ComponentIndustrial")[0]
    destination = Cell(16, 16)
    assert world.get_cell_info(destination).terrain == Terrain.SOIL.value
    assert world.get_cell_info(destination).things == ()

    with world.caused_by("op-haul"):
        world.order_haul(pawn.id, thing.id, destination)
    world.step(400)

    placed = [t for t in world.list_things("ComponentIndustrial") if t.position == destination]
    assert [t.stack_count for t in placed] == [thing.stack_count]
    hauled = [r for r in records if "hauled" in r.message]
    assert len(hauled) == 1 and hauled[0].operation_id == "op-haul"
    assert world.get_pawn(pawn.id).carrying is None


def test_a_tree_designated_for_cutting_becomes_wood() -> None:
    world, _ = new_world()
    tree = world.list_things("Plant_TreeOak")[0]
    wood_before = sum(t.stack_count for t in world.list_things("WoodLog"))

    world.apply_designator("Cut", [tree.position])
    world.step(8000)

    assert tree.id not in {t.id for t in world.list_things()}
    assert sum(t.stack_count for t in world.list_things("WoodLog")) == wood_before + 25


def test_a_designated_wall_is_built_and_blocks_the_cell() -> None:
    world, _ = new_world()
    cell = Cell(16, 16)
    assert world.get_cell_info(cell).things == ()

    world.apply_designator("Build", [cell])
    world.step(4000)

    info = world.get_cell_info(cell)
    assert [t.def_name for t in info.things] == ["Wall"]
    assert info.passable is False


def test_colonists_without_food_warn_once_that_they_are_hungry() -> None:
    world, records = new_world()
    for meal in world.list_things("MealSimple"):
        world.destroy_thing(meal.id)

    world.step(40_000)

    hungry = [r for r in records if "is hungry" in r.message]
    assert len(hungry) == 2
    assert all(r.level is LogLevel.WARNING and r.source == "needs" for r in hungry)


def test_hungry_colonists_eat_meals_from_the_stockpile() -> None:
    world, records = new_world()
    meals_before = sum(t.stack_count for t in world.list_things("MealSimple"))

    world.step(40_000)

    assert sum(t.stack_count for t in world.list_things("MealSimple")) < meals_before
    assert not [r for r in records if "is hungry" in r.message]
    assert all(p.food > 0.3 for p in world.list_colonists())
