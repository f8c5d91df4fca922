"""Sorting py-spy samples of the bridge and the game into the components of a call.

A sample's category: the innermost frame of an *owner* (a rule of :data:`BRIDGE`/:data:`GAME`,
tried in order per frame, from the leaf outwards) names the component; library frames between
that owner and the leaf refine it (json or pydantic under the SDK is its JSON-RPC parsing and
its model validation). Any logging frame makes a sample "logging". What runs in the event loop
starts below its innermost ``Handle._run``: the frames above it are the loop and the program's
entry point. Samples of other threads are listed by what the threads are. A sample whose leaf
is a blocking wait is idle and left out (py-spy's own idle detection does not work in every
container, so it is done here); the busy samples, as a share of the sampling time, can be
checked against the CPU time the OS counted for the process.
"""

from __future__ import annotations

import pstats
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HANDOFF = "SDK stdio transport: worker-thread handoff (anyio.to_thread, self-pipe wakeups)"
SYNC_HANDOFF = "lib_gab: worker-thread handoff for sync tools (anyio.to_thread, self-pipe)"
HANDOFF_FRAMES = (
    r"anyio/to_thread\.py|run_sync_in_worker_thread|/queue\.py|_read_from_self|_write_to_self"
)
BRIDGE_OWNERS: list[tuple[str, str]] = [
    ("gabs: ledger", r"gabs/ledger\.py"),
    ("gabs: context assembly", r"gabs/context/"),
    ("gabs: result rendering", r"gabs/results\.py|^(_text_result|_compact) \(.*gabs/server\.py"),
    ("gabs: argument validation", r"^(_schema_problems|_quick_valid) \(.*gabs/server\.py"),
    ("gabs: gate and attention cache", r"gabs/attention\.py|^GameSession\.gate_check "),
    ("GABP encode/decode (framing, message models)", r"gabp/(framing|messages)\.py"),
    ("GABP Connection (requests, pending table, writer)", r"gabp/"),
    ("gabs: call path (server, games, session glue)", r"gabs/"),
    (HANDOFF, HANDOFF_FRAMES),
    ("SDK: stdio transport (main-thread side)", r"mcp/server/stdio\.py"),
    ("SDK: Streamable HTTP transport", r"mcp/server/streamable_http|starlette/|uvicorn/|h11/"),
    ("SDK: dispatch, session, middleware, task groups", r"/mcp/|mcp_types/"),
]
GAME_OWNERS: list[tuple[str, str]] = [
    ("lib_gab: argument validation", r"valid.* \(.*lib_gab/tools\.py"),
    ("lib_gab: attention", r"lib_gab/attention\.py"),
    ("the tool itself", r"^echo \(.*e2e_game\.py"),
    (SYNC_HANDOFF, HANDOFF_FRAMES),
    ("rimbridge_sim: world, tools, journal, log ring", r"rimbridge_sim/"),
    ("lib_gab: session, dispatch, tool call", r"lib_gab/"),
    ("GABP encode/decode (framing, message models)", r"gabp/(framing|messages)\.py"),
    ("GABP Connection (serving, pending table, writer)", r"gabp/"),
]
REFINE: list[tuple[str, str]] = [
    ("json", r"/json/|orjson|msgspec"),
    ("pydantic", r"/pydantic/|/pydantic_core/|mcp_types/"),
    ("jsonschema", r"/jsonschema/|/referencing/"),
]
REFINED = {
    ("SDK", "json"): "SDK: JSON-RPC parse/serialize (json)",
    ("SDK", "pydantic"): "SDK: pydantic validation/serialization of MCP types",
    ("GABP", "json"): "GABP encode/decode (framing, message models)",
    ("GABP", "pydantic"): "GABP encode/decode (framing, message models)",
    ("gabs", "jsonschema"): "gabs: argument validation",
    ("lib_gab", "jsonschema"): "lib_gab: argument validation",
}
IDLE_LEAVES = re.compile(
    r"^(Condition\.wait|Event\.wait|Thread\.join|_wait_for_tstate_lock|"
    r"ThreadedChildWatcher\._do_waitpid|(Epoll|Poll|Select|Kqueue)Selector\.select|sleep) "
)
LOGGING = re.compile(r"/logging/")
OWN_CODE = re.compile(r"(gabs|gabp|lib_gab|mcp|mcp_types)/")
FRAME = re.compile(r"^(?P<function>.*) \((?P<file>[^()]*?)(?::(?P<line>\d+))?\)$")
IDLE = "idle (blocking waits: left out of the shares)"
LOOP = "asyncio event loop and socket I/O"


