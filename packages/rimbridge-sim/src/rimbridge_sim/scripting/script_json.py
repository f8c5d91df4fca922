"""A ``run_script`` payload read as the mod reads it, refusals worded as its reader words them.

The mod deserializes ``scriptJson`` into its script definition class with Newtonsoft.Json 13.
That reader looks at the payload's first token before anything else: an array (a list of steps
sent without its object, the likeliest slip) or a single value is refused at once, whatever
follows, with the serializer's own text; a number past what a double holds (``1e400``) is a
reader error. :func:`read_script_json` gives those texts, then reads the rest: the first of a
syntax error (in Python's reader's words) and a container nested past the reader's
``MaxDepth`` (:mod:`rimbridge_sim.scripting.reader_depth`), in the order of the text. The
texts were taken from Newtonsoft.Json running on Mono, as RimWorld runs it.
"""

from __future__ import annotations

import json
import math
from typing import Any, Final

from rimbridge_sim.scripting.reader_depth import MAX_DEPTH, depth_refusal, line_position

__all__ = ["DEFINITION_TYPE", "read_script_json"]

DEFINITION_TYPE: Final = "RimBridgeServer.Contracts.CapabilityScriptDefinition"
"""The class the mod deserializes a payload into, as its serializer names it."""

_ARRAY_REFUSAL: Final = (
    "Cannot deserialize the current JSON array (e.g. [1,2,3]) into type '{type}' because the "
    'type requires a JSON object (e.g. {{"name":"value"}}) to deserialize correctly.\n'
    'To fix this error either change the JSON to a JSON object (e.g. {{"name":"value"}}) or '
    "change the deserialized type to an array or a type that implements a collection interface "
    "(e.g. ICollection, IList) like List<T> that can be deserialized from a JSON array. "
    "JsonArrayAttribute can also be added to the type to force it to deserialize from a JSON "
    "array.\nPath '', line {line}, position {position}."
)
_DECODER: Final = json.JSONDecoder()
_WHITESPACE: Final = " \t\n\r"


def read_script_json(text: str) -> Any:
    """The JSON value of ``text``; ``ValueError`` with the reader's words when the mod could not
    read it as a script definition (see the module)."""
    refusal = _root_refusal(text)
    if refusal is not None:
        raise ValueError(refusal)
    # fewer brackets than the bound cannot nest past it: no scan for almost every script
    deep = None
    if text.count("{") + text.count("[") > MAX_DEPTH:
        deep = depth_refusal(text)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        if deep is None or error.pos < deep.offset:
            raise
        raise ValueError(deep.message) from None
    except RecursionError:
        # only a text nested far deeper than the bound goes past Python's recursion limit
        raise ValueError(
            deep.message if deep else "the JSON text nests too deep to be read"
        ) from None
    if deep is not None:
        raise ValueError(deep.message)
    return value


def _root_refusal(text: str) -> str | None:
    """The serializer's text for a payload whose first token is no object (nor ``null``), or
    None to read it on."""
    start = len(text) - len(text.lstrip(_WHITESPACE))
    if start == len(text) or text[start] in "{n":
        return None
    if text[start] == "[":
        line, position = line_position(text, start + 1)
        return _ARRAY_REFUSAL.format(type=DEFINITION_TYPE, line=line, position=position)
    try:
        value, end = _DECODER.raw_decode(text, start)
    except (ValueError, RecursionError):
        return None  # a syntax error: read on, and refused in the reader's words
    line, position = line_position(text, end)
    if isinstance(value, float) and not math.isfinite(value):
        where = f"Path '', line {line}, position {position}."
        return f"Input string '{text[start:end]}' is not a valid number. {where}"
    return (
        f"Error converting value {_printed(value)} to type '{DEFINITION_TYPE}'. Path '', "
        f"line {line}, position {position}."
    )


def _printed(value: Any) -> str:
    """A value as the serializer prints it in its message: text in quotes as it is, a boolean
    as .NET writes it, a fraction or exponent as a double in .NET's general form."""
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, float):
        text = format(value, ".15G")
        return "0" if text == "-0" else text
    return str(value)
