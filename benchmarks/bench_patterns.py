"""Launch-input pattern matching: the linear-time matcher ``gabs`` uses against the ``re``
translation of the same pattern (what ``gabs`` matched with before; a backtracking engine).

* ``typical``: ``^[A-Za-z0-9_-]{1,64}$`` on 20-character values, each value different; the
  matcher remembers its steps across values, as it does in the bridge.
* ``typical, first value``: the same with nothing remembered (the cost of a pattern's first
  value, which is what a single start pays).
* ``(a+)+b`` and ``(\\w+\\s?)+$`` on values that almost match, just long enough for ``re`` to
  need a visible time (it doubles with each further character); the matcher is linear.

Metric: values matched per second (higher is better). The typical figures are reported, not
judged: the matcher runs in Python where ``re`` runs in C, and a start matches a handful of
values. Usage: ``uv run python benchmarks/bench_patterns.py [--quick] [--json PATH]``.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import median, parse_args, record, report, time_interleaved
from gabs.config._re2 import compile_matcher, compile_re2

BASELINE_NAME = "re translation"
TYPICAL = "^[A-Za-z0-9_-]{1,64}$"
BACKTRACKING = [("(a+)+b", "a" * 20), (r"(\w+\s?)+$", "word " * 4 + "!")]
BACKTRACKING_TARGET = 10.0


def _values(count: int) -> list[str]:
    rng = random.Random(1)
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"
    return ["".join(rng.choice(letters) for _ in range(20)) for _ in range(count)]


def _rate(
    ours: Callable[[], object], theirs: Callable[[], object], per_run: int, rounds: int
) -> tuple[float, float]:
    seconds = time_interleaved([ours, theirs], rounds=rounds)
    return per_run / median(seconds[0]), per_run / median(seconds[1])


def main(argv: list[str] | None = None) -> int:
    args = parse_args(__doc__.splitlines()[0], argv)
    rounds = 3 if args.quick else 9
    values = _values(500 if args.quick else 5000)
    matcher, translated = compile_matcher(TYPICAL), compile_re2(TYPICAL)
    records: list[dict[str, Any]] = []

    def ours() -> None:
        for value in values:
            matcher.search(value)

    def theirs() -> None:
        for value in values:
            translated.search(value)

    def ours_first() -> None:
        for value in values[:200]:
            matcher.steps.known.clear()
            matcher.search(value)

    def theirs_first() -> None:
        for value in values[:200]:
            translated.search(value)

    for metric, pair, count in [
        ("typical", (ours, theirs), len(values)),
        ("typical, first value", (ours_first, theirs_first), 200),
    ]:
        mine, base = _rate(*pair, count, rounds)
        records.append(
            record(
                benchmark=f"patterns: {metric}",
                metric="values/s",
                ours=mine,
                baseline=base,
                baseline_name=BASELINE_NAME,
                target=None,
            )
        )
    for pattern, value in BACKTRACKING:
        slow_matcher, slow_translated = compile_matcher(pattern), compile_re2(pattern)
        mine, base = _rate(
            partial(slow_matcher.search, value), partial(slow_translated.search, value), 1, rounds
        )
        records.append(
            record(
                benchmark=f"patterns: {pattern} on {len(value)} characters",
                metric="values/s",
                ours=mine,
                baseline=base,
                baseline_name=BASELINE_NAME,
                target=BACKTRACKING_TARGET,
            )
        )
    report(records, args.json_path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
