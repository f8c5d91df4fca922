"""The tools a server offers, by name: :class:`ToolRegistry` (Lib.GAB's tool list)."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator, Sequence
from typing import Any

from lib_gab.tool_info import ToolInfo
from lib_gab.tools import Tool

__all__ = ["ToolRegistry"]


class ToolRegistry:
    """The tools a server offers, by name."""

    def __init__(self) -> None:
        self._tools: dict[str, Tool] = {}

    def add(self, tool: Tool) -> Tool:
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name} is already registered")
        self._tools[tool.name] = tool
        return tool

    def put(self, tool: Tool) -> Tool:
        """Register ``tool``, replacing one of the same name (Lib.GAB's ``RegisterTool``)."""
        self._tools[tool.name] = tool
        return tool

    def remove(self, name: str) -> bool:
        """Unregister ``name``; False if no such tool was registered."""
        return self._tools.pop(name, None) is not None

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[Tool]:
        return iter(list(self._tools.values()))

    def names(self) -> list[str]:
        return list(self._tools)

    def infos(self) -> list[ToolInfo]:
        """Every tool's metadata (Lib.GAB's ``GetTools``)."""
        return [tool.info for tool in self._tools.values()]

    def list(
        self,
        *,
        tags: Sequence[str] | None = None,
        name_pattern: str | None = None,
        extras: bool = False,
    ) -> list[dict[str, Any]]:
        """Descriptors of the tools that carry every tag in ``tags`` and whose name matches the
        glob ``name_pattern`` (``*`` and ``?``, e.g. ``rimworld/*``)."""
        wanted = set(tags or ())
        selected = []
        for tool in list(self._tools.values()):
            if wanted and not wanted.issubset(tool.tags):
                continue
            if name_pattern and not fnmatch.fnmatchcase(tool.name, name_pattern):
                continue
            selected.append(tool.descriptor(extras=extras))
        return selected
