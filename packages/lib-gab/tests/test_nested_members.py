"""Members of objects inside a tool's arguments (a pydantic model, a dataclass, a TypedDict, in
lists and dicts too) are treated as the arguments are: by default an unknown member is refused
with its path and the members known there, unless the type allows extra members; with
Lib.GAB's choices a member in another letter case is taken as the known one, and any other is
dropped, each with a warning. The ``inputSchema`` says the same
(docs/ports/lib-gab.md, section 2)."""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

import anyio
import pytest
from pydantic import BaseModel, ConfigDict, Field, RootModel, model_validator
from typing_extensions import TypedDict

from gabp import RemoteError
from lib_gab import GabpServer, InvalidArguments, ProtocolOptions
from lib_gab.testing import bridge_session
from lib_gab.tools import Tool, build_tool

TOKEN = "e" * 64


class Point(BaseModel):
    x: int = 0
    y: int = 0


class Loose(BaseModel):
    model_config = ConfigDict(extra="allow")
    x: int = 0


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")
    x: int = 0


@dataclasses.dataclass
class Cell:
    x: int = 0
    y: int = 0


class Size(TypedDict):
    width: int


class Tree(BaseModel):
    name: str = ""
    children: list[Tree] = []


class Renamed(BaseModel):
    model_config = ConfigDict(populate_by_name=True)
    x: int = Field(0, alias="posX")


class Legacy(BaseModel):
    x: int = 0

    @model_validator(mode="before")
    @classmethod
    def _old_name(cls, value: Any) -> Any:
        return {"x": value.pop("X")} if isinstance(value, dict) and "X" in value else value


class Points(RootModel[dict[str, Point]]):
    pass


def _move(pos: Point) -> dict[str, int]:
    return {"x": pos.x, "y": pos.y}


def _tool(function: Any) -> Tool:
    return build_tool(function, name="test/tool", description="A tool.")


def _refused(tool: Tool, arguments: dict[str, Any]) -> list[dict[str, str]]:
    with pytest.raises(InvalidArguments) as refused:
        tool.validate_arguments(arguments)
    assert refused.value.code == -32602
    errors: list[dict[str, str]] = refused.value.data["errors"]
    return errors


def _paths(errors: list[dict[str, str]]) -> list[str]:
    return [error["path"] for error in errors]


def _ignored(tool: Tool, arguments: dict[str, Any]) -> dict[str, Any]:
    return tool.validate_arguments(arguments, unknown="ignore", argument_values="convert")


async def _call(options: ProtocolOptions, arguments: dict[str, Any]) -> Any:
    server = GabpServer(
        app_name="Nested", app_version="1", agent_id="nested", token=TOKEN, options=options
    )
    server.tool("game/move", description="Move to a point.")(_move)
    params = {"name": "game/move", "arguments": arguments}
    async with server.running() as address, bridge_session(address, TOKEN) as conn:
        with anyio.fail_after(5):
            try:
                return await conn.request("tools/call", params)
            except RemoteError as exc:
                return exc


async def test_the_point_example_over_a_loopback_server(caplog: pytest.LogCaptureFixture) -> None:
    arguments = {"pos": {"X": 3, "y": 4}}
    refused = await _call(ProtocolOptions(), arguments)
    assert isinstance(refused, RemoteError) and refused.code == -32602
    assert refused.data["errors"] == [
        {
            "path": "$.pos.X",
            "message": "unknown member (known here: x, y)",
            "rule": "extra_forbidden",
        }
    ]
    assert "$.pos.X: unknown member (known here: x, y)" in refused.message
    with caplog.at_level(logging.WARNING, logger="lib_gab.tools"):
        assert await _call(ProtocolOptions.lib_gab(), arguments) == {"x": 3, "y": 4}
        assert await _call(ProtocolOptions.lib_gab(), {"pos": {"x": 1, "z": 9}}) == {
            "x": 1,
            "y": 0,
        }
    assert [r.getMessage() for r in caplog.records if r.name == "lib_gab.tools"] == [
        "game/move: member $.pos.X taken as 'x' (letter case differs)",
        "game/move: unknown member $.pos.z ignored; known here: x, y",
    ]


