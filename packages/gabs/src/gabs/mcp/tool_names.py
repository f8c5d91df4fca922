"""Game tool names: the names a mirrored tool is exposed and found under, as the Go bridge has them.

Every tool of a connected game has one **exposed name** (:func:`~gabs.game_tools.mcp_tool_name`:
``rimworld_rimworld_get_game_info``; a name a core tool has, or another game's tool took
first in game-id order, gets the hash suffix) and is found by each of its **aliases**: the
exposed name, its GABP name (``rimworld/get_game_info``), that name dotted
(``rimworld.get_game_info``), qualified with the game id dotted
(``rimworld.rimworld.get_game_info``) or slashed (``rimworld/rimworld/get_game_info``), and the
name as the game spelled it. With a game id
given, the aliases with that game's prefix removed count too. On top of Go's aliases, a
unique last part (``get_game_info``) is accepted.

:class:`ToolIndex` holds these for the games connected now; :func:`tool_index` builds it (and
keeps it while the games' tool lists stay the same objects, so a call costs a dictionary
lookup). :meth:`ToolIndex.resolve` finds one tool for a ``games_call_tool`` reference and
:meth:`ToolIndex.find` all tools a bare MCP tool name may mean.

The dotted spellings of the core tools (``games.list``, ``games.call_tool``, ...) are in
:data:`CORE_ALIASES`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Final

from gabs.game_tools import MirroredTool, mcp_tool_name, mcp_tool_name_with_suffix

__all__ = [
    "CORE_ALIASES",
    "NamedTool",
    "ToolIndex",
    "core_dotted_name",
    "exposed_output_schema",
    "name_words",
    "tool_index",
]

_CORE: Final = (
    "games_list",
    "games_show",
    "games_start",
    "games_stop",
    "games_kill",
    "games_status",
    "games_connect",
    "games_tool_names",
    "games_tool_detail",
    "games_tools",
    "games_call_tool",
    "games_get_attention",
    "games_ack_attention",
)


def core_dotted_name(name: str) -> str:
    """``games_tool_names`` -> ``games.tool_names`` (the Go bridge's registered spelling)."""
    return name.replace("_", ".", 1)


#: The dotted spelling of each core tool -> its strict-safe name.
CORE_ALIASES: Final[dict[str, str]] = {core_dotted_name(name): name for name in _CORE}


def gabp_canonical(name: str) -> str:
    """A tool name with dots read as slashes (``a.b`` -> ``a/b``), as the Go bridge reads it."""
    return name.strip().replace(".", "/")


_WORD: Final = re.compile(r"[a-z0-9]+")


def name_words(name: str) -> tuple[str, tuple[str, ...]]:
    """``name`` in lower case, and its words (runs of ASCII letters and digits)."""
    lowered = name.lower()
    return lowered, tuple(_WORD.findall(lowered))


@dataclass(frozen=True)
class NamedTool:
    """One mirrored tool with the names it is exposed and found under."""

    game_id: str
    tool: MirroredTool
    exposed: str
    aliases: frozenset[str] = field(default=frozenset())

    @property
    def gabp_name(self) -> str:
        return gabp_canonical(self.tool.name)

    @cached_property
    def searchable(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """The exposed, original and GABP names, each in lower case with its words (what a
        discovery query is matched against; worked out once per tool, not per query)."""
        return tuple(name_words(name) for name in (self.exposed, self.legacy_name, self.gabp_name))

    @property
    def legacy_name(self) -> str:
        """``<gameId>.<gabp name dotted>``, the Go bridge's ``originalName``."""
        return f"{self.game_id}.{self.gabp_name.replace('/', '.')}"

    def matches(self, requested: str, *, game_id: str | None = None) -> bool:
        if requested in self.aliases:
            return True
        if game_id is not None and game_id == self.game_id:
            for prefix in (f"{game_id}.", f"{game_id}/"):
                if f"{prefix}{requested}" in self.aliases:
                    return True
        return False


def _aliases(game_id: str, tool: MirroredTool, exposed: str) -> frozenset[str]:
    gabp = gabp_canonical(tool.name)
    dotted = gabp.replace("/", ".")
    return frozenset(
        {exposed, gabp, dotted, f"{game_id}.{dotted}", f"{game_id}/{gabp}", tool.name.strip()}
    )


class ToolIndex:
    """The tools of the connected games by exposed name and alias (see the module doc)."""

    def __init__(self, games: Iterable[tuple[str, Iterable[MirroredTool]]]) -> None:
        self.entries: list[NamedTool] = []
        self.by_exposed: dict[str, NamedTool] = {}
        self._by_alias: dict[str, list[NamedTool]] = {}
        self._by_game: dict[str, list[NamedTool]] = {}
        # per game: alias -> that game's tools, so a lookup within one game does not go
        # through the tools of every other game that shares the alias (several copies of a game)
        self._game_aliases: dict[str, dict[str, list[NamedTool]]] = {}
        # a core tool's name is never a game tool's: such a tool gets the hash suffix, as in Go
        taken: set[str] = set(_CORE)
        for game_id, tools in sorted(games, key=lambda pair: pair[0]):
            for tool in sorted(tools, key=lambda t: gabp_canonical(t.name)):
                exposed = mcp_tool_name(game_id, gabp_canonical(tool.name))
                if exposed in taken:
                    exposed = mcp_tool_name_with_suffix(game_id, gabp_canonical(tool.name))
                taken.add(exposed)
                entry = NamedTool(game_id, tool, exposed, _aliases(game_id, tool, exposed))
                self.entries.append(entry)
                self._by_game.setdefault(game_id, []).append(entry)
                self.by_exposed[exposed] = entry
                own = self._game_aliases.setdefault(game_id, {})
                for alias in entry.aliases:
                    self._by_alias.setdefault(alias, []).append(entry)
                    own.setdefault(alias, []).append(entry)

    def of_game(self, game_id: str) -> list[NamedTool]:
        return list(self._by_game.get(game_id, ()))

    def find(self, requested: str, game_id: str | None = None) -> list[NamedTool]:
        """Every tool ``requested`` names (within ``game_id`` when given)."""
        requested = requested.strip()
        if not requested:
            return []
        if game_id is None:
            found = list(self._by_alias.get(requested, ()))
        else:
            # what NamedTool.matches accepts, looked up instead of tried on every tool
            own = self._game_aliases.get(game_id, {})
            found = list(own.get(requested, ()))
            for alias in (f"{game_id}.{requested}", f"{game_id}/{requested}"):
                for entry in own.get(alias, ()):
                    if all(entry is not seen for seen in found):
                        found.append(entry)
            if len(found) > 1:
                order = {id(entry): at for at, entry in enumerate(self._by_game[game_id])}
                found.sort(key=lambda entry: order[id(entry)])
        if found:
            return found
        # Ours on top of Go's: a unique last part of a GABP name (``get_game_info``).
        if "/" not in requested and "." not in requested:
            scope = self.entries if game_id is None else self.of_game(game_id)
            return [e for e in scope if e.gabp_name.rsplit("/", 1)[-1] == requested]
        return []

    def by_game_prefix(self, requested: str, connected: Sequence[str]) -> list[str]:
        """The connected games whose id prefixes ``requested`` (``id.``, ``id/`` or ``id_``)."""
        return [
            game_id
            for game_id in connected
            if requested.startswith((f"{game_id}.", f"{game_id}/", f"{game_id}_"))
        ]


# The index of the current tool lists, with the lists themselves (so that their ids, the key,
# cannot be reused by other objects while the entry lives).
_CACHE: dict[tuple[tuple[str, int], ...], tuple[ToolIndex, list[object]]] = {}


def tool_index(games: Sequence[tuple[str, Mapping[str, MirroredTool]]]) -> ToolIndex:
    """The :class:`ToolIndex` of these games' tool lists (kept while the lists are the same)."""
    key = tuple((game_id, id(tools)) for game_id, tools in games)
    cached = _CACHE.get(key)
    if cached is None:
        index = ToolIndex((game_id, tools.values()) for game_id, tools in games)
        _CACHE.clear()  # only the current set of tool lists is worth keeping
        _CACHE[key] = (index, [tools for _, tools in games])
        return index
    return cached[0]


def exposed_output_schema(schema: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The ``outputSchema`` to advertise for a mirrored tool, or ``None``.

    MCP requires every successful result to conform to the advertised schema. The result is the
    game's own object, or ``{"value": ...}`` for any other JSON value: a game's object schema is
    advertised as it is, any other schema wrapped the same way, and a missing or empty one not
    at all.
    """
    if not schema:
        return None
    if schema.get("type") == "object":
        return dict(schema)
    wrapped: dict[str, Any] = {
        "type": "object",
        "properties": {"value": dict(schema)},
        "required": ["value"],
    }
    if isinstance(schema.get("description"), str):
        wrapped["description"] = schema["description"]
    return wrapped
