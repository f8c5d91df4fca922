"""Error spam through the simulated RimBridge: log ring, recommended policy, AttentionManager.

The real RimWorld integration sends about one ``attention/updated`` per repeated log line, so
100,000 error lines cost a connected bridge 100,000 attention events. Ours goes through the
whole simulated diagnostics plane: ``LogRing.append`` (2,000 entries, 1 s collapse window) ->
``AttentionFeed`` -> ``Policy("recommended")`` -> ``AttentionManager`` (real monotonic clock,
``update_interval=0.25``), whose listener counts the events a connected bridge would be sent.
After the spam, ``flush_due()`` is called, and once more when the trailing update is due (as the
server's timer would), so the count includes the trailing update.

Two scenarios, 100,000 pre-built error lines each: ``identical`` (one line over and over: the
ring collapses it) and ``distinct`` (every line different: the ring evicts, the sample evicts).

Records (higher is better, ratio = ours / baseline):

* ``attention events vs one per line``: ours = (one-per-line count) / (our event count, the
  worst run), baseline 1.0 (the real mod); target 100 (at most 1/100 of its events).
* ``lines/s vs logging.error``: the whole pipeline against a ``logging.error`` call to a
  discarding handler over the same lines, interleaved runs, medians; target 0.2 (the
  diagnostics plane and attention together cost at most five discarded log calls).
* ``peak memory budget vs used (MiB)``: ours = the budget (16 MiB), baseline = the
  ``tracemalloc`` peak of one run (pre-built lines excluded); ratio >= 1 when within budget.

Usage: ``uv run python benchmarks/bench_sim_spam.py [--quick] [--json PATH]``.
"""

from __future__ import annotations

import logging
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import median, parse_args, record, report, time_interleaved
from gabp.messages import Attention
from lib_gab.attention import AttentionManager
from rimbridge_sim.diagnostics import LogRing, OperationJournal
from rimbridge_sim.feed import AttentionFeed
from rimbridge_sim.policy import Policy

LINES = 100_000
INTERVAL = 0.25
EVENTS_TARGET = 100.0
SPEED_TARGET = 0.2
MEMORY_BUDGET_MIB = 16.0
BASELINE_NAME = "logging.error to a discarding handler"


class _DiscardHandler(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        pass


def _baseline_logger() -> logging.Logger:
    log = logging.getLogger("bench_sim_spam")
    log.handlers[:] = [_DiscardHandler()]
    log.propagate = False
    log.setLevel(logging.DEBUG)
    return log


class _Spam:
    """One scenario: the simulated pipeline and the baseline over the same lines."""

    def __init__(self, lines: list[str], policy: Policy) -> None:
        self.lines = lines
        self.policy = policy
        self.log = _baseline_logger()
        self.events: list[int] = []  # attention events per full-speed run of ours
        self.seconds: list[float] = []  # spam + flush of each full-speed run, no timer wait
        self.items: list[dict[str, Any]] = []

    def ours(self) -> None:
        seconds, events = self.run()
        self.seconds.append(seconds)
        self.events.append(events)

    def run(self) -> tuple[float, int]:
        """One run: seconds for the spam and ``flush_due()``, and the events sent in all."""
        events = 0

        def sent_to_bridge(channel: str, item: Attention) -> None:
            nonlocal events
            events += 1

        manager = AttentionManager(update_interval=INTERVAL, listener=sent_to_bridge)
        ring = LogRing(2000, collapse_window=1.0)
        feed = AttentionFeed(manager, self.policy, ring, OperationJournal())
        append = ring.append
        start = time.perf_counter()
        for line in self.lines:
            append("error", line, source="world")
        wait = manager.flush_due()
        seconds = time.perf_counter() - start
        feed.close()
        if wait is not None:  # the server's timer sends the trailing update when it is due
            time.sleep(wait)
            manager.flush_due()
        current = manager.current()
        assert current is not None
        self.items.append(current.to_wire())
        return seconds, events

    def baseline(self) -> None:
        error = self.log.error
        for line in self.lines:
            error(line)


def _peak_mib(spam: _Spam) -> tuple[float, int]:
    """tracemalloc peak (MiB) of one extra run, and its event count (slowed by tracing)."""
    tracemalloc.start()
    try:
        _, events = spam.run()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak / (1024 * 1024), events


def main() -> None:
    args = parse_args(__doc__.splitlines()[0])
    rounds = 2 if args.quick else 5
    policy = Policy.load("recommended")
    scenarios: dict[str, list[str]] = {
        "identical": ["Exception in JobDriver_Goto: NullReferenceException"] * LINES,
        "distinct": [
            f"Exception in JobDriver_Goto for pawn {i}: NullReferenceException at cell "
            f"({i % 250}, 0, {i // 250})"
            for i in range(LINES)
        ],
    }
    records = []
    for name, lines in scenarios.items():
        spam = _Spam(lines, policy)
        _, base_s = time_interleaved([spam.ours, spam.baseline], rounds=rounds)
        peak, traced_events = _peak_mib(spam)
        worst = max(spam.events)
        item = spam.items[-1]
        assert item["totalUrgentEntries"] == LINES, item
        ours_s = spam.seconds[1:]  # the first run is time_interleaved's warm-up
        ours_rate, base_rate = LINES / median(ours_s), LINES / median(base_s)
        print(
            f"{name}: {len(spam.events)} full-speed runs of {LINES:,} error lines; attention "
            f"events per run {spam.events} (the real mod: {LINES:,}; {traced_events} in the "
            f"slower traced run); {ours_rate:,.0f} lines/s (logging.error: {base_rate:,.0f}); "
            f"tracemalloc peak {peak:.2f} MiB; item: {item['totalUrgentEntries']} entries, "
            f"{len(item.get('sample', []))} samples",
            file=sys.stderr,
        )
        records.append(
            record(
                benchmark="sim_spam",
                metric=f"attention events vs one per line ({name})",
                ours=LINES / worst,
                baseline=1.0,
                baseline_name="real mod: one attention update per line",
                target=EVENTS_TARGET,
            )
        )
        records.append(
            record(
                benchmark="sim_spam",
                metric=f"lines/s vs logging.error ({name})",
                ours=ours_rate,
                baseline=base_rate,
                baseline_name=BASELINE_NAME,
                target=SPEED_TARGET,
            )
        )
        records.append(
            record(
                benchmark="sim_spam",
                metric=f"peak memory budget vs used, MiB ({name})",
                ours=MEMORY_BUDGET_MIB,
                baseline=peak,
                baseline_name="tracemalloc peak of one run",
                target=1.0,
            )
        )
    report(records, args.json_path)


if __name__ == "__main__":
    main()
