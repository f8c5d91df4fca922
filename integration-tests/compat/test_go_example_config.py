"""The Go bridge 1.1.0's ``example-config.json``, as its README and setup guide tell a user to
start from, put in a config folder byte for byte and read by the bridge under test.

Every expectation below is the Go binary's own answer for that file (taken from runs of both
bridges side by side): the commands of the README's walk-through (``games list``, ``games
show``, ``games status``, ``games doctor``, ``games start`` with a profile and a launch input),
and an MCP session with the top-level settings of the file (the tool names, ``games_show``,
``games_start`` refusals). Its paths (``/opt/mygame/...``) do not exist, so nothing is started.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from .harness import REQUEST_TIMEOUT, bridge_environment, structured, text_of

#: ``example-config.json`` of the Go bridge 1.1.0, as its release archive carries it.
EXAMPLE_CONFIG = Path(__file__).with_name("go_example_config.json").read_bytes()

#: The file's revision: the start of the SHA-256 of its bytes.
REVISION = "sha256:2ff995bff95e"
DESCRIPTION = (
    "One profiled game showing launch profiles, a typed launch input, and lifecycle hooks. The "
    "status hook is intentionally a WRAPPER, not a raw container/daemon query: it must check "
    "reachability first and exit an unclassified code (2) when it cannot tell, otherwise "
    "running=0 / stopped=1 (see docs/CONFIGURATION.md). All names here are neutral "
    "placeholders \u2014 replace them with your own."
)
WORLD = "Name of the world/save to load. Its value substitutes into ${value} in the bound arg."
#: The five problems of every launch context of the file, as both bridges word them.
MISSING = [
    "target does not exist (/games/myserver/target -> /opt/mygame/bin/server)",
    "working directory does not exist (/games/myserver/workingDir -> /opt/mygame)",
    "status hook command does not exist "
    "(/games/myserver/lifecycle/status/command -> /opt/mygame/hooks/status.sh)",
    "stop hook command does not exist "
    "(/games/myserver/lifecycle/stop/command -> /opt/mygame/hooks/stop.sh)",
    "kill hook command does not exist "
    "(/games/myserver/lifecycle/kill/command -> /opt/mygame/hooks/kill.sh)",
]
#: The lines of ``gabs games show myserver`` in the Go bridge, in their order (``gabs`` may
#: add lines of its own between them).
SHOW_LINES = [
    "Game Configuration: myserver",
    "  Name: Example Game Server",
    "  Launch Mode: DirectPath",
    "  Target: /opt/mygame/bin/server",
    "  Working Directory: /opt/mygame",
    "  Base Arguments (a profile appends to these): --port 7777",
    f"  Description: {DESCRIPTION}",
    "Default Profile: dev (used by a start that names no profile)",
    "Profiles:",
    "  dev (default) - Fast local iteration: verbose logs, a scratch data directory.",
    "  prod - Production-like: the real data directory, default logging.",
    "Launch Inputs (only these may be supplied per start):",
    "  world: string, maxLength 64, pattern ^[A-Za-z0-9_-]+$ (RE2, full match) - " + WORLD,
]
CORE_TOOLS = {
    "games_list",
    "games_show",
    "games_start",
    "games_stop",
    "games_kill",
    "games_status",
    "games_connect",
    "games_tools",
    "games_tool_names",
    "games_tool_detail",
    "games_call_tool",
    "games_get_attention",
    "games_ack_attention",
}


@pytest.fixture
def example_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "gabs-config"
    folder.mkdir()
    (folder / "config.json").write_bytes(EXAMPLE_CONFIG)
    return folder


@pytest.fixture
def cli(bridge_command: list[str], tmp_path: Path, example_dir: Path) -> Any:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)

    def run(*arguments: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*bridge_command, *arguments, "--configDir", str(example_dir)],
            capture_output=True,
            text=True,
            timeout=REQUEST_TIMEOUT,
            check=False,
            stdin=subprocess.DEVNULL,
            env=bridge_environment(home),
        )

    return run


def _in_order(expected: list[str], lines: list[str]) -> None:
    """Each of ``expected`` is one of ``lines``, in the same order."""
    position = 0
    for line in expected:
        assert line in lines[position:], (line, lines)
        position = lines.index(line, position) + 1


def test_the_readme_walk_through_reads_the_example_as_go(cli: Any) -> None:
    listed = cli("games", "list")
    assert (listed.returncode, listed.stdout) == (0, "myserver\n"), listed.stderr
    shown = cli("games", "show", "myserver")
    assert shown.returncode == 0, shown.stderr
    _in_order(SHOW_LINES, shown.stdout.splitlines())
    status = cli("games", "status")
    assert (status.returncode, status.stdout) == (0, "myserver: stopped (no runtime claim)\n")


def test_doctor_finds_every_context_of_the_example_unresolvable(cli: Any) -> None:
    doctor = cli("games", "doctor", "myserver")
    assert doctor.returncode == 1, doctor.stdout + doctor.stderr
    lines = doctor.stdout.splitlines()
    assert lines[:4] == [
        "Game: myserver",
        "Launch Mode: DirectPath",
        "Target: /opt/mygame/bin/server",
        "Configuration: valid",
    ]
    for context in ("default context", 'profile "dev"', 'profile "prod"'):
        assert f"{context}: unresolvable" in lines, doctor.stdout
    prod = lines.index('profile "prod": unresolvable')
    assert lines[prod + 2] == (
        "    working directory does not exist "
        "(/games/myserver/profiles/prod/workingDir -> /var/lib/mygame)"
    )
    assert lines[-1] == "Track record: none recorded"


@pytest.mark.parametrize(
    ("arguments", "stderr"),
    [
        (
            ("--profile", "prod", "--input", "world=a b"),
            'launch_input_invalid: launch input "world": value does not match pattern '
            '"^[A-Za-z0-9_-]+$" (full match)\n',
        ),
        (
            ("--input", "world=abc"),
            'launch_spec_unresolvable: cannot start "myserver":\n'
            + "".join(f"  {line}\n" for line in MISSING),
        ),
    ],
)
def test_a_cli_start_of_the_example_is_refused_as_go(
    cli: Any, arguments: tuple[str, ...], stderr: str
) -> None:
    started = cli("games", "start", "myserver", *arguments)
    assert (started.returncode, started.stdout, started.stderr) == (1, "", stderr)


@pytest.mark.anyio
async def test_a_host_session_on_the_example_as_go(
    bridge_command: list[str], tmp_path: Path, example_dir: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    params = StdioServerParameters(
        command=bridge_command[0],
        args=[*bridge_command[1:], "server", "stdio", "--configDir", str(example_dir)],
        env=bridge_environment(home),
    )
    with anyio.fail_after(REQUEST_TIMEOUT):
        async with Client(params, mode="legacy", read_timeout_seconds=REQUEST_TIMEOUT) as client:
            tools = (await client.list_tools()).tools
            assert {tool.name for tool in tools} == CORE_TOOLS
            for tool in tools:
                dotted = tool.name.replace("_", ".", 1)
                assert (tool.meta or {}).get("originalName") == dotted, tool
                assert (tool.description or "").endswith(f"(Original: {dotted})"), tool
            shown = structured(await client.call_tool("games_show", {"gameId": "myserver"}))
            assert shown["currentConfigRevision"] == REVISION
            assert shown["defaultProfile"] == "dev"
            assert shown["profiles"] == [
                {
                    "name": "dev",
                    "description": "Fast local iteration: verbose logs, a scratch data directory.",
                },
                {
                    "name": "prod",
                    "description": "Production-like: the real data directory, default logging.",
                },
            ]
            assert shown["launchInputs"] == {
                "world": {
                    "type": "string",
                    "description": WORLD,
                    "maxLength": 64,
                    "pattern": "^[A-Za-z0-9_-]+$",
                    "patternDialect": "re2-full-match",
                }
            }
            assert shown["game"]["args"] == ["--port", "7777"]
            refused = await client.call_tool(
                "games_start",
                {"gameId": "myserver", "profile": "prod", "launchInputs": {"world": "a b"}},
            )
            assert refused.is_error
            assert text_of(refused).startswith(
                'launch input "world": value does not match pattern "^[A-Za-z0-9_-]+$"'
            )
            assert structured(refused)["code"] == "launch_input_invalid"
            assert structured(refused)["causeClass"] == "call"
            unresolvable = await client.call_tool("games_start", {"gameId": "myserver"})
            assert unresolvable.is_error
            found = structured(unresolvable)
            assert (found["code"], found["causeClass"]) == ("launch_spec_unresolvable", "config")
            assert [
                f"{issue['message']} ({issue['path']} -> {issue['fsPath']})"
                for issue in found["issues"]
            ] == MISSING
            assert text_of(unresolvable).splitlines()[:6] == [
                "Launch spec is unresolvable:",
                *MISSING,
            ]
