"""Structured content of the lifecycle tools, in the Go bridge's shape.

Descriptions, next actions and the configuration views (profiles, launch inputs, warnings)
that ``games_list``, ``games_show`` and ``games_status`` return; our own fields (process,
connection, attention) are added by the caller.
"""

from __future__ import annotations

from typing import Any

from gabs.config import INPUT_MAX_LENGTH_DEFAULT, ConfigError, GabsConfig, GameConfig
from gabs.lifecycle import next_action
from gabs.lifecycle.delivery import delivery_json
from gabs.lifecycle.stop import action_supported
from gabs.runtime import Evidence, RuntimeState
from gabs.runtime.claim import format_seconds

__all__ = [
    "claim_identity",
    "config_health",
    "config_health_text",
    "config_notice",
    "evidence_json",
    "game_structured",
    "launch_inputs_structured",
    "profiles_structured",
    "runtime_lifecycle",
    "status_description",
    "status_next_actions",
    "validation_warnings",
]


def status_description(status: str, game: GameConfig | None, *, own: bool = False) -> str:
    """The Go bridge's words for ``status``. ``own``: this bridge process holds the game's
    claim, so a start in progress is its own (the Go bridge, serving one request at a time,
    never reports its own start and always names another session)."""
    if status == "starting" and own:
        return "starting (this GABS session is launching the game)"
    mode = game.launch_mode if game is not None else ""
    if status == "running" and game is not None and game.url_mode and game.stop_process_name:
        return "running (GABS is tracking the game process)"
    return {
        "starting": "starting (another GABS session is launching the game)",
        "shared-running": (
            "running (another GABS session owns the process; use games_connect to attach)"
        ),
        "running-disconnected": "running, but the GABP bridge disconnected",
        "running": "running (GABS controls the process)",
        "connected": "running (connected via GABP; process not managed by this GABS instance)",
        "disconnected": "GABP disconnected (the game may have crashed or closed the bridge)",
        "stale-runtime-cleaned": "stopped (stale runtime state was removed)",
        "stopping": "stopping (a bounded stop operation is in progress)",
        "killing": "killing (a bounded force-termination operation is in progress)",
        "stopped": "stopped",
        "unknown": "unknown",
        "launcher-running": f"launcher active (game may be starting via {mode})",
    }.get(status, status)


def status_next_actions(game_id: str, status: str, tool_count: int) -> list[dict[str, Any]]:
    arg = {"gameId": game_id}
    discover = {"gameId": game_id, "brief": True}
    if status == "starting":
        return [
            next_action(
                "games_status", arg, "Wait for startup to finish before issuing more game commands."
            )
        ]
    if status == "stopped":
        return [next_action("games_start", arg, "Start the game before connecting to GABP tools.")]
    if status == "stale-runtime-cleaned":
        return [next_action("games_start", arg, "Start the game with fresh runtime state.")]
    if status == "shared-running":
        return [
            next_action(
                "games_connect", arg, "Attach this GABS session to the already running game bridge."
            )
        ]
    if status in ("running", "connected"):
        if tool_count > 0:
            return [
                next_action("games_tool_names", discover, "Discover connected game-specific tools.")
            ]
        return [
            next_action("games_connect", arg, "Connect or re-sync GABP tools for the running game.")
        ]
    if status in ("running-disconnected", "disconnected"):
        return [
            next_action(
                "games_connect",
                arg,
                "Reconnect after the GABP bridge disconnected or finished loading.",
            )
        ]
    return [
        next_action("games_status", arg, "Refresh the game status before deciding the next action.")
    ]


def validation_warnings(game: GameConfig) -> list[str]:
    warnings = []
    if game.url_mode and not game.stop_process_name and not game.has_url_hook_alternative:
        warnings.append(
            f"{game.launch_mode} games need stopProcessName — or a game-level status hook plus a "
            "stop or kill hook — for reliable games_stop and games_kill."
        )
    if game.url_mode and game.args:
        # Go pins the phrase and the example argument (TestGameValidationWarningsForLauncherArgs).
        head = (
            f"{game.launch_mode} launch mode does not pass configured args to the game "
            "(-savedatafolder=... and the like); "
        )
        if game.launch_mode == "SteamAppId":
            warnings.append(
                head + f"'gabs games repair {game.id}' moves it to a managed Steam launch, or "
                "use DirectPath or CustomCommand."
            )
        else:
            warnings.append(
                head + "use DirectPath, CustomCommand or the launcher's own launch options."
            )
    return warnings


def game_structured(game: GameConfig) -> dict[str, Any]:
    item: dict[str, Any] = {
        "gameId": game.id,
        "name": game.name,
        "launchMode": game.shown_launch_mode,
        "target": game.target,
        "hasStopProcessName": bool(game.stop_process_name),
    }
    if game.description:
        item["description"] = game.description
    if game.working_dir:
        item["workingDir"] = game.working_dir
    if game.args:
        item["args"] = list(game.args)
    if game.stop_process_name:
        item["stopProcessName"] = game.stop_process_name
    if game.gabp_mode:
        item["gabpMode"] = game.gabp_mode
    return item


