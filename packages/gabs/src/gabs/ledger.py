"""The call ledger: what the bridge did with every game-bound call, bounded, queryable.

Every game-bound call the bridge handles becomes one or more :class:`LedgerEntry` rows: the call
(``call``), the gate's refusal (``blocked``), the game's answer (``result`` or ``error``), a lost
answer (``unknown``), an acknowledgement (``ack``) and attention the bridge saw (``attention``).
Context assembly (:mod:`gabs.context`) reads it to show the model the calls that led to an item.

Bounds: each session keeps its newest ``capacity_per_session`` entries and each game its newest
``capacity_per_game`` (two independent indexes over the same entries, so a query by session and
a query by game each see up to their own bound); at most ``max_sessions`` sessions are kept (the
least recently written is forgotten first). Sequence numbers rise across the whole ledger and
are never reused.

Optional JSONL copy: with ``jsonl_path`` every entry is also appended to that file as one JSON
line. :meth:`CallLedger.record` never touches the file: it puts the line on a bounded queue
that one writer thread (started lazily, owned by the ledger) drains in batches. When the queue
is full the line is dropped and counted (``jsonl_dropped``); the in-memory ledger is complete
regardless. When the file would grow past ``jsonl_max_bytes`` it is rotated (``ledger.jsonl``
-> ``ledger.jsonl.1`` ... up to ``jsonl_backups`` files, the oldest deleted), so the copy on disk
is bounded by ``(jsonl_backups + 1) * jsonl_max_bytes`` (a single line longer than
``jsonl_max_bytes`` still gets a file of its own). Files are created with mode 0600.
Call :meth:`CallLedger.close` (or ``await`` :meth:`CallLedger.aclose`) to flush and stop the
writer.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal, TypeAlias

import anyio.to_thread

from gabs.call_outcome import CallOutcome

__all__ = ["LEDGER_KINDS", "CallLedger", "LedgerEntry", "LedgerKind"]

logger = logging.getLogger("gabs.ledger")

LedgerKind: TypeAlias = Literal["call", "blocked", "result", "error", "unknown", "ack", "attention"]
LEDGER_KINDS: tuple[LedgerKind, ...] = (
    "call",
    "blocked",
    "result",
    "error",
    "unknown",
    "ack",
    "attention",
)
Executed: TypeAlias = bool | Literal["unknown"] | None


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    """One row of the ledger."""

    seq: int
    time: float
    session_id: str
    game_id: str
    kind: LedgerKind
    tool: str | None = None
    operation_id: str | None = None
    attention_id: str | None = None
    arguments_summary: str | None = None
    summary: str = ""
    executed: Executed = None

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "time": self.time,
            "sessionId": self.session_id,
            "gameId": self.game_id,
            "kind": self.kind,
            "tool": self.tool,
            "operationId": self.operation_id,
            "attentionId": self.attention_id,
            "argumentsSummary": self.arguments_summary,
            "summary": self.summary,
            "executed": self.executed,
        }


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"


_ARGUMENTS_JSON: Final = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str)
"""``json.dumps(..., ensure_ascii=False, separators=(",", ":"), default=str)``, built once."""


def summarize_arguments(arguments: Mapping[str, Any] | None, limit: int) -> str | None:
    """Compact JSON of a call's arguments, cut to ``limit`` characters."""
    if arguments is None:
        return None
    try:
        text = _ARGUMENTS_JSON.encode(arguments)
    except (TypeError, ValueError):
        text = repr(arguments)
    return _cut(text, limit)


class _JsonlWriter:
    """One thread appending queued lines to a size-bounded, rotated file."""

    def __init__(self, path: Path, *, max_bytes: int, backups: int, queue_size: int) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self.backups = backups
        self.queue: queue.Queue[str | None] = queue.Queue(maxsize=queue_size)
        self.dropped = 0
        self.written = 0
        self.errors = 0
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def put(self, line: str) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="gabs-ledger-jsonl", daemon=True
                )
                self._thread.start()
        try:
            self.queue.put_nowait(line)
        except queue.Full:
            self.dropped += 1

    def close(self, timeout: float = 5.0) -> None:
        with self._lock:
            thread, self._thread = self._thread, None
        if thread is None:
            return
        self.queue.put(None)  # blocks only while the writer is behind; bounded by the queue
        thread.join(timeout)

    def _run(self) -> None:
        while True:
            batch: list[str] = []
            item = self.queue.get()
            stop = item is None
            if item is not None:
                batch.append(item)
            while not stop:
                try:
                    item = self.queue.get_nowait()
                except queue.Empty:
                    break
                if item is None:
                    stop = True
                else:
                    batch.append(item)
            if batch:
                self._write(batch)
            if stop:
                return

    def _write(self, lines: list[str]) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            try:
                size = self.path.stat().st_size
            except FileNotFoundError:
                size = 0
            chunk: list[bytes] = []
            for line in lines:
                data = line.encode("utf-8")
                if size and size + len(data) > self.max_bytes:
                    self._append(chunk)
                    chunk = []
                    self._rotate()
                    size = 0
                chunk.append(data)
                size += len(data)
            self._append(chunk)
            self.written += len(lines)
        except OSError as exc:
            self.errors += 1
            logger.warning("cannot append to the ledger file %s: %s", self.path, exc)

    def _append(self, chunk: list[bytes]) -> None:
        if not chunk:
            return
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, b"".join(chunk))
        finally:
            os.close(fd)

    def _rotate(self) -> None:
        if self.backups <= 0:
            self.path.unlink(missing_ok=True)
            return
        oldest = self.path.with_name(f"{self.path.name}.{self.backups}")
        oldest.unlink(missing_ok=True)
        for index in range(self.backups - 1, 0, -1):
            older = self.path.with_name(f"{self.path.name}.{index}")
            if older.exists():
                older.replace(self.path.with_name(f"{self.path.name}.{index + 1}"))
        self.path.replace(self.path.with_name(f"{self.path.name}.1"))


