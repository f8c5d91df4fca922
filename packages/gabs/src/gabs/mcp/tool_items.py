"""A game tool as the discovery tools list it, and the Go bridge's name query.

:func:`tool_item` is one entry of ``games_tool_names`` (``brief`` adds the ``summary``), of
``games_tools`` and ``games_tool_detail`` (``detail``), and of the ``candidates`` of a
``tool_not_found`` refusal (brief, as the Go bridge lists them). :func:`matches_query` is the
Go bridge's ``query`` filter: with a separator in it (``. / _ -`` or a space) a substring of a
name, else a prefix of one of a name's words; :func:`query_filter` applies it to tools.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from gabs.mcp.tool_names import NamedTool, name_words

__all__ = [
    "brief_description",
    "described",
    "is_substring_query",
    "matches_names",
    "matches_query",
    "query_filter",
    "tool_item",
]

_SEPARATORS: Final = frozenset("./_- ")


def matches_query(value: str, query: str) -> bool:
    """The Go bridge's tool-name match: a substring when ``query`` holds a separator, else a
    prefix of one of ``value``'s words (both lower case)."""
    return matches_names((name_words(value),), query, is_substring_query(query))


def is_substring_query(query: str) -> bool:
    return any(char in _SEPARATORS for char in query)


def matches_names(
    searchable: tuple[tuple[str, tuple[str, ...]], ...], query: str, substring: bool
) -> bool:
    """:func:`matches_query` for names already split (``NamedTool.searchable``)."""
    if substring:
        return any(query in lowered for lowered, _ in searchable)
    return any(word.startswith(query) for _, words in searchable for word in words)


def brief_description(description: str) -> str:
    """The first line's first sentence, at most 140 characters (as the Go bridge cuts it)."""
    text = description.strip()
    if not text:
        return ""
    text = text.split("\n", 1)[0].strip()
    end = text.find(". ")
    if end >= 0:
        text = text[: end + 1].strip()
    return text if len(text) <= 140 else text[:137].strip() + "..."


def described(entry: NamedTool) -> str:
    """A game tool's description as the Go bridge gives it: the game's, then its game id."""
    return f"{entry.tool.description} (Game: {entry.game_id})"


def tool_item(entry: NamedTool, *, detail: bool, brief: bool = False) -> dict[str, Any]:
    item: dict[str, Any] = {
        "name": entry.exposed,
        "gameId": entry.game_id,
        "localName": entry.gabp_name,
        "originalName": entry.legacy_name,
        "gabpName": entry.gabp_name,
    }
    tool = entry.tool
    if tool.tags:
        item["tags"] = list(tool.tags)
    if detail:
        item["title"] = tool.title
        item["description"] = described(entry)
        item["inputSchema"] = tool.input_schema
        # as the Go bridge: null for a tool whose game sent no output schema
        item["outputSchema"] = tool.output_schema if tool.output_schema_sent else None
        if tool.result_description:
            item["resultDescription"] = tool.result_description
    elif brief:
        summary = brief_description(described(entry))
        if summary:
            item["summary"] = summary
    return item


def query_filter(entries: Iterable[NamedTool], query: str) -> list[NamedTool]:
    """The tools whose exposed, original or GABP name matches ``query`` (any case)."""
    query = query.lower()
    substring = is_substring_query(query)
    return [entry for entry in entries if matches_names(entry.searchable, query, substring)]
