"""The track record: per game and launch context, what has worked before.

``<config-dir>/<gameId>/track-record.json`` (0600) counts, per profile and per hash of the
resolved launch context (target, mode, args, config env, working directory, hooks; never the
launch inputs or the bridge's own variables), the verified starts, bridge connections and
clean stops, the last success and failure, and the consecutive failures; it keeps the last
context that started. A failure result carries its one-line summary (``trackRecord``), so an
agent can tell a proven setup that failed once (look at the game or the machine) from one that
never worked (look at the config). Editing a context starts its record anew. Each verified
start also counts in the bucket of the launch inputs it applied (:mod:`.buckets`). Each change
reads, changes and writes the file under ``track-record.lock``, so counts from two processes at
once are all kept.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from gabp.handoff import write_secret_file
from gabs.config import GameConfig
from gabs.launch.resolve import Resolved, resolve
from gabs.runtime import RuntimeState
from gabs.runtime.lock import LOCK_TIMEOUT, held_flock

from .buckets import (
    drop_changed_declarations,
    has_bucket,
    new_bucket_key,
    record_bucket,
    success_bucket,
)
from .edit_notice import arm_notice, take_notice
from .record_fields import record_type_problem

__all__ = [
    "TrackRecord",
    "age_text",
    "context_hash",
    "summary_line",
    "track_record_summary",
]

RECORD_FILE: Final = "track-record.json"
#: The lock one change of the record holds (beside it, never deleted).
LOCK_FILE: Final = "track-record.lock"
#: How many recent launch ids an entry keeps so a launch's start counts once (Go's cap).
CREDITED_LAUNCH_CAP: Final = 16
#: The largest launch context snapshot kept (JSON text); a larger one is not pinned or kept.
SNAPSHOT_MAX_BYTES: Final = 1024 * 1024


def context_hash(game: GameConfig, profile: str) -> str:
    """The hash of a profile's launch context without launch inputs."""
    try:
        base = resolve(game, profile=profile, inherited={})
    except Exception:
        return ""
    return (
        "sha256:"
        + hashlib.sha256(json.dumps(_context(game, base), sort_keys=True).encode()).hexdigest()
    )


#: Where Go's ``ContextSnapshot`` names a fact of :func:`_context` otherwise.
_SNAPSHOT_NAMES: Final = {"env": "configEnv", "absentEnv": "absentEnvNames"}


def _context(game: GameConfig, base: Resolved) -> dict[str, Any]:
    return {
        "target": game.target,
        "mode": game.launch_mode,
        "args": list(base.args),
        "env": {key: base.env[key] for key in base.context_env_keys if key in base.env},
        "absentEnv": list(base.absent_env_names),
        "workingDir": base.working_dir,
        "lifecycle": base.lifecycle.to_json() if base.lifecycle else None,
    }


