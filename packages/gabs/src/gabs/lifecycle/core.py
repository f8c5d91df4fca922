"""What every lifecycle step shares: the config folder, who is acting, and claim updates.

Each bridge process (and each CLI command) acts as one *instance*. A claim update happens
under the game's transition lock and is *fenced*: it applies only while the claim is still
the one the caller started from (same launch id, and same operation id when given), so a late
step of a superseded launch never overwrites its successor.
"""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from gabs.config import Settings, game_dir_problem
from gabs.runtime import (
    ClaimError,
    RuntimeState,
    load_claim,
    save_claim,
    transition_lock,
)
from gabs.runtime.liveness import owned_by
from gabs.runtime.procs import fingerprint, verify_pid
from gabs.runtime.publish import publish_claim

from .history import TrackRecord
from .pending import credit_pending, drop_pending, remove_with_credits

__all__ = ["DeadlinePassed", "Lifecycle", "Superseded", "now"]

_COUNTER = itertools.count(1)


class Superseded(Exception):
    """The claim changed (replaced, removed, another operation) since the caller read it."""


class DeadlinePassed(Superseded):
    """The step's own operation deadline passed: its claim may be taken over now, so the step
    ends as a superseded one. ``release``: when the step's claim is released, ``"before"`` or
    ``"after"`` the refusal is judged from the claim there is then, or ``"never"``."""

    def __init__(self, message: str, *, release: str) -> None:
        super().__init__(message)
        self.release = release


def now() -> datetime:
    return datetime.now(UTC)


def _step_id(claim: RuntimeState) -> str | None:
    return claim.operation.operation_id if claim.operation is not None else None


