"""The code points a ``\\p{name}`` of Go's ``regexp`` stands for, as ranges.

Go (``regexp/syntax``, ``unicodeTable``) reads the name loosely: letter case, ``_``, ``-``
and spaces do not count (``\\p{uppercase_letter}`` is ``\\p{Lu}``), and it knows ``Any``,
``Assigned``, ``ASCII``, the general categories (``Lu``) and their major classes (``L``),
``LC``, the long names of categories (``Letter``, ``Decimal_Number``) and the Unicode scripts
(``Greek``). Under ``(?i)`` Go widens a class by case folding (:func:`fold_closure`,
:func:`fold_orbit`; ``\\p{...}`` by the fold table of its name, when Go has one). The tables are
Go's own (``unicode_tables.json``, made by
``scripts/extract_unicode_tables.py``): Python's ``re`` has no ``\\p``, its ``unicodedata``
no scripts and often an older Unicode than Go's.
"""

from __future__ import annotations

import bisect
import functools
import json
import sys
from importlib import resources
from typing import Final

__all__ = ["Ranges", "complement", "fold_closure", "fold_orbit", "named_class", "normalize"]

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


def normalize(ranges: Ranges) -> Ranges:
    """``ranges`` sorted, with overlapping and abutting ranges merged."""
    merged: list[tuple[int, int]] = []
    for low, high in sorted(ranges):
        if merged and low <= merged[-1][1] + 1:
            if high > merged[-1][1]:
                merged[-1] = (merged[-1][0], high)
        else:
            merged.append((low, high))
    return tuple(merged)


def _parse_ranges(text: str) -> Ranges:
    ranges = []
    for item in text.split():
        low, _, high = item.partition("-")
        ranges.append((int(low, 16), int(high or low, 16)))
    return tuple(ranges)


@functools.lru_cache(maxsize=1)
def _document() -> dict[str, object]:
    raw = resources.files(__package__).joinpath("unicode_tables.json").read_text("utf-8")
    document: dict[str, object] = json.loads(raw)
    return document


@functools.lru_cache(maxsize=1)
def _tables() -> tuple[dict[str, str], dict[str, str]]:
    """Go's categories under their names and its scripts under their canonical names (the
    ranges still as text); then the fold tables of both, the same way."""
    document = _document()
    categories, scripts = document["categories"], document["scripts"]
    assert isinstance(categories, dict) and isinstance(scripts, dict)
    return categories, {canonical_name(name): text for name, text in scripts.items()}


@functools.lru_cache(maxsize=1)
def _fold_tables() -> tuple[dict[str, str], dict[str, str]]:
    document = _document()
    categories, scripts = document["foldCategories"], document["foldScripts"]
    assert isinstance(categories, dict) and isinstance(scripts, dict)
    return categories, {canonical_name(name): text for name, text in scripts.items()}


@functools.lru_cache(maxsize=1)
def _orbits() -> tuple[list[int], dict[int, tuple[int, ...]]]:
    """Every code point that case folding changes (sorted), and its orbit."""
    listed = _document()["foldOrbits"]
    assert isinstance(listed, list)
    orbit_of: dict[int, tuple[int, ...]] = {}
    for text in listed:
        orbit = tuple(int(point, 16) for point in text.split())
        orbit_of.update(dict.fromkeys(orbit, orbit))
    return sorted(orbit_of), orbit_of


def fold_orbit(point: int) -> tuple[int, ...]:
    """The code points equal to ``point`` under Go's simple case folding, ``point`` included."""
    return _orbits()[1].get(point, (point,))


@functools.lru_cache(maxsize=256)
def fold_closure(ranges: Ranges) -> Ranges:
    """``ranges`` with the case-folding partners of every member added (Go's
    ``appendFoldedClass``)."""
    points, orbit_of = _orbits()
    added: list[tuple[int, int]] = list(ranges)
    for low, high in ranges:
        for index in range(bisect.bisect_left(points, low), bisect.bisect_right(points, high)):
            added.extend((partner, partner) for partner in orbit_of[points[index]])
    return normalize(tuple(added))


_ALIASES: Final = {canonical_name(alias): actual for alias, actual in _CATEGORY_ALIASES.items()}


@functools.lru_cache(maxsize=256)
def named_class(name: str, folded: bool = False) -> Ranges | None:
    """The ranges ``\\p{name}`` stands for in Go's ``regexp`` (``folded``: under ``(?i)``,
    with the fold table of the name added when Go has one); None for a name Go does not know
    (which it refuses as ``invalid character class range``)."""
    key = canonical_name(name)
    categories, scripts = _tables()
    if key == "Any":
        return ((0, sys.maxunicode),)
    if key == "Assigned":
        return complement(_parse_ranges(categories["Cn"]))
    if key == "Ascii":
        # Go's asciiFoldTable adds the long s and the Kelvin sign
        return ((0, 0x7F), (0x17F, 0x17F), (0x212A, 0x212A)) if folded else ((0, 0x7F),)
    # LC is the one category whose name is not canonical: Go looks it up as "Lc" only, and
    # has no fold table for it
    fold_categories, fold_scripts = _fold_tables()
    if key == "Lc":
        text, fold = categories["LC"], None
    elif key in categories:
        text, fold = categories[key], fold_categories.get(key)
    elif key in scripts:
        text, fold = scripts[key], fold_scripts.get(key)
    elif key in _ALIASES:
        actual = _ALIASES[key]
        text, fold = categories[actual], fold_categories.get(actual)
    else:
        return None
    ranges = _parse_ranges(text)
    return normalize(ranges + _parse_ranges(fold)) if folded and fold else ranges
