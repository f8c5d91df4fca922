"""Every core tool's input and output schema is portable: hosts that map tool schemas onto a
single-type dialect accept it (no ``type`` arrays such as ``["object", "null"]``, no subschema
that constrains nothing, no remote ``$ref``), as the MCP Inspector's portability check asks."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from gabs.mcp import BRIDGE_TOOLS
from gabs.mcp.tool_names import exposed_output_schema

# What the Inspector counts as constraining a value (any one is enough).
CONSTRAINING = frozenset(
    [
        "type",
        "enum",
        "const",
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "maxLength",
        "minLength",
        "pattern",
        "format",
        "maxItems",
        "minItems",
        "uniqueItems",
        "maxProperties",
        "minProperties",
        "required",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "items",
        "prefixItems",
        "contains",
        "properties",
        "patternProperties",
        "additionalProperties",
        "$ref",
    ]
)
MAP_KEYWORDS = ("properties", "patternProperties", "$defs", "definitions")
LIST_KEYWORDS = ("allOf", "anyOf", "oneOf", "prefixItems")
ONE_KEYWORDS = ("items", "additionalProperties", "not", "contains")


def subschemas(schema: Any, path: str = "$") -> Iterator[tuple[str, Any]]:
    yield path, schema
    if not isinstance(schema, dict):
        return
    for key in MAP_KEYWORDS:
        for name, sub in (schema.get(key) or {}).items():
            yield from subschemas(sub, f"{path}.{key}.{name}")
    for key in LIST_KEYWORDS:
        for index, sub in enumerate(schema.get(key) or []):
            yield from subschemas(sub, f"{path}.{key}[{index}]")
    for key in ONE_KEYWORDS:
        if isinstance(schema.get(key), dict):
            yield from subschemas(schema[key], f"{path}.{key}")


def portability_problems(schema: dict[str, Any]) -> list[str]:
    problems = []
    for path, node in subschemas(schema):
        if isinstance(node, bool):
            if not path.endswith("additionalProperties"):
                problems.append(f"{path}: a bare boolean schema")
            continue
        if isinstance(node.get("type"), list):
            problems.append(f"{path}: type is an array {node['type']}")
        if not CONSTRAINING & set(node) and not path.endswith(".not"):
            problems.append(f"{path}: constrains nothing (no type or other assertion)")
        ref = node.get("$ref")
        if isinstance(ref, str) and not ref.startswith("#"):
            problems.append(f"{path}: remote $ref {ref}")
    return problems


@pytest.mark.parametrize("name", sorted(BRIDGE_TOOLS))
def test_every_core_tool_schema_is_portable(name: str) -> None:
    tool = BRIDGE_TOOLS[name]
    assert portability_problems(tool.input_schema) == []
    assert portability_problems(tool.output_schema) == []


def test_the_walk_finds_what_the_inspector_warns_about() -> None:
    bad = {
        "type": "object",
        "properties": {
            "exitCode": {"type": ["integer", "null"]},
            "anything": {"description": "no type"},
            "nested": {"type": "array", "items": {"$ref": "https://example.com/s.json"}},
        },
    }
    assert portability_problems(bad) == [
        "$.properties.exitCode: type is an array ['integer', 'null']",
        "$.properties.anything: constrains nothing (no type or other assertion)",
        "$.properties.nested.items: remote $ref https://example.com/s.json",
    ]


def test_a_mirrored_tool_advertises_an_output_schema_its_results_conform_to() -> None:
    listed = {"type": "array", "items": {"type": "integer"}, "description": "Numbers."}
    assert exposed_output_schema(listed) == {
        "type": "object",
        "properties": {"value": listed},
        "required": ["value"],
        "description": "Numbers.",
    }
    own = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
    assert exposed_output_schema(own) == own
    assert exposed_output_schema({}) is None and exposed_output_schema(None) is None