def pinned_success(claim: RuntimeState) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The launch context snapshot and input bucket a claim pinned (``historySuccess``)."""
    pinned = claim.extra.get("historySuccess")
    if not isinstance(pinned, dict):
        return None, None
    snapshot, bucket = pinned.get("snapshot"), pinned.get("bucket")
    return (
        snapshot if isinstance(snapshot, dict) else None,
        bucket if isinstance(bucket, dict) else None,
    )


def last_good_snapshot(game: GameConfig, profile: str) -> dict[str, Any] | None:
    """The whole launch context of ``profile`` without launch inputs, as Go's
    ``ContextSnapshot`` keeps it for ``doctor --show-last-good`` (empty parts left out). It may
    hold env values, so it is kept only in the owner-only claim and track record files. None
    when it is larger than :data:`SNAPSHOT_MAX_BYTES`: it is pinned in the claim, which a
    reader refuses beyond 4 MiB, and a context that large cannot be launched anyway."""
    try:
        base = resolve(game, profile=profile, inherited={})
    except Exception:
        return {}
    # The facts the context hash covers, under the names Go's snapshot gives them.
    snapshot = {_SNAPSHOT_NAMES.get(key, key): value for key, value in _context(game, base).items()}
    kept = {key: value for key, value in snapshot.items() if value}
    return kept if len(json.dumps(kept)) <= SNAPSHOT_MAX_BYTES else None


def age_text(seconds: float) -> str:
    """How long ago, as the track record words it: ``moments``, ``5m``, ``3h``, ``2d``."""
    if seconds < 60:
        return "moments"
    if seconds < 3600:
        return f"{int(seconds // 60)}m"
    if seconds < 86400:
        return f"{int(seconds // 3600)}h"
    return f"{int(seconds // 86400)}d"


def _ago(moment: str) -> str:
    try:
        seconds = (datetime.now(UTC) - datetime.fromisoformat(moment)).total_seconds()
    except ValueError:
        return "a while"
    return age_text(seconds)


def summary_line(entry: dict[str, Any] | None) -> str:
    """The one-line summary a failure result carries."""
    if not entry or not entry.get("workloadStarts"):
        failures = (entry or {}).get("consecutiveFailures", 0)
        if failures:
            return (
                f"no successful starts recorded for this context ({failures} consecutive failures)"
            )
        return "no successful starts recorded for this context"
    parts = f"started {entry['workloadStarts']}\u00d7"
    if entry.get("lastSuccessAt"):
        parts += f", last {_ago(entry['lastSuccessAt'])} ago"
    parts += f"; bridge connected {entry.get('bridgeConnects', 0)}\u00d7"
    if entry.get("deliveriesVerified"):
        parts += f", delivery verified {entry['deliveriesVerified']}\u00d7"
    if entry.get("cleanStops"):
        parts += f", clean stops {entry['cleanStops']}\u00d7"
    if not entry.get("bridgeConnects"):
        parts += (
            " — the workload starts but the bridge has never connected (points game-side, not at "
            "launch config)"
        )
    if entry.get("consecutiveFailures"):
        parts += f"; {entry['consecutiveFailures']} consecutive failures"
    return parts


class _Skipped(Exception):
    """The record could not be locked in time: the change is dropped."""


class TrackRecord:
    """One game's record (read and written in its runtime folder)."""

    def __init__(self, game_dir: Path) -> None:
        self.path = game_dir / RECORD_FILE

    def load(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {"profiles": {}}
        # a record Go's decoder would refuse counts as none, as the Go bridge reads its own
        if not isinstance(data, dict) or record_type_problem(data) is not None:
            return {"profiles": {}}
        if not isinstance(data.get("profiles"), dict):
            data["profiles"] = {}
        return data

    def entry(self, profile: str, digest: str) -> dict[str, Any] | None:
        found = self.load()["profiles"].get(profile)
        if isinstance(found, dict) and found.get("contextHash") == digest and digest:
            return found
        return None

    def proven(self, profile: str, digest: str) -> bool:
        entry = self.entry(profile, digest)
        return bool(entry and entry.get("workloadStarts"))

    def combo_proven(self, profile: str, digest: str, bucket: dict[str, Any]) -> bool:
        """Whether a start with ``bucket``'s input combination was verified on this context."""
        return has_bucket(self.entry(profile, digest), bucket)

    def bucket(self, game: GameConfig, resolved: Resolved) -> dict[str, Any]:
        """The bucket identity of ``resolved`` without writing anything (its value digest is
        empty while the game has no bucket key)."""
        key = self.load().get("bucketKey")
        return success_bucket(game, resolved, key if isinstance(key, str) else "")

    def accept(self, game: GameConfig, resolved: Resolved) -> dict[str, Any]:
        """An accepted start's bucket identity: drops the profile's buckets whose input
        declarations changed, mints the game's bucket key when inputs need one. Nothing is
        written when nothing changed (Go rewrites its file here on every start)."""

        def change(data: dict[str, Any]) -> bool:
            entry = data["profiles"].get(resolved.profile)
            changed = isinstance(entry, dict) and drop_changed_declarations(entry, game)
            key = data.get("bucketKey")
            if (not isinstance(key, str) or not key) and resolved.applied_inputs:
                data["bucketKey"] = new_bucket_key()
                changed = True
            return changed

        if change(self.load()):  # the lock (and the file) only when something is to change
            with contextlib.suppress(_Skipped), self._locked():
                data = self.load()
                if change(data):
                    self._write(data)
        key = self.load().get("bucketKey")
        return success_bucket(game, resolved, key if isinstance(key, str) else "")

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """Hold ``track-record.lock`` for one read-change-write, so two processes (or tasks)
        that count at once lose no count (Go's history writes hold the transition lock).
        After :data:`LOCK_TIMEOUT` seconds the change is dropped, as a history write that
        fails never fails the lifecycle step."""
        with contextlib.suppress(OSError):
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with contextlib.ExitStack() as held:
            try:
                held.enter_context(
                    held_flock(self.path.with_name(LOCK_FILE), LOCK_TIMEOUT, _Skipped)
                )
            except OSError:
                raise _Skipped from None
            yield

    def _update(self, profile: str, digest: str, change: Any, also: Any = None) -> None:
        if not digest:
            return
        with contextlib.suppress(_Skipped), self._locked():
            self._change(profile, digest, change, also)

    def _change(self, profile: str, digest: str, change: Any, also: Any = None) -> None:
        data = self.load()
        if not isinstance(data.get("bucketKey"), str) or not data["bucketKey"]:
            data["bucketKey"] = new_bucket_key()
        entry = data["profiles"].get(profile)
        if not isinstance(entry, dict) or entry.get("contextHash") != digest:
            arm_notice(data, profile, entry, digest)
            entry = {
                "contextHash": digest,
                "workloadStarts": 0,
                "bridgeConnects": 0,
                "cleanStops": 0,
            }
        change(entry)
        data["profiles"][profile] = entry
        if also is not None:
            also(data)
        self._write(data)

    def edit_notice(self, profile: str, digest: str) -> str:
        """The once-per-edit notice for a start of ``profile`` in context ``digest``
        (:mod:`.edit_notice`); ``""`` when there is none."""
        if not digest or not take_notice(self.load(), profile, digest):
            return ""
        notice = ""
        with contextlib.suppress(_Skipped), self._locked():
            data = self.load()
            notice = take_notice(data, profile, digest)
            if notice:
                self._write(data)
        return notice

    def _write(self, data: dict[str, Any]) -> None:
        data = {"version": 1, **data}  # Go's GameHistory.Version; the key comes first
        with contextlib.suppress(OSError):
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            write_secret_file(self.path, (json.dumps(data, indent=2) + "\n").encode())

    def started(
        self,
        snapshot: dict[str, Any] | None,
        profile: str,
        digest: str,
        launch_id: str = "",
        bucket: dict[str, Any] | None = None,
    ) -> None:
        """A verified start of launch ``launch_id``: counted once per launch (as Go's
        ``creditedLaunchIds``), however many promotions see it, and in ``bucket`` (its input
        combination, :meth:`accept`) when given. ``snapshot`` (:func:`last_good_snapshot`, the
        one the claim pinned) becomes the profile's ``lastGood``, kept beside the profiles so
        an edit that resets the profile's counts leaves it for ``doctor --show-last-good``."""
        counted: list[str] = []

        def change(entry: dict[str, Any]) -> None:
            if launch_id:
                credited = [i for i in entry.get("creditedLaunchIds", []) if isinstance(i, str)]
                if launch_id in credited:
                    return
                entry["creditedLaunchIds"] = [*credited, launch_id][-CREDITED_LAUNCH_CAP:]
            entry["workloadStarts"] = entry.get("workloadStarts", 0) + 1
            entry["lastSuccessAt"] = datetime.now(UTC).isoformat()
            entry["consecutiveFailures"] = 0
            if bucket is not None:
                record_bucket(entry, bucket, entry["lastSuccessAt"])
            counted.append(entry["lastSuccessAt"])

        def also(data: dict[str, Any]) -> None:
            if not counted or snapshot is None:
                return
            good = data.get("lastGood")
            if not isinstance(good, dict):
                good = data["lastGood"] = {}
            good[profile] = {"contextHash": digest, "entrySnapshot": snapshot, "at": counted[0]}

        self._update(profile, digest, change, also)

    def promoted(self, claim: RuntimeState) -> None:
        """Credit the start of the launch ``claim`` pins when a later observation (status,
        an attachment, the recovery of a dead step) promotes it from ``starting``."""
        if claim.source != "external":
            snapshot, bucket = pinned_success(claim)
            self.started(
                snapshot,
                claim.effective_profile,
                claim.history_context_hash,
                claim.launch_id,
                bucket,
            )

    def count(self, profile: str, digest: str, counter: str) -> None:
        self._update(
            profile, digest, lambda entry: entry.__setitem__(counter, entry.get(counter, 0) + 1)
        )

    def count_once(self, profile: str, digest: str, counter: str, marker: str) -> None:
        """``counter`` + 1 unless the event ``marker`` names was counted already (Go's
        ``creditedPendingEvents``)."""

        def change(entry: dict[str, Any]) -> None:
            markers = [m for m in entry.get("creditedPendingEvents", []) if isinstance(m, str)]
            if marker not in markers:
                entry[counter] = entry.get(counter, 0) + 1
                entry["creditedPendingEvents"] = [*markers, marker]

        self._update(profile, digest, change)

    def forget_markers(self, markers: set[str]) -> None:
        """Drop the markers of events no claim holds any more."""
        with contextlib.suppress(_Skipped), self._locked():
            self._forget(markers)

    def _forget(self, markers: set[str]) -> None:
        data = self.load()
        changed = False
        for entry in data["profiles"].values():
            if not isinstance(entry, dict) or "creditedPendingEvents" not in entry:
                continue
            found = entry["creditedPendingEvents"]
            kept = [m for m in found if m not in markers] if isinstance(found, list) else []
            if kept:
                entry["creditedPendingEvents"] = kept
            else:
                del entry["creditedPendingEvents"]
            changed = True
        if changed:
            self._write(data)

    def failed(
        self,
        profile: str,
        digest: str,
        outcome: str,
        cause: str | None,
        input_names: Sequence[str] = (),
    ) -> None:
        """Record a failure; ``input_names`` are the launch inputs it applied (names only)."""

        def change(entry: dict[str, Any]) -> None:
            entry["lastFailure"] = {
                "outcome": outcome,
                "class": cause,
                "at": datetime.now(UTC).isoformat(),
            }
            if input_names:
                entry["lastFailure"]["inputNames"] = list(input_names)
            entry["consecutiveFailures"] = entry.get("consecutiveFailures", 0) + 1

        self._update(profile, digest, change)


def track_record_summary(game: GameConfig, game_dir: Path) -> list[dict[str, Any]]:
    """``games_show``'s ``trackRecord``: one row per named profile (``(default)`` for a game
    without profiles), saying whether the context the next start would run is proven.

    A record kept for an earlier version of the context (the entry was edited since) counts
    as not proven, and says so with ``contextChangedSinceLastRecord``.
    """
    recorded = TrackRecord(game_dir).load()["profiles"]
    rows: list[dict[str, Any]] = []
    for profile in sorted(game.profiles) if game.profiles else [""]:
        found = recorded.get(profile)
        entry = found if isinstance(found, dict) else None
        digest = context_hash(game, profile)
        row: dict[str, Any] = {"profile": profile or "(default)"}
        if game.profiles and profile == game.default_profile:
            row["isDefault"] = True
        current = entry is not None and bool(digest) and entry.get("contextHash") == digest
        row["currentContextProven"] = current and bool((entry or {}).get("workloadStarts"))
        row["contextChangedSinceLastRecord"] = (
            entry is not None and bool(digest) and entry.get("contextHash") != digest
        )
        if entry is not None:
            for key in ("workloadStarts", "bridgeConnects", "deliveriesVerified", "cleanStops"):
                row[key] = entry.get(key, 0)
            row["consecutiveFailures"] = entry.get("consecutiveFailures", 0)
            failure = entry.get("lastFailure")
            if isinstance(failure, dict):
                row["lastFailureClass"] = failure.get("class") or ""
                row["lastFailureCode"] = failure.get("outcome") or ""
        row["trackRecord"] = summary_line(entry)
        rows.append(row)
    return rows
