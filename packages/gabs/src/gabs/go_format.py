"""How the Go bridge formats values in the lines a user or script compares: a string with
``%q`` (:func:`go_quote`) and a JSON value with ``json.Marshal`` (:func:`go_json`)."""

from __future__ import annotations

import json
import math
from decimal import Decimal
from typing import Any, Final

__all__ = ["go_json", "go_quote"]

_ESCAPES: Final = {
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
    '"': '\\"',
    "\\": "\\\\",
}


def go_quote(text: str) -> str:
    """``text`` as Go's ``%q`` prints it (a double-quoted string with Go's escapes)."""
    out = []
    for char in text:
        point = ord(char)
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif char.isprintable():
            out.append(char)
        elif point < 0x20 or point == 0x7F:
            out.append(f"\\x{point:02x}")
        elif point < 0x10000:
            out.append(f"\\u{point:04x}")
        else:
            out.append(f"\\U{point:08x}")
    return '"' + "".join(out) + '"'


#: What Go's ``json.Marshal`` escapes in a string beyond what JSON requires (HTML-safe output).
_JSON_ESCAPES: Final = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}


def _go_string(text: str) -> str:
    encoded = json.dumps(text, ensure_ascii=False)
    for char, escape in _JSON_ESCAPES.items():
        encoded = encoded.replace(char, escape)
    return encoded


def _go_float(number: float) -> str:
    """A float as Go's encoder writes it: fixed notation from 1e-6 up to 1e21, without a
    fraction when it is whole; else exponent notation with at least one exponent digit."""
    if not math.isfinite(number):
        return json.dumps(number)  # not JSON; Go refuses to encode it, Python writes a token
    magnitude = abs(number)
    if magnitude != 0 and (magnitude < 1e-6 or magnitude >= 1e21):
        mantissa, exponent = repr(number).split("e")
        sign = exponent[0]
        return f"{mantissa}e{sign}{exponent[1:].lstrip('0') or '0'}"
    return format(Decimal(repr(number)).normalize(), "f")


def go_json(value: Any) -> str:
    """``value`` as Go's ``json.Marshal`` writes a decoded JSON document: compact, object keys
    sorted, ``<``, ``>`` and ``&`` escaped, floats in Go's notation (``5.0`` is ``5``)."""
    if isinstance(value, dict):
        members = (f"{_go_string(str(key))}:{go_json(value[key])}" for key in sorted(value))
        return "{" + ",".join(members) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(go_json(item) for item in value) + "]"
    if isinstance(value, str):
        return _go_string(value)
    if value is None or isinstance(value, (bool, int)):
        return json.dumps(value)
    if isinstance(value, float):
        return _go_float(value)
    return _go_string(str(value))
