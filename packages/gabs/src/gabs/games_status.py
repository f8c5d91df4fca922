"""The status views of the lifecycle tools: ``games_status``, ``games_list`` and
``games_show``, from the claims (via :func:`~gabs.lifecycle.observe`), the config and this
bridge's sessions.

Status words are the Go bridge's: ``running`` (this bridge started and is connected to the
game), ``connected`` (attached to a game another process started), ``shared-running`` (running,
but another session or the CLI holds it: use ``games_connect``), ``running-disconnected``,
``disconnected``, ``starting``, ``stopping``, ``killing``, ``stopped``,
``stale-runtime-cleaned`` and ``unknown``.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import anyio

from gabs.config import check_game_id
from gabs.games_attach import session_open
from gabs.games_connect import ConnectMixin
from gabs.games_diagnostics import diagnostics_next_actions, state_diagnostics
from gabs.games_runtime import GameRuntime
from gabs.games_text import show_text
from gabs.games_views import (
    config_health,
    config_health_text,
    evidence_json,
    game_structured,
    launch_inputs_structured,
    profiles_structured,
    runtime_lifecycle,
    status_description,
    status_next_actions,
    validation_warnings,
)
from gabs.go_format import go_quote
from gabs.lifecycle import LifecycleError, next_action, track_record_summary
from gabs.runtime import CLAIM_FILE, ClaimError, claimed_ids, list_claims

__all__ = ["StatusMixin"]


def _claim_unaddressable(folder: Path) -> str | None:
    """Why the claim at ``folder`` can be neither read nor ruled out (a ``runtime.json`` that is
    not a regular file, or cannot be looked at); None when it is a file or absent."""
    path = folder / CLAIM_FILE
    try:
        mode = os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        return f"stat {path}: {exc.strerror or exc}"
    return None if stat.S_ISREG(mode) else f"runtime claim is not a regular file: {path}"


class StatusMixin(ConnectMixin):
    """Status, list and show (part of :class:`~gabs.games.GameManager`)."""

    def _runtime_for(self, game_id: str, *, claimed: bool = True) -> GameRuntime:
        config = self.store.snapshot().config
        runtime = self._runtimes.get(game_id)
        if game_id in config.games:
            if runtime is None:
                runtime = self._runtimes[game_id] = GameRuntime(game_id, config.games[game_id])
            runtime.config = config.games[game_id]
            return runtime
        if runtime is not None and (
            game_id in config.broken
            or session_open(runtime)
            or game_id in claimed_ids(self.lc.config_dir)
        ):
            if game_id not in config.broken:
                runtime.config = None  # the entry was removed: the claim alone speaks, as in Go
            return runtime
        # An entry removed from the config whose claim is gone too (stopped) is not a game any
        # more: game_not_found, as in Go.
        if game_id in config.broken or (claimed and game_id in claimed_ids(self.lc.config_dir)):
            runtime = self._runtimes[game_id] = GameRuntime(game_id, None)
            return runtime
        raise LifecycleError(
            "game_not_found",
            f"Game '{game_id}' not found. Use games_list to see available games.",
            data={"candidates": config.game_ids},
        )

    def game_reference(self, ref: str, *, claimed: bool = False) -> str:
        """The game a lifecycle tool's ``gameId`` names, resolved as the Go bridge resolves it:
        a configured id (with ``claimed``, also the id of a runtime claim) as it is, else the one
        configured game whose ``target`` is ``ref``; ``ref`` itself when none is (the lookup
        that follows answers ``game_not_found``). Several: ``ambiguous_game_reference``."""
        config = self.store.snapshot().config
        if not ref or ref in config.game_ids:
            return ref
        if claimed:
            if check_game_id(ref) is not None:
                problem = None  # an id that is not canonical never addresses a claim
            else:
                try:
                    problem = _claim_unaddressable(self.lc.game_dir(ref))
                except ClaimError as exc:  # its folder leads elsewhere
                    problem = str(exc)
            if problem is not None:
                # Whether ``ref`` is a claim's id cannot be told: never fall back to the
                # configured game whose target it is (a stop must not hit another game).
                raise LifecycleError(
                    "blocked_unknown_state",
                    f"{go_quote(ref)} may name a runtime claim that cannot be read ({problem}), "
                    "so it is not taken as another game's launch target. Look at the claim's "
                    f"path, or run 'gabs games repair {ref} --forget-runtime' once it is known "
                    "to be broken.",
                    data={"trackRecord": "no successful starts recorded for this context"},
                )
            if ref in claimed_ids(self.lc.config_dir):
                return ref
        matches = sorted(gid for gid, game in config.games.items() if game.target == ref)
        if len(matches) > 1:
            raise LifecycleError(
                "ambiguous_game_reference",
                f"Game reference '{ref}' matches multiple configured games "
                f"({', '.join(matches)}). Use the exact game ID.",
                data={"candidates": matches},
            )
        return matches[0] if matches else ref

    async def status(self, game_id: str) -> dict[str, Any]:
        """``games_status {gameId}``: the claim's verdict plus this bridge's session."""
        runtime = self._runtime_for(game_id)
        snapshot = self.store.snapshot()
        item = await self._status_item(runtime)
        if game_id not in snapshot.config.game_ids:
            item["configured"] = False
        item["currentConfigRevision"] = snapshot.config.revision
        config_health(item, snapshot.config, snapshot.error)
        return item

    async def all_status(self) -> dict[str, Any]:
        """``games_status`` without a game: configured games and every claimed one."""
        snapshot = self.store.snapshot()
        ids = list(snapshot.config.game_ids)
        error = ""
        try:
            claimed = list_claims(self.lc.config_dir)
        except OSError as exc:
            claimed, error = [], str(exc)
        ids += [game_id for game_id in claimed if game_id not in ids]
        items: list[dict[str, Any]] = [{} for _ in ids]
        limit = anyio.CapacityLimiter(8)

        async def one(index: int, game_id: str) -> None:
            async with limit:
                item = await self._status_item(self._runtime_for(game_id))
                item["configured"] = game_id in snapshot.config.game_ids
                items[index] = item

        async with anyio.create_task_group() as tg:
            for index, game_id in enumerate(ids):
                tg.start_soon(one, index, game_id)
        data: dict[str, Any] = {
            "count": len(items),
            "games": items,
            "currentConfigRevision": snapshot.config.revision,
        }
        if error:
            data["runtimeClaimScanError"] = error
        config_health(data, snapshot.config, snapshot.error)
        return data

    async def _status_item(self, runtime: GameRuntime) -> dict[str, Any]:
        game_id = runtime.game_id
        game = runtime.config
        try:
            claim = await self.lc.load(game_id)
        except ClaimError:
            claim = None
        status, observation = await self._status_word(runtime, claim)
        session = runtime.session
        tools = len(session.tools) if session is not None and session.connected else 0
        item: dict[str, Any] = {
            "gameId": game_id,
            "name": runtime.name,
            "status": status,
            "statusDescription": status_description(
                status, game, own=claim is not None and claim.owner_pid == os.getpid()
            ),
            "toolCount": tools,
            "nextActions": status_next_actions(game_id, status, tools),
        }
        if observation.error:
            item["unreadable"] = observation.error
            item["repairCommand"] = f"gabs games repair {game_id} --forget-runtime"
        evidence = evidence_json(observation.evidence)
        # The Go bridge gives no evidence for a game without a claim.
        no_claim = observation.claim is None and observation.evidence is not None
        if evidence is not None and not (no_claim and evidence["source"] == "none"):
            item["evidence"] = evidence
        if observation.evidence is not None and observation.evidence.warnings:
            item["statusWarnings"] = observation.evidence.warnings
        if runtime.last_disconnect and not runtime.connected:
            # Go forgets it once connected again (here even before the session's news arrives)
            item["lastDisconnect"] = runtime.last_disconnect
        if game is not None:
            diagnostics = await anyio.to_thread.run_sync(
                state_diagnostics,
                game,
                status,
                observation.claim,
                observation.error or "",
                self.lc.owner_lease,
            )
            item["nextActions"] = diagnostics_next_actions(game, diagnostics, item["nextActions"])
            item["diagnostics"] = diagnostics
            warnings = validation_warnings(game)
            if warnings:
                item["validationWarnings"] = warnings
        elif observation.error:
            # A removed game's claim that cannot be read: stop and kill would only be refused.
            item["statusDescription"] = (
                "unreadable runtime claim (corrupt); resolve with repair --forget-runtime if the "
                "launch is provably gone"
            )
            item["nextActions"] = [
                next_action(
                    "games_status",
                    {"gameId": game_id},
                    "Read it again: a passing read error clears by itself; one that stays means "
                    "the claim is corrupt (see repairCommand).",
                )
            ]
        else:
            item["nextActions"] = [
                next_action(
                    "games_stop",
                    {"gameId": game_id},
                    "Stop this launch; its config entry was removed but "
                    "the runtime claim persists.",
                ),
                next_action(
                    "games_kill", {"gameId": game_id}, "Force terminate if stop does not end it."
                ),
            ]
        runtime_lifecycle(item, observation.claim)
        item.update(self._ours(runtime, observation.claim))
        return item

    def _ours(self, runtime: GameRuntime, claim: Any) -> dict[str, Any]:
        """Our fields beside the Go bridge's: process, connection and attention."""
        spawned = runtime.spawned
        pid = (
            spawned.pid if spawned is not None else (claim.game_pid if claim is not None else None)
        )
        data: dict[str, Any] = {
            "process": {
                "pid": pid or None,
                # the process the pid names: a launcher that handed over and ended is not
                # running, though the game it left behind is (an adopted launch)
                "running": not spawned.exited if spawned is not None else claim is not None,
                "exitCode": spawned.returncode if spawned is not None else None,
                "logPath": str(self.lc.game_dir(runtime.game_id) / "launch.log"),
            }
            if pid
            else None,
            "connection": None,
            "attention": {"supported": False},
        }
        if runtime.last_error:
            data["lastError"] = runtime.last_error
        session = runtime.session
        if session is not None:
            data["connection"] = {
                "state": session.state,
                "port": session.port,
                "tools": len(session.tools),
                "reconnects": session.reconnects,
                "agentId": session.hello.get("agentId") if session.hello else None,
            }
            if session.tools_error:
                data["connection"]["toolsError"] = session.tools_error
            item = session.attention
            data["attention"] = {
                "supported": session.supports_attention,
                "mode": session.gate.mode,
                "subscribed": bool(session.subscribed),
                "open": item is not None,
                "attentionId": item.attention_id if item else None,
                "blocking": item.blocking if item else False,
                "summary": item.summary if item else None,
            }
        return data

    def list_games(self) -> dict[str, Any]:
        """``games_list``: every configured game id, with profiles and warning counts (as Go:
        no launch details, and no status, which is ``games_status``'s)."""
        snapshot = self.store.snapshot()
        config = snapshot.config
        games = []
        for game_id in config.game_ids:
            game = config.games.get(game_id)
            item: dict[str, Any] = {"gameId": game_id, "name": game.name if game else game_id}
            if game is not None:
                if game.description:
                    item["description"] = game.description
                if game.profiles:
                    item["profiles"] = sorted(game.profiles)
                    item["defaultProfile"] = game.default_profile
            else:
                item["configError"] = [str(issue) for issue in config.broken.get(game_id, ())]
            warnings = config.game_warnings(game_id)
            if warnings:
                item["warningCount"] = len(warnings)
            games.append(item)
        data: dict[str, Any] = {
            "count": len(games),
            "games": games,
            "currentConfigRevision": config.revision,
            "nextActions": [
                next_action(
                    "games_status", {}, "Check which configured games are running or connected."
                )
            ]
            if games
            else [
                {
                    "command": "gabs games add <id>",
                    "reason": "Configure a game before using MCP game-management tools.",
                }
            ],
        }
        config_health(data, config, snapshot.error)
        return data

    async def show(self, game_id: str) -> tuple[str, dict[str, Any]]:
        """``games_show``: one game's configuration (env values hidden) and status, as the text
        block and the structured content."""
        snapshot = self.store.snapshot()
        config = snapshot.config
        if game_id not in config.game_ids:
            raise LifecycleError(
                "game_not_found",
                f"Game '{game_id}' not found. Use games_list to see available games.",
                data={"candidates": config.game_ids},
            )
        game = config.games.get(game_id)
        status = await self._status_item(self._runtime_for(game_id))
        data: dict[str, Any] = {
            "status": status["status"],
            "statusDescription": status["statusDescription"],
            # as Go: the status word's actions, without the diagnosis's (games_status has them)
            "nextActions": status_next_actions(
                game_id, status["status"], status.get("toolCount", 0)
            ),
            "currentConfigRevision": config.revision,
            "runtime": status,
        }
        if "activeConfigRevision" in status:
            data["activeConfigRevision"] = status["activeConfigRevision"]
        if "source" in status:  # an external instance, named at the top as in Go, with the
            data["source"] = status["source"]  # actions its pinned lifecycle can carry out
            data["nextActions"] = status["nextActions"]
        warnings = [str(issue) for issue in config.game_warnings(game_id)]
        if game is None:
            data["game"] = {"gameId": game_id}
            data["configError"] = [str(issue) for issue in config.broken.get(game_id, ())]
            text = f"Game Configuration: {game_id}\n\n  Invalid entry:\n" + "".join(
                f"    {issue}\n" for issue in data["configError"]
            )
            if warnings:
                text += "\nConfiguration Warnings:\n" + "".join(f"  - {w}\n" for w in warnings)
        else:
            text = show_text(game, [*validation_warnings(game), *warnings])
            data["game"] = game_structured(game)
            data["validationWarnings"] = validation_warnings(game)
            entry = game.to_json()
            if entry.get("env"):
                entry["env"] = dict.fromkeys(entry["env"], "<hidden>")
            data["config"] = entry
            if game.profiles:
                data["profiles"] = profiles_structured(game)
                data["defaultProfile"] = game.default_profile
            if game.launch_inputs:
                data["launchInputs"] = launch_inputs_structured(game)
            records = track_record_summary(game, config.game_dir(game_id))
            if records:
                data["trackRecord"] = records
        if warnings:
            data["configWarnings"] = warnings
        config_health(data, config, snapshot.error)
        return text + config_health_text(snapshot.error), data
