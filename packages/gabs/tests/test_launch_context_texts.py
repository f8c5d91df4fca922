"""The texts of launch-context refusals and lifecycle-hook results, as the Go bridge (1.1.0)
words them (pinned here: the Go binary is not needed), except that a launch input's value is
never echoed (the Go bridge echoes it in a few of these)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from gabs.cli import main
from gabs.config import GabsConfig
from gabs.launch import ResolveError, resolve
from gabs.launch.hooks import HookResult
from gabs.mcp.call_results import call_view
from gabs.runtime.claim import Attachment, RuntimeState
from gabs.runtime.liveness import evaluate
from gabs.runtime.procs import fingerprint
from gabs_test_support import mcp_client, text

SECRET = "s3cr3tvalue"

ENTRY: dict[str, Any] = {
    "name": "G",
    "launchMode": "DirectPath",
    "target": "/bin/g",
    "defaultProfile": "normal",
    "profiles": {"normal": {"description": "n"}, "debug": {"description": "d"}},
    "launchInputs": {
        "flag": {"description": "f", "type": "boolean", "args": ["--flag"]},
        "level": {
            "description": "l",
            "type": "integer",
            "minimum": 1,
            "maximum": 5,
            "env": {"LEVEL": "${value}"},
        },
        "mode": {
            "description": "m",
            "type": "string",
            "enum": ["fast", "slow"],
            "args": ["--mode=${value}"],
        },
        "name": {
            "description": "n",
            "type": "string",
            "maxLength": 12,
            "pattern": "[a-z0-9]+",
            "args": ["--name=${value}"],
        },
        "dbg": {
            "description": "d",
            "type": "string",
            "profiles": ["debug"],
            "args": ["--dbg=${value}"],
        },
    },
}


def refusal(entry: dict[str, Any], profile: str = "", **inputs: Any) -> str:
    config = GabsConfig.from_json({"games": {"g": entry}})
    with pytest.raises(ResolveError) as caught:
        resolve(config.game("g"), profile=profile, inputs=inputs, inherited={})
    return f"{caught.value.code}: {caught.value.message}"


@pytest.mark.parametrize(
    ("profile", "inputs", "expected"),
    [
        ("nope", {}, 'profile_not_found: game "g" has no profile "nope"'),
        ("", {"zzz": SECRET}, 'launch_input_not_declared: launch input "zzz" is not declared for '
         'game "g"'),
        ("", {"flag": SECRET}, 'launch_input_invalid: launch input "flag": value must be a '
         "boolean"),
        ("", {"level": SECRET}, 'launch_input_invalid: launch input "level": value must be an '
         "integer"),
        ("", {"level": 2.5}, 'launch_input_invalid: launch input "level": value is not a 64-bit '
         "integer"),
        ("", {"level": 2**63}, 'launch_input_invalid: launch input "level": value is not a '
         "64-bit integer"),
        ("", {"level": 0}, 'launch_input_invalid: launch input "level": value is below minimum 1'),
        ("", {"level": 9}, 'launch_input_invalid: launch input "level": value is above maximum 5'),
        ("", {"mode": SECRET}, 'launch_input_invalid: launch input "mode": value is not in the '
         "declared enum"),
        ("", {"name": SECRET + "ZZ"}, 'launch_input_invalid: launch input "name": value is 13 '
         "code points, maxLength is 12"),
        ("", {"name": "AB"}, 'launch_input_invalid: launch input "name": value does not match '
         'pattern "[a-z0-9]+" (full match)'),
        ("", {"dbg": SECRET}, 'launch_input_invalid: launch input "dbg" is not applicable to '
         'profile "normal"'),
    ],
)  # fmt: skip
def test_a_refused_launch_context_is_worded_as_go_without_the_value(
    profile: str, inputs: dict[str, Any], expected: str
) -> None:
    assert refusal(ENTRY, profile, **inputs) == expected


def test_a_profile_for_a_game_without_profiles_is_worded_as_go() -> None:
    entry = {"name": "G", "launchMode": "DirectPath", "target": "/bin/g"}
    assert refusal(entry, "x") == (
        'profiles_not_configured: game "g" has no profiles configured; edit the config to add '
        "them (changes apply without restart)"
    )


# --- the command line --------------------------------------------------------------------------


def cli_start(tmp_path: Path, capsys: pytest.CaptureFixture[str], entry: dict[str, Any],
              *options: str) -> tuple[int, str, str]:  # fmt: skip
    (tmp_path / "config.json").write_text(
        json.dumps({"version": "1.0", "games": {"g": {"id": "g", **entry}}}), encoding="utf-8"
    )
    with pytest.raises(SystemExit) as exited:
        main(["games", "start", "g", *options, "--configDir", str(tmp_path)])
    out, err = capsys.readouterr()
    assert isinstance(exited.value.code, int)
    return exited.value.code, out, err


@pytest.mark.parametrize(
    ("option", "line"),
    [
        (f"level={SECRET}", 'launch_input_invalid: launch input "level": value is not a 64-bit '
         "integer"),
        (f"flag={SECRET}", 'launch_input_invalid: input "flag": value must be a boolean '
         "(true/false)"),
        (f"mode={SECRET}", 'launch_input_invalid: launch input "mode": value is not in the '
         "declared enum"),
        (f"zzz={SECRET}", 'launch_input_not_declared: launch input "zzz" is not declared for '
         'game "g"'),
    ],
)  # fmt: skip
def test_the_cli_refuses_an_input_as_go_without_the_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, line: str
) -> None:
    code, out, err = cli_start(tmp_path, capsys, ENTRY, "--input", option)
    assert (code, out, err) == (1, "", line + "\n")
    assert SECRET not in err


def test_the_cli_names_a_launch_mode_that_cannot_take_a_context_as_go(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entry = {
        "name": "S",
        "launchMode": "SteamAppId",
        "target": "123",
        "stopProcessName": "s",
        "env": {"A": "1"},
    }
    code, out, err = cli_start(tmp_path, capsys, entry)
    assert (code, out) == (1, "")
    assert err.splitlines() == [
        'launch_mode_incompatible: the launch mode of "g" cannot deliver launch context; remove '
        "the incompatible fields or switch modes:",
        "  /games/g/env: SteamAppId launches via a launcher URL and cannot deliver launch context "
        "to the game; use SteamManaged, DirectPath, or CustomCommand",
    ]


# --- hooks through the MCP tools ---------------------------------------------------------------


def verification_details() -> list[tuple[str, HookResult, str]]:
    return [
        ("running", HookResult(exit_code=0), "status hook reports running (exit 0)"),
        ("stopped", HookResult(exit_code=1), "status hook reports stopped (exit 1)"),
        ("unknown", HookResult(exit_code=7), "status hook exit 7 is unclassified"),
        ("unknown", HookResult(exit_code=-1, timed_out=True), "status hook timed out"),
    ]


@pytest.mark.parametrize(("verdict", "result", "detail"), verification_details())
def test_a_status_hook_run_in_a_stops_evidence_is_worded_as_go(
    verdict: str, result: HookResult, detail: str
) -> None:
    assert result.verification_detail(verdict) == detail


# liveness.go: a status hook's evidence detail names the time the run took as Go prints a
# Duration rounded to the millisecond ("status hook timed out after 5.005s").
@pytest.mark.parametrize(
    ("duration", "text"),
    [
        (5.0049, "timed out after 5.005s"),
        (5.0, "timed out after 5s"),
        (60.1, "timed out after 1m0.1s"),
    ],
)
def test_a_status_hook_timeout_names_its_duration_as_go(duration: float, text: str) -> None:
    assert HookResult(exit_code=-1, timed_out=True, duration=duration).describe() == text


def python_hook(code: str, **extra: Any) -> dict[str, Any]:
    return {"command": sys.executable, "args": ["-c", code], **extra}


@asynccontextmanager
async def client_for(tmp_path: Path, **entry: Any) -> AsyncIterator[Client]:
    game = {"id": "g", "name": "Gee", "launchMode": "CustomCommand", "target": sys.executable,
            "args": ["-m", "lib_gab.example"], **entry}  # fmt: skip
    config = GabsConfig.from_json({"version": "1.0", "games": {"g": game}}, config_dir=tmp_path)
    async with mcp_client(config) as client:
        yield client


pytestmark_posix = pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")


@pytestmark_posix
async def test_several_profiles_a_status_hook_finds_running_refuse_a_start_as_go(
    tmp_path: Path,
) -> None:
    async with client_for(
        tmp_path,
        defaultProfile="main",
        profiles={"main": {"description": "m"}, "alt": {"description": "a"}},
        lifecycle={"status": python_hook("raise SystemExit(0)")},
    ) as client:
        with anyio.fail_after(30):
            refused = await client.call_tool("games_start", {"gameId": "g"})
    data = call_view(refused)
    assert refused.is_error
    assert (data["code"], data["candidates"], data["requestedProfile"]) == (
        "external_instance_detected",
        ["alt", "main"],
        "main",
    )
    assert text(refused).splitlines()[0] == (
        "multiple profiles of g report running (alt, main); resolve manually before starting"
    )


@pytestmark_posix
async def test_one_instance_a_status_hook_finds_running_is_refused_and_tracked_as_go(
    tmp_path: Path,
) -> None:
    async with client_for(
        tmp_path,
        lifecycle={
            "status": python_hook("raise SystemExit(0)"),
            "stop": python_hook("pass", verifyTimeoutSeconds=1),
        },
    ) as client:
        with anyio.fail_after(30):
            refused = await client.call_tool("games_start", {"gameId": "g"})
    assert call_view(refused)["code"] == "external_instance_detected"
    assert text(refused).splitlines()[0] == (
        "an instance of g (profile none) is already running outside GABS management; it is now "
        "tracked by ID for status/stop/kill"
    )


@pytestmark_posix
async def test_a_stop_hook_that_times_out_and_the_verification_evidence_read_as_go(
    tmp_path: Path,
) -> None:
    async with client_for(
        tmp_path,
        timeouts={"startSeconds": 20, "stopGraceSeconds": 3},
        lifecycle={
            "status": python_hook("raise SystemExit(1)"),
            "stop": python_hook("import time; time.sleep(30)", timeoutSeconds=1),
        },
    ) as client:
        with anyio.fail_after(90):
            started = await client.call_tool("games_start", {"gameId": "g"})
            assert call_view(started)["code"] == "started_connected", text(started)
            stopped = await client.call_tool("games_stop", {"gameId": "g"})
            killed = await client.call_tool("games_kill", {"gameId": "g"})
    assert call_view(stopped)["code"] == "action_timed_out", text(stopped)
    assert text(stopped).splitlines()[0] == (
        "The stop hook for 'g' timed out and its process tree was terminated."
    )
    kill = call_view(killed)
    assert kill["code"] == "terminated", text(killed)
    assert kill["evidence"].endswith("; status hook reports stopped (exit 1)"), kill["evidence"]


async def test_another_bridges_fresh_lease_names_its_deadline_as_go() -> None:
    """The evidence ``gabs games status`` and ``already_running`` print: Go's RFC 3339 deadline."""
    deadline = datetime(2031, 5, 6, 7, 8, 9, 987654, tzinfo=UTC)
    claim = RuntimeState(
        game_id="g",
        status="running",
        attachment=Attachment(
            connection_id="c",
            owner_instance_id="other",
            owner_pid=os.getpid(),
            owner_pid_start_time=fingerprint(os.getpid()),
            lease_deadline=deadline,
        ),
    )
    evidence = await evaluate(claim, game_id="g", instance_id="mine", now=deadline - timedelta(1))
    assert (evidence.verdict, evidence.detail) == (
        "running",
        f"bridge attachment lease fresh (owner pid {os.getpid()} alive, lease until "
        "2031-05-06T07:08:09Z)",
    )


