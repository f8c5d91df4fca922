"""Derive the Unicode tables Go's ``regexp`` uses for ``\\p{Lu}`` and ``\\p{Greek}`` from Go.

Go's ``regexp/syntax`` reads a ``\\p{...}`` name from ``unicode.Categories`` and
``unicode.Scripts``, whose tables live in ``src/unicode/tables.go`` of a Go toolchain. Python's
``re`` knows neither, and ``unicodedata`` no scripts and often an older Unicode, so ``gabs``
reads both from a JSON file made here: for each name the code points as contiguous ranges (Go
writes some with a stride), in hexadecimal, ``lo-hi`` or a single point, separated by spaces,
plus the Unicode version the tables carry. Under ``(?i)`` Go widens a ``\\p{...}`` by the
``unicode.FoldCategory`` or ``unicode.FoldScript`` table of that name (when there is one) and
everything else by ``unicode.SimpleFold``; the file holds those tables and the orbits
``SimpleFold`` walks (the code points equal under case folding, each orbit a space-separated
list), computed here the way ``SimpleFold`` computes them from ``asciiFold``, ``caseOrbit`` and
``CaseRanges``.

    uv run --frozen python scripts/extract_unicode_tables.py /path/to/go/src/unicode/tables.go

It writes ``packages/gabs/src/gabs/config/unicode_tables.json``; the tests read only that file.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "packages/gabs/src/gabs/config/unicode_tables.json"

_VERSION = re.compile(r'^const Version = "([0-9.]+)"', re.M)
_MAP = r"^var {} = map\[string\]\*RangeTable\{{\n(.*?)^\}}"
_MAPS = ("Categories", "Scripts", "FoldCategory", "FoldScript")
_ENTRY = re.compile(r'^\s*"(\w+)":\s*(\w+),', re.M)
_ALIAS = re.compile(r"^\s*(\w+)\s*=\s*(_\w+)\b", re.M)
_TRIPLE = re.compile(r"\{(0x[0-9a-f]+), (0x[0-9a-f]+), (\d+)\}")
_PAIR = re.compile(r"\{(0x[0-9A-Fa-f]+), (0x[0-9A-Fa-f]+)\}")
_CASE_RANGE = re.compile(r"\{(0x[0-9A-Fa-f]+), (0x[0-9A-Fa-f]+), d\{([^}]*)\}\}")
_UPPER_LOWER = 0x110000  # Go's unicode.UpperLower: MaxRune + 1


def _table(source: str, variable: str) -> list[tuple[int, int]]:
    body = re.search(rf"^var {variable} = &RangeTable\{{\n(.*?)^\}}", source, re.M | re.S)
    if body is None:
        raise SystemExit(f"no table {variable}")
    points: list[tuple[int, int]] = []
    for lo_text, hi_text, stride_text in _TRIPLE.findall(body.group(1)):
        lo, hi, stride = int(lo_text, 16), int(hi_text, 16), int(stride_text)
        if stride == 1:
            points.append((lo, hi))
        else:
            points.extend((point, point) for point in range(lo, hi + 1, stride))
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted(points):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(hi, merged[-1][1]))
        else:
            merged.append((lo, hi))
    return merged


def _text(ranges: list[tuple[int, int]]) -> str:
    return " ".join(f"{lo:x}" if lo == hi else f"{lo:x}-{hi:x}" for lo, hi in ranges)


def _body(source: str, opening: str) -> str:
    found = re.search(rf"^{re.escape(opening)}\n(.*?)^\}}", source, re.M | re.S)
    if found is None:
        raise SystemExit(f"no {opening!r}")
    return found.group(1)


def _fold_orbits(source: str) -> list[str]:
    """Every orbit of Go's ``unicode.SimpleFold`` with more than one member."""
    ascii_fold = [int(x, 16) for x in re.findall(r"0x[0-9A-F]+", _body(source, _ASCII_FOLD))]
    orbit_next = {int(a, 16): int(b, 16) for a, b in _PAIR.findall(_body(source, _CASE_ORBIT))}
    case_ranges = [
        (int(lo, 16), int(hi, 16), [_delta(x) for x in deltas.split(",")])
        for lo, hi, deltas in _CASE_RANGE.findall(_body(source, _CASE_RANGES))
    ]

    def convert(case: int, point: int) -> int:
        for lo, hi, deltas in case_ranges:
            if lo <= point <= hi:
                if deltas[case] == _UPPER_LOWER:
                    return lo + (((point - lo) & ~1) | (case & 1))
                return point + deltas[case]
        return point

    def simple_fold(point: int) -> int:
        if point < len(ascii_fold):
            return ascii_fold[point]
        if point in orbit_next:
            return orbit_next[point]
        lower = convert(1, point)
        return lower if lower != point else convert(0, point)

    candidates = set(range(len(ascii_fold))) | set(orbit_next)
    for lo, hi, _ in case_ranges:
        candidates.update(range(lo, hi + 1))
    orbits: set[tuple[int, ...]] = set()
    for point in candidates:
        orbit, step = {point}, simple_fold(point)
        while step != point:
            orbit.add(step)
            step = simple_fold(step)
        if len(orbit) > 1:
            orbits.add(tuple(sorted(orbit)))
    return [" ".join(f"{x:x}" for x in orbit) for orbit in sorted(orbits)]


def _delta(text: str) -> int:
    text = text.strip()
    return _UPPER_LOWER if text == "UpperLower" else int(text)


_ASCII_FOLD = "var asciiFold = [MaxASCII + 1]uint16{"
_CASE_ORBIT = "var caseOrbit = []foldPair{"
_CASE_RANGES = "var _CaseRanges = []CaseRange{"


def main(tables_go: str) -> None:
    source = Path(tables_go).read_text(encoding="utf-8")
    version = _VERSION.search(source)
    listings = [re.search(_MAP.format(map_name), source, re.M | re.S) for map_name in _MAPS]
    if version is None or None in listings:
        raise SystemExit(f"{tables_go} is not Go's unicode/tables.go")
    variables = dict(_ALIAS.findall(source))
    found = [
        {
            name: _text(_table(source, variables.get(exported, exported)))
            for name, exported in _ENTRY.findall(listing.group(1))
        }
        for listing in listings
        if listing is not None
    ]
    categories, scripts, fold_categories, fold_scripts = found
    document = {
        "about": (
            "Unicode categories and scripts as Go's unicode.Categories and unicode.Scripts hold "
            "them (src/unicode/tables.go), with their FoldCategory and FoldScript tables and the "
            "orbits of unicode.SimpleFold, for \\p{...} and (?i) in launch-input patterns; made by "
            "scripts/extract_unicode_tables.py."
        ),
        "unicode": version.group(1),
        "categories": dict(sorted(categories.items())),
        "scripts": dict(sorted(scripts.items())),
        "foldCategories": dict(sorted(fold_categories.items())),
        "foldScripts": dict(sorted(fold_scripts.items())),
        "foldOrbits": _fold_orbits(source),
    }
    OUT.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    orbits = document["foldOrbits"]
    counts = f"{len(categories)} categories, {len(scripts)} scripts, {len(orbits)} fold orbits"
    print(f"{counts} (Unicode {version.group(1)}) -> {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    main(sys.argv[1])
