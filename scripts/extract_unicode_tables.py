"""Derive the Unicode tables Go's ``regexp`` uses for ``\\p{Lu}`` and ``\\p{Greek}`` from Go.

Go's ``regexp/syntax`` reads a ``\\p{...}`` name from ``unicode.Categories`` and
``unicode.Scripts``, whose tables live in ``src/unicode/tables.go`` of a Go toolchain. Python's
``re`` knows neither, and ``unicodedata`` no scripts and often an older Unicode, so ``gabs``
reads both from a JSON file made here: for each name the code points as contiguous ranges (Go
writes some with a stride), in hexadecimal, ``lo-hi`` or a single point, separated by spaces,
plus the Unicode version the tables carry.

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
_MAPS = ("Categories", "Scripts")
_ENTRY = re.compile(r'^\s*"(\w+)":\s*(\w+),', re.M)
_ALIAS = re.compile(r"^\s*(\w+)\s*=\s*(_\w+)\b", re.M)
_TRIPLE = re.compile(r"\{(0x[0-9a-f]+), (0x[0-9a-f]+), (\d+)\}")


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


def main(tables_go: str) -> None:
    source = Path(tables_go).read_text(encoding="utf-8")
    version = _VERSION.search(source)
    listings = [re.search(_MAP.format(map_name), source, re.M | re.S) for map_name in _MAPS]
    if version is None or None in listings:
        raise SystemExit(f"{tables_go} is not Go's unicode/tables.go")
    variables = dict(_ALIAS.findall(source))
    found = [
        {
            name: _text(_table(source, variables[exported]))
            for name, exported in _ENTRY.findall(listing.group(1))
        }
        for listing in listings
        if listing is not None
    ]
    categories, scripts = found
    document = {
        "about": (
            "Unicode categories and scripts as Go's unicode.Categories and unicode.Scripts hold "
            "them (src/unicode/tables.go), for \\p{...} in launch-input patterns; made by "
            "scripts/extract_unicode_tables.py."
        ),
        "unicode": version.group(1),
        "categories": dict(sorted(categories.items())),
        "scripts": dict(sorted(scripts.items())),
    }
    OUT.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    counts = f"{len(categories)} categories, {len(scripts)} scripts"
    print(f"{counts} (Unicode {version.group(1)}) -> {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    main(sys.argv[1])