class CallLedger:
    """Bounded, per-session and per-game record of game-bound calls (see the module doc)."""

    def __init__(
        self,
        capacity_per_session: int = 1000,
        *,
        capacity_per_game: int | None = None,
        max_sessions: int = 64,
        jsonl_path: str | os.PathLike[str] | None = None,
        jsonl_max_bytes: int = 10 * 1024 * 1024,
        jsonl_backups: int = 1,
        jsonl_queue_size: int = 10_000,
        summary_chars: int = 240,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if capacity_per_session < 1:
            raise ValueError("capacity_per_session must be at least 1")
        if capacity_per_game is not None and capacity_per_game < 1:
            raise ValueError("capacity_per_game must be at least 1")
        if max_sessions < 1:
            raise ValueError("max_sessions must be at least 1")
        if jsonl_max_bytes < 1 or jsonl_backups < 0 or jsonl_queue_size < 1:
            raise ValueError("jsonl bounds must be positive (backups may be 0)")
        self.capacity_per_session = capacity_per_session
        self.capacity_per_game = capacity_per_game or capacity_per_session
        self.max_sessions = max_sessions
        self.summary_chars = summary_chars
        self._clock = clock
        self._seq = 0
        self._sessions: OrderedDict[str, deque[LedgerEntry]] = OrderedDict()
        self._games: dict[str, deque[LedgerEntry]] = {}
        # (game, id) -> that game's retained entries with the id, oldest first
        self._by_attention: dict[tuple[str, str], deque[LedgerEntry]] = {}
        self._by_operation: dict[tuple[str, str], deque[LedgerEntry]] = {}
        self._writer = (
            _JsonlWriter(
                Path(jsonl_path),
                max_bytes=jsonl_max_bytes,
                backups=jsonl_backups,
                queue_size=jsonl_queue_size,
            )
            if jsonl_path is not None
            else None
        )

    def __repr__(self) -> str:
        return f"CallLedger(seq={self._seq}, sessions={len(self._sessions)})"

    def __len__(self) -> int:
        return sum(len(entries) for entries in self._games.values())

    @property
    def last_seq(self) -> int:
        return self._seq

    @property
    def jsonl_dropped(self) -> int:
        """Lines not written to the JSONL file because its queue was full."""
        return self._writer.dropped if self._writer is not None else 0

    # -- writing --------------------------------------------------------------------------------

    def record(
        self,
        kind: LedgerKind,
        *,
        session_id: str,
        game_id: str,
        tool: str | None = None,
        operation_id: str | None = None,
        attention_id: str | None = None,
        arguments: Mapping[str, Any] | None = None,
        arguments_summary: str | None = None,
        summary: str = "",
        executed: Executed = None,
    ) -> LedgerEntry:
        """Append one entry (never blocks on I/O) and return it."""
        if kind not in LEDGER_KINDS:
            raise ValueError(f"ledger kind must be one of {', '.join(LEDGER_KINDS)}, not {kind!r}")
        if arguments_summary is None:
            arguments_summary = summarize_arguments(arguments, self.summary_chars)
        self._seq += 1
        entry = LedgerEntry(
            seq=self._seq,
            time=self._clock(),
            session_id=session_id,
            game_id=game_id,
            kind=kind,
            tool=tool,
            operation_id=operation_id,
            attention_id=attention_id,
            arguments_summary=arguments_summary,
            summary=_cut(summary, self.summary_chars),
            executed=executed,
        )
        session = self._sessions.get(session_id)
        if session is None:
            session = self._sessions[session_id] = deque(maxlen=self.capacity_per_session)
            while len(self._sessions) > self.max_sessions:
                self._sessions.popitem(last=False)
        else:
            self._sessions.move_to_end(session_id)
        session.append(entry)
        game = self._games.get(game_id)
        if game is None:
            game = self._games[game_id] = deque(maxlen=self.capacity_per_game)
        if len(game) == game.maxlen:
            self._unindex(game[0])
        game.append(entry)
        if attention_id is not None:
            self._by_attention.setdefault((game_id, attention_id), deque()).append(entry)
        if operation_id is not None:
            self._by_operation.setdefault((game_id, operation_id), deque()).append(entry)
        if self._writer is not None:
            self._writer.put(json.dumps(entry.to_json(), ensure_ascii=False) + "\n")
        return entry

    def record_outcome(
        self,
        outcome: CallOutcome,
        *,
        session_id: str,
        game_id: str,
        arguments: Mapping[str, Any] | None = None,
    ) -> LedgerEntry:
        """Record how one call ended (``blocked``, ``result``, ``error`` or ``unknown``)."""
        item = outcome.attention
        kind: LedgerKind
        if outcome.status in ("blocked_by_attention", "attention_unavailable"):
            kind = "blocked"
            summary = f"not executed: {outcome.status}" + (
                f" by {item.attention_id}: {item.summary}" if item is not None else ""
            )
        elif outcome.executed == "unknown":
            kind = "unknown"
            message = outcome.error["message"] if outcome.error else "no answer"
            summary = f"unknown whether it ran: {message}"
        elif outcome.status == "error":
            kind = "error"
            error = outcome.error or {}
            summary = f"error {error.get('code')}: {error.get('message')}"
        else:
            kind = "result"
            summary = "ok"
        if item is not None and kind != "blocked":
            summary += f"; attention {item.attention_id} ({outcome.attention_relation})"
        return self.record(
            kind,
            session_id=session_id,
            game_id=game_id,
            tool=outcome.tool,
            operation_id=outcome.operation_id,
            attention_id=item.attention_id if item is not None else None,
            arguments=arguments,
            summary=summary,
            executed=outcome.executed,
        )

    def _unindex(self, entry: LedgerEntry) -> None:
        """Drop an entry leaving its game's window from the id indexes (it is their oldest)."""
        for index, key in (
            (self._by_attention, entry.attention_id),
            (self._by_operation, entry.operation_id),
        ):
            if key is None:
                continue
            found = index.get((entry.game_id, key))
            if found and found[0] is entry:
                found.popleft()
                if not found:
                    del index[(entry.game_id, key)]

    # -- reading --------------------------------------------------------------------------------

    def query(
        self,
        *,
        game_id: str | None = None,
        session_id: str | None = None,
        kinds: Iterable[str] | None = None,
        attention_id: str | None = None,
        operation_id: str | None = None,
        tool: str | None = None,
        limit: int | None = None,
        since_seq: int | None = None,
    ) -> list[LedgerEntry]:
        """Entries matching every given filter, oldest first; ``limit`` keeps the newest."""
        if limit is not None and limit < 0:
            raise ValueError("limit must not be negative")
        wanted = frozenset(kinds) if kinds is not None else None
        pool: Sequence[LedgerEntry]
        if session_id is not None:
            pool = self._sessions.get(session_id, ())
        elif game_id is not None and operation_id is not None:
            pool = self._by_operation.get((game_id, operation_id), ())
        elif game_id is not None and attention_id is not None:
            pool = self._by_attention.get((game_id, attention_id), ())
        elif game_id is not None:
            pool = self._games.get(game_id, ())
        else:
            pool = sorted(
                (e for entries in self._games.values() for e in entries), key=lambda e: e.seq
            )
        found: deque[LedgerEntry] = deque(maxlen=limit)
        for entry in reversed(pool) if limit is not None else pool:
            if since_seq is not None and entry.seq <= since_seq:
                if limit is not None:
                    break  # newest first: everything further back is older still
                continue
            if (
                (game_id is not None and entry.game_id != game_id)
                or (wanted is not None and entry.kind not in wanted)
                or (attention_id is not None and entry.attention_id != attention_id)
                or (operation_id is not None and entry.operation_id != operation_id)
                or (tool is not None and entry.tool != tool)
            ):
                continue
            if limit is not None:
                if len(found) == limit:
                    break
                found.appendleft(entry)
            else:
                found.append(entry)
        return list(found)

    # -- closing --------------------------------------------------------------------------------

    def close(self) -> None:
        """Flush the JSONL copy and stop its writer thread (blocks until written)."""
        if self._writer is not None:
            self._writer.close()

    async def aclose(self) -> None:
        """:meth:`close` from async code, without blocking the event loop."""
        await anyio.to_thread.run_sync(self.close)
