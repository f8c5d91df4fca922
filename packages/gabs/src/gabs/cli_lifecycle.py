"""``gabs games start|status|stop|kill|repair``: the lifecycle from the shell.

The same pipeline as the MCP tools, over the same runtime claims, so a game started here is
seen (and attached with ``games_connect``) by any bridge on the same config folder, and one a
bridge started is stopped here. ``start`` verifies that the game runs and exits without
connecting (``started_attachment_deferred``); the game keeps running. Results go to stdout,
refusals as ``code: message`` to stderr with exit code 1, as in the Go bridge.
"""

from __future__ import annotations

import argparse
import json
import re
import stat
import sys
from pathlib import Path
from typing import Any, Final

import anyio

from gabs.cli_games import Failed, load
from gabs.config import MODE_INCOMPATIBLE, ConfigError, GabsConfig, game_dir_problem
from gabs.go_format import go_quote
from gabs.launch import (
    NOT_INT64,
    ResolveError,
    check_resolvable,
    mode_incompatible_head,
    resolve,
)
from gabs.lifecycle import Lifecycle, LifecycleError, observe, start_game, stop_game
from gabs.lifecycle.pending import remove_with_credits
from gabs.runtime import ClaimError, claimed_ids, load_claim, transition_lock
from gabs.runtime.legacy import LegacyContext

__all__ = [
    "coerce_input",
    "games_kill",
    "games_start",
    "games_status",
    "games_stop",
    "parse_start_options",
    "repair_forget",
]


def parse_start_options(tokens: list[str]) -> tuple[str, dict[str, str]]:
    """``--profile NAME`` and repeated ``--input NAME=VALUE`` (a repeated name is an error)."""
    profile, inputs = "", {}
    index = 0
    while index < len(tokens):
        token = tokens[index]
        name, sep, inline = token.partition("=")
        if name in ("--profile", "--input"):
            if sep:
                value = inline
            elif index + 1 < len(tokens):
                value = tokens[index + 1]
                index += 1
            else:
                raise Failed(
                    f"{name} requires " + ("a value" if name == "--profile" else "NAME=VALUE"),
                    code=2,
                )
            if name == "--profile":
                profile = value
            else:
                key, eq, raw = value.partition("=")
                if not eq or not key:
                    raise Failed(f"--input must be NAME=VALUE, got {go_quote(value)}", code=2)
                if key in inputs:
                    raise Failed(f"--input {go_quote(key)} was given more than once", code=2)
                inputs[key] = raw
        else:
            raise Failed(f"unknown start flag: {token}", code=2)
        index += 1
    return profile, inputs


#: The spellings Go's ``strconv.ParseBool`` reads, and nothing else (no spaces, no other case).
_BOOLEANS: Final = {
    **dict.fromkeys(("1", "t", "T", "true", "TRUE", "True"), True),
    **dict.fromkeys(("0", "f", "F", "false", "FALSE", "False"), False),
}
#: What Go's ``strconv.ParseInt(v, 10, 64)`` reads: a sign, then ASCII digits only (Python's
#: ``int`` would also take spaces around them, ``_`` between them and other scripts' digits).
_DECIMAL: Final = re.compile(r"[+-]?[0-9]+")


def coerce_input(kind: str, raw: str) -> Any:
    """A ``--input`` value read as its declared type, as the Go bridge reads it."""
    if kind == "boolean":
        if raw in _BOOLEANS:
            return _BOOLEANS[raw]
        # The Go bridge echoes the value here; a launch input's value never is.
        raise ValueError("value must be a boolean (true/false)")
    if kind == "integer":
        if _DECIMAL.fullmatch(raw) is None:
            raise ValueError(NOT_INT64)
        return int(raw, 10)  # out of the 64-bit range: refused by the resolver, as in Go
    return raw


