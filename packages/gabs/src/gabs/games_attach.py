"""A connection's attachment to the claim it was made for: written into ``runtime.json``
(connection id, this bridge's pid and fingerprint, a lease renewed while the socket lives)
when a session is bound, with the connection's launch-context delivery verdict, and cleared
when the connection ends; and the endpoint a connect dials (:func:`endpoint_for`)."""

from __future__ import annotations

import contextlib
import logging
from datetime import timedelta

import anyio
import anyio.abc

from gabs.games_owner import OwnerMixin
from gabs.games_runtime import GameRuntime
from gabs.lifecycle import (
    Lifecycle,
    LifecycleError,
    Observation,
    Superseded,
    TrackRecord,
    environment_actions,
    next_action,
    observe,
    stale_bridge_credential,
)
from gabs.lifecycle.core import now as _utc
from gabs.lifecycle.delivery import connection_delivery
from gabs.runtime import Attachment, ClaimError, RuntimeState
from gabs.runtime.claim import format_time, new_id

__all__ = ["AttachMixin", "endpoint_for"]

logger = logging.getLogger("gabs.games")


def session_open(runtime: GameRuntime) -> bool:
    """Whether the game has a GABP session that is not closed."""
    return runtime.session is not None and runtime.session.state != "closed"


def _own_launch(runtime: GameRuntime, claim: RuntimeState | None) -> bool:
    """Whether the claim is the launch this bridge started."""
    return claim is not None and bool(runtime.launch_id) and claim.launch_id == runtime.launch_id


class AttachMixin(OwnerMixin):
    """Attachments of this bridge's sessions (part of :class:`~gabs.games.GameManager`)."""

    lc: Lifecycle
    _tg: anyio.abc.TaskGroup | None

    def _bound(self, runtime: GameRuntime, claim: RuntimeState | None) -> bool:
        """Whether this bridge's live session is bound to ``claim``."""
        return (
            claim is not None
            and runtime.connected
            and runtime.attachment is not None
            and runtime.attachment[0] == claim.launch_id
            and claim.attachment is not None
            and claim.attachment.connection_id == runtime.attachment[1]
        )

    async def _status_word(
        self, runtime: GameRuntime, claim: RuntimeState | None
    ) -> tuple[str, Observation]:
        """The game's status in the Go bridge's words (``running``, ``connected``,
        ``running-disconnected``, ``shared-running``, or the claim's liveness verdict), with the
        observation behind it. A stale claim is removed on the way, as every status does."""
        bound = self._bound(runtime, claim)
        observation = await observe(self.lc, runtime.game_id, gabp_live=bound)
        status = observation.status
        if status == "stale-runtime-cleaned" and not runtime.connected:
            # The launch is over and its claim removed: as in Go, its connection's end goes with it.
            runtime.last_disconnect = None
        if status == "running":
            if bound:
                status = "running" if runtime.spawned is not None else "connected"
            elif session_open(runtime) and not runtime.connected:
                status = "running-disconnected"
            elif runtime.spawned is None or (
                runtime.spawned.exited and not _own_launch(runtime, observation.claim)
            ):
                # The launch this bridge started is still "running" after its direct child
                # exited (a store opener, an adopted launcher), as in the Go bridge.
                status = "shared-running"
        elif status in ("stopped", "stale-runtime-cleaned") and runtime.connected:
            status = "connected"
        return status, observation

    async def _attach(self, runtime: GameRuntime, claim: RuntimeState) -> RuntimeState | None:
        """Record this bridge's attachment in ``claim``; the updated claim (None if not)."""
        connection_id = new_id()
        lease = self.lc.owner_lease
        session = runtime.session
        report = session.delivery_report() if session is not None else None

        def record(state: RuntimeState) -> None:
            moment = _utc()
            state.attachment = Attachment(
                connection_id=connection_id,
                owner_instance_id=self.lc.instance_id,
                owner_pid=self.lc.pid,
                owner_pid_start_time=self.lc.pid_start_time,
                observed_at=moment,
                lease_deadline=moment + lease,
            )
            if state.source != "external":  # the latest connection's verdict (as Go)
                state.context_delivery = connection_delivery(state, report)
                if state.context_delivery["overall"] == "verified" and state.history_context_hash:
                    # deliveriesVerified++ once for this connection: a pending credit, counted
                    # as the claim is saved (Go's AppendPendingDelivery and its reconcile)
                    pending = state.extra.get("pendingDeliveries")
                    state.extra["pendingDeliveries"] = [
                        *(pending if isinstance(pending, list) else []),
                        {
                            "id": connection_id,
                            "profile": state.effective_profile,
                            "contextHash": state.history_context_hash,
                            "at": format_time(moment),
                        },
                    ]
            if (
                state.phase == "starting"
                and state.operation is None
                and state.spawn_state == "spawned"
            ):
                state.phase, state.status = "active", "running"

        try:
            updated = await self.lc.update(runtime.game_id, claim.launch_id, record, settle=True)
        except (Superseded, ClaimError, OSError) as exc:
            logger.warning("%s: attachment not recorded: %s", runtime.game_id, exc)
            return None
        if session is not None:  # the verdict is kept; the values it was made of are not
            session.drop_delivery_report()
        if claim.phase == "starting" and updated.phase == "active":  # promoted: a verified start
            TrackRecord(self.lc.game_dir(runtime.game_id)).promoted(updated)
        runtime.attachment = (claim.launch_id, connection_id)
        # bridgeConnects++ for each attachment bound to a launch's credentials (as Go); a
        # claim without a pinned context (an external game) has no track record to credit
        TrackRecord(self.lc.game_dir(runtime.game_id)).count(
            claim.effective_profile, claim.history_context_hash, "bridgeConnects"
        )
        assert self._tg is not None
        self._tg.start_soon(self._renew_attachment, runtime, claim.launch_id, connection_id, lease)
        return updated

    async def _bind(
        self, runtime: GameRuntime, claim: RuntimeState, port: int, token: str
    ) -> RuntimeState | LifecycleError:
        """Bind a connect's new session to the claim, as Go binds it: to the claim there is
        now, when its endpoint is the one the session authenticated with (a claim replaced
        meanwhile by one with the same endpoint too). The refusal to answer otherwise (the
        caller closes the session: a connection bound to no claim never serves tools)."""
        attached = await self._attach(runtime, claim)
        if attached is not None:
            return attached
        game_id = runtime.game_id
        try:
            current = await self.lc.load(game_id)
        except ClaimError:
            current = None
        if current is not None and current.launch_id != claim.launch_id:
            if (current.endpoint_port, current.endpoint_token) == (port, token):
                attached = await self._attach(runtime, current)
                if attached is not None:
                    return attached
            elif current.has_endpoint:
                return stale_bridge_credential(game_id, current.game_pid)
        return LifecycleError(
            "operation_in_progress",
            f"The claim of '{game_id}' was removed or replaced while this bridge connected to "
            "the game, so the connection was closed: check games_status before connecting again.",
            next_actions=[
                next_action(
                    "games_status", {"gameId": game_id}, "Inspect the launch state as it is now."
                )
            ],
            warnings_key="warnings",
        )

    async def _renew_attachment(
        self, runtime: GameRuntime, launch_id: str, connection_id: str, lease: timedelta
    ) -> None:
        interval = max(lease.total_seconds() / 3, 1.0)
        while True:
            await anyio.sleep(interval)
            if runtime.attachment != (launch_id, connection_id) or not runtime.connected:
                return

            def renew(state: RuntimeState) -> None:
                if state.attachment is None or state.attachment.connection_id != connection_id:
                    raise Superseded("attachment replaced")
                moment = _utc()
                state.attachment.observed_at = moment
                state.attachment.lease_deadline = moment + lease

            try:
                await self.lc.update(runtime.game_id, launch_id, renew)
            except (Superseded, ClaimError, OSError):
                return

    async def _detach(self, runtime: GameRuntime) -> None:
        attachment, runtime.attachment = runtime.attachment, None
        if attachment is None:
            return
        launch_id, connection_id = attachment

        def clear(state: RuntimeState) -> None:
            if state.attachment is None or state.attachment.connection_id != connection_id:
                raise Superseded("attachment replaced")
            state.attachment = None

        with anyio.CancelScope(shield=True), contextlib.suppress(Superseded, ClaimError, OSError):
            # never makes the game's folder again when it was removed meanwhile (as Go)
            await self.lc.update(runtime.game_id, launch_id, clear, create=False)


