"""The capability id of each tool, as the real mod registers it.

RimBridgeServer describes every tool as a capability of one provider and names it by a single
id, ``<providerId>/<kebab-case implementation method>`` (``rimworld/select_pawn`` is
``rimbridge.core/selection/select-pawn``). The tool name is the capability's alias. The mod
uses that one id in its capability registry, in the operation journal, in log entries and in
script steps; so does the simulation, through :func:`capability_of`.

``capability-ids.json`` (package data) holds the id, provider id and provider category of
every tool in ``rimbridge-tools.json``, derived from the mod's C# source (see its ``about``
field and ``scripts/extract_capability_ids.py``).

Tools the mod does not have (the simulation's ``sim/...`` test tools, or a tool a test
registers) get an id of the same shape under the sim-only provider :data:`SIM_PROVIDER`:
``sim/inject_log`` is ``rimbridge.sim/test/inject-log``, category ``test``, source
``extension``. No id of the mod starts with ``rimbridge.sim/``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from typing import Final

__all__ = [
    "SIM_CATEGORY",
    "SIM_PROVIDER",
    "Capability",
    "capability_id",
    "capability_of",
    "capability_table",
]

SIM_PROVIDER: Final = "rimbridge.sim/test"
"""The provider of the tools only the simulation has."""
SIM_CATEGORY: Final = "test"
_SIM_NAMESPACE: Final = "sim/"


@dataclass(frozen=True, slots=True)
class Capability:
    """How the mod registers one tool."""

    id: str
    provider_id: str
    category: str
    """The provider's category (``selection``, ``view``, ``debug_actions``, ...)."""
    source: str
    """``core``, ``optional`` (the mod's ``rimbridge.optional/...`` providers) or
    ``extension`` (the sim-only tools)."""


@cache
def capability_table() -> Mapping[str, Capability]:
    """Tool name -> :class:`Capability`, for every tool of the mod's contract."""
    text = resources.files(__package__).joinpath("capability-ids.json").read_text("utf-8")
    rows = json.loads(text)["tools"]
    return {
        name: Capability(
            row["id"],
            row["providerId"],
            row["category"],
            "optional" if row["providerId"].startswith("rimbridge.optional/") else "core",
        )
        for name, row in rows.items()
    }


@lru_cache(maxsize=1024)  # bounded: a name is looked up per call, whatever names come
def capability_of(tool_name: str) -> Capability:
    """The capability a tool name is the alias of (a sim-only one for tools the mod lacks)."""
    known = capability_table().get(tool_name)
    if known is not None:
        return known
    local = tool_name.removeprefix(_SIM_NAMESPACE).replace("/", "-").replace("_", "-")
    return Capability(f"{SIM_PROVIDER}/{local.lower()}", SIM_PROVIDER, SIM_CATEGORY, "extension")


@lru_cache(maxsize=1024)  # every envelope and relayed event names one
def capability_id(tool_name: str) -> str:
    """The capability id of a tool name (see :func:`capability_of`)."""
    return capability_of(tool_name).id
