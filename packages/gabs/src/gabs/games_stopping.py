"""The stop and kill tools' work inside the MCP server: the claim's hook or process, else a
game found by ``stopProcessName``, else this bridge's session alone; then the result in the Go
bridge's words, with the track record and the next actions."""

from __future__ import annotations

from typing import Any

import anyio

from gabs.games_status import StatusMixin
from gabs.lifecycle import (
    LifecycleError,
    StopOutcome,
    TrackRecord,
    cause_class,
    next_action,
    stop_game,
    summary_line,
)
from gabs.lifecycle.stop_signals import quoted
from gabs.lifecycle.untracked import stop_untracked

__all__ = ["StopMixin"]


class StopMixin(StatusMixin):
    """Stop and kill (part of :class:`~gabs.games.GameManager`)."""

    async def stop(self, game_id: str) -> dict[str, Any]:
        return await self._stop(game_id, "stop")

    async def kill(self, game_id: str) -> dict[str, Any]:
        return await self._stop(game_id, "kill")

    async def _stop(self, game_id: str, action: str) -> dict[str, Any]:
        runtime = self._runtime_for(game_id)
        config = runtime.config
        window = config.timeouts.stop_grace_seconds if config is not None else None
        # As Go, a stop the caller gave up on still runs to its end here (bounded by its own
        # hook timeouts, verification window and pinned deadline): its result is written to
        # the claim (removed, or ``lastActionResult``), never left as an interrupted step.
        spawned = runtime.spawned

        def reap() -> None:
            if spawned is not None:
                spawned.kill_direct_child()
                spawned.poll()

        with anyio.CancelScope(shield=True):
            outcome = await stop_game(
                self.lc,
                game_id,
                action,
                verify_window=window,
                gabp_live=lambda: runtime.connected,
                legacy=self._legacy_context(runtime),
                reap=reap,
            )
        name = config.stop_process_name if config is not None else ""
        if outcome is None and name:
            with anyio.CancelScope(shield=True):
                outcome = await stop_untracked(self.lc, game_id, name, action, verify_window=window)
            if outcome is not None:
                if outcome.code == "terminated":
                    await self._close_session(runtime)
                return self._untracked_result(game_id, runtime.name, name, outcome)
        if outcome is None:
            if runtime.session is not None:
                await self._close_session(runtime)
                return {
                    "code": "terminated",
                    "gameId": game_id,
                    "action": action,
                    "claimRemoved": False,
                    "message": f"Disconnected from '{game_id}'; no runtime claim exists, so no "
                    "process was signalled.",
                }
            searched = f"; no process named {quoted(name)} found" if name else ""
            raise LifecycleError(
                "not_running",
                f"Failed to {action} {game_id}: game {game_id} is not running (no process tracked"
                f"{searched})",
                data={"action": action},
                next_actions=[
                    next_action(
                        "games_status", {"gameId": game_id}, "Check whether the game runs at all."
                    )
                ],
            )
        if outcome.code == "terminated":
            await self._close_session(runtime)
            runtime.last_disconnect = None  # ended by this stop: no disconnect to report
            if runtime.spawned is not None:
                runtime.spawned.kill_direct_child()
                runtime.spawned.poll()
        return self._stop_result(game_id, runtime.name, outcome)

    def _untracked_result(
        self, game_id: str, name: str, process_name: str, outcome: StopOutcome
    ) -> dict[str, Any]:
        """A by-name stop's result: the Go bridge's text when it ended, else a stop's."""
        data = self._stop_result(game_id, name, outcome, track=False)
        data["stopProcessName"] = process_name
        if outcome.code == "terminated":
            past = "terminated" if outcome.action == "kill" else "stopped"
            data["message"] = f"Game '{game_id}' ({name}) {past} successfully" + "".join(
                f"\nWarning: {warning}" for warning in outcome.warnings
            )
        return data

    def _stop_result(
        self, game_id: str, name: str, outcome: StopOutcome, *, track: bool = True
    ) -> dict[str, Any]:
        data = {**outcome.to_json(), "gameId": game_id}
        if track:  # the track record of the claim's pinned context, as the Go bridge reports it
            record = TrackRecord(self.lc.game_dir(game_id))  # a missing or bad file reads empty
            data["trackRecord"] = summary_line(
                record.entry(outcome.active_profile, outcome.context_hash)
            )
        cause = cause_class(outcome.code)
        if cause:
            data["causeClass"] = cause
        verb = "kill" if outcome.action == "kill" else "stop"
        arg = {"gameId": game_id}
        actions = []
        if outcome.code == "terminated":
            past = "killed" if verb == "kill" else "stopped"
            message = f"Game '{game_id}' ({name}) was {past} and its termination verified."
            if outcome.detail:
                message += f" {outcome.detail}."
        elif outcome.code == "action_succeeded_running":
            message = (
                f"The {verb} action for '{game_id}' succeeded, but the "
                "game is still running at the "
                f"end of the verification window ({outcome.detail})."
            )
            if verb == "stop":
                actions.append(
                    next_action(
                        "games_kill", arg, "Force termination if the game will not stop gracefully."
                    )
                )
            actions.append(
                next_action(
                    "games_status", arg, "Watch the game; it may still be saving and shutting down."
                )
            )
        elif outcome.code == "termination_unverified":
            message = (
                f"The {verb} action for '{game_id}' succeeded, but "
                "termination could not be verified "
                f"({outcome.detail}). The runtime claim is kept; a later "
                "observation that finds the "
                "game stopped will clear it."
            )
            actions.append(next_action("games_status", arg, "Re-check for definitive evidence."))
        else:
            message = f"The {verb} action for '{game_id}' failed."
            if outcome.code == "action_timed_out":
                message = (
                    f"The {verb} hook for '{game_id}' timed out and its process tree was "
                    "terminated."
                )
                if outcome.hook is not None and outcome.hook.stderr_tail:
                    message += " Stderr tail: " + outcome.hook.stderr_tail
            elif outcome.hook is not None:
                message += f" Exit code {outcome.hook.exit_code}."
                if outcome.hook.stderr_tail:
                    message += " Stderr tail: " + outcome.hook.stderr_tail
            elif outcome.detail:
                message += f" {outcome.detail}."
            if verb == "stop":
                actions.append(
                    next_action(
                        "games_kill", arg, "Force termination if graceful stopping keeps failing."
                    )
                )
            actions.append(
                next_action(
                    "games_status", arg, "Inspect the game's current state and lastActionResult."
                )
            )
        for warning in outcome.warnings:
            message += f"\nWarning: {warning}"
        if actions:
            data["nextActions"] = actions
        data["message"] = message
        data["isError"] = outcome.code in ("action_failed", "action_timed_out")
        return data
