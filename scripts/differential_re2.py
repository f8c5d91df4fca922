"""Differential check of launch-input patterns: ``gabs`` against Go's ``regexp``.

Side check, not a test (it needs a Go toolchain, which CI does not have). The Go bridge
compiles ``^(?:<pattern>)$`` with ``regexp.Compile`` and tests a value with ``MatchString``;
this builds a small Go program that does the same for JSON lines of pattern and value (and
also reports ``FindStringIndex`` of the bare pattern: whether the bare pattern is found at all
is a check of the linear-time matcher's search, the span one of the ``re`` translation), makes
systematic and random pairs (flags, classes, case folding, counts, anchors, escapes, refusals,
nesting), and reports every pair where ``gabs`` answers otherwise::

    uv run python scripts/differential_re2.py [--go /path/to/go] [--seed N] [--random N]

A pair ``gabs`` needs more than two seconds for is reported as slow; so, apart, is one whose
span ``re`` needs that long for (it backtracks, and ``(x|){1000}`` on a few characters takes it
that long; the span is a view of the translation only, never how a value is matched). Exit
status 0 when nothing disagrees.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from gabs.config import full_match
from gabs.config._re2 import Re2Error, _Translator, compile_re2
from gabs.config._re2_nfa import Matcher, recursion_room

GO_PROGRAM = """package main

import (
	"bufio"
	"encoding/json"
	"os"
	"regexp"
	"unicode/utf8"
)