def parse_collapsed(path: Path) -> list[tuple[list[str], int]]:
    """py-spy's raw format: ``root;...;leaf count`` per line; frames ``function (file:line)``."""
    stacks = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if stack and count.isdigit():
            stacks.append((stack.split(";"), int(count)))
    return stacks


def frame_key(frame: str) -> str:
    """``function (package/module.py)``: the file shortened to what follows site-packages."""
    match = FRAME.match(frame)
    if not match:
        return frame
    file = match["file"]
    for marker in ("site-packages/", "/src/", "/lib/python3."):
        if marker in file:
            file = file.split(marker, 1)[1]
            if marker == "/lib/python3.":
                file = file.split("/", 1)[1] if "/" in file else file
            break
    return f"{match['function']} ({file})"


@dataclass(frozen=True)
class Rules:
    """How to sort one process's samples."""

    owners: list[tuple[str, str]]
    worker_threads: str | None = None  # the category of the AnyIO worker threads, if known

    def compiled(self) -> list[tuple[str, re.Pattern[str]]]:
        return [(name, re.compile(pattern)) for name, pattern in self.owners]


WORKERS = "SDK stdio transport: worker threads (readline, write, flush)"
BRIDGE = Rules(BRIDGE_OWNERS, WORKERS)
GAME = Rules(GAME_OWNERS, "worker threads: sync tools run by lib_gab (the tool, the way back)")


def categorize(
    stack: Sequence[str], rules: Rules, owners: list[tuple[str, re.Pattern[str]]]
) -> str:
    thread, frames = (stack[0], stack[1:]) if stack[0].startswith("thread ") else ("", stack)
    if not frames or IDLE_LEAVES.match(frame_key(frames[-1])):
        return IDLE
    if any(LOGGING.search(frame) for frame in frames):
        return "logging"
    if thread and "MainThread" not in thread:
        kind = thread.split(": ", 1)[-1]
        if kind == "AnyIO worker thread" and rules.worker_threads:
            return rules.worker_threads
        return f"other threads ({kind})"
    steps = [i for i, frame in enumerate(frames) if frame.startswith("Handle._run ")]
    if steps:
        frames = frames[steps[-1] + 1 :]
    elif frames[0].startswith("<module> "):
        return LOOP
    for depth in range(len(frames) - 1, -1, -1):
        for category, pattern in owners:
            if pattern.search(frames[depth]):
                below = frames[depth + 1 :]
                family = category.split(":", 1)[0].split(" ", 1)[0]
                for library, library_pattern in REFINE:
                    refined = REFINED.get((family, library))
                    if refined and any(re.search(library_pattern, f) for f in below):
                        return refined
                return category
    leaf = frames[-1] if frames else ""
    if "/anyio/" in leaf:
        return "anyio (outside any component)"
    if re.search(r"/asyncio/|selectors\.py|socket\.py", leaf):
        return LOOP
    return "other (interpreter, imports)"


