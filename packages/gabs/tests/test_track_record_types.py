"""The track record is read as the Go bridge reads its history file: a record whose members do
not decode into Go's ``GameHistory`` counts as no record (Go's ``LoadHistory`` degrades a
corrupt file to an empty one); every record gabs writes decodes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gabs.lifecycle.history import TrackRecord
from gabs.lifecycle.record_fields import record_type_problem

DIGEST = "sha256:" + "a" * 64


def _write(game_dir: Path, record: object) -> TrackRecord:
    game_dir.mkdir(parents=True, exist_ok=True)
    (game_dir / "track-record.json").write_text(json.dumps(record), encoding="utf-8")
    return TrackRecord(game_dir)


@pytest.mark.parametrize(
    ("member", "problem"),
    [
        ({"consecutiveFailures": "2"}, "profiles.p.consecutiveFailures: must be an unsigned"),
        ({"workloadStarts": -1}, "profiles.p.workloadStarts: must be an unsigned"),
        ({"lastFailure": "exited"}, "profiles.p.lastFailure: must be an object, not a string"),
        ({"buckets": [{"count": 1.5}]}, "profiles.p.buckets[0].count: must be an unsigned"),
        ({"creditedLaunchIds": [7]}, "profiles.p.creditedLaunchIds[0]: must be a string"),
        ({"lastSuccessAt": "today"}, "profiles.p.lastSuccessAt: must be an RFC 3339 time"),
    ],
)
def test_a_record_go_could_not_decode_counts_as_none_and_is_written_anew(
    tmp_path: Path, member: dict[str, object], problem: str
) -> None:
    entry = {"contextHash": DIGEST, "workloadStarts": 3, "consecutiveFailures": 1, **member}
    record = _write(tmp_path / "g", {"version": 1, "bucketKey": "k", "profiles": {"p": entry}})
    assert (record_type_problem(json.loads(record.path.read_text())) or "").startswith(problem)

    assert record.load()["profiles"] == {}
    assert not record.proven("p", DIGEST)
    # a failure counts from nothing; it crashed when the count was a string
    record.failed("p", DIGEST, "exited_during_start", "config")
    written = json.loads(record.path.read_text())
    assert written["profiles"]["p"]["consecutiveFailures"] == 1
    assert record_type_problem(written) is None


def test_a_wrong_type_outside_the_profiles_also_makes_the_record_none(tmp_path: Path) -> None:
    entry = {"contextHash": DIGEST, "workloadStarts": 3}
    record = _write(
        tmp_path / "g",
        {
            "profiles": {"p": entry},
            "lastGood": {"p": {"contextHash": DIGEST, "entrySnapshot": {"args": "-x"}}},
        },
    )
    assert record_type_problem(json.loads(record.path.read_text())) == (
        "lastGood.p.entrySnapshot.args: must be an array, not a string"
    )
    assert not record.proven("p", DIGEST)

    # null members are Go's zero values, and a record without profiles keeps its other parts
    kept = _write(tmp_path / "h", {"bucketKey": "k", "profiles": None, "lastGood": None})
    assert kept.load() == {"bucketKey": "k", "profiles": {}, "lastGood": None}


def test_every_record_gabs_writes_decodes_as_go_s(tmp_path: Path) -> None:
    record = TrackRecord(tmp_path / "g")
    snapshot = {"target": "/bin/a", "args": ["1"], "configEnv": {"A": "1"}}
    bucket = {"inputNames": ["x"], "perInputDecl": {"x": "d"}, "declHash": "d"}
    record.started(snapshot, "p", DIGEST, launch_id="L1", bucket=bucket)
    record.count("p", DIGEST, "bridgeConnects")
    record.count_once("p", DIGEST, "deliveriesVerified", "conn-1")
    record.failed("p", DIGEST, "exited_during_start", "config", input_names=("x",))
    record.failed("q", DIGEST, "spawn_failed", None)
    record.started(snapshot, "p", "sha256:" + "b" * 64, launch_id="L2")

    written = json.loads(record.path.read_text())
    assert written["profiles"]["p"]["workloadStarts"] == 1
    assert written["profiles"]["q"]["consecutiveFailures"] == 1
    assert record_type_problem(written) is None
    assert record.proven("p", "sha256:" + "b" * 64)