async def test_a_launch_mode_that_cannot_take_a_context_is_refused_as_go(tmp_path: Path) -> None:
    async with client_for(
        tmp_path, launchMode="SteamAppId", target="123", stopProcessName="s", env={"A": "1"}
    ) as client:
        with anyio.fail_after(30):
            refused = await client.call_tool("games_start", {"gameId": "g"})
    data = call_view(refused)
    assert refused.is_error
    assert data["code"] == "launch_mode_incompatible"
    assert data["invalidRevision"].startswith("sha256:")
    assert text(refused).splitlines()[:2] == [
        'The launch mode of "g" cannot deliver launch context; remove the incompatible fields '
        "or switch modes:",
        "  /games/g/env: SteamAppId launches via a launcher URL and cannot deliver launch context "
        "to the game; use SteamManaged, DirectPath, or CustomCommand",
    ]


async def test_profiles_not_configured_points_at_the_profiles_documentation(
    tmp_path: Path,
) -> None:
    async with client_for(tmp_path) as client:
        with anyio.fail_after(30):
            refused = await client.call_tool("games_start", {"gameId": "g", "profile": "x"})
    data = call_view(refused)
    assert (data["code"], data["requestedProfile"]) == ("profiles_not_configured", "x")
    assert data["documentation"] == "docs/gabs/configuration.md#gamesid-the-go-bridges-keys"
    assert text(refused).splitlines()[0] == (
        'game "g" has no profiles configured; edit the config to add them (changes apply '
        "without restart)"
    )