def breakdown(path: Path, rules: Rules, top: int = 25) -> dict[str, Any]:
    """Category shares, top self time and top inclusive time of one py-spy raw file."""
    compiled = rules.compiled()
    stacks = parse_collapsed(path)
    categories: Counter[str] = Counter()
    self_time: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    threads: Counter[str] = Counter()
    leaves: dict[str, Counter[str]] = {}
    for stack, count in stacks:
        category = categorize(stack, rules, compiled)
        categories[category] += count
        if category == IDLE:
            continue
        frames = stack[1:] if stack[0].startswith("thread ") else stack
        leaves.setdefault(category, Counter())[frame_key(frames[-1])] += count
        threads[stack[0].split(": ", 1)[-1] if stack[0].startswith("thread ") else "?"] += count
        self_time[frame_key(frames[-1])] += count
        for key in {frame_key(frame) for frame in frames}:
            if OWN_CODE.search(key):
                inclusive[key] += count
    idle = categories.pop(IDLE, 0)
    busy = sum(categories.values())

    def shares(counter: Counter[str], limit: int | None = None) -> list[dict[str, Any]]:
        return [
            {"name": name, "samples": count, "share": round(count / busy, 4) if busy else 0.0}
            for name, count in counter.most_common(limit)
        ]

    return {
        "samples": busy,
        "idle_samples": idle,
        "threads": shares(threads),
        "categories": [
            {**entry, "top_leaves": shares(leaves[entry["name"]], 4)}
            for entry in shares(categories)
        ],
        "self": shares(self_time, top),
        "inclusive_own_code": shares(inclusive, top),
    }


def markdown(result: dict[str, Any]) -> str:
    lines = [f"Command: `{result['command']}`", ""]
    lines.append(
        f"Load: {result['in_flight']} calls in flight for {result['seconds']} s, "
        f"{result['rate']:.0f} calls/s while sampled; py-spy at {result['rate_hz']} Hz."
    )
    for role in ("bridge", "game"):
        data = result[role]
        seconds = result["seconds"] * result["rate_hz"]
        lines += [
            "",
            f"### {role}: {data['samples']} busy samples ({data['samples'] / seconds:.0%} of one "
            f"core; psutil: {result['cpu_share'][role]:.0%}), {data['idle_samples']} idle",
            "",
            "| category | share of busy samples | where (leaf functions, share of all busy) |",
            "|---|---|---|",
        ]
        for c in data["categories"]:
            top = ", ".join(f"`{leaf['name']}` {leaf['share']:.1%}" for leaf in c["top_leaves"])
            lines.append(f"| {c['name']} | {c['share']:.1%} | {top} |")
        lines += ["", "Top self time:", "", "| function | share |", "|---|---|"]
        lines += [f"| `{c['name']}` | {c['share']:.1%} |" for c in data["self"][:15]]
        lines += ["", "Top inclusive (own and SDK code):", "", "| function | share |", "|---|---|"]
        lines += [f"| `{c['name']}` | {c['share']:.1%} |" for c in data["inclusive_own_code"][:20]]
    return "\n".join(lines) + "\n"


def call_counts(path: Path, calls: int, top: int = 40) -> list[dict[str, Any]]:
    """The functions of a cProfile stats file by own time, with calls per ``games_call_tool``.

    ``per_call`` is the number of calls of the function per measured call (exact, noise-free:
    what repeats per call shows here); ``own_us`` and ``cum_us`` are its time per measured call
    under the profiler (inflated by the profiler's own cost, so compare them with each other).
    """
    stats = pstats.Stats(str(path))
    rows = []
    for (file, line, function), entry in stats.stats.items():  # type: ignore[attr-defined]
        _, ncalls, tottime, cumtime, _ = entry
        rows.append(
            {
                "function": frame_key(f"{function} ({file}:{line})"),
                "per_call": round(ncalls / calls, 2),
                "own_us": round(tottime / calls * 1e6, 1),
                "cum_us": round(cumtime / calls * 1e6, 1),
            }
        )
    rows.sort(key=lambda row: row["own_us"], reverse=True)
    return rows[:top]


def counts_markdown(role: str, rows: list[dict[str, Any]], limit: int = 30) -> str:
    lines = [
        f"### {role}: cProfile, per measured call",
        "",
        "| function | calls per call | own us | cumulative us |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| `{r['function']}` | {r['per_call']:g} | {r['own_us']:g} | {r['cum_us']:g} |"
        for r in rows[:limit]
    ]
    return "\n".join(lines) + "\n"
