"""Who may act on a running game: the owner of its runtime claim.

A claim names one bridge process as its owner, with a lease (``ownerLeaseUntil``, at least
``timeouts.session.ownerLeaseSeconds``). Before every game-bound request of an MCP client (a
game call, an attention inspection or acknowledgement), :meth:`OwnerMixin.ensure_owner` checks
the claim as the Go bridge does: when another bridge process that is still alive owns it with a
lease that has not run out, the request is refused with ``blocked_by_active_runtime_owner``
(``executed: false``, the owner's pid and instance, its lease, and ``games_status`` /
``games_connect`` as next actions); otherwise this bridge becomes or stays the owner and its
lease is renewed to cover the request (the lease, or the request's timeout plus 5 s when that
is longer).

Unlike the Go bridge, which rewrites the claim on every call, the renewal is written only when
the lease has run down by a sixth of its length, so a busy game is not slowed by a file write per
call; ``ownerLeaseUntil`` always covers the request, and other bridges see the owner as active
for at least five sixths of the lease after its last call. A lease longer than the request
needs (left by an earlier call with a long timeout) is written anew, shorter, as the Go bridge
writes it: a call that could take an hour does not keep other bridges out for an hour after
the calls that follow it. While a call of this bridge runs (:meth:`OwnerMixin.lease_held`),
the lease still covers it, since calls here run side by side where the Go bridge serves one
request at a time. The claim is read on every request,
but parsed again only when the file changed.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from gabs.lifecycle import Lifecycle, Superseded, next_action
from gabs.lifecycle.core import now as _utc
from gabs.runtime import ClaimError, RuntimeState
from gabs.runtime.claim import claim_path, format_seconds, load_claim

__all__ = ["OwnerMixin"]

#: The longest a parsed claim is trusted while the file looks unchanged, in seconds (a bound on
#: the rare case of two writes that leave the same inode, size and timestamps behind).
CLAIM_VIEW_TTL: Final = 1.0


@dataclass
class _ClaimView:
    key: tuple[int, int, int, int] | None
    """The file's identity when it was read; None when there was no file."""
    read_at: float
    claim: RuntimeState | None
    path: str
    """The claim file's path, as a string for ``os.stat`` (built once per game)."""