type out struct {
	Err    *string `json:"err"`
	Match  bool    `json:"match"`
	RawErr *string `json:"rawErr"`
	Span   []int   `json:"span"`
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	enc := json.NewEncoder(w)
	for in.Scan() {
		var pair struct{ P, S string }
		if err := json.Unmarshal(in.Bytes(), &pair); err != nil {
			panic(err)
		}
		var o out
		if re, err := regexp.Compile("^(?:" + pair.P + ")$"); err != nil {
			e := err.Error()
			o.Err = &e
		} else {
			o.Match = re.MatchString(pair.S)
		}
		if raw, err := regexp.Compile(pair.P); err != nil {
			e := err.Error()
			o.RawErr = &e
		} else if loc := raw.FindStringIndex(pair.S); loc != nil {
			before, through := pair.S[:loc[0]], pair.S[:loc[1]]
			o.Span = []int{utf8.RuneCountInString(before), utf8.RuneCountInString(through)}
		}
		enc.Encode(o)
	}
}
"""


def _words(text: str) -> list[str]:
    return text.split()


#: Characters whose case folding or class membership differs between engines or tables.
CHARS = (
    "aAbBkKsSzZ09_ \t\n\r\v\f\x85\xa0\u2028\u212a\u017f\u0130\u0131\xdf\u1e9e\u03c3\u03c2\u03a3"
    "\xb5\u039c\u03bc\u2126\u03c9\u01c4\u01c5\u01c6\u1e9b\u0345\u03b9\u0399\u1fbe\xe9\xc9\u0663"
    "\uff10\u3042\u30a2\u6f22\U0001f600\U00010400\U00010428\U0010ffff\xff\u0178\u212b\xe5\u0149"
    "\u1c80\u0432\uab70\u13a0\u10d0\u1c90\u2c2f\ua7c0\U0001e900\u0587-]{}()|.*+?^$\\:["
)
FOLD_POINTS = [
    *range(0x41, 0x7B),
    *range(0x100, 0x250),
    *range(0x370, 0x400),
    *range(0x1F00, 0x2000),
]
FOLD_POINTS += [*range(0x2C00, 0x2C80), *range(0xA640, 0xA800), *range(0x10400, 0x10450)]
CLASSES = _words(
    r"\p{Lu} \p{Ll} \p{Lt} \p{L} \p{LC} \p{M} \p{Mn} \p{Greek} \p{Common} \p{Inherited} \p{Latin} "
    r"\p{ASCII} \p{Lo} \p{So} \p{Nl} \P{Lu} \P{ASCII} \P{Greek} \w \W \d \s [[:upper:]] "
    r"[[:^lower:]] [[:word:]] [a-z] [^a-z] [k] [^k] [\x{212a}] [^\p{Lu}] [\P{Lu}] [\p{Lu}\d] "
    r"k s i \x{130} \x{131} \x{3c3} \x{b5} \x{1fbe} \x{1c5} \x{df} [\x{100}-\x{17f}] . \p{Cherokee}"
)
ATOMS = [
    *CLASSES,
    *_words("a A k K 0 _ \xe9 \u03c3 \u212a \u017f \u0131 \u0130 \xdf \U0001f600"),
    *_words(r"\. \* \- \] \b \B \A \z ^ $ \x41 \101 \0 \Qa.b\E \Q\E (?:) () (a) (?P<n>a)"),
    *_words(r"(?<x>b) (?i:k) (?-i:k) (?s:.) (?m:^) (?m:$) (?U:a+) (?i) (?s) (?m) (?U) (?-i)"),
    *_words(r"[[:alpha:]] []a] [^]a] [a-] [-a] \pN \p{^Greek} [\s\S]"),
]
REPEATS = "* + ? *? +? ?? {2} {1,3} {0,} {2,}? {0} {1000} {0,1000} {3,1} {1001} {,3} { {1, *+ **"
EDGES = _words(
    r"( ) [ [] [a [z-a] a{2,1} a{1001} (a{100}){11} (a{0,0}b{2}){501} * a** a*+ a{2}{3} (?i)* "
    r"a*(?i)* a*\Q\E* x*(?s)? ^* \b* | a|| (?) (? (?i- (?-) (?x) (?P<>a) (?P<a-b>x) (?=a) (?!a) "
    r"(?<=a) (?>a) (?#c) \ \1 \8 \C \Z \x \x{110000} \x{} \p \p{ \p{Foo} \pX [[:foo:]] [[:alpha:] "
    r"[\Q]\E] [\b] a)|(b a)(?m)(b )( \Q (?i)\W (?i)[^k] (?i)\P{Lu} (?i)\p{LC} (?i)\P{ASCII}"
)
VALUES = ["", "a", "A", "aa", "ab", "k", "K", "\u212a", "\u017f", "\u0131", "\u0130", "\n", "a\nb"]
VALUES += ["ab\n", "0", "\u0663", " ", "-", "\U0001f600", "a" * 1000, "axyz", "zb", "\xb5"]


def pairs(seed: int, count: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    points = FOLD_POINTS + [ord(char) for char in CHARS]
    found = [
        (flags + cls, chr(point)) for cls in CLASSES for flags in ("", "(?i)") for point in points
    ]
    found += [(pattern, value) for pattern in EDGES for value in VALUES]
    for depth in (500, 998, 999, 1500):
        found += [
            ("(" * depth + "a" + ")" * depth, "a"),
            ("(?:a|" * depth + "b" + ")" * depth, "b"),
        ]
    found += [("(?:" + "a" * width + "){1000}", "a") for width in (3355, 3356)]

    def pattern(depth: int) -> str:
        parts = []
        for _ in range(rng.randint(1, 4)):
            if rng.random() < 0.15 and depth < 3:
                opening = rng.choice(["(", "(?:", "(?i:", "(?-i:", "(?s:", "(?m:", "(?U:"])
                parts.append(opening + pattern(depth + 1) + ")")
            else:
                parts.append("|" if rng.random() < 0.08 else rng.choice(ATOMS))
            if rng.random() < 0.3:
                parts.append(rng.choice(_words(REPEATS)))
        return "".join(parts)

    for _ in range(count):
        made = pattern(0)
        for _ in range(4):
            found.append((made, "".join(rng.choice(CHARS) for _ in range(rng.randint(0, 8)))))
    return list(dict.fromkeys(found))


def go_answers(go: str, cases: list[tuple[str, str]]) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "main.go").write_text(GO_PROGRAM, encoding="utf-8")
        Path(folder, "go.mod").write_text("module re2diff\n\ngo 1.22\n", encoding="utf-8")
        env = {**os.environ, "GOTOOLCHAIN": "local", "GOFLAGS": "-mod=mod", "GOPROXY": "off"}
        subprocess.run([go, "build", "-o", "re2diff", "."], cwd=folder, env=env, check=True)
        lines = "".join(json.dumps({"P": p, "S": s}) + "\n" for p, s in cases)
        done = subprocess.run(
            [str(Path(folder, "re2diff"))], input=lines, capture_output=True, text=True, check=True
        )
    return [json.loads(line) for line in done.stdout.splitlines()]


_T = TypeVar("_T")


class _Slow(Exception):
    pass


def _alarm(*_: object) -> None:
    raise _Slow


def ours(pattern: str, value: str) -> tuple[dict[str, Any], re.Pattern[str] | None]:
    """Our answers but the span, and the ``re`` translation of the bare pattern."""
    answer: dict[str, Any] = {"err": None, "match": False, "rawErr": None, "found": False}
    raw = None
    try:
        compile_re2(pattern)
    except (Re2Error, re.error) as exc:
        answer["err"] = str(exc)
    else:
        answer["match"] = full_match(pattern, value)
    try:
        translator = _Translator(pattern)
        text = translator.run()
        with recursion_room(text.count("(")):
            raw = re.compile(text)
    except (Re2Error, re.error) as exc:
        answer["rawErr"] = str(exc)
    else:
        answer["found"] = Matcher.compile(translator.tree, translator.height).search(value)
    return answer, raw


def _timed(work: Callable[[], _T]) -> _T | _Slow:
    signal.alarm(2)
    try:
        return work()
    except _Slow as slow:
        return slow
    finally:
        signal.alarm(0)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--go", default=os.environ.get("GO") or shutil.which("go"))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--random", type=int, default=5000)
    args = parser.parse_args(argv)
    if not args.go:
        print("no Go toolchain: give --go or put go on PATH", file=sys.stderr)
        return 2
    cases = pairs(args.seed, args.random)
    signal.signal(signal.SIGALRM, _alarm)
    differences: dict[str, list[str]] = collections.defaultdict(list)
    for (pattern, value), go in zip(cases, go_answers(args.go, cases), strict=True):
        answered = _timed(lambda: ours(pattern, value))  # noqa: B023 (called at once)
        if isinstance(answered, _Slow):
            differences["slow"].append(f"{pattern!r} on {value!r}")
            continue
        mine, raw = answered
        go["found"] = go["span"] is not None
        keys = ["err", "match", "rawErr", "found"]
        if raw is not None:
            searched = _timed(lambda: raw.search(value))  # noqa: B023
            if isinstance(searched, _Slow):
                differences["slow re span"].append(f"{pattern!r} on {value!r}")
            else:
                mine["span"] = list(searched.span()) if searched else None
                keys.append("span")
        for key in keys:
            if mine[key] != go[key] and not (key == "match" and go["err"]):
                differences[key].append(
                    f"{pattern!r} on {value!r}: go {go[key]!r}, ours {mine[key]!r}"
                )
    print(f"{len(cases)} pairs")
    for key, found in differences.items():
        print(f"{key}: {len(found)} differences")
        for line in found[:10]:
            print(f"  {line[:300]}")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
