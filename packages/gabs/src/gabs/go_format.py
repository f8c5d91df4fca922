"""How the Go bridge formats values in the lines a user or script compares: a string with
``%q`` (:func:`go_quote`) and a JSON value with ``json.Marshal`` (:func:`go_json`)."""

from __future__ import annotations

import json
import math
import re
from decimal import Decimal
from typing import Any, Final

__all__ = [
    "go_duration",
    "go_duration_ns",
    "go_html_escape",
    "go_json",
    "go_numbers",
    "go_numbers_within",
    "go_quote",
    "go_reason",
]


def go_reason(exc: OSError) -> str:
    """An OS error's reason as Go's error strings put it, in lower case: ``permission
    denied``, ``is a directory`` (Python's ``strerror`` begins with a capital)."""
    reason = exc.strerror or str(exc)
    return reason[:1].lower() + reason[1:]


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
        elif 0xD800 <= point < 0xE000:
            # Not UTF-8 in Go's string: a command-line byte Python keeps as a lone surrogate
            # (U+DC80..U+DCFF), or the bytes of another lone surrogate; Go writes each as \xNN.
            raw = char.encode("utf-8", "surrogateescape" if point >= 0xDC80 else "surrogatepass")
            out.extend(f"\\x{byte:02x}" for byte in raw)
        elif point < 0x10000:
            out.append(f"\\u{point:04x}")
        else:
            out.append(f"\\U{point:08x}")
    return '"' + "".join(out) + '"'


#: What Go's ``json.Marshal`` escapes in a string beyond what JSON requires (HTML-safe output).
#: None of them can occur outside a string in JSON text, so they are replaced in the whole text.
_JSON_ESCAPES: Final = (
    ("<", "\\u003c"),
    (">", "\\u003e"),
    ("&", "\\u0026"),
    ("\u2028", "\\u2028"),
    ("\u2029", "\\u2029"),
)


def go_html_escape(text: str) -> str:
    """JSON ``text`` with the characters Go's encoder escapes beyond what JSON requires
    (``<``, ``>``, ``&``, U+2028, U+2029) written as Go writes them."""
    for char, escape in _JSON_ESCAPES:
        if char in text:
            text = text.replace(char, escape)
    return text


#: A string token, or a number token that Python wrote as a float (a fraction or an exponent).
_TOKEN: Final = re.compile(r'"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?[eE][-+]?\d+|-?\d+\.\d+')
#: Cheap test for whether the text may hold a float Go writes otherwise: a whole one (``5.0``)
#: or one in exponent notation (``1e-05``, ``1e+16``), as Python's encoder writes them. A
#: string may match too; then the tokens are read properly.
_MAYBE_REWRITE: Final = re.compile(r"\d\.0(?!\d)|\de[-+]\d")


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


def _go_token(match: re.Match[str]) -> str:
    token = match.group()
    if token[0] == '"':
        return token
    if "e" not in token and "E" not in token:
        # Python's repr is fixed notation here with the shortest digits, as Go's; only a
        # whole number keeps a fraction that Go leaves out.
        return token[:-2] if token.endswith(".0") else token
    return _go_float(float(token))


def go_json(value: Any) -> str:
    """``value`` as Go's ``json.Marshal`` writes a decoded JSON document: compact, object keys
    sorted, ``<``, ``>`` and ``&`` escaped, floats in Go's notation (``5.0`` is ``5``).

    Python's C encoder writes the text (a game's result can be hundreds of kilobytes); only the
    float tokens, when there are any, are rewritten afterwards, outside strings."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)
    text = go_html_escape(text)
    if _MAYBE_REWRITE.search(text):
        text = _TOKEN.sub(_go_token, text)
    return text


#: Below this magnitude Go's encoder writes a whole float64 as integer digits (``5``, not ``5.0``);
#: from it on in exponent notation (``1e+21``), which a JSON reader takes as a float again.
_GO_FIXED_LIMIT: Final = 1e21


def go_numbers(value: Any) -> Any:
    """A game's decoded JSON ``value`` with every whole float below 1e21 an integer, in place.

    The Go bridge decodes a game's numbers to float64 and writes a whole one without a
    fraction, so ``5.0`` reaches the MCP client as ``5``: an integer to JSON Schema and to a
    client's JSON reader alike. Integers are kept as they are (also beyond 2^53, where Go
    rounds them). Iterative, so a deeply nested result cannot exhaust the stack."""
    if isinstance(value, float):
        return _whole(value)
    go_numbers_within(value, None)
    return value


def go_numbers_within(value: Any, depth: int | None) -> bool:
    """:func:`go_numbers` on a list or object, in place, in the same pass telling whether it
    nests at most ``depth`` levels (itself the first); ``None``: no bound, always True."""
    limit = -1 if depth is None else depth
    stack: list[tuple[Any, int]] = [(value, 1)]
    within = True
    while stack:
        node, level = stack.pop()
        if isinstance(node, dict):
            items: Any = node.items()
        elif isinstance(node, list):
            items = enumerate(node)
        else:
            continue
        if level == limit + 1:
            within = False
        changes = []
        for key, item in items:
            if isinstance(item, float):
                whole = _whole(item)
                if whole is not item:
                    changes.append((key, whole))
            elif isinstance(item, (dict, list)):
                stack.append((item, level + 1))
        for key, whole in changes:
            node[key] = whole
    return within


def _whole(number: float) -> float | int:
    if number.is_integer() and abs(number) < _GO_FIXED_LIMIT:
        return int(number)
    return number


def go_duration(seconds: float, *, unit: float = 0.001) -> str:
    """``seconds`` as Go prints a ``time.Duration`` rounded to ``unit`` seconds
    (``d.Round(unit)``): ``2s``, ``2.004s``, ``1m30s``, ``150ms``, ``0s``."""
    step = round(unit * 1e9)
    ns = int(Decimal(repr(seconds * 1e9)).to_integral_value(rounding="ROUND_HALF_UP"))
    ns = (abs(ns) + step // 2) // step * step * (1 if ns >= 0 else -1)
    return go_duration_ns(ns)


def go_duration_ns(ns: int) -> str:
    """Whole nanoseconds as Go's ``Duration.String`` prints them (``1m30s``, ``1.5µs``)."""
    if ns == 0:
        return "0s"
    sign, ns = ("-" if ns < 0 else ""), abs(ns)
    if ns < 1_000_000_000:
        for size, name in ((1_000_000, "ms"), (1_000, "\u00b5s"), (1, "ns")):
            if ns >= size:
                return sign + _with_fraction(ns, size) + name
    hours, rest = divmod(ns, 3_600_000_000_000)
    minutes, rest = divmod(rest, 60_000_000_000)
    text = f"{hours}h" if hours else ""
    if hours or minutes:
        text += f"{minutes}m"
    return sign + text + _with_fraction(rest, 1_000_000_000) + "s"


def _with_fraction(value: int, size: int) -> str:
    whole, fraction = divmod(value, size)
    if not fraction:
        return str(whole)
    digits = len(str(size)) - 1
    return f"{whole}." + f"{fraction:0{digits}d}".rstrip("0")