class OwnerMixin:
    """Owner leases checked at call time (part of :class:`~gabs.games.GameManager`)."""

    lc: Lifecycle
    _claim_views: dict[str, _ClaimView]
    """Claims as last read, by game id (set up by the manager)."""
    _lease_holds: dict[str, list[datetime]]
    """By game id, when each game call of this bridge still running may end at the latest
    (set up by the manager; see :meth:`lease_held`)."""

    @contextlib.contextmanager
    def lease_held(self, game_id: str, timeout: float | None) -> Iterator[None]:
        """While a game call runs, the lease later requests renew still covers it: its
        timeout plus 5 s from its start (the default lease when it has no timeout)."""
        lease = self.lc.owner_lease
        if timeout:
            lease = max(lease, timedelta(seconds=timeout + 5))
        end = _utc() + lease
        holds = self._lease_holds.setdefault(game_id, [])
        holds.append(end)
        try:
            yield
        finally:
            holds.remove(end)

    def _claim_view(self, game_id: str) -> RuntimeState | None:
        """The game's claim for reading (never change it): parsed again only when the file
        changed; :class:`ClaimError` when it cannot be used."""
        views = self._claim_views
        view = views.get(game_id)
        # the path as last built: a game's folder is checked and joined only on a (re)read
        path = view.path if view is not None else os.fspath(claim_path(self.lc.game_dir(game_id)))
        try:
            stat = os.stat(path)
        except FileNotFoundError:
            if view is None or view.key is not None:
                views[game_id] = _ClaimView(None, 0.0, None, path)  # no claim: keep the path
            return None
        except OSError:
            return load_claim(self.lc.game_dir(game_id))  # raises ClaimError with the reason
        key = (stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)
        moment = time.monotonic()
        if view is None or view.key != key or moment - view.read_at > CLAIM_VIEW_TTL:
            claim = load_claim(self.lc.game_dir(game_id))
            view = views[game_id] = _ClaimView(key, moment, claim, path)
        return view.claim

    def _owner_blocked(self, game_id: str, claim: RuntimeState, action: str) -> dict[str, Any]:
        until = claim.owner_lease_until
        data: dict[str, Any] = {
            "executed": False,
            "status": "blocked_by_active_runtime_owner",
            "code": "blocked_by_active_runtime_owner",
            "causeClass": "state",
            "gameId": game_id,
            "ownerPID": claim.owner_pid,
            "ownerInstance": claim.owner_instance_id,
            "message": (
                f"Game '{game_id}' is currently owned by another active GABS session (pid "
                f"{claim.owner_pid}"
                + (f" until {format_seconds(until)}" if until else "")
                + f"). This session did not execute {action} to avoid competing bridge clients."
            ),
            "nextActions": [
                next_action(
                    "games_status",
                    {"gameId": game_id},
                    "Inspect the current runtime owner and bridge status.",
                ),
                next_action(
                    "games_connect",
                    {"gameId": game_id},
                    "Retry after the active owner lease expires, or use forceTakeover only when "
                    "intentionally moving control now.",
                ),
            ],
        }
        if until is not None:
            data["ownerLeaseUntil"] = format_seconds(until)
            data["ownerLeaseRemainingMs"] = max(int((until - _utc()).total_seconds() * 1000), 0)
        return data

    def _lease_covers(self, claim: RuntimeState, needed: timedelta) -> bool:
        """Whether this bridge owns ``claim`` with a lease that needs no renewal yet: one that
        has run down by less than a sixth of ``needed``, and is not longer than ``needed`` by
        more than that either (a lease a long call took is cut back to this request's, as the
        Go bridge's rewrite on every request does)."""
        until = claim.owner_lease_until
        if until is None:
            return False
        moment = _utc()
        return (
            claim.owner_pid == self.lc.pid
            and claim.owner_instance_id == self.lc.instance_id
            and moment + needed - needed / 6 <= until <= moment + needed + needed / 6
        )

    async def ensure_owner(
        self, game_id: str, action: str, timeout: float = 0
    ) -> dict[str, Any] | None:
        """None when this bridge may act on the game now (its lease renewed when due);
        otherwise the ``blocked_by_active_runtime_owner`` result for the caller to return.

        ``action`` names what was not done (``tool 'x/y'``, ``games_get_attention``);
        ``timeout`` is the request's own, in seconds (0: none)."""
        try:
            claim = self._claim_view(game_id)
        except ClaimError:
            return None  # an unreadable claim is reported by games_status; calls go on
        if claim is None:
            return None
        if self.lc.foreign_owner(claim):
            return self._owner_blocked(game_id, claim, action)
        lease = self.lc.owner_lease
        if timeout > 0:
            lease = max(lease, timedelta(seconds=timeout + 5))
        held = max(self._lease_holds.get(game_id, ()), default=None)
        if held is not None:
            lease = max(lease, held - _utc())
        if self._lease_covers(claim, lease):
            return None
        with contextlib.suppress(Superseded, ClaimError, OSError):
            await self.lc.update(
                game_id, claim.launch_id, lambda s: self.lc.refresh_owner(s, lease)
            )
        return None

    async def restore_owner(self, game_id: str, before: RuntimeState | None) -> None:
        """Give a claim's ownership back after a connect that took it and then failed, as Go
        does: only the owner fields (and ``status``) of the claim as it was, only while the
        claim is still that launch's and this bridge still owns it."""
        if before is None:
            return

        def give_back(state: RuntimeState) -> None:
            if (state.owner_pid, state.owner_instance_id) != (self.lc.pid, self.lc.instance_id):
                raise Superseded("owned by another bridge meanwhile")
            state.status = before.status
            state.owner_pid, state.owner_instance_id = before.owner_pid, before.owner_instance_id
            state.owner_lease_until = before.owner_lease_until
            state.owner_last_active = before.owner_last_active

        with contextlib.suppress(Superseded, ClaimError, OSError):
            await self.lc.update(game_id, before.launch_id, give_back)
