"""Attaching the bridge to a game's GABP server, and who owns a running game.

A connection is bound to the claim it was made for: its attachment (connection id, this
bridge's pid and fingerprint, a lease renewed while the socket lives) is written into
``runtime.json``, so another bridge process or a CLI command sees the game as connected, and
is cleared when the connection ends. The claim's *owner* is the bridge that acts on the game;
another bridge's ``games_connect`` waits for an idle owner's lease to run out (or takes over
with ``forceTakeover``), and its game calls answer ``blocked_by_active_runtime_owner``
(:mod:`gabs.games_owner`).
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import anyio
import anyio.abc

from gabp import GabpError, RemoteError
from gabs.attention import Gate
from gabs.backoff import backoff_delays
from gabs.config import ConfigStore, GameConfig
from gabs.games_attach import AttachMixin, endpoint_for
from gabs.games_diagnostics import refuse_missing_environment
from gabs.games_runtime import GameRuntime
from gabs.games_views import claim_identity
from gabs.lifecycle import (
    Lifecycle,
    LifecycleError,
    Superseded,
    next_action,
    stale_bridge_credential,
)
from gabs.lifecycle.core import now as _utc
from gabs.lifecycle.observe import observe
from gabs.runtime import ClaimError, LockBusy, RuntimeState
from gabs.runtime.legacy import LegacyContext, LegacyEndpoint, is_legacy, normalize_legacy_claim
from gabs.runtime.procenv import stale_credentials
from gabs.session import GameSession, HandshakeFailed, SessionError

__all__ = ["ConnectMixin"]

logger = logging.getLogger("gabs.games")


class ConnectMixin(AttachMixin):
    """Sessions, attachments and ownership (part of :class:`~gabs.games.GameManager`)."""

    store: ConfigStore
    lc: Lifecycle
    backoff: tuple[float, float]
    _runtimes: dict[str, GameRuntime]
    _tg: anyio.abc.TaskGroup | None
    _liveness_interval: float

    async def _tools_changed(self) -> None:
        raise NotImplementedError

    async def sync_tools(
        self, runtime: GameRuntime, timeout: float = 10.0, *, always: bool = False
    ) -> str | None:
        """Ask a connected game for its tool list again: ``always`` (a ``games_connect`` to a
        game already connected), else only when it has no tools (its list failed or was empty),
        as the Go bridge does before discovery. None when the game has its list, else why not
        (a failed list keeps the tools listed before)."""
        session = runtime.session
        if session is None or not session.connected:
            return None
        if not always and session.tools:
            return None
        try:
            with anyio.fail_after(timeout):
                await session.refresh_tools()
        except TimeoutError:
            return f"the game did not answer tools/list within {timeout:g} s"
        except RemoteError:
            return session.tools_error
        except GabpError as exc:
            return str(exc)
        await self._tools_changed()
        return None

    def _legacy_context(self, runtime: GameRuntime) -> LegacyContext:
        """What normalizing an older Go bridge's claim of this game takes from its entry."""
        config = runtime.config
        return LegacyContext(
            config.launch_mode if config is not None else "", self.store.current.revision
        )

    # -- sessions -------------------------------------------------------------------------------

    async def _open_session(
        self,
        runtime: GameRuntime,
        port: int,
        token: str,
        *,
        connect_timeout: float,
        alive: Callable[[], bool] | None,
    ) -> None:
        config = runtime.config or GameConfig(id=runtime.game_id)
        settings = config.attention
        runtime.last_disconnect = None  # a new attempt forgets the last one's end, as Go's does
        session = GameSession(
            runtime.game_id,
            port=port,
            token=token,
            gate=Gate.from_config(settings.mode, settings.allow, settings.fail_closed),
            call_timeout=config.timeouts.call_seconds,
            connect_timeout=connect_timeout,
            liveness_interval=self._liveness_interval,
            process_alive=alive,
            on_change=lambda what: self._session_changed(runtime, session, what),
            max_concurrent_requests=config.max_concurrent_requests,
            reconnect_backoff=self.backoff,
        )
        assert self._tg is not None
        await self._tg.start(self._run_session, runtime, session)
        runtime.session = session
        runtime.last_error = None
        await self._tools_changed()

    async def _run_session(
        self,
        runtime: GameRuntime,
        session: GameSession,
        *,
        task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
    ) -> None:
        try:
            await session.run(task_status=task_status)
        except (SessionError, GabpError, OSError, TimeoutError) as exc:
            runtime.last_error = str(exc)
            raise
        finally:
            if session.last_error:
                runtime.last_error = session.last_error
            if runtime.session is session and session.state == "closed":
                await self._detach(runtime)

    async def _session_changed(self, runtime: GameRuntime, session: GameSession, what: str) -> None:
        runtime.history.append(what)
        del runtime.history[:-20]
        if runtime.session is not session:
            return
        if what == "disconnected":
            runtime.last_disconnect = (
                f"Last GABP disconnect at {_utc().strftime('%Y-%m-%dT%H:%M:%SZ')}: "
                f"{session.last_error or 'connection closed'}"
            )
            await self._detach(runtime)
            await self._tools_changed()
        elif what == "connected" and runtime.history[:-1]:
            # back by itself: the end of the last connection is no longer news, as in Go,
            # which forgets it when it connects again
            runtime.last_disconnect = None
            if runtime.attachment is not None:
                return
            with contextlib.suppress(Exception):
                claim = await self.lc.load(runtime.game_id)
                if claim is not None:
                    await self._attach(runtime, claim)
            await self._tools_changed()

    async def _try_connect(
        self,
        runtime: GameRuntime,
        port: int,
        token: str,
        *,
        until: float,
        alive: Callable[[], bool] | None,
    ) -> str | None:
        """Connect, retrying with backoff until ``until`` (monotonic); None when connected,
        else the last error (``exited`` when the game's process ended). A failed hello ends
        the attempts at once (:class:`~gabs.session_hello.HandshakeFailed`)."""
        delays = backoff_delays(self.backoff)
        last = "no connection attempt made"
        config = runtime.config or GameConfig(id=runtime.game_id)
        while True:
            if alive is not None and not alive():
                return "exited"
            remaining = until - time.monotonic()
            if remaining <= 0:
                return last
            try:
                await self._open_session(
                    runtime,
                    port,
                    token,
                    connect_timeout=max(min(config.timeouts.connect_seconds, remaining), 0.05),
                    alive=alive,
                )
                return None
            except HandshakeFailed as exc:
                return str(exc)  # the game answered the hello: a retry gets the same (as Go)
            except (SessionError, GabpError, OSError, TimeoutError) as exc:
                last = str(exc)
            await anyio.sleep(max(min(next(delays), until - time.monotonic()), 0))

    async def _close_session(self, runtime: GameRuntime) -> None:
        if runtime.background is not None:
            runtime.background.cancel()
            runtime.background = None
        session = runtime.session
        if session is not None:
            # unbound first: the session's own "disconnected" while closing is then not ours
            # to handle, and the lists change (and are told) once
            runtime.session = None
            await session.close()
            await self._detach(runtime)
            await self._tools_changed()

    # -- games_connect --------------------------------------------------------------------------

    async def connect_game(
        self,
        runtime: GameRuntime,
        *,
        force_takeover: bool = False,
        timeout: float = 15.0,
        port: int | None = None,
        token: str | None = None,
    ) -> dict[str, Any]:
        game_id = runtime.game_id
        try:
            claim = await self.lc.load(game_id)
        except ClaimError as exc:
            raise LifecycleError(
                "blocked_unknown_state",
                f"Failed to inspect shared runtime state for '{game_id}': {exc}",
                warnings_key="warnings",
            ) from None
        if claim is not None and self._bound(runtime, claim):
            # as Go: the list is asked for again, so a tool the game added since is found
            failed = await self.sync_tools(runtime, timeout, always=True)
            if failed is None:
                return self._connected(runtime, claim, "Already connected to", resynced=True)
            if self._bound(runtime, claim):  # Go's words; the connection stays, calls go through
                raise LifecycleError(
                    "tool_sync_failed",
                    f"Already connected to '{game_id}' but failed to sync tools: {failed}",
                    next_actions=[
                        next_action(
                            "games_connect",
                            {"gameId": game_id},
                            "Sync the tool list again once the game can list its tools; calls "
                            "by GABP name reach the game meanwhile.",
                        )
                    ],
                    warnings_key="warnings",
                )
            # the connection ended under the re-list (the game is gone or restarting): this is a
            # connect to a game not connected, which judges the claim first
        if runtime.session is not None:
            await self._close_session(runtime)
        foreign = self.lc.foreign_owner(claim, active_only=False)
        if claim is not None and self.lc.foreign_owner(claim) and not force_takeover:
            return {
                "gameId": game_id,
                "foreignOwner": True,
                "ownerActive": True,
                "ownerPID": claim.owner_pid,
                "ownerInstance": claim.owner_instance_id,
                "code": "blocked_by_active_runtime_owner",
                "causeClass": "state",
                "message": (
                    f"Game '{game_id}' is already owned by another active GABS session (pid "
                    f"{claim.owner_pid}). Skipping games_connect here to avoid competing bridge "
                    "clients."
                ),
                "nextActions": [
                    next_action(
                        "games_status",
                        {"gameId": game_id},
                        "Check current ownership and connection state.",
                    ),
                    next_action(
                        "games_connect",
                        {"gameId": game_id},
                        "Retry after the active owner lease expires.",
                    ),
                    next_action(
                        "games_connect",
                        {"gameId": game_id, "forceTakeover": True},
                        "Use only when intentionally moving control to this "
                        "GABS session immediately.",
                    ),
                ],
            }
        previous = (claim.owner_pid, claim.owner_instance_id) if claim is not None else (0, "")
        migrated: LegacyEndpoint | None = None
        if is_legacy(claim):
            claim, migrated = await self._normalize_for_connect(runtime, port is None)
        if migrated is not None:
            port, token = port or migrated.port, token or migrated.token
        elif port is None or token is None:
            claim = await self._live_claim(game_id, claim)
            port, token = endpoint_for(game_id, claim, port, token)
            if claim is not None and claim.has_endpoint:
                config = runtime.config
                stale = await anyio.to_thread.run_sync(
                    stale_credentials, claim, config.stop_process_name if config else ""
                )
                if stale is not None:
                    raise stale_bridge_credential(game_id, stale.pid)
                if config is not None:  # as Go: diagnosed without dialling a port never served
                    await anyio.to_thread.run_sync(refuse_missing_environment, config, claim)
        before = claim  # its owner is given back if this connect fails (as Go)
        if claim is not None:
            lease = max(self.lc.owner_lease, timedelta(seconds=timeout + 5))
            with contextlib.suppress(Superseded):
                claim = await self.lc.update(
                    game_id, claim.launch_id, lambda s: self.lc.refresh_owner(s, lease)
                )
        try:
            claim = await self._dial(runtime, claim, port, token, timeout, migrated)
        except LifecycleError:
            await self.restore_owner(game_id, before)
            raise
        result = self._connected(runtime, claim, "Successfully connected to")
        if foreign:
            result.update(previousPID=previous[0], previousOwner=previous[1])
            result["forceTakeover" if force_takeover else "idleTakeover"] = True
            head = (  # as Go words a takeover
                f"Force-took ownership of '{game_id}' from GABS pid {previous[0]}"
                if force_takeover
                else f"Took ownership of idle GABS session for '{game_id}' from pid {previous[0]}"
            )
            result["message"] = (
                f"{head} and connected to the GABP server on port {result['port']}. "
                f"Discovered {result['toolCount']} tools."
            )
        return result

    async def _dial(
        self,
        runtime: GameRuntime,
        claim: RuntimeState | None,
        port: int,
        token: str,
        timeout: float,
        migrated: LegacyEndpoint | None,
    ) -> RuntimeState | None:
        """Connect and bind the connection to the claim; a refusal otherwise."""
        game_id = runtime.game_id
        # what the game's status is before the dial (as Go's connect asks it): a connect that
        # fails names it unless the game was seen running here
        seen, _ = await self._status_word(runtime, claim)
        alive = runtime.liveness(claim)
        error = await self._try_connect(
            runtime, port, token, until=time.monotonic() + timeout, alive=alive
        )
        if error is not None:
            runtime.last_error = error
            why = "the game process exited" if error == "exited" else error
            if seen in ("running", "connected"):  # Go's closing sentence for a running game
                advice = "Make sure the GABP bridge is loaded."
            else:
                seen = "running" if seen == "running-disconnected" else seen
                advice = (
                    f"GABS currently sees status '{seen}'. Make sure the game is still running "
                    "and the GABP bridge is fully loaded."
                )
            raise LifecycleError(
                "blocked_unknown_state",
                f"Failed to connect to GABP server for '{game_id}' on port {port} after "
                f"{timeout:g}s: {why}. {advice}",
                next_actions=[
                    next_action(
                        "games_status", {"gameId": game_id}, "Inspect the current launch state."
                    )
                ],
                warnings_key="warnings",
            )
        if claim is not None and migrated is not None:
            claim = await self._keep_migrated_endpoint(runtime, claim, port, token)
        if claim is not None:
            bound = await self._bind(runtime, claim, port, token)
            if isinstance(bound, LifecycleError):  # as Go: never left serving unbound
                await self._close_session(runtime)
                raise bound
            claim = bound
        return claim

    async def _normalize_for_connect(
        self, runtime: GameRuntime, capture: bool
    ) -> tuple[RuntimeState | None, LegacyEndpoint | None]:
        """Normalize an older Go bridge's claim (a connect is a lifecycle touch), taking the
        one endpoint candidate its ``bridge.json`` offers when ``capture``."""
        game_id = runtime.game_id
        try:
            return await normalize_legacy_claim(
                self.lc.game_dir(game_id), self._legacy_context(runtime), capture_endpoint=capture
            )
        except (ClaimError, LockBusy) as exc:
            raise LifecycleError(
                "blocked_unknown_state",
                f"The pre-upgrade runtime claim for '{game_id}' could not be normalized: {exc}",
                warnings_key="warnings",
            ) from None

    async def _keep_migrated_endpoint(
        self, runtime: GameRuntime, claim: RuntimeState, port: int, token: str
    ) -> RuntimeState:
        """Write the endpoint a connect just proved into the normalized claim (fenced to the
        launch it minted); the connection is closed and the connect refused otherwise."""
        game_id = runtime.game_id

        def keep(state: RuntimeState) -> None:
            if state.has_endpoint:
                raise Superseded("the endpoint was migrated meanwhile")
            state.endpoint_port, state.endpoint_token = port, token

        try:
            return await self.lc.update(game_id, claim.launch_id, keep)
        except (Superseded, ClaimError, LockBusy, OSError) as exc:
            await self._close_session(runtime)
            replaced = isinstance(exc, Superseded)
            raise LifecycleError(
                "operation_in_progress" if replaced else "endpoint_unavailable",
                f"The pre-upgrade claim for '{game_id}' was replaced while its endpoint was "
                "being validated; the connection was closed: re-check games_status."
                if replaced
                else f"The validated legacy endpoint for '{game_id}' could not be kept: {exc}. "
                "The connection was closed; the old endpoint is not offered again.",
                next_actions=[
                    next_action(
                        "games_status", {"gameId": game_id}, "Inspect the current launch state."
                    )
                ],
                warnings_key="warnings",
            ) from None

    async def _live_claim(self, game_id: str, claim: RuntimeState | None) -> RuntimeState | None:
        """The claim as the liveness rule leaves it: a claim whose game is provably gone (pid
        and fingerprint, a zombie included) is removed as ``games_status`` removes it, so the
        connect answers that nothing is attachable instead of dialling a dead endpoint."""
        if claim is None:
            return None
        observation = await observe(self.lc, game_id)
        if observation.status == "stale-runtime-cleaned":
            return None
        return observation.claim if observation.claim is not None else claim

    def _connected(
        self, runtime: GameRuntime, claim: RuntimeState | None, verb: str, *, resynced: bool = False
    ) -> dict[str, Any]:
        session = runtime.session
        tools = len(session.tools) if session is not None else 0
        result: dict[str, Any] = {
            "gameId": runtime.game_id,
            "connected": True,
            "port": session.port if session is not None else None,
            "toolCount": tools,
            "message": f"{verb} '{runtime.game_id}'"  # Go names no port on a re-sync
            + (f" GABP server on port {session.port}" if session and not resynced else "")
            + f". {'Re-synced' if resynced else 'Discovered'} {tools} tools.",
            "nextActions": [
                next_action(
                    "games_tool_names",
                    {"gameId": runtime.game_id, "brief": True},
                    "Discover connected game-specific tools.",
                )
            ],
        }
        if claim is not None:  # as Go: phase, profile, step, delivery verdict, last action
            claim_identity(result, claim)
        return result
