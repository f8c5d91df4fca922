"""Shared plumbing for the benchmark scripts: arguments, timing, the table and the JSON file.

Every benchmark compares our implementation against a baseline measured in the same run and
reports a ratio (ours / baseline, higher is better) against a target. A record is a dict with
exactly the keys in :data:`RECORD_KEYS`.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

RECORD_KEYS = ("benchmark", "metric", "ours", "baseline", "baseline_name", "ratio", "target")


def parse_args(description: str, argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The common command line: ``--json PATH`` and ``--quick``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument(
        "--json", dest="json_path", type=Path, metavar="PATH", help="write the records here"
    )
    parser.add_argument(
        "--quick", action="store_true", help="fewer and shorter runs (under 30 seconds)"
    )
    return parser.parse_args(argv)


def record(
    *,
    benchmark: str,
    metric: str,
    ours: float,
    baseline: float,
    baseline_name: str,
    target: float | None,
) -> dict[str, Any]:
    """One result; ``ratio`` is ``ours / baseline`` (so metrics must be higher-is-better).
    ``target`` ``None``: a figure reported for reference (a bound, a ceiling), not judged."""
    return {
        "benchmark": benchmark,
        "metric": metric,
        "ours": round(ours, 3),
        "baseline": round(baseline, 3),
        "baseline_name": baseline_name,
        "ratio": round(ours / baseline, 3) if baseline else float("inf"),
        "target": target,
    }


def time_interleaved(
    runs: Sequence[Callable[[], object]], *, rounds: int, warmup: int = 1
) -> list[list[float]]:
    """Run each callable once per round, alternating between them; return seconds per run.

    Interleaving spreads drift (frequency scaling, other load) evenly over all candidates.
    """
    for _ in range(warmup):
        for run in runs:
            run()
    seconds: list[list[float]] = [[] for _ in runs]
    for _ in range(rounds):
        for index, run in enumerate(runs):
            start = time.perf_counter()
            run()
            seconds[index].append(time.perf_counter() - start)
    return seconds


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def _cell(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.2f}"
    return str(value)


def _status(item: dict[str, Any]) -> str:
    if item["target"] is None:
        return "-"
    return "ok" if item["ratio"] >= item["target"] else "BELOW TARGET"


def report(records: Sequence[dict[str, Any]], json_path: Path | None = None) -> bool:
    """Print the records as a table (stdout), write them as JSON; return True if all met target.

    A record below its target is flagged ``BELOW TARGET`` in the table and on stderr; the
    caller still exits 0 (a benchmark reports, it does not gate).
    """
    for item in records:
        if tuple(item) != RECORD_KEYS:
            raise ValueError(f"a benchmark record needs exactly the keys {RECORD_KEYS}")
    headers = [*RECORD_KEYS, "status"]
    rows = [[_cell(item[key]) for key in RECORD_KEYS] + [_status(item)] for item in records]
    widths = [max(len(row[i]) for row in [headers, *rows]) for i in range(len(headers))]
    print("  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)))
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)))
    missed = [item for item in records if _status(item) == "BELOW TARGET"]
    for item in missed:
        print(
            f"BELOW TARGET: {item['benchmark']} ratio {item['ratio']} < {item['target']}",
            file=sys.stderr,
        )
    if json_path is not None:
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps(list(records), indent=2) + "\n", encoding="utf-8")
        print(f"wrote {json_path}", file=sys.stderr)
    return not missed


def run_meta(started: float, load_before: Sequence[float], **details: Any) -> dict[str, Any]:
    """The ``meta`` of a run's JSON document: when it started, how long it took, the load
    average before and after it, then ``details``."""
    return {
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
        "duration_s": round(time.time() - started, 1),
        "loadavg_before": load_before,
        "loadavg_after": os.getloadavg(),
        **details,
    }


def write_document(json_path: Path, document: dict[str, Any]) -> None:
    """Write a run's JSON document (``meta``, ``records`` and what else the script keeps)."""
    json_path.parent.mkdir(parents=True, exist_ok=True)
    json_path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {json_path}", file=sys.stderr)
