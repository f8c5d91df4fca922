"""Cost of reporting urgent-entry spam to lib_gab's AttentionManager, against plain logging.

An integration reports every urgent log line to the attention manager. That must cost no more
than the log line itself, so the baseline is the cheapest real logging call: ``logging.getLogger
("bench").error(line)`` on a logger whose only handler discards records (``propagate=False``).

Two scenarios, each with the same pre-built lines on both sides:

* ``identical``: the same error line N times (one signature; the item's counts grow).
* ``distinct``: N different error lines (every entry is a new signature, so the bounded sample
  evicts on every entry).

Ours: a fresh ``AttentionManager`` per run (``DefaultAttentionPolicy``, the real monotonic
clock, ``update_interval=0.25``, a listener that counts notifications), fed with
``report_entry("error", line)``; the first entry opens the item, the rest update it. After the
spam, ``flush_due()`` is called once, as the server's timer would, and counted too.

Metrics (higher is better, ratio = ours / baseline):

* ``entries/s``: target 1.0 (as fast as the discarded log line).
* ``attention events within bound``: ours = the allowed bound ``duration / interval + 2``,
  baseline = the events sent (opened + updated + the flushed one) by the run closest to its
  bound; ratio >= 1.0 exactly when no run sent more events than its bound.

Runs are interleaved (ours, baseline, ours, ...) and the median of the rounds is reported.
Usage: ``uv run python benchmarks/bench_attention_spam.py [--quick] [--json PATH]``.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import median, parse_args, record, report, time_interleaved
from gabp.messages import Attention
from lib_gab.attention import AttentionManager, DefaultAttentionPolicy

INTERVAL = 0.25
TARGET = 1.0
BASELINE_NAME = "logging.error to a discarding handler"


class _DiscardHandler(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        pass


def _baseline_logger() -> logging.Logger:
    log = logging.getLogger("bench")
    log.handlers[:] = [_DiscardHandler()]
    log.propagate = False
    log.setLevel(logging.DEBUG)
    return log


class _Spam:
    """One scenario: ours and the baseline over the same lines, with event accounting."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.log = _baseline_logger()
        self.runs: list[tuple[float, int]] = []  # (duration, events) of each run of ours

    def ours(self) -> None:
        events = 0

        def count(channel: str, item: Attention) -> None:
            nonlocal events
            events += 1

        manager = AttentionManager(
            policy=DefaultAttentionPolicy(), update_interval=INTERVAL, listener=count
        )
        report = manager.report_entry
        start = time.perf_counter()
        for line in self.lines:
            report("error", line)
        manager.flush_due()
        duration = time.perf_counter() - start
        self.runs.append((duration, events))

    def baseline(self) -> None:
        error = self.log.error
        for line in self.lines:
            error(line)


def _bound(duration: float) -> float:
    return duration / INTERVAL + 2


def main() -> None:
    args = parse_args(__doc__.splitlines()[0])
    count = 20_000 if args.quick else 100_000
    rounds = 3 if args.quick else 7
    scenarios: dict[str, list[str]] = {
        "identical": ["Map 0 lost its pathing grid; regenerating failed"] * count,
        "distinct": [
            f"Exception in JobDriver_Goto for pawn {i}: NullReferenceException at cell ({i % 250}, 0, {i // 250})"  # noqa: E501
            for i in range(count)
        ],
    }
    records = []
    for name, lines in scenarios.items():
        spam = _Spam(lines)
        runs: list[Callable[[], object]] = [spam.ours, spam.baseline]
        ours_s, base_s = time_interleaved(runs, rounds=rounds)
        # the run closest to its bound decides: ratio >= 1 exactly when every run is within
        duration, sent = min(spam.runs, key=lambda run: _bound(run[0]) / max(run[1], 1))
        allowed = _bound(duration)
        print(
            f"{name}: {len(spam.runs)} runs of {count:,} entries; attention events per run "
            f"{[events for _, events in spam.runs]}; tightest run: {sent} sent, "
            f"{allowed:.1f} allowed ({duration:.3f} s / {INTERVAL} s + 2)",
            file=sys.stderr,
        )
        records.append(
            record(
                benchmark=f"attention_spam/{name}",
                metric="entries/s",
                ours=count / median(ours_s),
                baseline=count / median(base_s),
                baseline_name=BASELINE_NAME,
                target=TARGET,
            )
        )
        records.append(
            record(
                benchmark=f"attention_spam/{name}",
                metric="attention events within bound",
                ours=allowed,
                baseline=sent,
                baseline_name="events sent (opened + updated + flushed)",
                target=TARGET,
            )
        )
    report(records, args.json_path)


if __name__ == "__main__":
    main()
