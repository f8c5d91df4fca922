"""The Go bridge's design notes (design/04-11) as the v1.1.0 binary carries them out, pinned from
runs of both bridges side by side: the CLI's short start-failure lines (11-cli-surface), the
supersession rule of an ``unobserved`` launch's claim (05-start-pipeline, Stage 4) and what a
game started by a bare command name gets as argv[0] (02-launch-resolution)."""

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
import mcp_types as types
import pytest
from mcp import Client

from gabs.cli import main
from gabs.config import GabsConfig
from gabs.mcp.call_results import call_view
from gabs_test_support import mcp_client

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="xdg-open, /proc")
posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    out, err = capsys.readouterr()
    code = exited.value.code
    assert isinstance(code, int)
    return code, out, err


def write(config_dir: Path, games: dict[str, Any], **top: Any) -> None:
    config_dir.mkdir(parents=True, exist_ok=True)
    (config_dir / "config.json").write_text(
        json.dumps({"version": "1.0", "games": games, **top}), encoding="utf-8"
    )


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return tmp_path / "cfg"


@pytest.fixture
def opener(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A store URI opener that hands over and ends at once, as a launcher does."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "xdg-open"
    script.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")


# -- 11-cli-surface: `gabs games start` failures are the Go CLI's short lines ------------------


@posix_only
def test_cli_exited_during_start_is_go_s_line_then_the_output_tail(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Go: `exited_during_start: 'g' exited during start (exit code 3); this is attributed to
    # the workload`, then the raw output tail on the next lines (not the tool's advice).
    write(
        home,
        {
            "g": {
                "launchMode": "DirectPath",
                "target": "/bin/sh",
                "args": ["-c", "echo boom >&2; exit 3"],
            }
        },
    )
    code, out, err = run(["games", "start", "g", "--configDir", str(home)], capsys)
    assert (code, out) == (1, "")
    assert err == (
        "exited_during_start: 'g' exited during start (exit code 3); this is attributed to the "
        "workload\nboom\n\n"
    )


@posix_only
def test_cli_spawn_failed_has_go_s_lead_in(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.bin"
    bad.write_bytes(b"\x00\x01not a program")
    bad.chmod(0o755)
    write(home, {"bad": {"launchMode": "DirectPath", "target": str(bad)}})
    code, out, err = run(["games", "start", "bad", "--configDir", str(home)], capsys)
    assert (code, out) == (1, "")
    # Go: `spawn_failed: failed to start 'bad': <the OS error>` (the tool says `Failed to start
    # bad: ...`); the OS error is in our words.
    assert err.startswith("spawn_failed: failed to start 'bad': ")
    assert err.count("\n") == 1 and "format error" in err.lower()


def _store_game(**extra: Any) -> dict[str, Any]:
    return {"st": {"launchMode": "SteamAppId", "target": "123", **extra}}


_BUDGET = {"timeouts": {"startup": {"processStartSeconds": 1}}}


@linux_only
def test_cli_unobserved_points_at_the_cli_status_command(
    home: Path, opener: None, capsys: pytest.CaptureFixture[str]
) -> None:
    write(home, _store_game(stopProcessName="no-such-game-proc"), **_BUDGET)
    code, out, err = run(["games", "start", "st", "--configDir", str(home)], capsys)
    assert (code, out) == (1, "")
    last = err.splitlines()[-1]
    # Go: `unobserved: nothing observable for 'st' within the start budget; ... re-check 'gabs
    # games status st'` -- one line naming the command line's own status command.
    assert last.startswith("unobserved: nothing observable for 'st' within the start budget; ")
    assert last.endswith("'gabs games status st'")
    assert "games_status" not in err


# -- 05-start-pipeline, Stage 4: the claim an `unobserved` start leaves -------------------------


def _claim(home: Path, game_id: str = "st") -> dict[str, Any]:
    data: dict[str, Any] = json.loads((home / game_id / "runtime.json").read_text("utf-8"))
    return data


@linux_only
def test_a_start_over_an_unobserved_claim_past_its_budget_warns_that_it_supersedes_it(
    home: Path, opener: None, capsys: pytest.CaptureFixture[str]
) -> None:
    # The game is looked for by name and not found: absence, not stopped evidence. Go clears
    # the claim only past its budget and then warns (`superseded an unobserved launch of st
    # past its start budget; ...`); the old gabs removed it silently.
    write(home, _store_game(stopProcessName="no-such-game-proc"), **_BUDGET)
    base = ["--configDir", str(home)]
    assert run(["games", "start", "st", *base], capsys)[0] == 1
    first = _claim(home)
    assert (first["phase"], first["spawnState"]) == ("starting", "spawned")
    code, _, err = run(["games", "start", "st", *base], capsys)
    assert code == 1
    warnings = [line for line in err.splitlines() if line.startswith("warning: ")]
    assert any("superseded" in w and "could still appear" in w for w in warnings), err
    assert _claim(home)["launchId"] != first["launchId"]


@linux_only
def test_absence_within_an_unobserved_claim_s_budget_blocks_the_start(
    home: Path, opener: None, capsys: pytest.CaptureFixture[str]
) -> None:
    write(home, _store_game(stopProcessName="no-such-game-proc"), **_BUDGET)
    base = ["--configDir", str(home)]
    assert run(["games", "start", "st", *base], capsys)[0] == 1
    claim = _claim(home)
    later = datetime.now(UTC) + timedelta(hours=1)
    claim["processStartDeadline"] = later.strftime("%Y-%m-%dT%H:%M:%SZ")
    (home / "st" / "runtime.json").write_text(json.dumps(claim), encoding="utf-8")
    code, out, err = run(["games", "start", "st", *base], capsys)
    # Go: `blocked_unknown_state: a launch of st is still unobserved within its start budget;
    # ...` (the store may still bring it up); the claim stays.
    assert (code, out) == (1, "")
    assert err.startswith("blocked_unknown_state: ")
    assert _claim(home)["launchId"] == claim["launchId"]


@linux_only
def test_a_status_hook_that_cannot_tell_blocks_even_past_the_budget(
    home: Path, opener: None, capsys: pytest.CaptureFixture[str]
) -> None:
    hook = {"command": "/bin/sh", "args": ["-c", "exit 7"]}
    write(
        home, _store_game(lifecycle={"status": hook, "stop": {"command": "/bin/true"}}), **_BUDGET
    )
    base = ["--configDir", str(home)]
    assert run(["games", "start", "st", *base], capsys)[0] == 1
    first = _claim(home)
    assert first["phase"] == "starting"
    code, _, err = run(["games", "start", "st", *base], capsys)
    # Go supersedes only when no source answered at all; a hook's unknown blocks:
    # `blocked_unknown_state: cannot determine whether st is still running (status hook exit
    # code 7); ...`.
    assert code == 1
    assert err.splitlines()[-1] == (
        "blocked_unknown_state: cannot determine whether st is still running (status hook exit "
        "code 7); a claim exists, so uncertainty blocks the start — verify manually, then "
        "repair --forget-runtime if it is truly gone"
    )
    assert _claim(home)["launchId"] == first["launchId"]


# -- 02-launch-resolution: a bare command name ----------------------------------------------------


@linux_only
def test_a_bare_command_name_stays_argv0_as_written(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Go's exec.Command("python3") looks the name up on the bridge's PATH and gives the game
    # argv[0] = "python3"; the old gabs gave it the path it found.
    exe = Path(sys.executable)
    monkeypatch.setenv("PATH", f"{exe.parent}{os.pathsep}{os.environ.get('PATH', '')}")
    show = (
        "import sys; first = open('/proc/self/cmdline', 'rb').read().split(b'\\0')[0]; "
        "sys.stderr.write(first.decode()); sys.exit(4)"
    )
    write(home, {"g": {"launchMode": "CustomCommand", "target": exe.name, "args": ["-c", show]}})
    code, _, err = run(["games", "start", "g", "--configDir", str(home)], capsys)
    assert code == 1
    assert err.splitlines()[1] == exe.name


# -- 07-runtime-state, external snapshots: what status offers, what the refusal carries ----------


@asynccontextmanager
async def served(tmp_path: Path, entry: dict[str, Any]) -> AsyncIterator[Client]:
    config = GabsConfig.from_json({"version": "1.0", "games": {"u": entry}}, config_dir=tmp_path)
    async with mcp_client(config) as client:
        yield client


@posix_only
async def test_an_external_snapshot_offers_only_the_actions_its_lifecycle_can_do(
    tmp_path: Path,
) -> None:
    # A kill-only configuration (status and kill hooks, no stop hook, no stopProcessName): Go's
    # games_status and games_show of the external instance offer games_status and games_kill,
    # never a games_stop that would answer stop_unsupported.
    running = {"command": sys.executable, "args": ["-c", "raise SystemExit(0)"]}
    entry = {
        "name": "U",
        "launchMode": "SteamAppId",
        "target": "123",
        "lifecycle": {"status": running, "kill": {"command": "/bin/true"}},
    }
    async with served(tmp_path, entry) as client:
        with anyio.fail_after(30):
            refused = await client.call_tool("games_start", {"gameId": "u"})
            status = await client.call_tool("games_status", {"gameId": "u"})
            shown = await client.call_tool("games_show", {"gameId": "u"})
            connect = await client.call_tool("games_connect", {"gameId": "u"})
    # Go: `Failed to resolve live GABP endpoint for 'u': attachment unavailable: ...`
    assert connect.is_error and call_view(connect)["code"] == "endpoint_unavailable"
    first = connect.content[0]
    assert isinstance(first, types.TextContent)
    assert first.text.startswith(
        "Failed to resolve live GABP endpoint for 'u': attachment unavailable: "
    )
    data = call_view(refused)
    assert data["code"] == "external_instance_detected"
    # One profile found running: the snapshot is the answer, so Go lists no candidates.
    assert "candidates" not in data
    assert [a["tool"] for a in data["nextActions"]] == ["games_status", "games_stop"]
    for result in (call_view(status), call_view(shown)):
        assert result["source"] == "external"
        assert [a["tool"] for a in result["nextActions"]] == ["games_status", "games_kill"]
