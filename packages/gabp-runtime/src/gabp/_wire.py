"""The base of every wire model: names, patterns, and the two validation modes.

* **strict** (building a model in Python, or parsing with ``strict=True``): exactly what this
  repository sends: GABP 1.0's normative schemas plus the extension set's rules.
* **peer** (parsing with ``strict=False``, the default when receiving): everything GABP's
  schemas accept, and what real peers send besides. Unknown keys are dropped, and the rules
  that exist only for sending (the extension set's, the letters-only method names) are waived.
"""

from __future__ import annotations

import itertools
import os
import re
import secrets
import uuid
from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Final, TypeAlias

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    StringConstraints,
    ValidationInfo,
    model_serializer,
    model_validator,
)
from pydantic.alias_generators import to_camel

PROTOCOL_VERSION: Final = "gabp/1"
SCHEMA_VERSION: Final = "1.0"
METHOD_PATTERN = r"^[a-z][a-z0-9_-]*(/[a-z][a-z0-9_-]*)+$"
"""Method names a receiver accepts (GABP's registry rule)."""
SEND_METHOD_PATTERN = r"^[a-z]+(/[a-z]+)+$"
"""Method names a sender uses (letters only: GABP's envelope schema)."""
TOOL_NAME_PATTERN = r"^[a-z][a-z0-9_-]*(/[a-z][a-z0-9_-]*)+$"
EXTENSION_NAME_PATTERN = r"^[a-z][a-z0-9_-]*$"
"""Keys of ``capabilities.extensions``."""
UUID_PATTERN = r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
DATE_TIME_PATTERN = r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$"
"""RFC 3339 ``date-time`` (the shape; calendar values are checked where it matters)."""
URI_PATTERN = (
    r"^[A-Za-z][A-Za-z0-9+.\-]*:([^\s<>\"{}|\\^`%\x00-\x1f\x7f-\U0010ffff]|%[0-9A-Fa-f]{2})*$"
)
"""An absolute URI (RFC 3986: ASCII only), as ``format: uri`` is checked by ``gabp_schemas``."""

MessageId = Annotated[str, StringConstraints(pattern=UUID_PATTERN)]
MethodName = Annotated[str, StringConstraints(pattern=METHOD_PATTERN)]
ToolName = Annotated[str, StringConstraints(pattern=TOOL_NAME_PATTERN)]
NonEmpty = Annotated[str, StringConstraints(min_length=1)]
NonNegative = Annotated[int, Field(ge=0, strict=True)]
Json: TypeAlias = Any

_PEER = "peer"


_ASCII_CLASSES: Final = {"d": "0-9", "w": "A-Za-z0-9_"}
"""ECMA-262's ``\\d`` and ``\\w``, which take ASCII only."""


def schema_regex(pattern: str) -> re.Pattern[str]:
    """``pattern`` (a JSON Schema ``pattern`` anchored with ``^...$``) compiled to match as JSON
    Schema (ECMA-262) matches it: ``$`` only at the very end (Python's also matches before a
    final line break), ``\\d`` and ``\\w`` over ASCII only (Python's take any Unicode digit or
    letter); ``\\s`` is Unicode in both."""
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        pattern = pattern[:-1] + r"\Z"
    out: list[str] = []
    in_class = escaped = False
    for char in pattern:
        if escaped:
            ascii_class = _ASCII_CLASSES.get(char)
            if ascii_class is None:
                out.append("\\" + char)
            else:
                out.append(ascii_class if in_class else f"[{ascii_class}]")
            escaped = False
        elif char == "\\":
            escaped = True
        else:
            in_class = (in_class or char == "[") and not (in_class and char == "]")
            out.append(char)
    return re.compile("".join(out))


_SEND_METHOD = schema_regex(SEND_METHOD_PATTERN)
_URI = schema_regex(URI_PATTERN)


def new_id() -> str:
    """A fresh message id (a random UUID)."""
    return str(uuid.uuid4())