def profiles_structured(game: GameConfig) -> list[dict[str, Any]]:
    result = []
    for name in sorted(game.profiles):
        entry: dict[str, Any] = {"name": name}
        if game.profiles[name].description:
            entry["description"] = game.profiles[name].description
        result.append(entry)
    return result


def launch_inputs_structured(game: GameConfig) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for name, spec in game.launch_inputs.items():
        entry: dict[str, Any] = {"type": spec.type, "description": spec.description}
        if spec.enum:
            entry["enum"] = list(spec.enum)
        if spec.minimum is not None:
            entry["minimum"] = spec.minimum
        if spec.maximum is not None:
            entry["maximum"] = spec.maximum
        if spec.type == "string":
            entry["maxLength"] = spec.max_length or INPUT_MAX_LENGTH_DEFAULT
            if spec.pattern:
                entry["pattern"] = spec.pattern
                entry["patternDialect"] = "re2-full-match"
        if spec.profiles:
            entry["profiles"] = list(spec.profiles)
        result[name] = entry
    return result


def config_health(data: dict[str, Any], config: GabsConfig, error: ConfigError | None) -> None:
    """Add warnings that belong to no game, and the error of an invalid file on disk."""
    global_warnings = [str(issue) for issue in config.global_warnings]
    if global_warnings:
        data["configWarnings"] = [*data.get("configWarnings", []), *global_warnings]
    if error is not None:
        data["configError"] = str(error)
        data["invalidRevision"] = error.revision or "unknown"


def config_health_text(error: ConfigError | None) -> str:
    if error is None:
        return ""
    return _invalid_file_notice(error.revision, str(error))


def config_notice(data: dict[str, Any]) -> str:
    """The invalid-file notice for a result :func:`config_health` filled in (``""`` when the
    file on disk is valid): the Go bridge puts it at the end of the text of ``games_list``,
    ``games_show`` and ``games_status``, for clients that show no structured content."""
    error = data.get("configError")
    if not isinstance(error, str):
        return ""
    return _invalid_file_notice(data.get("invalidRevision"), error)


def _invalid_file_notice(revision: object, error: str) -> str:
    return (
        f"\n\n⚠️ The configuration file on disk is INVALID (revision {revision}); values "
        f"shown come from the last-good configuration and edits are NOT active. Error: {error}"
    )


def evidence_json(evidence: Evidence | None) -> dict[str, Any] | None:
    if evidence is None:
        return None
    entry: dict[str, Any] = {"verdict": evidence.verdict, "source": evidence.source}
    if evidence.detail:
        entry["detail"] = evidence.detail
    result = evidence.hook_result
    if result is not None:
        hook: dict[str, Any] = {"exitCode": result.exit_code}
        if result.timed_out:
            hook["timedOut"] = True
        if result.exec_error:
            hook["execError"] = result.exec_error
        if result.stderr_tail:
            hook["stderrTail"] = result.stderr_tail
        entry["statusHook"] = hook
    return entry


def claim_identity(item: dict[str, Any], claim: RuntimeState) -> None:
    """The claim's lifecycle facts as Go attaches them to a status item and a connect result:
    phase, profile, the step in flight, the delivery verdict and the last action."""
    if claim.phase:
        item["phase"] = claim.phase
    if claim.effective_profile:
        item["activeProfile"] = claim.effective_profile
    if claim.operation is not None:
        item["operation"] = {
            "action": claim.operation.action,
            "attemptStartedAt": format_seconds(claim.operation.attempt_started_at),
            "deadline": format_seconds(claim.operation.deadline),
        }
    delivery = delivery_json(claim)
    if delivery is not None:
        item["contextDelivery"] = delivery
    result = claim.last_action_result
    if result is not None:
        entry: dict[str, Any] = {
            "action": result.action,
            "outcome": result.outcome,
            "timestamp": format_seconds(result.timestamp),
        }
        if result.exit_code is not None:
            entry["exitCode"] = result.exit_code
        if result.stderr_tail:
            entry["stderrTail"] = result.stderr_tail
        if result.detail:
            entry["detail"] = result.detail
        if result.tree_kill_warning:
            entry["treeKillWarning"] = True
        item["lastActionResult"] = entry


def runtime_lifecycle(item: dict[str, Any], claim: RuntimeState | None) -> None:
    """A status item's claim facts: the revision it runs, :func:`claim_identity`, and an
    external instance's source."""
    if claim is None:
        return
    if claim.config_revision:
        item["activeConfigRevision"] = claim.config_revision
    claim_identity(item, claim)
    if claim.source == "external":
        item["source"] = "external"
        if item.get("status") in ("shared-running", "running", "running-disconnected"):
            item["statusDescription"] = (
                "running (externally started; observed by ID — status/stop/kill work, attachment "
                "is unavailable)"
            )
        arg = {"gameId": claim.game_id}
        # Only what the pinned lifecycle can carry out is offered, as in Go.
        actions = [next_action("games_status", arg, "Re-check the externally observed instance.")]
        if action_supported(claim, "stop"):
            actions.append(
                next_action("games_stop", arg, "Stop the external instance to free the game.")
            )
        if action_supported(claim, "kill"):
            actions.append(
                next_action("games_kill", arg, "Force-terminate it if a graceful stop fails.")
            )
        item["nextActions"] = actions
