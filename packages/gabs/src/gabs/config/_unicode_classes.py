"""The code points a ``\\p{name}`` of Go's ``regexp`` stands for, as ranges.

Go (``regexp/syntax``, ``unicodeTable``) reads the name loosely: letter case, ``_``, ``-``
and spaces do not count (``\\p{uppercase_letter}`` is ``\\p{Lu}``), and it knows ``Any``,
``Assigned``, ``ASCII``, the general categories (``Lu``) and their major classes (``L``),
``LC``, the long names of categories (``Letter``, ``Decimal_Number``) and the Unicode scripts
(``Greek``). The tables are Go's own (``unicode_tables.json``, made by
``scripts/extract_unicode_tables.py``): Python's ``re`` has no ``\\p``, its ``unicodedata``
no scripts and often an older Unicode than Go's.
"""

from __future__ import annotations

import functools
import json
import sys
from importlib import resources
from typing import Final

__all__ = ["Ranges", "complement", "named_class"]

Ranges = tuple[tuple[int, int], ...]

#: Go's ``unicode.CategoryAliases``: the long name of a category (and three POSIX-style ones).
_CATEGORY_ALIASES: Final = {
    "Cased_Letter": "LC",
    "Close_Punctuation": "Pe",
    "Combining_Mark": "M",
    "Connector_Punctuation": "Pc",
    "Control": "Cc",
    "Currency_Symbol": "Sc",
    "Dash_Punctuation": "Pd",
    "Decimal_Number": "Nd",
    "Enclosing_Mark": "Me",
    "Final_Punctuation": "Pf",
    "Format": "Cf",
    "Initial_Punctuation": "Pi",
    "Letter": "L",
    "Letter_Number": "Nl",
    "Line_Separator": "Zl",
    "Lowercase_Letter": "Ll",
    "Mark": "M",
    "Math_Symbol": "Sm",
    "Modifier_Letter": "Lm",
    "Modifier_Symbol": "Sk",
    "Nonspacing_Mark": "Mn",
    "Number": "N",
    "Open_Punctuation": "Ps",
    "Other": "C",
    "Other_Letter": "Lo",
    "Other_Number": "No",
    "Other_Punctuation": "Po",
    "Other_Symbol": "So",
    "Paragraph_Separator": "Zp",
    "Private_Use": "Co",
    "Punctuation": "P",
    "Separator": "Z",
    "Space_Separator": "Zs",
    "Spacing_Mark": "Mc",
    "Surrogate": "Cs",
    "Symbol": "S",
    "Titlecase_Letter": "Lt",
    "Unassigned": "Cn",
    "Uppercase_Letter": "Lu",
    "cntrl": "Cc",
    "digit": "Nd",
    "punct": "P",
}


def canonical_name(name: str) -> str:
    """Go's ``canonicalName``: ``_``, ``-`` and spaces dropped, the first letter upper case,
    every other lower case (ASCII letters only)."""
    kept = [char for char in name if char not in "_- "]
    if not kept:
        return ""
    head, tail = kept[0], "".join(kept[1:])
    if "a" <= head <= "z":
        head = head.upper()
    return head + "".join(c.lower() if "A" <= c <= "Z" else c for c in tail)


def complement(ranges: Ranges) -> Ranges:
    result, low = [], 0
    for start, end in sorted(ranges):
        if start > low:
            result.append((low, start - 1))
        low = max(low, end + 1)
    if low <= sys.maxunicode:
        result.append((low, sys.maxunicode))
    return tuple(result)


def _parse_ranges(text: str) -> Ranges:
    ranges = []
    for item in text.split():
        low, _, high = item.partition("-")
        ranges.append((int(low, 16), int(high or low, 16)))
    return tuple(ranges)


@functools.lru_cache(maxsize=1)
def _tables() -> tuple[dict[str, str], dict[str, str]]:
    """Go's categories under their names and its scripts under their canonical names (the
    ranges still as text)."""
    raw = resources.files(__package__).joinpath("unicode_tables.json").read_text("utf-8")
    document = json.loads(raw)
    scripts = {canonical_name(name): text for name, text in document["scripts"].items()}
    return document["categories"], scripts


_ALIASES: Final = {canonical_name(alias): actual for alias, actual in _CATEGORY_ALIASES.items()}


@functools.lru_cache(maxsize=256)
def named_class(name: str) -> Ranges | None:
    """The ranges ``\\p{name}`` stands for in Go's ``regexp``; None for a name Go does not
    know (which it refuses as ``invalid character class range``)."""
    key = canonical_name(name)
    categories, scripts = _tables()
    if key == "Any":
        return ((0, sys.maxunicode),)
    if key == "Assigned":
        return complement(_parse_ranges(categories["Cn"]))
    if key == "Ascii":
        return ((0, 0x7F),)
    # LC is the one category whose name is not canonical: Go looks it up as "Lc" only
    text = categories["LC"] if key == "Lc" else categories.get(key) if key != "LC" else None
    if text is None:
        text = scripts.get(key)
    if text is None and key in _ALIASES:
        text = categories[_ALIASES[key]]
    return None if text is None else _parse_ranges(text)