def endpoint_for(
    game_id: str, claim: RuntimeState | None, port: int | None, token: str | None
) -> tuple[int, str]:
    """The endpoint a connect dials: the claim's (or one given by hand); a refusal when the
    claim offers none (an external instance, no claim, a claim whose endpoint is not there)."""
    if claim is not None and claim.source == "external":
        raise LifecycleError(
            "endpoint_unavailable",
            # Go's lead-in and status word; the reason in our words
            f"Failed to resolve live GABP endpoint for '{game_id}': attachment unavailable: "
            f"'{game_id}' was started outside GABS and never received this bridge's "
            "environment (status, stop and kill work by id).",
            warnings_key="warnings",
        )
    if claim is None:  # as Go: without a claim nothing is attachable (no bridge.json)
        raise LifecycleError(
            "endpoint_unavailable",
            # Go's words
            f"Failed to resolve live GABP endpoint for '{game_id}': no runtime claim exists for "
            f"'{game_id}'; nothing is attachable \u2014 start the game, or check games_status",
            next_actions=environment_actions(game_id),  # Go's for an environment-class failure
            warnings_key="warnings",
        )
    if claim.has_endpoint:
        return port or claim.endpoint_port, token or claim.endpoint_token
    if claim is not None and claim.normalized_from_legacy:
        raise LifecycleError(
            "endpoint_unavailable",
            f"The runtime claim for '{game_id}' carries no attachable endpoint: the endpoint "
            "file of the older bridge's launch is offered once, and it did not answer. Restart "
            "the game with games_start, or pass port and token.",
            next_actions=[
                next_action(
                    "games_status", {"gameId": game_id}, "Inspect the current launch state."
                )
            ],
            warnings_key="warnings",
        )
    if port and token:  # an endpoint given by hand
        return port, token
    # As in Go, bridge.json is a diagnostic file, never a live handoff: a claim that has no
    # endpoint yet (a start still preparing it) is not attachable through it.
    raise LifecycleError(
        "endpoint_unavailable",
        f"The runtime claim for '{game_id}' has no attachable endpoint yet; when a start is "
        "under way, check games_status again (or pass port and token).",
        warnings_key="warnings",
    )