class Lifecycle:
    """The lifecycle of the games in one config folder, as seen by one bridge instance."""

    def __init__(
        self, config_dir: Path, settings: Settings, *, cli: bool = False, instance_id: str = ""
    ) -> None:
        self.config_dir = Path(config_dir)
        self.settings = settings
        prefix = "cli-" if cli else ""
        self.instance_id = instance_id or (
            f"{prefix}{os.getpid()}-{time.time_ns()}-{next(_COUNTER)}"
        )
        self.pid = os.getpid()
        self.pid_start_time = fingerprint(self.pid)

    def game_dir(self, game_id: str) -> Path:
        """The game's runtime folder; :class:`ClaimError` when the id cannot name one safely."""
        problem = game_dir_problem(self.config_dir, game_id)
        if problem is not None:
            raise ClaimError(f"failed to read runtime state: {problem}")
        return self.config_dir / game_id

    @property
    def owner_lease(self) -> timedelta:
        return timedelta(seconds=self.settings.owner_lease_seconds)

    async def load(self, game_id: str) -> RuntimeState | None:
        """The claim as it is now (no lock: writes are atomic renames)."""
        return load_claim(self.game_dir(game_id))

    async def update(
        self,
        game_id: str,
        launch_id: str,
        change: Callable[[RuntimeState], None],
        *,
        operation_id: str | None = None,
        settle: bool = False,
        create: bool = True,
    ) -> RuntimeState:
        """Apply ``change`` to the claim of ``launch_id`` under the lock; :class:`Superseded`.
        ``settle``: count the claim's pending track-record credits and drop them from it.
        Without ``create``, a game folder that is gone is :class:`Superseded` too, and is not
        made again (Go's no-create lock of a detach)."""
        folder = self.game_dir(game_id)
        if not create and not folder.is_dir():
            raise Superseded(f"the runtime folder of {game_id} is gone")
        async with transition_lock(folder, create=create, game_id=game_id):
            claim = load_claim(folder)
            if claim is None or claim.launch_id != launch_id:
                raise Superseded(f"the runtime claim of {game_id} was replaced or removed")
            if operation_id is not None and (
                claim.operation is None or claim.operation.operation_id != operation_id
            ):
                raise Superseded(f"another operation took over the claim of {game_id}")
            change(claim)
            markers = credit_pending(folder, claim) if settle else set()
            if settle:
                drop_pending(claim)
            claim.generation += 1
            save_claim(folder, claim)
            if markers:
                TrackRecord(folder).forget_markers(markers)
            return claim

    async def publish_absent(self, game_id: str, state: RuntimeState) -> bool:
        """Save ``state`` as the claim of a game that has none (under the lock); False when a
        claim appeared meanwhile (it is left as it is)."""
        folder = self.game_dir(game_id)
        async with transition_lock(folder, game_id=game_id):
            return publish_claim(folder, state)

    async def remove_if(
        self,
        game_id: str,
        launch_id: str,
        *,
        operation_id: str | None = None,
        idle: bool = False,
        self_live: bool | None = None,
        judged: RuntimeState | None = None,
    ) -> bool:
        """Remove the claim of ``launch_id`` (fenced: with ``operation_id``, only while that
        step is the claim's; with ``idle``, only while it has none); False when it was
        superseded. With ``judged``, only while the claim is still exactly that one (same
        generation and step), as Go fences the removal of a claim a start judged stale: a claim
        that moved on since (a stop admitted, a spawn state advanced) is judged again, never
        removed. As Go's final deletion guard, a claim is never removed under a live bridge
        attachment (:meth:`removal_blocked`; ``self_live``: this bridge's connection)."""
        folder = self.game_dir(game_id)
        async with transition_lock(folder, game_id=game_id):
            try:
                claim = load_claim(folder)
            except ClaimError:
                return False
            if claim is None or claim.launch_id != launch_id:
                return False
            if operation_id is not None and (
                claim.operation is None or claim.operation.operation_id != operation_id
            ):
                return False
            if idle and claim.operation is not None:
                return False
            if judged is not None and (
                claim.generation != judged.generation or _step_id(claim) != _step_id(judged)
            ):
                return False
            if self.removal_blocked(claim, self_live):
                return False
            remove_with_credits(folder, claim)  # pending track-record credits first (as Go)
            return True

    def removal_blocked(self, claim: RuntimeState, self_live: bool | None) -> bool:
        """Whether the claim's attachment forbids removing it now: another bridge's fresh
        lease whose owner runs or cannot be inspected, or this bridge's own fresh record while
        its connection is live (``self_live``; None when unknown: blocked). A malformed or
        expired record, or a dead owner's, is history."""
        attachment = claim.attachment
        if attachment is None or attachment.owner_pid <= 0 or not attachment.owner_pid_start_time:
            return False
        if attachment.lease_deadline is None or now() >= attachment.lease_deadline:
            return False
        if owned_by(attachment, self.instance_id):
            return self_live is None or self_live
        verdict, _ = verify_pid(attachment.owner_pid, attachment.owner_pid_start_time)
        return verdict != "stopped"

    def refresh_owner(self, claim: RuntimeState, lease: timedelta | None = None) -> None:
        """Make this instance the claim's owner, with a fresh lease."""
        moment = now()
        claim.owner_pid = self.pid
        claim.owner_instance_id = self.instance_id
        claim.owner_last_active = moment
        claim.owner_lease_until = moment + (lease or self.owner_lease)

    def foreign_owner(self, claim: RuntimeState | None, *, active_only: bool = True) -> bool:
        """Whether another live bridge owns the claim (with an unexpired lease)."""
        if claim is None or claim.owner_pid <= 0:
            return False
        if claim.owner_pid == self.pid and claim.owner_instance_id in ("", self.instance_id):
            return False
        verdict, _ = verify_pid(claim.owner_pid, 0)
        if verdict == "stopped":
            return False
        if not active_only:
            return True
        until = claim.owner_lease_until
        if until is None:
            base = claim.owner_last_active or claim.updated_at
            if base is None:
                return True
            until = base + self.owner_lease
        return now() < until