class _UniqueIds:
    """Version-4-shaped UUIDs: a random prefix per process and a counter (see unique_id)."""

    def __init__(self) -> None:
        self.reseed()
        os.register_at_fork(after_in_child=self.reseed)

    def reseed(self) -> None:
        bits = secrets.token_hex(8)  # 64 random bits: 60 in the prefix, 3 in the variant group
        variant = "89ab"[int(bits[15], 16) & 3]
        self.prefix = f"{bits[:8]}-{bits[8:12]}-4{bits[12:15]}-{variant}"
        self.counter = itertools.count(secrets.randbelow(1 << 20) << 24)

    def __call__(self) -> str:
        count = next(self.counter)
        return f"{self.prefix}{(count >> 48) & 0xFFF:03x}-{count & 0xFFFFFFFFFFFF:012x}"


unique_id = _UniqueIds()
"""A message id unique to this process's lifetime, shaped as a random (version 4) UUID.

A random prefix chosen at start (and again in a forked child) and a counter: ten times cheaper
than :func:`new_id` (no system call), and still unique across processes in practice. Ids are
predictable from one another, so never use one as a secret (tokens come from
:func:`gabp.generate_token`). :class:`~gabp.Connection` numbers its requests and events with it.
"""


def peer_mode(info: ValidationInfo) -> bool:
    """True while parsing what a peer sent (``strict=False``)."""
    context = info.context
    return isinstance(context, Mapping) and bool(context.get(_PEER))


def context_for(strict: bool) -> dict[str, bool]:
    return {_PEER: not strict}


def check_send_method(method: str, info: ValidationInfo) -> str:
    """Outside peer mode a method name is letters-only segments (GABP's envelope pattern)."""
    if not peer_mode(info) and _SEND_METHOD.match(method) is None:
        raise ValueError(
            f"method {method!r} must be letters-only segments joined by '/' "
            f"({SEND_METHOD_PATTERN}); receivers accept digits, '_' and '-' too"
        )
    return method


def check_uri(value: str, info: ValidationInfo) -> str:
    """Outside peer mode a URI is absolute (``format: uri``)."""
    if not peer_mode(info) and _URI.match(value) is None:
        raise ValueError(f"{value!r} is not an absolute URI")
    return value


def unique(values: list[Any], info: ValidationInfo) -> list[Any]:
    """Outside peer mode, reject duplicates (``uniqueItems``)."""
    if peer_mode(info):
        return values
    seen: list[Any] = []
    for value in values:
        if value in seen:
            raise ValueError(f"items must be unique; {value!r} appears more than once")
        seen.append(value)
    return values


class WireModel(BaseModel):
    """Base of every wire model: camelCase aliases, no unknown keys (dropped in peer mode)."""

    model_config = ConfigDict(
        extra="forbid",
        alias_generator=to_camel,
        populate_by_name=True,
        frozen=False,
        strict=True,  # JSON types exactly: no "1" for 1, no 1 for true
    )
    _wire_keys: ClassVar[frozenset[str]] = frozenset()
    _required_on_wire: ClassVar[frozenset[str]] = frozenset()
    """Keys a received message must carry although Python callers may leave them out."""

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        cls._wire_keys = frozenset(
            {field.alias or name for name, field in cls.model_fields.items()}
        )

    @model_validator(mode="before")
    @classmethod
    def _drop_unknown_keys_from_peers(cls, data: Any, info: ValidationInfo) -> Any:
        if isinstance(data, dict) and info.context is not None:  # parsing, not building
            missing = [key for key in cls._required_on_wire if key not in data]
            if missing:
                raise ValueError(f"missing required member(s): {', '.join(sorted(missing))}")
        if isinstance(data, dict) and peer_mode(info):
            keys = cls._wire_keys
            if any(key not in keys for key in data):
                return {key: value for key, value in data.items() if key in keys}
        return data

    @model_serializer(mode="wrap")
    def _omit_unset_nones(
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            fields_set = self.model_fields_set
            for name, field in type(self).model_fields.items():
                if name in fields_set:
                    continue
                key = (field.alias or name) if info.by_alias else name
                if key in data and data[key] is None:
                    del data[key]
        return data

    def to_wire(self) -> dict[str, Any]:
        """The JSON-ready wire form (camelCase keys, optional fields left out when not set)."""
        return self.model_dump(mode="json", by_alias=True)