def _refuse(error: LifecycleError, game_id: str = "") -> int:
    for warning in error.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    message = error.message
    evidence = error.data.get("evidence")
    if error.cli_message:
        message = error.cli_message
    elif error.code == "already_running" and game_id and isinstance(evidence, dict):
        # The Go CLI prints the start gate's short refusal, not the tool's advice.
        message = f"{game_id} is already running ({evidence.get('detail', '')})"
    elif error.code == "exited_during_start" and game_id:
        message = _exited_line(game_id, error.data)
    elif error.code == "spec_too_large" and game_id:
        # The Go CLI prints the size check's own sentence, without the tool's lead-in.
        message = message.removeprefix(f"Refusing to start {game_id}: ")
    elif error.code == "blocked_unknown_state" and error.data.get("action") in ("stop", "kill"):
        # The Go CLI words an unreadable claim's stop refusal in its own short line.
        # and a lock or disk failure of the stop in lower case, as its own clause.
        message = message.replace("The runtime claim for", "the runtime claim for", 1).replace(
            ". Inspect it, or use 'gabs games repair", ". Use 'gabs games repair", 1
        )
        message = message.replace("Failed to ", "failed to ", 1)
    elif error.code == "unobserved" and game_id:
        message = (
            f"nothing observable for '{game_id}' within the start budget; the store launcher "
            f"may still be working \u2014 re-check 'gabs games status {game_id}'"
        )
    elif (error.code == "spawn_failed" and game_id) or (
        error.code == "blocked_unknown_state" and message.startswith(f"Failed to start {game_id}: ")
    ):
        # The Go CLI leads with its own short clause instead of the tool's (its start fails so
        # on a spawn error and on any other unexpected error, a lock or a disk failing).
        message = f"failed to start '{game_id}': " + message.removeprefix(
            f"Failed to start {game_id}: "
        )
    elif error.code == "endpoint_unavailable" and game_id:
        # The Go CLI prints the endpoint error without the tool's lead-in, and names a taken
        # cached port by its status word.
        message = message.removeprefix(f"Cannot start {game_id}: ")
        if error.data.get("status") == "endpoint_cache_in_use":
            message = message.replace(
                "already listening.", "already listening (endpoint_cache_in_use).", 1
            )
    print(f"{error.code}: {message}", file=sys.stderr)
    return 1


def _exited_line(game_id: str, data: dict[str, Any]) -> str:
    """The Go CLI's short line for a game that ended while starting, then its output tail (the
    tool's longer advice is left out); a signal is named, as in the tool's text."""
    signal_name = data.get("signal")
    if signal_name:
        how = f"was killed by signal {signal_name} during start"
    else:
        how = f"exited during start (exit code {data.get('exitCode', -1)})"
    line = f"'{game_id}' {how}; this is attributed to the workload"
    tail = data.get("outputTail")
    return f"{line}\n{tail}" if isinstance(tail, str) and tail else line


def _lifecycle(config: GabsConfig) -> Lifecycle:
    return Lifecycle(config.config_dir, config.settings, cli=True)


def games_start(args: argparse.Namespace) -> int:
    profile, raw_inputs = parse_start_options(args.options)
    try:
        config = GabsConfig.load(args.config_dir)
    except ConfigError as exc:
        print(f"config_invalid: {exc.invalid_text()}", file=sys.stderr)
        return 1
    game_id = args.game_id
    issues = config.broken.get(game_id)
    if issues:
        code = (
            "launch_mode_incompatible"
            if all(i.code == MODE_INCOMPATIBLE for i in issues)
            else "config_invalid"
        )
        if code == "launch_mode_incompatible":
            print(f"{code}: {mode_incompatible_head(game_id)}:", file=sys.stderr)
        else:
            print(f"{code}: the entry of {go_quote(game_id)} is invalid:", file=sys.stderr)
        for issue in issues:
            print(f"  {issue}", file=sys.stderr)
        return 1
    game = config.games.get(game_id)
    if game is None:
        print(f"game_not_found: no game {go_quote(game_id)} is configured", file=sys.stderr)
        return 1
    inputs: dict[str, Any] = {}
    for name, raw in raw_inputs.items():
        spec = game.launch_inputs.get(name)
        try:
            inputs[name] = coerce_input(spec.type, raw) if spec is not None else raw
        except ValueError as exc:
            # The Go bridge checks a boolean here and an integer in the resolver, whose words
            # name it a "launch input".
            kind = "launch input" if spec is not None and spec.type == "integer" else "input"
            print(f"launch_input_invalid: {kind} {go_quote(name)}: {exc}", file=sys.stderr)
            return 1
    try:
        resolved = resolve(game, profile=profile, inputs=inputs, revision=config.revision)
    except ResolveError as exc:
        print(f"{exc.code}: {exc.message}", file=sys.stderr)
        return 1
    problems = check_resolvable(game, resolved)
    if problems:
        print(f"launch_spec_unresolvable: cannot start {go_quote(game_id)}:", file=sys.stderr)
        for problem in problems:
            print(f"  {problem}", file=sys.stderr)
        return 1
    lc = _lifecycle(config)
    try:
        connect = float(game.timeouts.start_seconds or config.settings.startup.gabp_connect_seconds)
        started = anyio.run(lambda: start_game(lc, game, resolved, gabp_timeout=connect))
    except LifecycleError as exc:
        return _refuse(exc, game_id)
    for warning in started.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    how = "verified"
    if started.adopted:
        how = "verified via adoption"
        print(
            "warning: the launch was adopted — the direct child exited and the workload was "
            "observed by name or hook; injected args and env may not have survived a launcher "
            "re-exec.",
            file=sys.stderr,
        )
    if args.json:
        print(
            json.dumps(
                {
                    "code": "started_attachment_deferred",
                    "gameId": game_id,
                    "pid": started.claim.game_pid,
                    "port": started.port,
                    "activeProfile": started.resolved.profile or None,
                },
                indent=2,
            )
        )
        return 0
    print(
        f"started_attachment_deferred: '{game_id}' {how} (pid {started.claim.game_pid}, bridge "
        f"127.0.0.1:{started.port}). The workload is running and its runtime claim is active; "
        "attachment was not attempted. Attach from a server session with games_connect."
    )
    return 0


