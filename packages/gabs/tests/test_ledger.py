"""The call ledger records calls per session and game, bounded, queryable, optionally on disk."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from gabp.messages import Attention
from gabs.ledger import CallLedger, LedgerEntry
from gabs.session import CallOutcome


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


ITEM = Attention.model_validate(
    {
        "attentionId": "att-1",
        "state": "open",
        "severity": "error",
        "blocking": True,
        "stateInvalidated": False,
        "summary": "error: Map lost",
        "openedAtSequence": 4,
        "latestSequence": 4,
        "totalUrgentEntries": 1,
    }
)


def test_record_returns_the_whole_entry_with_a_rising_sequence() -> None:
    ledger = CallLedger(clock=Clock())
    first = ledger.record(
        "call",
        session_id="s1",
        game_id="rw",
        tool="colony/draft",
        operation_id="op-1",
        arguments={"pawn": "Tynan"},
        summary="sent",
    )
    second = ledger.record("ack", session_id="s1", game_id="rw", attention_id="att-1")
    assert first == LedgerEntry(
        seq=1,
        time=1001.0,
        session_id="s1",
        game_id="rw",
        kind="call",
        tool="colony/draft",
        operation_id="op-1",
        attention_id=None,
        arguments_summary='{"pawn":"Tynan"}',
        summary="sent",
        executed=None,
    )
    assert (second.seq, second.kind, second.attention_id) == (2, "ack", "att-1")
    assert ledger.last_seq == 2


def test_an_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="ledger kind"):
        CallLedger().record("sent", session_id="s", game_id="g")  # type: ignore[arg-type]


def test_each_session_keeps_only_its_newest_entries() -> None:
    ledger = CallLedger(capacity_per_session=3, capacity_per_game=100)
    for n in range(5):
        ledger.record("call", session_id="a", game_id="rw", tool=f"t{n}")
    ledger.record("call", session_id="b", game_id="rw", tool="other")
    assert [e.tool for e in ledger.query(session_id="a")] == ["t2", "t3", "t4"]
    assert len(ledger.query(game_id="rw")) == 6


def test_each_game_keeps_only_its_newest_entries() -> None:
    ledger = CallLedger(capacity_per_session=100, capacity_per_game=2)
    for n in range(4):
        ledger.record("call", session_id="a", game_id="rw", tool=f"t{n}")
    ledger.record("call", session_id="a", game_id="other", tool="x")
    assert [e.tool for e in ledger.query(game_id="rw")] == ["t2", "t3"]
    assert [e.tool for e in ledger.query(game_id="other")] == ["x"]


def test_the_least_recently_written_session_is_forgotten_beyond_max_sessions() -> None:
    ledger = CallLedger(max_sessions=2)
    for session in ("a", "b", "c"):
        ledger.record("call", session_id=session, game_id="rw")
    assert ledger.query(session_id="a") == []
    assert len(ledger.query(session_id="c")) == 1


def test_query_filters_combine_and_limit_keeps_the_newest_oldest_first() -> None:
    ledger = CallLedger()
    ledger.record("call", session_id="s", game_id="rw", tool="a", operation_id="op-1")
    ledger.record("error", session_id="s", game_id="rw", tool="a", operation_id="op-1")
    ledger.record("blocked", session_id="s", game_id="rw", tool="b", attention_id="att-1")
    ledger.record("blocked", session_id="s", game_id="rw", tool="c", attention_id="att-1")
    ledger.record("blocked", session_id="s", game_id="xx", tool="c", attention_id="att-1")
    assert [e.seq for e in ledger.query(game_id="rw", operation_id="op-1")] == [1, 2]
    assert [e.seq for e in ledger.query(game_id="rw", kinds=["blocked"])] == [3, 4]
    assert [e.seq for e in ledger.query(attention_id="att-1", limit=2)] == [4, 5]
    assert [e.seq for e in ledger.query(game_id="rw", tool="c")] == [4]
    assert [e.seq for e in ledger.query(game_id="rw", since_seq=2)] == [3, 4]
    assert [e.seq for e in ledger.query(game_id="rw", since_seq=2, limit=1)] == [4]
    assert ledger.query(game_id="rw", limit=0) == []


def test_id_queries_see_exactly_the_games_retained_entries() -> None:
    ledger = CallLedger(capacity_per_session=100, capacity_per_game=3)
    ledger.record("call", session_id="s", game_id="rw", operation_id="op-1", attention_id="a")
    ledger.record("result", session_id="s", game_id="rw", operation_id="op-1", attention_id="a")
    ledger.record("call", session_id="s", game_id="rw", operation_id="op-2", attention_id="a")
    assert [e.seq for e in ledger.query(game_id="rw", operation_id="op-1")] == [1, 2]
    ledger.record("call", session_id="s", game_id="rw", operation_id="op-3")
    ledger.record("call", session_id="s", game_id="rw", operation_id="op-4")
    assert [e.seq for e in ledger.query(game_id="rw", operation_id="op-1")] == []
    assert [e.seq for e in ledger.query(game_id="rw", attention_id="a")] == [3]
    assert [e.seq for e in ledger.query(game_id="rw", attention_id="a", kinds=["call"])] == [3]
    assert [e.seq for e in ledger.query(session_id="s", operation_id="op-1")] == [1, 2]


def test_record_outcome_maps_the_three_answers_to_kinds() -> None:
    ledger = CallLedger()
    blocked = ledger.record_outcome(
        CallOutcome(
            executed=False, status="blocked_by_attention", tool="colony/draft", attention=ITEM
        ),
        session_id="s",
        game_id="rw",
        arguments={"pawn": "Tynan"},
    )
    ok = ledger.record_outcome(
        CallOutcome(
            executed=True,
            status="ok",
            tool="colony/load_game",
            operation_id="op-7",
            attention=ITEM,
            attention_relation="caused_by_call",
        ),
        session_id="s",
        game_id="rw",
    )
    lost = ledger.record_outcome(
        CallOutcome(
            executed="unknown",
            status="unknown",
            tool="colony/build",
            operation_id="op-8",
            error={"code": -32000, "message": "connection lost: eof"},
        ),
        session_id="s",
        game_id="rw",
    )
    assert (blocked.kind, blocked.executed, blocked.attention_id) == ("blocked", False, "att-1")
    assert blocked.summary == "not executed: blocked_by_attention by att-1: error: Map lost"
    assert (ok.kind, ok.executed, ok.operation_id) == ("result", True, "op-7")
    assert ok.summary == "ok; attention att-1 (caused_by_call)"
    assert (lost.kind, lost.executed) == ("unknown", "unknown")


def test_the_jsonl_copy_gets_one_line_per_entry(tmp_path: Path) -> None:
    path = tmp_path / "ledger" / "calls.jsonl"
    ledger = CallLedger(jsonl_path=path)
    entries = [ledger.record("call", session_id="s", game_id="rw", tool=f"t{n}") for n in range(3)]
    ledger.close()
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == [e.to_json() for e in entries]
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_the_jsonl_copy_rotates_and_stays_bounded(tmp_path: Path) -> None:
    path = tmp_path / "calls.jsonl"
    ledger = CallLedger(jsonl_path=path, jsonl_max_bytes=600, jsonl_backups=2)
    for n in range(60):
        ledger.record("call", session_id="s", game_id="rw", tool=f"tool-{n}")
        if n % 5 == 0:
            ledger.close()  # flush in several batches so rotation happens between them
    ledger.close()
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["calls.jsonl", "calls.jsonl.1", "calls.jsonl.2"]
    assert all((tmp_path / name).stat().st_size <= 600 for name in files)
    last = json.loads(path.read_text(encoding="utf-8").splitlines()[-1])
    assert last["tool"] == "tool-59"


async def test_aclose_flushes_from_async_code(tmp_path: Path) -> None:
    path = tmp_path / "calls.jsonl"
    ledger = CallLedger(jsonl_path=path)
    ledger.record("ack", session_id="s", game_id="rw", attention_id="att-1")
    await ledger.aclose()
    assert json.loads(path.read_text(encoding="utf-8"))["kind"] == "ack"
    assert ledger.jsonl_dropped == 0