def test_the_warning_texts_name_the_path_in_lists_and_dicts(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def tool(points: list[Point], named: dict[str, Point]) -> None: ...

    with caplog.at_level(logging.WARNING, logger="lib_gab.tools"):
        values = _ignored(
            _tool(tool), {"points": [{"x": 1}, {"Y": 2, "w": 0}], "named": {"a": {"X": 5, "q": 1}}}
        )
    assert values == {"points": [Point(x=1), Point(y=2)], "named": {"a": Point(x=5)}}
    assert [r.getMessage() for r in caplog.records if r.name == "lib_gab.tools"] == [
        "test/tool: member $.points[1].Y taken as 'y' (letter case differs)",
        "test/tool: unknown member $.points[1].w ignored; known here: x, y",
        "test/tool: member $.named.a.X taken as 'x' (letter case differs)",
        "test/tool: unknown member $.named.a.q ignored; known here: x, y",
    ]


def test_a_list_of_models() -> None:
    def tool(points: list[Point]) -> None: ...

    errors = _refused(_tool(tool), {"points": [{"x": 1}, {"X": 2, "y": 1}, {"y": "2", "z": 0}]})
    assert _paths(errors) == ["$.points[1].X", "$.points[2].z", "$.points[2].y"]
    assert errors[0]["message"] == "unknown member (known here: x, y)"
    values = _ignored(_tool(tool), {"points": [{"x": 1}, {"X": 2, "y": 1}, {"y": "2", "z": 0}]})
    assert values == {"points": [Point(x=1), Point(x=2, y=1), Point(y=2)]}


def test_a_model_that_allows_extra_members_keeps_them() -> None:
    def tool(item: Loose) -> None: ...

    kept = _tool(tool).validate_arguments({"item": {"x": 1, "tag": "a"}})["item"]
    assert (kept.x, kept.model_extra) == (1, {"tag": "a"})
    matched = _ignored(_tool(tool), {"item": {"X": 1, "tag": "a"}})["item"]
    assert (matched.x, matched.model_extra) == (1, {"tag": "a"})


def test_a_model_that_forbids_extra_members() -> None:
    def tool(item: Strict) -> None: ...

    errors = _refused(_tool(tool), {"item": {"x": 1, "q": 2}})
    assert errors == [
        {"path": "$.item.q", "message": "unknown member (known here: x)", "rule": "extra_forbidden"}
    ]
    assert _ignored(_tool(tool), {"item": {"X": 1, "q": 2}}) == {"item": Strict(x=1)}


def test_a_dataclass_and_a_typed_dict() -> None:
    def tool(cell: Cell, size: Size) -> None: ...

    errors = _refused(_tool(tool), {"cell": {"X": 1}, "size": {"width": 2, "Height": 3}})
    assert [(error["path"], error["message"]) for error in errors] == [
        ("$.cell.X", "unknown member (known here: x, y)"),
        ("$.size.Height", "unknown member (known here: width)"),
    ]
    values = _ignored(_tool(tool), {"cell": {"X": 1, "z": 0}, "size": {"WIDTH": 2}})
    assert values == {"cell": Cell(x=1), "size": {"width": 2}}


def test_aliases_root_models_and_types_that_read_their_input_first() -> None:
    def tool(renamed: Renamed, legacy: Legacy, points: Points) -> None: ...

    errors = _refused(_tool(tool), {"renamed": {"posx": 1}, "points": {"a": {"X": 1}}})
    assert [(error["path"], error["message"]) for error in errors] == [
        ("$.renamed.posx", "unknown member (known here: posX, x)"),
        ("$.points.a.X", "unknown member (known here: x, y)"),
        ("$.legacy", "required argument is missing"),
    ]
    # a model validator that sees the input first may take other names: left to it
    values = _tool(tool).validate_arguments(
        {"renamed": {"x": 2}, "legacy": {"X": 3}, "points": {"a": {"x": 1}}}
    )
    assert values == {
        "renamed": Renamed(x=2),
        "legacy": Legacy(x=3),
        "points": Points({"a": Point(x=1)}),
    }


def test_other_problems_are_reported_beside_the_unknown_members() -> None:
    errors = _refused(_tool(_move), {"pos": {"X": 1, "y": "no"}, "other": 1})
    assert _paths(errors) == ["$.pos.X", "$.pos.y", "$.other"]


def test_a_type_that_contains_itself() -> None:
    def tool(tree: Tree) -> None: ...

    arguments = {"tree": {"name": "a", "children": [{"Name": "b", "leaves": 1}]}}
    assert _paths(_refused(_tool(tool), arguments)) == [
        "$.tree.children[0].Name",
        "$.tree.children[0].leaves",
    ]
    assert _ignored(_tool(tool), arguments) == {"tree": Tree(name="a", children=[Tree(name="b")])}


def test_a_tool_without_object_parameters_walks_nothing() -> None:
    def plain(count: int, names: list[str], table: dict[str, Any] | None = None) -> None: ...

    assert _tool(plain)._shape is None  # decided at registration: its calls pay nothing
    assert _tool(_move)._shape is not None


def _object_schemas(schema: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if isinstance(schema, dict):
        if schema.get("type") == "object" and "properties" in schema:
            found.append(schema)
        for value in schema.values():
            found.extend(_object_schemas(value))
    elif isinstance(schema, list):
        for value in schema:
            found.extend(_object_schemas(value))
    return found


def test_the_input_schema_closes_each_object_that_refuses_unknown_members() -> None:
    def tool(
        pos: Point, cells: list[Cell], size: Size, item: Loose, tree: Tree | None = None
    ) -> None: ...

    schema = _tool(tool).input_schema
    definitions = schema["$defs"]
    for name in ("Point", "Cell", "Size", "Tree"):
        assert definitions[name]["additionalProperties"] is False, name
    assert definitions["Loose"]["additionalProperties"] is True
    assert schema["additionalProperties"] is False
    objects = _object_schemas(schema)
    assert len(objects) == 6
    assert all("additionalProperties" in each for each in objects)
    assert not [each for each in objects if isinstance(each.get("type"), list)]
    assert schema["properties"]["tree"] == {"$ref": "#/$defs/Tree"}  # no type array for null
