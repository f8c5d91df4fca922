"""The real RimBridgeServer tool contract, as data, and how the simulation declares it.

``rimbridge-tools.json`` (package data) holds the facts of the mod's public tool surface: for
each of its 123 tools the wire name, every parameter with its JSON type, required flag,
default, value set (and whether the mod refuses values outside it), the tags and a category.
The simulation registers its tools against this file: a tool the mod has is declared exactly
as the mod declares it (see :func:`expected_property` for the one rule that maps a reference
parameter to its JSON Schema), and :func:`differences` says where a live ``tools/list`` entry
departs from it.

Two parameter kinds need a decision, written down here and in the package README:

* **Object parameters.** The mod takes ``Dictionary<string, object>`` parameters
  (``rimbridge/run_lua`` ``parameters``, ``rimworld/update_mod_settings`` ``values``, ...).
  Its runtime derives the JSON type from the .NET type and calls every enumerable type an
  ``array``, so the mod *advertises* ``"type": "array"`` but only *accepts* a JSON object
  (an array does not deserialize into a dictionary). The reference records both
  (``type: array``, ``semantic_type: object``). The simulation declares what the mod accepts,
  ``"type": "object"``: a client that trusts the schema then sends what works against both.
* **Value sets.** Where the mod refuses values outside a set (``enum_enforced``), the schema
  carries ``enum`` and the runtime refuses other values before the tool runs. Where the mod
  only documents a set and accepts anything (``enum_enforced: false``), the schema carries the
  set as ``examples`` and no ``enum``, so nothing the mod accepts is refused.

Defaults are the mod's, parameters without a default in the mod have none in the schema, and
no bounds are added: where the mod clamps or refuses a number inside the tool, so does the
simulation.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Final, Literal, TypeAlias

__all__ = [
    "MISSING",
    "WIRE_TYPES",
    "Contract",
    "ParamContract",
    "ToolContract",
    "describe_type",
    "differences",
    "expected_property",
    "load_contract",
    "python_name",
    "tool_names",
    "wire_name",
]

JsonType: TypeAlias = Literal["string", "integer", "number", "boolean", "array", "object"]
WIRE_TYPES: Final[frozenset[str]] = frozenset(
    {"string", "integer", "number", "boolean", "array", "object"}
)


class _Missing:
    """The marker for "this parameter has no default" (``None`` is a real default)."""

    _instance: _Missing | None = None

    def __new__(cls) -> _Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Final = _Missing()


@dataclass(frozen=True, slots=True)
class ParamContract:
    """One parameter of a real tool."""

    name: str
    type: JsonType
    """The JSON type the mod advertises."""
    required: bool
    default: Any = MISSING
    enum: tuple[str, ...] | None = None
    enum_enforced: bool = False
    semantic_type: JsonType | None = None
    """What the mod really accepts when it differs from :attr:`type` (``object``)."""

    @property
    def wire_type(self) -> JsonType:
        """The JSON type the simulation declares (the accepted type, see the module doc)."""
        return self.semantic_type or self.type

    @property
    def python_name(self) -> str:
        return python_name(self.name)


@dataclass(frozen=True, slots=True)
class ToolContract:
    """One real tool: its wire name, parameters, tags and category."""

    name: str
    params: tuple[ParamContract, ...]
    tags: tuple[str, ...]
    category: str
    source: str
    """Where the mod declares it (file and line in its repository)."""

    def param(self, name: str) -> ParamContract:
        for param in self.params:
            if param.name == name:
                return param
        raise KeyError(f"{self.name} has no parameter {name!r}")


@dataclass(frozen=True)
class Contract:
    """Every real tool, by wire name, in the reference's order."""

    about: str
    tools: Mapping[str, ToolContract]

    def __contains__(self, name: object) -> bool:
        return name in self.tools

    def __getitem__(self, name: str) -> ToolContract:
        return self.tools[name]

    def __iter__(self) -> Iterator[ToolContract]:
        return iter(self.tools.values())

    def __len__(self) -> int:
        return len(self.tools)

    def get(self, name: str) -> ToolContract | None:
        return self.tools.get(name)


def _param(raw: Mapping[str, Any], tool: str) -> ParamContract:
    kind = raw["type"]
    if kind not in WIRE_TYPES:
        raise ValueError(f"{tool}.{raw['name']}: unknown JSON type {kind!r}")
    enum = raw.get("enum")
    return ParamContract(
        name=raw["name"],
        type=kind,
        required=bool(raw["required"]),
        default=raw.get("default", MISSING),
        enum=tuple(enum) if enum is not None else None,
        enum_enforced=bool(raw.get("enum_enforced", False)),
        semantic_type=raw.get("semantic_type"),
    )


