"""The track record's input-combination buckets and the start's attribution, as the Go bridge
1.1.0 keeps and renders them (``design/08-track-record.md``; ``internal/process/history.go``:
``HistoryBucket``, ``recordBucket``, ``InvalidateChangedInputDeclarations``,
``BucketValueDigest``; ``internal/process/classifier.go``: ``withInputNote``;
``internal/mcp/stdio_server.go``: ``startRefusalResult``).

* A verified start counts in the bucket of the inputs it applied: sorted names, declaration
  hashes, a value digest keyed with the game's random ``bucketKey``; values are never written.
  ``scenario=arena`` proven does not make ``scenario=tutorial`` proven.
* A crash with a combination never verified on its context stays ``game`` and carries
  ``candidateInputNote``; a proven combination and a bare start carry none.
* Editing one input's declaration drops only the buckets that used it; a set of input names
  keeps at most 16 value buckets, the least recently used leaving first.
* The edit notice: a start of a proven context edited after a failure that was not the
  config's says so once (``editNotice``); not after a config-class failure.
* Counts from several recorders at once are all kept (the T-TRACK stress cell: 40 updates
  from each of two recorders).
* A refused start shows the track record of the profile it asked for, also when the refusal
  names another, running profile; a call refused before resolution shows the neutral line.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest

from gabs.config import GabsConfig, GameConfig
from gabs.launch import resolve
from gabs.lifecycle import Lifecycle, TrackRecord, context_hash, start_game, stop_game
from gabs.lifecycle.buckets import BUCKET_VALUE_CAP, record_bucket
from gabs.lifecycle.history import last_good_snapshot
from gabs.runtime.procs import process_start_time
from gabs_test_support import data as body
from gabs_test_support import mcp_client as client_for

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")

NEUTRAL = "no successful starts recorded for this context"
NOTE = "first run with this input combination (scenario); the input is a candidate cause"
SCENARIO = {"description": "s", "type": "string", "args": ["--scenario=${value}"]}


def load(tmp_path: Path, **entry: Any) -> GabsConfig:
    game = {"name": "G", "launchMode": "CustomCommand", "target": sys.executable, **entry}
    document = {"timeouts": {"startup": {"processStartSeconds": 2}}, "games": {"g": game}}
    (tmp_path / "config.json").write_text(json.dumps(document), encoding="utf-8")
    config = GabsConfig.load(tmp_path)
    assert config.broken == {}, config.broken
    return config


def stored(config: GabsConfig) -> dict[str, Any]:
    path = config.game_dir("g") / "track-record.json"
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


def prove(config: GabsConfig, profile: str = "", **inputs: Any) -> None:
    """One verified start of ``profile`` with ``inputs`` (as a start records it)."""
    game = config.game("g")
    record = TrackRecord(config.game_dir("g"))
    resolved = resolve(game, profile=profile, inputs=inputs)
    bucket = record.accept(game, resolved)
    snapshot = last_good_snapshot(game, resolved.profile)
    record.started(snapshot, resolved.profile, context_hash(game, resolved.profile), bucket=bucket)


async def test_a_verified_start_counts_in_its_input_bucket_without_the_value(
    tmp_path: Path,
) -> None:
    sleeper = "import time; time.sleep(120)"
    config = load(tmp_path, args=["-c", sleeper], launchInputs={"scenario": SCENARIO})
    game: GameConfig = config.game("g")
    lc = Lifecycle(config.config_dir, config.settings, cli=True)
    resolved = resolve(game, inputs={"scenario": "arena-secret"})
    with anyio.fail_after(30):
        await start_game(lc, game, resolved, gabp_timeout=5)
    try:
        text = (config.game_dir("g") / "track-record.json").read_text(encoding="utf-8")
        data = json.loads(text)
        [bucket] = data["profiles"][""]["buckets"]
        assert set(bucket) == {
            "inputNames",
            "perInputDecl",
            "declHash",
            "valueDigest",
            "count",
            "lastAt",
        }
        assert (bucket["inputNames"], bucket["count"]) == (["scenario"], 1)
        assert set(bucket["perInputDecl"]) == {"scenario"}
        assert len(bucket["valueDigest"]) == 64 and len(data["bucketKey"]) >= 32
        assert "arena-secret" not in text
        record = TrackRecord(config.game_dir("g"))
        digest = context_hash(game, "")
        assert record.combo_proven("", digest, record.bucket(game, resolved))
        tutorial = resolve(game, inputs={"scenario": "tutorial"})
        assert not record.combo_proven("", digest, record.bucket(game, tutorial))
        assert not record.combo_proven("", digest, record.bucket(game, resolve(game)))
    finally:
        await stop_game(lc, "g", "kill")


@pytest.mark.parametrize(
    ("inputs", "note"),
    [({"scenario": "tutorial"}, NOTE), ({"scenario": "arena"}, None), ({}, None)],
)
async def test_a_crash_names_an_unproven_input_combination_as_candidate(
    tmp_path: Path, inputs: dict[str, Any], note: str | None
) -> None:
    # TestCandidateInputNoteOnFreshCombination: the class stays game, proof stays.
    config = load(tmp_path, args=["-c", "raise SystemExit(3)"], launchInputs={"scenario": SCENARIO})
    prove(config)
    prove(config, scenario="arena")
    async with client_for(config) as client:
        result = await client.call_tool("games_start", {"gameId": "g", "launchInputs": inputs})
    found = body(result)
    assert (found["code"], found["causeClass"]) == ("exited_during_start", "game")
    assert found.get("candidateInputNote") == note
    assert found["trackRecord"].startswith("started 2\u00d7")
    entry = stored(config)["profiles"][""]
    assert len(entry["buckets"]) == 2 and entry["workloadStarts"] == 2


def test_editing_one_inputs_declaration_drops_only_its_buckets(tmp_path: Path) -> None:
    seed = {"description": "n", "type": "integer", "args": ["--seed=${value}"]}
    config = load(tmp_path, launchInputs={"scenario": SCENARIO, "seed": seed})
    prove(config)
    prove(config, scenario="arena")
    prove(config, seed=7)
    edited = load(tmp_path, launchInputs={"scenario": {**SCENARIO, "maxLength": 9}, "seed": seed})
    game = edited.game("g")
    record = TrackRecord(edited.game_dir("g"))
    record.accept(game, resolve(game))
    names = [b.get("inputNames") for b in stored(edited)["profiles"][""]["buckets"]]
    assert names == [None, ["seed"]]
    assert stored(edited)["profiles"][""]["workloadStarts"] == 3


def test_an_input_name_set_keeps_sixteen_value_buckets_evicting_the_oldest() -> None:
    entry: dict[str, Any] = {}
    for n in range(BUCKET_VALUE_CAP + 1):
        bucket = {"InputNames": ["scenario"], "DeclHash": "d", "ValueDigest": f"v{n:02}"}
        record_bucket(entry, bucket, f"2026-01-01T00:00:{n:02}+00:00")
    record_bucket(entry, {"InputNames": None, "DeclHash": "", "ValueDigest": ""}, "2026-01-02")
    digests = [b["valueDigest"] for b in entry["buckets"]]
    assert digests == [f"v{n:02}" for n in range(1, BUCKET_VALUE_CAP + 1)] + [""]


async def test_a_refused_start_shows_the_requested_profiles_track_record(tmp_path: Path) -> None:
    # startRefusalResult renders the history context of the start it refuses.
    profiles = {"normal": {"description": "n"}, "fast": {"description": "f"}}
    config = load(tmp_path, profiles=profiles, defaultProfile="normal")
    prove(config, "normal")
    claim = {
        "gameId": "g",
        "status": "running",
        "ownerPid": 0,
        "updatedAt": "2026-01-01T00:00:00Z",
        "schemaVersion": 2,
        "launchId": "ab" * 16,
        "generation": 1,
        "phase": "active",
        "source": "gabs",
        "launchMode": "CustomCommand",
        "gamePid": os.getpid(),
        "pidStartTime": process_start_time(os.getpid()),
        "pidRole": "workload",
        "profile": "normal",
        "historyContextHash": context_hash(config.game("g"), "normal"),
    }
    (config.game_dir("g") / "runtime.json").write_text(json.dumps(claim), encoding="utf-8")
    async with client_for(config) as client:
        fast = await client.call_tool("games_start", {"gameId": "g", "profile": "fast"})
        normal = await client.call_tool("games_start", {"gameId": "g", "profile": "normal"})
    assert (body(fast)["code"], body(fast)["activeProfile"]) == ("already_running", "normal")
    assert body(fast)["trackRecord"] == NEUTRAL
    assert body(normal)["trackRecord"].startswith("started 1\u00d7")


async def test_a_call_refused_before_resolution_shows_the_neutral_line(tmp_path: Path) -> None:
    config = load(tmp_path, profiles={"normal": {}}, defaultProfile="normal")
    prove(config, "normal")
    async with client_for(config) as client:
        result = await client.call_tool("games_start", {"gameId": "g", "profile": "nope"})
    assert (body(result)["code"], body(result)["trackRecord"]) == ("profile_not_found", NEUTRAL)


def test_counts_from_two_recorders_at_once_are_all_kept(tmp_path: Path) -> None:
    def count(counter: str) -> None:
        record = TrackRecord(tmp_path)
        for _ in range(40):
            record.count("", "sha256:c", counter)

    workers = [threading.Thread(target=count, args=(c,)) for c in ("bridgeConnects", "cleanStops")]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
    entry = json.loads((tmp_path / "track-record.json").read_text(encoding="utf-8"))
    assert (entry["profiles"][""]["bridgeConnects"], entry["profiles"][""]["cleanStops"]) == (
        40,
        40,
    )


@pytest.mark.parametrize(
    ("cause", "notice"),
    [
        (
            "environment",
            "configuration changed after a environment-class failure; the previous context "
            "had 1 successful starts \u2014 verify this edit was intended",
        ),
        ("config", None),
    ],
)
async def test_an_edit_after_a_failure_is_noticed_once(
    tmp_path: Path, cause: str, notice: str | None
) -> None:
    # design/08 "Edit visibility"; history.go EditNotice, entryForContext.
    before = load(tmp_path, args=["-c", "raise SystemExit(3)"])
    prove(before)
    game = before.game("g")
    TrackRecord(before.game_dir("g")).failed("", context_hash(game, ""), "spawn_failed", cause)
    edited = load(tmp_path, args=["-c", "raise SystemExit(3)", "--edited"])
    async with client_for(edited) as client:
        first = await client.call_tool("games_start", {"gameId": "g"})
        second = await client.call_tool("games_start", {"gameId": "g"})
    assert body(first)["code"] == body(second)["code"] == "exited_during_start"
    assert body(first).get("editNotice") == notice
    assert "editNotice" not in body(second)
