"""The lifecycle tools' work inside the MCP server: start (stages 1 to 5) and connect, on top
of stop and kill (:mod:`gabs.games_stopping`), the status views, the shared lifecycle
(:mod:`gabs.lifecycle`) and this bridge's sessions (:class:`~gabs.games_connect.ConnectMixin`).

A start waits for the game's GABP server for at most 20 s (or less of the ``timeout``); when
the game runs but its server is not up yet the answer is ``started_bridge_pending`` and the
bridge keeps connecting in the background for the rest of the timeout.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Any, Final

import anyio

from gabs.config import MODE_INCOMPATIBLE, GameConfig
from gabs.games_lost_claim import claim_lost, republish
from gabs.games_runtime import GameRuntime
from gabs.games_stopping import StopMixin
from gabs.games_views import status_next_actions, validation_warnings
from gabs.go_format import go_duration
from gabs.launch import (
    Resolved,
    ResolveError,
    check_resolvable,
    mode_incompatible_head,
    resolve,
)
from gabs.lifecycle import (
    LifecycleError,
    Started,
    TrackRecord,
    cause_class,
    context_hash,
    exited_during_start,
    next_action,
    observe,
    start_game,
    summary_line,
)
from gabs.lifecycle.buckets import candidate_input_note
from gabs.lifecycle.delivery import delivery_json
from gabs.runtime import ClaimError
from gabs.runtime.liveness import Evidence
from gabs.runtime.procenv import stale_credentials

__all__ = ["LifecycleMixin", "Progress"]

SYNC_WAIT: Final = 20.0
PROFILES_DOC: Final = "docs/gabs/configuration.md#gamesid-the-go-bridges-keys"
"""Where ``profiles_not_configured`` points (the Go bridge names its own page)."""
Progress = Callable[[str], None]


class LifecycleMixin(StopMixin):
    """Start, stop, kill, status, list and show (part of :class:`~gabs.games.GameManager`)."""

    def startable(self, game_id: str) -> tuple[GameConfig, str]:
        """The entry ``games_start`` of ``game_id`` launches, with the config revision; else
        the refusal (``config_invalid``, ``launch_mode_incompatible``, ``game_not_found``)."""
        snapshot = self.store.snapshot()
        config, error = snapshot.config, snapshot.error
        issues = list(error.problems) if error is not None else list(config.broken.get(game_id, ()))
        mine = [issue for issue in issues if issue.owner() == game_id]
        if mine and len(mine) == len(issues) and all(i.code == MODE_INCOMPATIBLE for i in mine):
            raise LifecycleError(
                "launch_mode_incompatible",
                "T" + mode_incompatible_head(game_id)[1:] + ":\n  " + "\n  ".join(map(str, mine)),
                data={
                    "issues": [str(issue) for issue in mine],
                    "invalidRevision": error.revision if error is not None else config.revision,
                },
            )
        if error is not None:
            raise LifecycleError(
                "config_invalid",
                "Configuration on disk is invalid; refusing to start from a stale snapshot. Fix "
                f"the config (it reloads automatically): {error}",
                data={"lastGoodRevision": config.revision, "invalidRevision": error.revision},
            )
        if issues:
            raise LifecycleError(
                "config_invalid",
                f"The entry of game '{game_id}' is invalid:\n  " + "\n  ".join(map(str, issues)),
                data={
                    "issues": [str(issue) for issue in issues],
                    "currentConfigRevision": config.revision,
                },
            )
        if game_id not in config.games:
            raise LifecycleError(
                "game_not_found",
                f"Game '{game_id}' not found. Use games_list to see available games.",
                data={"candidates": config.game_ids},
            )
        return config.games[game_id], config.revision

    async def start(
        self,
        game_id: str,
        *,
        profile: str | None = None,
        launch_inputs: dict[str, Any] | None = None,
        timeout: float | None = None,
        reset_endpoint: bool = False,
        progress: Progress | None = None,
    ) -> dict[str, Any]:
        """``games_start``: a result in the Go bridge's shape, or :class:`LifecycleError`."""
        game, revision = self.startable(game_id)
        runtime = self._runtime_for(game_id)
        try:
            resolved = resolve(game, profile=profile or "", inputs=launch_inputs, revision=revision)
        except ResolveError as exc:
            # No launch context was resolved, so no record is read (Go's neutral line).
            data: dict[str, Any] = {"trackRecord": summary_line(None)}
            if exc.candidates:
                data["candidates"] = exc.candidates
            if exc.code == "profiles_not_configured":
                data.update(
                    requestedProfile=profile,
                    configPath=str(self.store.path),
                    note="Config edits apply automatically; no GABS or client restart is needed.",
                    documentation=PROFILES_DOC,
                )
            raise LifecycleError(exc.code, exc.message, data=data) from None
        issues = check_resolvable(game, resolved)
        if issues:
            data = {"issues": [issue.to_json() for issue in issues]}
            # Proof-adjusted, as in Go: a context that started before points at the machine
            # (the target moved or was uninstalled: environment), a never-proven one at the
            # config. Nothing is recorded either way.
            record = TrackRecord(self.lc.game_dir(game_id))
            if record.proven(resolved.profile, context_hash(game, resolved.profile)):
                data["proven"] = True
            unresolvable = LifecycleError(
                "launch_spec_unresolvable",
                "Launch spec is unresolvable:\n" + "\n".join(map(str, issues)),
                data=data,
            )
            self._attribute(unresolvable, game, resolved)
            raise unresolvable
        total = float(
            timeout or game.timeouts.start_seconds or self.lc.settings.startup.gabp_connect_seconds
        )
        try:
            if runtime.connected or await claim_lost(self.lc, runtime):
                await self._already_running(runtime, profile or "", resolved.profile)
            if progress:
                progress(f"starting {game_id}")
            await self._close_session(runtime)
            started = await start_game(
                self.lc,
                game,
                resolved,
                reset_endpoint=reset_endpoint,
                gabp_timeout=total,
                live=lambda claim: self._bound(runtime, claim),
            )
            runtime.spawned = started.spawned
            runtime.launch_id = started.claim.launch_id
            runtime.stop_process_name = started.claim.stop_process_name
            if progress:
                progress(
                    f"started {game_id} (pid {started.spawned.pid}); waiting for its "
                    f"GABP server on port {started.port}"
                )
            return await self._connect_after_start(runtime, game, started, total, progress)
        except LifecycleError as exc:
            if exc.code in ("exited_during_start", "unobserved", "store_client_not_ready"):
                # Go names the launch context these launches ran with.
                if resolved.profile:
                    exc.data.setdefault("activeProfile", resolved.profile)
                if resolved.applied_inputs:
                    exc.data.setdefault("appliedLaunchInputs", list(resolved.applied_inputs))
                exc.data.setdefault("configRevision", resolved.config_revision)
                warnings = validation_warnings(game)
                if warnings:
                    exc.data.setdefault("validationWarnings", warnings)
            self._attribute(exc, game, resolved)
            raise
        except OSError as exc:
            # The lock or the disk failed on the way (a stale claim that cannot be cleared):
            # the runtime state is unresolved, Go's blocked_unknown_state, never a bug's answer.
            blocked = LifecycleError("blocked_unknown_state", f"Failed to start {game_id}: {exc}")
            self._attribute(blocked, game, resolved)
            raise blocked from None

    def _attribute(self, error: LifecycleError, game: GameConfig, resolved: Resolved) -> None:
        """As Go, a failed start shows the track record of the launch context it asked for
        (also when a refusal names another, running profile), and a failure of a proven
        context's outcome class (``exited_during_start``; ``unobserved`` or
        ``launch_spec_unresolvable`` once proven) that ran with an input combination never
        verified there names its inputs as the candidate cause (``candidateInputNote``); the
        first one after an edit of a proven context says so (``editNotice``)."""
        try:
            record = TrackRecord(self.lc.game_dir(game.id))
        except ClaimError:  # a folder that leads out: there is no record to read
            error.data.setdefault("trackRecord", summary_line(None))
            return
        digest = context_hash(game, resolved.profile)
        entry = record.entry(resolved.profile, digest)
        error.data.setdefault("trackRecord", summary_line(entry))
        notice = record.edit_notice(resolved.profile, digest)
        if notice:
            error.data["editNotice"] = notice
        noted = error.code == "exited_during_start" or (
            error.code in ("unobserved", "launch_spec_unresolvable") and error.data.get("proven")
        )
        if (
            noted
            and resolved.applied_inputs
            and not record.combo_proven(resolved.profile, digest, record.bucket(game, resolved))
        ):
            error.data["candidateInputNote"] = candidate_input_note(resolved.applied_inputs)

    async def _already_running(self, runtime: GameRuntime, asked: str, resolved: str) -> None:
        """Refuse a start of a game this session is connected to, or that this bridge runs
        with its claim lost: ``already_running`` with the claim's profile, phase and evidence
        when the session is bound to the claim."""
        session = runtime.session
        game_id = runtime.game_id
        status = "running" if runtime.spawned is not None else "connected"
        tool_count = len(session.tools) if session is not None else 0
        data: dict[str, Any] = {"status": status, "toolCount": tool_count}
        try:
            claim = await self.lc.load(game_id)
        except ClaimError:
            claim = None
        if claim is not None and self._bound(runtime, claim):
            evidence = Evidence("running", "gabp", "live GABP connection")
            message = f"{game_id} is already running ({evidence.detail})"  # Go's start gate
            data.update(activeProfile=claim.effective_profile, phase=claim.phase)
            data["evidence"] = evidence.to_json()
            if resolved:
                data["requestedProfile"] = resolved
            actions = [
                next_action("games_status", {"gameId": game_id}, "Inspect the active instance."),
                next_action(
                    "games_stop",
                    {"gameId": game_id},
                    "Stop it first if the other profile is needed.",
                ),
            ]
        else:  # connected without a claim of its own: what can be said is the session's
            if claim is None and runtime.spawned is not None:
                await republish(self.lc, runtime)
            # Go's words for a game its own registry tracks without a claim
            message = (
                f"Game '{game_id}' ({runtime.name}) is already running. Use games_status "
                "or games_connect instead of starting it again."
            )
            data["activeProfile"] = ""
            if asked:
                data["requestedProfile"] = asked
            actions = status_next_actions(game_id, status, tool_count)
        raise LifecycleError(
            "already_running",
            message,
            data=data,
            next_actions=actions,
            is_error=False,
        )

    async def _connect_after_start(
        self,
        runtime: GameRuntime,
        game: GameConfig,
        started: Started,
        total: float,
        progress: Progress | None,
    ) -> dict[str, Any]:
        spawned = started.spawned
        alive = (lambda: not spawned.exited) if not game.url_mode and not started.adopted else None
        stale = await anyio.to_thread.run_sync(
            stale_credentials, started.claim, game.stop_process_name
        )
        if stale is not None:
            started.warnings.append(
                f"stale_bridge_credential: the running game process (pid {stale.pid}) holds the "
                "GABP endpoint of an earlier launch, not this one's, so this bridge cannot "
                "attach to it; restart the game so that it gets the current environment"
            )
        sync = min(SYNC_WAIT, total)
        began = time.monotonic()
        error = await self._try_connect(
            runtime, started.port, started.token, until=began + sync, alive=alive
        )
        waited = time.monotonic() - began
        base = {
            "gameId": game.id,
            "processStarted": True,
            "pid": spawned.pid,
            "port": started.port,
            "configRevision": started.resolved.config_revision,
        }
        if started.resolved.profile:
            base["activeProfile"] = started.resolved.profile
        if started.resolved.applied_inputs:
            base["appliedLaunchInputs"] = list(started.resolved.applied_inputs)
        if started.adopted:
            base["adopted"] = True
        if started.warnings:
            base["startWarnings"] = started.warnings
        warnings = validation_warnings(game)
        if warnings:
            base["validationWarnings"] = warnings
        if error is None:
            delivery = delivery_json(await self._attach(runtime, started.claim))
            if delivery is not None:  # the connection's verdict, as Go's start result has it
                base["contextDelivery"] = delivery
            if progress:
                progress(f"{game.id}: connected")
            tools = len(runtime.session.tools) if runtime.session is not None else 0
            return {
                "code": "started_connected",
                **base,
                **self._ours(runtime, started.claim),
                "status": "running",
                "gabpConnected": True,
                "gameStillRunning": True,
                "toolCount": tools,
                "message": f"Game '{game.id}' ({game.name}) started successfully and "
                "connected via GABP." + _adoption_note(started),
                "nextActions": [
                    next_action(
                        "games_tool_names",
                        {"gameId": game.id, "brief": True},
                        "Discover connected game-specific tools.",
                    )
                ],
            }
        if error == "exited":
            # The launch's own process ended while waiting for the bridge: judged by the
            # liveness rule of its claim, as Go judges it. Proven gone fails the start (the
            # claim removed); a game seen running without that process is adopted, and one
            # that cannot be judged keeps its claim; both go on as bridge-pending.
            seen = await observe(self.lc, game.id)
            evidence = seen.evidence
            if seen.status in ("stale-runtime-cleaned", "stopped"):
                hook = evidence.detail if evidence and evidence.source == "status_hook" else ""
                failure = exited_during_start(game, spawned.poll(), spawned.tail(), hook)
                # An exit while connecting is a failed start too (as Go): it counts.
                profile = started.resolved.profile
                with contextlib.suppress(OSError, ClaimError):
                    TrackRecord(self.lc.game_dir(game.id)).failed(
                        profile,
                        context_hash(game, profile),
                        failure.code,
                        cause_class(failure.code),
                        started.resolved.applied_inputs,
                    )
                raise failure
            if seen.status == "running":
                started.adopted = base["adopted"] = True
            alive = None
            error = "game process exited before GABP became available"
        remaining = max(total - waited, 0.0)
        if remaining > 0 and self._tg is not None:
            self._tg.start_soon(self._background_connect, runtime, started, remaining, alive)
        message = (
            f"Game '{game.id}' ({game.name}) started, but GABP was not ready after "
            f"{go_duration(waited)}: {error}."
            + (
                " GABS will keep trying in the background for up to "
                f"{go_duration(remaining, unit=1)}."
                if remaining > 0
                else ""
            )
            + " The game may still be loading or the GABP bridge may be missing. Use "
            "games_status, then games_connect once the bridge is ready." + _adoption_note(started)
        )
        return {
            "code": "started_bridge_pending",
            **base,
            "status": "running",
            "gabpConnected": False,
            "gameStillRunning": True,
            "gabpWaitMs": int(waited * 1000),
            "backgroundConnect": remaining > 0,
            "backgroundWaitMs": int(remaining * 1000),
            "gabpError": error,
            "message": message,
            "nextActions": [
                next_action(
                    "games_status", {"gameId": game.id}, "Verify whether the game is still running."
                ),
                next_action(
                    "games_connect",
                    {"gameId": game.id},
                    "Connect after the GABP bridge finishes loading.",
                ),
            ],
        }

    async def _background_connect(
        self,
        runtime: GameRuntime,
        started: Started,
        budget: float,
        alive: Callable[[], bool] | None,
    ) -> None:
        with anyio.CancelScope() as scope:
            runtime.background = scope
            error = await self._try_connect(
                runtime, started.port, started.token, until=time.monotonic() + budget, alive=alive
            )
            if error is None:
                await self._attach(runtime, started.claim)
            else:
                runtime.last_error = f"background GABP connection ended: {error}"
        if runtime.background is scope:
            runtime.background = None

    async def connect(
        self,
        game_id: str,
        *,
        force_takeover: bool = False,
        timeout: float | None = None,
        port: int | None = None,
        token: str | None = None,
    ) -> dict[str, Any]:
        """``games_connect``: attach to the running game of this claim (or port and token)."""
        runtime = self._runtime_for(game_id)
        return await self.connect_game(
            runtime, force_takeover=force_takeover, timeout=timeout or 15.0, port=port, token=token
        )


def _adoption_note(started: Started) -> str:
    """The note an adopted start's text ends with (the Go bridge has one too)."""
    if not started.adopted:
        return ""
    return (
        " Note: the launch was adopted — the direct child exited and the workload was found "
        "by name or hook, so the injected args and env (GABS_PROFILE too) may have been lost "
        "in a launcher re-exec. A GABP connection proves the managed environment survived; "
        "a verified delivery report (contextDelivery) proves the whole context did."
    )
