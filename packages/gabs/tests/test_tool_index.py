"""gabs.mcp.tool_names.ToolIndex: finding a tool within one game when several games (copies of
one game) share its names."""

from __future__ import annotations

import pytest

from gabs.game_tools import MirroredTool
from gabs.mcp.tool_names import NamedTool, ToolIndex


def tool(name: str) -> MirroredTool:
    return MirroredTool(name=name, title="", description="", input_schema={}, output_schema={})


#: Copies of one game (the same tool names), and a game whose tool names begin with the id of
#: another game.
GAMES = {
    "rw1": ["rimworld/get_game_info", "rimworld/pause", "bench/echo"],
    "rw2": ["rimworld/get_game_info", "rimworld/pause", "bench/echo"],
    "rw3": ["rimworld/get_game_info", "bench.echo"],
    "g": ["x", "g/x", "g.y", "a/b/c"],
}


def reference(index: ToolIndex, requested: str, game_id: str) -> list[NamedTool]:
    """What ``find`` means within one game: every tool of it that ``NamedTool.matches``, in the
    game's order; else the tools whose last name part is ``requested``."""
    requested = requested.strip()
    if not requested:
        return []
    matched = [e for e in index.of_game(game_id) if e.matches(requested, game_id=game_id)]
    if matched or "/" in requested or "." in requested:
        return matched
    return [e for e in index.of_game(game_id) if e.gabp_name.rsplit("/", 1)[-1] == requested]


@pytest.fixture(scope="module")
def index() -> ToolIndex:
    return ToolIndex((game_id, [tool(name) for name in names]) for game_id, names in GAMES.items())


def spellings(index: ToolIndex) -> set[str]:
    names = {"", " ", "nothing", "echo", "x", "y", "c", "get_game_info", "g.x", "g/x"}
    for entry in index.entries:
        for alias in entry.aliases:
            names.add(alias)
            names.add(f" {alias} ")
            for game_id in GAMES:
                names.add(alias.removeprefix(f"{game_id}.").removeprefix(f"{game_id}/"))
    return names


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_lookup_within_one_game_finds_what_its_tools_match(
    index: ToolIndex, game_id: str
) -> None:
    for requested in sorted(spellings(index)):
        found = index.find(requested, game_id)
        assert found == reference(index, requested, game_id), (requested, game_id)
        assert all(entry.game_id == game_id for entry in found)


def test_copies_of_a_game_each_find_their_own_tool(index: ToolIndex) -> None:
    for game_id in ("rw1", "rw2", "rw3"):
        [found] = index.find("rimworld/get_game_info", game_id)
        assert (found.game_id, found.tool.name) == (game_id, "rimworld/get_game_info")
    # without a game id, every copy's tool is a candidate
    assert {e.game_id for e in index.find("rimworld/get_game_info")} == {"rw1", "rw2", "rw3"}


def test_a_tool_named_like_another_with_the_game_prefix_is_found_by_both_spellings(
    index: ToolIndex,
) -> None:
    # "x" is a tool of g, and so is "g/x": asking g for "x" means both (x itself, and g's "x"
    # qualified), in the game's order
    assert [e.tool.name for e in index.find("x", "g")] == ["g/x", "x"]
    assert [e.tool.name for e in index.find("g/x", "g")] == ["g/x", "x"]
    assert [e.tool.name for e in index.find("y", "g")] == ["g.y"]
    assert [e.tool.name for e in index.find("c", "g")] == ["a/b/c"]  # a unique last part
    assert index.find("c", "rw1") == []
