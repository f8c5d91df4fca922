"""Starting a game, stages 1 to 4: resolve, claim, spawn, see it run.

:func:`start_game` ends when the game's process is verified running (or adopted: the direct
child exited but a status hook or ``stopProcessName`` sees the game) and its claim is
``active``. Connecting to its GABP server (stage 5) is the caller's: the MCP server connects,
``gabs games start`` leaves that to a later ``games_connect``. Every other ending is a
:class:`~.codes.LifecycleError` with the Go bridge's code; the claim of a launch that did not
start is released, except ``unobserved`` (a store launcher may still be showing a dialog).

The claim's deadline is the whole start's, as in the Go bridge: the Steam client assistance,
the endpoint (which may wait for ``bridge.lock``), the spawn and the verification all come out
of it, and a start whose deadline has passed before the spawn spawns nothing: another start may
be taking its claim over by then, so it ends as a superseded start.
"""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

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
    Endpoint,
    EndpointError,
    EndpointInUse,
    RuntimeState,
    prepare_endpoint,
)
from gabs.runtime.claim import format_time
from gabs.runtime.endpoint import stamp_bridge_file
from gabs.runtime.procs import find_by_name, fingerprint

from .codes import LifecycleError, cause_class, next_action
from .core import DeadlinePassed, Lifecycle, Superseded, now
from .digests import spawn_digests
from .gate import claim_for_start
from .history import TrackRecord, context_hash, last_good_snapshot, pinned_success
from .store_ready import needs_store_readiness, prove_store_ready
from .superseded import keep_unobserved, superseded_refusal
from .verify import exited_during_start, verify_running

__all__ = ["Started", "exited_during_start", "start_game"]

logger = logging.getLogger(__name__)

#: Seconds of the step's deadline kept for the spawn when starting the Steam client first
#: (the Go bridge's: the ``bridge.lock`` timeout and 2 s of headroom).
STEAM_ASSIST_RESERVE = 7.0
#: Below this many seconds left of its deadline a start does not spawn (as the Go bridge).
MIN_SPAWN_BUDGET = 0.2
#: The Go bridge's warning when no Steam client can be seen at a Steam start.
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
    endpoint and the spawn), as the Go bridge does, before the endpoint is prepared."""
    if await anyio.to_thread.run_sync(client_running):
        return
    warnings.append(STEAM_ADVISORY)
    deadline = claim.operation.deadline if claim.operation else None
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
    claim, warnings = await claim_for_start(lc, game, resolved, budget=budget, live=live)
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
        if keep_claim:  # kept as it is now; gone or replaced meanwhile: superseded (as Go)
            await keep_unobserved(lc, game.id, launch_id, operation_id, failure.warnings)
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
    except Superseded as exc:
        # a start past its own deadline, as in Go: released before the refusal is judged when
        # it ends before the spawn, after it when its Steam wait could not begin, or kept when
        # it was found out while marking the spawn
        release = exc.release if isinstance(exc, DeadlinePassed) else "never"
        if release == "before":
            with anyio.CancelScope(shield=True):
                await lc.remove_if(game.id, launch_id, operation_id=operation_id)
        keep_claim = release != "after"
        refusal = await superseded_refusal(lc, game.id)
        refusal.warnings = warnings
        if release == "before":  # Go's command line words this one ending its own way
            refusal.cli_message = (
                f"the start of '{game.id}' was superseded during startup; re-check "
                f"'gabs games status {game.id}'"
            )
        raise refusal from None
    finally:
        if not keep_claim:
            with anyio.CancelScope(shield=True):
                await lc.remove_if(game.id, launch_id, operation_id=operation_id)


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
    if game.launch_mode in ("SteamManaged", "SteamAppId") and not needs_store_readiness(game):
        await _steam_client(game, claim, warnings)
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
        claim = await prove_store_ready(
            lc, game, resolved, claim, timeout=readiness_timeout, budget=budget
        )

    # the digests of what is handed over, pinned with the endpoint (as Go)
    digests = spawn_digests(argv[0], resolved.args, working_dir, env, resolved.context_env_keys)

    # Stage 4 has what is left of the step's deadline, as in Go: a start that has (nearly) run
    # out of it spawns nothing, as another start may be taking the claim over by now
    assert claim.operation is not None and claim.operation.deadline is not None
    spawn_deadline = claim.operation.deadline
    remaining = (spawn_deadline - now()).total_seconds()
    if remaining < MIN_SPAWN_BUDGET:
        raise DeadlinePassed(f"the start budget of {game.id} ran out", release="before")

    def spawning(state: RuntimeState) -> None:
        operation = state.operation
        if operation is None or operation.deadline is None or now() >= operation.deadline:
            raise DeadlinePassed(f"the start budget of {game.id} ran out", release="never")
        state.endpoint_port, state.endpoint_token = endpoint.port, endpoint.token
        state.context_digests = digests
        state.spawn_state = "spawning"

    await lc.update(game.id, launch_id, spawning, operation_id=operation_id)
    # From the spawn on, a cancelled request (an MCP client's cancellation, its own timeout)
    # must not forget the game: its claim is carried to the end of stage 4 first, bounded by
    # the budget the verification has anyway; the cancellation lands after it, and the game
    # stays claimed and can be stopped. (Go serves one request at a time and never cancels.)
    with anyio.CancelScope(shield=True):
        started = await _spawn_and_verify(
            lc,
            game,
            resolved,
            launch_id,
            operation_id,
            argv,
            program,
            working_dir,
            env,
            folder,
            endpoint,
            warnings,
            remaining,
            lease,
            record,
            digest,
        )
    return started


async def _spawn_and_verify(
    lc: Lifecycle,
    game: GameConfig,
    resolved: Resolved,
    launch_id: str,
    operation_id: str,
    argv: list[str],
    program: str | None,
    working_dir: str | None,
    env: dict[str, str],
    folder: Path,
    endpoint: Endpoint,
    warnings: list[str],
    remaining: float,
    lease: timedelta,
    record: TrackRecord,
    digest: str,
) -> Started:
    """Stage 4 from the spawn on: spawn, mark the claim, verify, promote."""
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
    problem = stamp_bridge_file(
        folder,
        port=endpoint.port,
        token=endpoint.token,
        profile=resolved.profile,
        revision=resolved.config_revision,
        started_at=format_time(now()).split(".")[0] + "Z",
    )
    if problem is not None:
        logger.warning("failed to stamp bridge diagnostics for %s: %s", game.id, problem)
        warnings.append(f"bridge diagnostics could not be written for this launch: {problem}")
    adopted = await verify_running(lc, game, claim, spawned, remaining)
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
