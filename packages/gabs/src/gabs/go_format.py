"""How the Go bridge formats a string with ``%q``, for the lines a user or script compares."""

from __future__ import annotations

from typing import Final

__all__ = ["go_quote"]

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