@cache
def load_contract() -> Contract:
    """The reference shipped with the package (read once)."""
    text = (
        resources.files("rimbridge_sim.contract")
        .joinpath("rimbridge-tools.json")
        .read_text(encoding="utf-8")
    )
    raw = json.loads(text)
    tools: dict[str, ToolContract] = {}
    for entry in raw["tools"]:
        name = entry["name"]
        tools[name] = ToolContract(
            name=name,
            params=tuple(_param(p, name) for p in entry["params"]),
            tags=tuple(entry["tags"]),
            category=entry["category"],
            source=entry["source"],
        )
    if raw.get("tool_count") not in (None, len(tools)):
        raise ValueError(f"reference lists {len(tools)} tools, says {raw['tool_count']}")
    return Contract(about=raw.get("about", ""), tools=tools)


_CAMEL = re.compile(r"(?<=[a-z0-9])([A-Z])")


def python_name(wire_name: str) -> str:
    """``pawnName`` -> ``pawn_name``, ``fromX`` -> ``from_x``: the keyword a tool body takes."""
    return _CAMEL.sub(r"_\1", wire_name).lower()


def wire_name(keyword: str) -> str:
    """``pawn_name`` -> ``pawnName``: the inverse of :func:`python_name` for every real tool's
    parameters (the contract tests check the round trip)."""
    head, *rest = keyword.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def expected_property(param: ParamContract) -> dict[str, Any]:
    """The schema keys that must match for ``param`` (descriptions and titles are free)."""
    expected: dict[str, Any] = {"type": param.wire_type}
    if param.default is not MISSING and param.default is not None:
        expected["default"] = param.default
    if param.enum is not None:
        expected["enum" if param.enum_enforced else "examples"] = list(param.enum)
    return expected


_CHECKED_KEYS: Final = ("type", "default", "enum", "examples")


def _same(left: Any, right: Any) -> bool:
    """JSON equality that keeps ``1`` and ``True`` apart but lets ``0`` equal ``0.0``."""
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    return bool(left == right)


def differences(descriptor: Mapping[str, Any], contract: ToolContract) -> list[str]:
    """Where a ``tools/list`` entry departs from the contract (empty when it matches).

    Checked: the name, the tag list, ``additionalProperties: false``, the set of parameter
    names, the required set, and per parameter ``type``, ``default``, ``enum`` and
    ``examples`` as :func:`expected_property` states them.
    """
    problems: list[str] = []
    name = descriptor.get("name")
    if name != contract.name:
        problems.append(f"name {name!r} != {contract.name!r}")
    tags = list(descriptor.get("tags") or [])
    if tags != list(contract.tags):
        problems.append(f"tags {tags} != {list(contract.tags)}")
    schema = descriptor.get("inputSchema") or {}
    if schema.get("type") != "object":
        problems.append(f"inputSchema type {schema.get('type')!r} != 'object'")
    if schema.get("additionalProperties") is not False:
        problems.append("inputSchema does not refuse unknown arguments")
    properties: Mapping[str, Any] = schema.get("properties") or {}
    wanted = [p.name for p in contract.params]
    if sorted(properties) != sorted(wanted):
        extra = sorted(set(properties) - set(wanted))
        missing = sorted(set(wanted) - set(properties))
        problems.append(f"parameters differ: extra {extra}, missing {missing}")
    required = sorted(schema.get("required") or [])
    wanted_required = sorted(p.name for p in contract.params if p.required)
    if required != wanted_required:
        problems.append(f"required {required} != {wanted_required}")
    for param in contract.params:
        actual = properties.get(param.name)
        if actual is None:
            continue
        expected = expected_property(param)
        for key in _CHECKED_KEYS:
            if key in expected and key in actual and _same(actual[key], expected[key]):
                continue
            if key not in expected and key not in actual:
                continue
            problems.append(
                f"{param.name}.{key}: {actual.get(key, '<absent>')!r} != "
                f"{expected.get(key, '<absent>')!r}"
            )
    return problems


def describe_type(param: ParamContract) -> str:
    """A short human type for tables: ``string``, ``integer``, ``object``, ``one of ...``."""
    if param.enum is not None and param.enum_enforced:
        return "one of " + ", ".join(f"`{v}`" for v in param.enum)
    text: str = param.wire_type
    if param.enum is not None:
        text += " (e.g. " + ", ".join(f"`{v}`" for v in param.enum) + ")"
    return text


def tool_names(contract: Contract, *, category: str | None = None) -> Sequence[str]:
    return [t.name for t in contract if category is None or t.category == category]
