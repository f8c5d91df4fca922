"""Argument types shared by the tools: camelCase wire names over snake_case parameters."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Cell", "ScriptStep", "wire"]


def wire(alias: str, **constraints: Any) -> Any:
    """A pydantic ``Field`` giving a parameter its camelCase name on the wire."""
    return Field(alias=alias, title=alias, **constraints)


class Cell(BaseModel):
    """A map cell: ``{"x": .., "z": ..}`` (x west to east, z south to north)."""

    model_config = ConfigDict(extra="forbid")

    x: Annotated[int, Field(ge=0)]
    z: Annotated[int, Field(ge=0)]


class ScriptStep(BaseModel):
    """One step of ``rimbridge/run_script``: a tool name and its arguments."""

    model_config = ConfigDict(extra="forbid")

    tool: Annotated[
        str, Field(min_length=1, description="The tool to call, e.g. rimworld/pause_game.")
    ]
    arguments: Annotated[
        dict[str, Any], Field(description="The tool's arguments (as in tools/call).")
    ] = Field(default_factory=dict)
