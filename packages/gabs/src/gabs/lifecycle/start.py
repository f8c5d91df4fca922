"""Starting a game, stages 1 to 4: resolve, claim, spawn, see it run.

:func:`start_game` ends when the game's process is verified running (or adopted: the direct
child exited but a status hook or ``stopProcessName`` sees the game) and its claim is
``active``. Connecting to its GABP server (stage 5) is the caller's: the MCP server connects,
``gabs games start`` leaves that to a later ``games_connect``. Every other ending is a
:class:`~.codes.LifecycleError` with the Go bridge's code; the claim of a launch that did not
start is released, except ``unobserved`` (a store launcher may still be showing a dialog).
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import signal
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import anyio

from gabs.config import GameConfig
from gabs.launch.bundle import bundle_target
from gabs.launch.environment import game_environment
from gabs.launch.resolve import Resolved
from gabs.launch.size import check_process_size
from gabs.launch.spawn import (
    LAUNCH_LOG,
    SpawnedGame,
    SpawnError,
    describe_exit,
    opener_command,
    spawn,
    store_uri,
)
from gabs.launch.steam import (
    SteamError,
    assist_client,
    client_running,
    ensure_appid_file,
    resolve_app,
)
from gabs.runtime import (
    ClaimError,
    EndpointError,
    EndpointInUse,
    RuntimeState,
    evaluate,
    prepare_endpoint,
)
from gabs.runtime.claim import format_seconds, format_time
from gabs.runtime.endpoint import stamp_bridge_file
from gabs.runtime.procs import find_by_name, fingerprint

from .codes import LifecycleError, cause_class, next_action
from .core import Lifecycle, Superseded, now
from .digests import spawn_digests
from .gate import claim_for_start
from .history import TrackRecord, context_hash, last_good_snapshot, pinned_success
from .store_ready import needs_store_readiness, prove_store_ready

__all__ = ["Started", "start_game"]

logger = logging.getLogger(__name__)

_FIRST_LOOK = 0.5
_POLL = 0.5
#: Seconds of the step's deadline kept for the spawn when starting the Steam client first.
STEAM_ASSIST_RESERVE = 7.0
#: The store warning when no Steam client is seen (the Go bridge's words).
STEAM_ADVISORY = (
    "Steam does not appear to be running; the launch may stall at login/startup or the game "
    "may relaunch itself through Steam"
)


@dataclass
class Started:
    """A launch verified running; its claim is ``active``."""

    claim: RuntimeState
    spawned: SpawnedGame
    port: int
    token: str = field(repr=False)
    resolved: Resolved
    adopted: bool = False
    warnings: list[str] = field(default_factory=list)


def _executable(game: GameConfig, working_dir: str) -> tuple[list[str], str | None, str]:
    """argv, the program to run (``None``: argv's first item) and the working directory.

    A bare target name is looked up on the bridge's ``PATH`` but stays the game's ``argv[0]``
    as configured, as the Go bridge starts it."""
    if game.url_mode:
        return opener_command(store_uri(game.launch_mode, game.target)), None, working_dir
    if game.launch_mode == "SteamManaged":
        try:
            app = resolve_app(game.target)
            ensure_appid_file(app)
        except (SteamError, OSError) as exc:
            raise SpawnError(0, f"cannot prepare Steam app {game.target}: {exc}") from None
        return [str(app.executable)], None, working_dir or str(app.working_dir)
    target = bundle_target(os.path.expanduser(game.target))  # an .app runs its executable
    program = None
    if "/" not in target and os.sep not in target:
        program = shutil.which(target)
    return [target], program, working_dir


async def _steam_client(game: GameConfig, claim: RuntimeState, warnings: list[str]) -> None:
    """The store advisory when no Steam client can be seen; for ``SteamManaged`` also a
    bounded attempt to start the client, within the step's deadline (less a reserve for the
    spawn), as the Go bridge does."""
    if await anyio.to_thread.run_sync(client_running):
        return
    warnings.append(STEAM_ADVISORY)
    deadline = claim.process_start_deadline
    if game.launch_mode != "SteamManaged" or deadline is None:
        return
    budget = (deadline - now()).total_seconds() - STEAM_ASSIST_RESERVE
    problem = await anyio.to_thread.run_sync(assist_client, budget)
    if problem:
        logger.debug("Steam client assistance for %s: %s", game.id, problem)


async def start_game(
    lc: Lifecycle,
    game: GameConfig,
    resolved: Resolved,
    *,
    reset_endpoint: bool = False,
    gabp_timeout: float = 60.0,
    live: Callable[[RuntimeState], bool] | None = None,
) -> Started:
    """Stages 2 to 4 of a start (resolution and the static checks are done)."""
    budget = lc.settings.startup.process_start_budget(game.launch_mode)
    lease = max(lc.owner_lease, timedelta(seconds=gabp_timeout + 5))
    claim, warnings = await claim_for_start(
        lc, game, resolved, budget=budget, lease=lease, live=live
    )
    record = TrackRecord(lc.game_dir(game.id))
    digest = context_hash(game, resolved.profile)
    assert claim.operation is not None
    launch_id, operation_id = claim.launch_id, claim.operation.operation_id
    keep_claim = False
    try:
        return await _launch(
            lc,
            game,
            resolved,
            claim,
            warnings,
            reset_endpoint,
            budget,
            lease,
            record,
            digest,
            gabp_timeout,
        )
    except LifecycleError as failure:
        failure.warnings = warnings + [w for w in failure.warnings if w not in warnings]
        keep_claim = failure.code == "unobserved"
        if keep_claim:
            with anyio.CancelScope(shield=True):
                with contextlib.suppress(Superseded):
                    await lc.update(
                        game.id,
                        launch_id,
                        lambda state: setattr(state, "operation", None),
                        operation_id=operation_id,
                    )
        if failure.code in (
            "exited_during_start",
            "unobserved",
            "spawn_failed",
            "endpoint_unavailable",
            "spec_too_large",
        ):
            # A launch context that started before makes an unobserved start the machine's
            # (environment), as in Go; a never-proven one stays config.
            proven = failure.code == "unobserved" and record.proven(resolved.profile, digest)
            if proven:
                failure.data["proven"] = True
            record.failed(
                resolved.profile,
                digest,
                failure.code,
                cause_class(failure.code, proven=proven),
                resolved.applied_inputs,
            )
        raise
    except Superseded:
        keep_claim = True
        refusal = await _superseded(lc, game.id)
        refusal.warnings = warnings
        raise refusal from None
    finally:
        if not keep_claim:
            with anyio.CancelScope(shield=True):
                await lc.remove_if(game.id, launch_id, operation_id=operation_id)


async def _superseded(lc: Lifecycle, game_id: str) -> LifecycleError:
    """The refusal of a start whose claim another launch took over meanwhile, judged by the
    claim there is now, as Go judges it: gone or in a step (``operation_in_progress``), active
    (``already_running``), else ``blocked_unknown_state``."""
    head = f"the launch of '{game_id}' was superseded during startup"
    status = next_action("games_status", {"gameId": game_id}, "Inspect the launch state now.")
    try:
        current = await lc.load(game_id)
    except (ClaimError, OSError):
        current = None
    if current is None:
        message = f"{head} and the successor has since finished; re-check games_status"
        return LifecycleError(
            "operation_in_progress", message, next_actions=[status], is_error=False
        )
    data: dict[str, Any] = {"phase": current.phase}
    operation = current.operation
    if operation is not None and operation.in_flight(now()):
        deadline = format_seconds(operation.deadline)
        if current.effective_profile:  # as Go: left out when empty here
            data["activeProfile"] = current.effective_profile
        data["operation"] = {
            "action": operation.action,
            "attemptStartedAt": format_seconds(operation.attempt_started_at),
            "deadline": deadline,
        }
        message = f"{head}; a successor {operation.action} operation is in progress (deadline "
        return LifecycleError(
            "operation_in_progress",
            f"{message}{deadline})",
            data=data,
            next_actions=[status],
            is_error=False,
        )
    if current.phase == "active":
        data["activeProfile"] = current.effective_profile
        stop = next_action("games_stop", {"gameId": game_id}, "Stop it first if need be.")
        return LifecycleError(
            "already_running",
            f"{head}; a successor launch is active",
            data=data,
            next_actions=[status, stop],
            is_error=False,
        )
    return LifecycleError(
        "blocked_unknown_state",
        f"{head}; a successor claim exists in phase {current.phase} — re-check games_status",
        data=data,
        next_actions=[status],
    )


async def _launch(
    lc: Lifecycle,
    game: GameConfig,
    resolved: Resolved,
    claim: RuntimeState,
    warnings: list[str],
    reset_endpoint: bool,
    budget: float,
    lease: timedelta,
    record: TrackRecord,
    digest: str,
    readiness_timeout: float,
) -> Started:
    folder = lc.game_dir(game.id)
    assert claim.operation is not None
    launch_id, operation_id = claim.launch_id, claim.operation.operation_id
    try:
        endpoint = prepare_endpoint(
            folder,
            game.id,
            ranges=lc.settings.port_ranges,
            fixed_port=game.gabp_port,
            reset=reset_endpoint,
        )
    except EndpointInUse as exc:
        raise LifecycleError(
            "endpoint_unavailable",
            f"GABS endpoint cache for game '{game.id}' uses port {exc.port}, but that port is "
            "already listening. No other process was started. Find the listener with an OS tool "
            f"(`lsof -nP -iTCP:{exc.port} -sTCP:LISTEN`, `netstat -ano | findstr :{exc.port}`); "
            "if it is a lost instance of this game stop it, otherwise start again with "
            "resetEndpoint to rotate the cached endpoint.",
            data={"status": "endpoint_cache_in_use", "port": exc.port},
            next_actions=[
                next_action(
                    "games_start",
                    {"gameId": game.id, "resetEndpoint": True},
                    "Rotate the endpoint cache and start a new process ONLY after an OS-level "
                    "port inspection confirmed the listener is not a lost instance of this game.",
                )
            ],
        ) from None
    except EndpointError as exc:
        raise LifecycleError(
            "endpoint_unavailable",
            f"Cannot start {game.id}: failed to prepare GABS endpoint for game '{game.id}': {exc}",
            data={"detail": str(exc)},
        ) from None
    try:
        argv, program, working_dir = _executable(game, resolved.working_dir)
    except SpawnError as exc:
        raise _spawn_failed(game, exc) from None
    env = game_environment(
        resolved,
        launch_mode=game.launch_mode,
        target=game.target,
        bridge_path=str(endpoint.path),
        port=endpoint.port,
        token=endpoint.token,
    )
    if not game.url_mode:
        argv += list(resolved.args)
    too_large = check_process_size(argv, env)
    if too_large is not None:
        raise LifecycleError(
            "spec_too_large",
            f"Refusing to start {game.id}: {too_large.message}",
            data={"part": too_large.part},
        )
    if needs_store_readiness(game):
        await prove_store_ready(lc, game, resolved, claim, timeout=readiness_timeout, budget=budget)
    elif game.launch_mode in ("SteamManaged", "SteamAppId"):
        await _steam_client(game, claim, warnings)

    # the digests of what is handed over, pinned with the endpoint (as Go)
    digests = spawn_digests(argv[0], resolved.args, working_dir, env, resolved.context_env_keys)

    def spawning(state: RuntimeState) -> None:
        state.endpoint_port, state.endpoint_token = endpoint.port, endpoint.token
        state.context_digests = digests
        state.spawn_state = "spawning"

    await lc.update(game.id, launch_id, spawning, operation_id=operation_id)
    try:
        spawned = spawn(
            argv,
            cwd=working_dir or None,
            env=env,
            log_path=folder / LAUNCH_LOG,
            program=program,
        )
    except SpawnError as exc:
        await lc.update(
            game.id,
            launch_id,
            lambda s: setattr(s, "spawn_state", "failed"),
            operation_id=operation_id,
        )
        raise _spawn_failed(game, exc) from None
    start_time = fingerprint(spawned.pid)

    def spawned_state(state: RuntimeState) -> None:
        state.spawn_state = "spawned"
        state.game_pid = spawned.pid
        state.pid_start_time = start_time

    claim = await lc.update(game.id, launch_id, spawned_state, operation_id=operation_id)
    stamp_bridge_file(
        folder,
        port=endpoint.port,
        token=endpoint.token,
        profile=resolved.profile,
        revision=resolved.config_revision,
        started_at=format_time(now()).split(".")[0] + "Z",
    )
    adopted = await _verify(lc, game, claim, spawned, budget)
    found = await anyio.to_thread.run_sync(_store_game_pid, game) if game.url_mode else None

    def promote(state: RuntimeState) -> None:
        state.status = "running"
        state.phase = "active"
        state.adopted = adopted
        if found is not None:  # the pid of a store mode's claim is the game's, as in Go
            state.game_pid, state.pid_start_time = found
        state.operation = None
        state.process_start_deadline = None
        lc.refresh_owner(state, lease)

    claim = await lc.update(game.id, launch_id, promote, operation_id=operation_id)
    snapshot, bucket = pinned_success(claim)
    snapshot = snapshot or last_good_snapshot(game, resolved.profile)
    record.started(snapshot, resolved.profile, digest, launch_id, bucket)
    return Started(
        claim=claim,
        spawned=spawned,
        port=endpoint.port,
        token=endpoint.token,
        resolved=resolved,
        adopted=adopted,
        warnings=warnings,
    )


def _store_game_pid(game: GameConfig) -> tuple[int, int]:
    """The first process named ``stopProcessName`` and its start time, or zeros (the opener's
    pid says nothing about the game)."""
    try:
        pids = find_by_name(game.stop_process_name) if game.stop_process_name else []
    except OSError:
        pids = []
    return (pids[0], fingerprint(pids[0])) if pids else (0, 0)


def _spawn_failed(game: GameConfig, exc: OSError) -> LifecycleError:
    return LifecycleError(
        "spawn_failed",
        # the game, its mode and its target, as the Go bridge names them
        f"Failed to start {game.id}: failed to start game '{game.id}' (mode: {game.launch_mode}, "
        f"target: {game.target}): {exc.strerror or exc}",
        data={"osError": str(exc.strerror or exc)},
    )


def exited_during_start(
    game: GameConfig, code: int | None, tail: str, evidence: str = ""
) -> LifecycleError:
    """The failure of a game whose process ended before it was verified (or while connecting)."""
    if code is not None and code >= 0:
        how = f"exited during start (exit code {code})."  # the Go bridge's words
    else:  # a signal, or an end not seen: ours
        how = f"{describe_exit(code) if code is not None else 'stopped'} during start."
    # Go's exit code: -1 for a process ended by a signal (or not seen to end); the signal is ours
    data: dict[str, object] = {"exitCode": code if code is not None and code >= 0 else -1}
    if code is not None and code < 0:
        data["signal"] = _signal_name(-code)
    if tail:
        data["outputTail"] = tail
    if evidence:
        data["hookEvidence"] = evidence
    return LifecycleError(
        "exited_during_start",
        f"'{game.id}' {how} This is attributed to the game; read the output tail "
        "for the cause (a crash, missing or corrupt data, a mod loader failure, DRM or "
        "anti-cheat refusing the process, a required login, or a wrapper's own error)."
        + (f" Output tail:\n{tail}" if tail else " It wrote no output."),
        data=data,
    )


async def _verify(
    lc: Lifecycle, game: GameConfig, claim: RuntimeState, spawned: SpawnedGame, budget: float
) -> bool:
    """Stage 4: True when adopted; raise ``exited_during_start`` or ``unobserved``."""
    deadline = anyio.current_time() + budget
    if not game.url_mode:
        code = await spawned.wait(min(_FIRST_LOOK, budget))
        if code is None:
            return False
        evidence = await evaluate(claim, game_id=game.id, instance_id=lc.instance_id)
        if evidence.verdict == "running":
            return True
        if evidence.verdict == "unknown":
            raise _unobserved(game)
        hook = evidence.detail if evidence.source == "status_hook" else ""
        raise exited_during_start(game, code, spawned.tail(), hook)
    has_source = bool(claim.stop_process_name) or bool(claim.lifecycle and claim.lifecycle.status)
    while True:
        evidence = await evaluate(claim, game_id=game.id, instance_id=lc.instance_id)
        if evidence.verdict == "running":
            # The game was found by name or hook; once the opener has handed over and ended,
            # the launch is adopted, as the Go bridge calls it (it looks after its own poll).
            await spawned.wait(min(_POLL, max(deadline - anyio.current_time(), 0)))
            return spawned.exited
        if evidence.verdict == "stopped" and evidence.source == "status_hook":
            raise exited_during_start(game, spawned.poll(), spawned.tail(), evidence.detail)
        if not has_source and spawned.exited:
            raise _unobserved(game)
        if anyio.current_time() >= deadline:
            raise _unobserved(game)
        await anyio.sleep(min(_POLL, max(deadline - anyio.current_time(), 0)))


def _unobserved(game: GameConfig) -> LifecycleError:
    return LifecycleError(
        "unobserved",
        f"Nothing observable for '{game.id}' within the start budget — the store launcher may be "
        "updating the game or showing a dialog (login, EULA); check the desktop and re-check "
        "games_status. The claim is kept while the launch may still appear.",
        # no next action of its own: the config class's (games_show), as Go's attribution does
        is_error=False,
    )


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)