def _status_line(game_id: str, status: str, claim: Any, detail: str) -> str:
    if claim is None:
        return f"{game_id}: {status}" + (f" ({detail})" if detail else "")
    line = f"{game_id}: {status} — phase {claim.phase}"
    if claim.effective_profile:
        line += f", profile {claim.effective_profile}"
    return line + (f" ({detail})" if detail else "")


def games_status(args: argparse.Namespace) -> int:
    code = 0
    try:
        config = GabsConfig.load(args.config_dir)
    except ConfigError as exc:
        config = GabsConfig(args.config_dir)
        if not args.game_id:
            print(
                f"warning: configuration could not be read: {exc} (listing runtime claims only)",
                file=sys.stderr,
            )
            code = 1
    lc = _lifecycle(config)
    if args.game_id:
        ids = [args.game_id]
    else:
        ids = sorted({*config.game_ids, *claimed_ids(config.config_dir)})
    entries = []
    for game_id in ids:
        observation = anyio.run(observe, lc, game_id)
        if observation.error:
            print(f"{game_id}: cannot read runtime claim: {observation.error}", file=sys.stderr)
            code = 1
            continue
        entries.append((game_id, observation))
    if args.json:
        print(json.dumps([_status_json(game_id, o) for game_id, o in entries], indent=2))
        return code
    if not ids and code == 0:
        print("No games configured and no runtime claims.")
    for game_id, observation in entries:
        detail = observation.evidence.detail if observation.evidence else ""
        print(_status_line(game_id, observation.status, observation.claim, detail))
    return code


def _status_json(game_id: str, observation: Any) -> dict[str, Any]:
    claim = observation.claim
    return {
        "gameId": game_id,
        "status": observation.status,
        "phase": claim.phase if claim else None,
        "activeProfile": claim.effective_profile if claim else None,
        "pid": claim.game_pid if claim else None,
        "port": claim.endpoint_port if claim and claim.has_endpoint else None,
        "evidence": observation.evidence.to_json() if observation.evidence else None,
    }


def _stop(args: argparse.Namespace, action: str) -> int:
    try:
        config = load(args)
    except Failed:
        # As in the Go bridge, the runtime claim is all a stop needs: an unreadable config
        # only loses the entry's stop window and launch mode.
        config = GabsConfig(args.config_dir)
    lc = _lifecycle(config)
    game = config.games.get(args.game_id)
    window = game.timeouts.stop_grace_seconds if game is not None else None
    legacy = LegacyContext(game.launch_mode if game is not None else "", config.revision)
    try:
        outcome = anyio.run(
            lambda: stop_game(lc, args.game_id, action, verify_window=window, legacy=legacy)
        )
    except LifecycleError as exc:
        return _refuse(exc)
    if outcome is None:
        print(f"{args.game_id} is not running (no runtime claim).")
        return 0
    for warning in outcome.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if args.json:
        print(json.dumps({"gameId": args.game_id, **outcome.to_json()}, indent=2))
    else:
        print(
            f"{args.game_id}: {outcome.code}" + (f" — {outcome.detail}" if outcome.detail else "")
        )
    return 0 if outcome.code in ("terminated", "action_succeeded_running") else 1


def games_stop(args: argparse.Namespace) -> int:
    return _stop(args, "stop")


def games_kill(args: argparse.Namespace) -> int:
    return _stop(args, "kill")


def repair_forget(args: argparse.Namespace) -> int:
    """``repair ID --forget-runtime [--yes]``: show the claim and remove it (no verification)."""
    config = GabsConfig(args.config_dir)
    game_id = args.game_id
    folder = config.config_dir / game_id
    problem = game_dir_problem(config.config_dir, game_id)
    if problem is not None:  # never follow an id out of the config folder
        print(f"Cannot access a runtime claim for '{game_id}': {problem}")
        return 1
    try:
        raw = _claim_evidence(folder / "runtime.json")
    except OSError as exc:
        print(f"Cannot access a runtime claim for '{game_id}': {exc.strerror or exc}")
        return 1
    if raw is None:
        print(f"No runtime claim for '{game_id}'; nothing to forget.")
        return 0
    print(f"Runtime claim for '{game_id}':")
    try:
        claim = load_claim(folder)
    except ClaimError as exc:
        claim = None
        print(f"  (unreadable/corrupt claim: {exc})")
    if claim is not None:
        print(f"  phase:       {claim.phase}")
        print(f"  status:      {claim.status}")
        print(f"  launchID:    {claim.launch_id}")
        if claim.game_pid > 0:
            print(f"  workloadPID: {claim.game_pid}")
        if claim.attachment is not None and claim.attachment.owner_pid > 0:
            print(f"  ownerPID:    {claim.attachment.owner_pid}")
        if claim.operation is not None:
            print(f"  operation:   {claim.operation.action} (in progress)")
    print("\nForgetting removes the claim WITHOUT verifying the process is gone.")
    print("Only do this if the launch is provably gone.")
    if not args.yes:
        print("Forget this runtime claim? [y/N] ", end="", flush=True)
        answer = sys.stdin.readline().strip().lower()
        if answer not in ("y", "yes"):
            print("Aborted; the runtime claim was not removed.")
            return 1
    if claim is None and not _confirm_corrupt(args.yes):
        print("Aborted; the runtime claim was not removed.")
        return 1

    async def forget() -> bool:
        async with transition_lock(folder):
            now = _claim_evidence(folder / "runtime.json")
            if now is None:
                return True
            if now != raw:
                return False
            remove_with_credits(folder, claim)  # a readable claim's pending credits count
            return True

    try:
        forgotten = anyio.run(forget)
    except OSError as exc:
        print(f"Failed to remove the runtime claim for '{game_id}': {exc.strerror or exc}")
        return 1
    if not forgotten:
        print(
            "The runtime claim changed since its evidence was shown (a new launch was published). "
            "Re-run to review the current claim."
        )
        return 1
    suffix = " (pending credits discarded)" if claim is None else ""
    print(f"Removed the runtime claim for '{game_id}'{suffix}.")
    return 0


def _claim_evidence(path: Path) -> tuple[int, bytes] | None:
    """What is at ``runtime.json``: its file type and, for a regular file, its bytes; None when
    nothing is. Anything else (a symlink, a folder, a FIFO) is never opened, so a FIFO cannot
    block the one command that clears it."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        return None
    kind = stat.S_IFMT(info.st_mode)
    return kind, path.read_bytes() if kind == stat.S_IFREG else b""


def _confirm_corrupt(assume_yes: bool) -> bool:
    """The Go bridge's second confirmation before an unreadable claim is removed."""
    print("\nWARNING: the runtime claim is unreadable.")
    print(
        "Whatever it still held for the track record (a clean stop or a verified delivery not "
        "yet counted) is lost with it."
    )
    if assume_yes:
        return True
    print("Discard pending credits and remove anyway? [y/N] ", end="", flush=True)
    return sys.stdin.readline().strip().lower() in ("y", "yes")
