"""The lifecycle tools' results as the Go bridge gives them: codes, ``nextActions``, the
status words, and the runtime files a second process reads (issue 11)."""

from __future__ import annotations

import json
import stat
import sys
from typing import Any

import anyio
import pytest

from .harness import ConfigDir, OpenBridge, start_game
from .results import data, next_tools, process_alive, text_of, wait_gone

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")


async def test_a_start_answers_with_the_go_codes_and_next_actions(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("compat")
    with anyio.fail_after(120):
        async with open_bridge(config_dir) as client:
            started = await start_game(client)
            assert (data(started)["code"], data(started)["gameId"]) == (
                "started_connected",
                "compat",
            )
            assert "games_tool_names" in next_tools(started)

            again = await client.call_tool("games_start", {"gameId": "compat"})
            assert not again.is_error, text_of(again)
            assert (data(again)["code"], data(again)["causeClass"]) == ("already_running", "state")
            # the start gate's line: the game and the evidence it is running on
            assert (
                text_of(again).splitlines()[0] == "compat is already running (live GABP connection)"
            )
            # the connect of this launch is credited to its context
            assert "bridge connected 1\u00d7" in data(again)["trackRecord"], data(again)

            status = await client.call_tool("games_status", {"gameId": "compat"})
            assert data(status)["status"] == "running", text_of(status)

            stopped = await client.call_tool("games_stop", {"gameId": "compat"})
            assert not stopped.is_error, text_of(stopped)
            assert (data(stopped)["code"], data(stopped)["claimRemoved"]) == ("terminated", True)
            after = await client.call_tool("games_status", {"gameId": "compat"})
            assert data(after)["status"] == "stopped"
            again_stopped = await client.call_tool("games_stop", {"gameId": "compat"})
            assert again_stopped.is_error, "a game that is not running is not reported stopped"

            # the verified stop is a clean stop; the second launch connects once more
            await start_game(client)
            third = await client.call_tool("games_start", {"gameId": "compat"})
            record = data(third)["trackRecord"]
            assert "started 2\u00d7" in record, record
            assert "bridge connected 2\u00d7, clean stops 1\u00d7" in record, record
            await client.call_tool("games_stop", {"gameId": "compat"})


@pytest.mark.parametrize(
    ("arguments", "code", "cause"),
    [
        ({"gameId": "nope"}, "game_not_found", "call"),
        ({"gameId": "compat", "timeout": 0}, "timeout_out_of_range", "call"),
        ({"gameId": "compat", "timeout": 3601}, "timeout_out_of_range", "call"),
        ({"gameId": "compat", "profile": "fast"}, "profiles_not_configured", "call"),
        ({"gameId": "compat", "launchInputs": {"level": 1}}, "launch_input_not_declared", "call"),
    ],
)
async def test_a_refused_start_names_its_code_and_cause(
    open_bridge: OpenBridge, config_dir: ConfigDir, arguments: dict[str, Any], code: str, cause: str
) -> None:
    config_dir.game("compat")
    with anyio.fail_after(60):
        async with open_bridge(config_dir) as client:
            result = await client.call_tool("games_start", arguments)
    assert result.is_error
    assert (data(result)["code"], data(result)["causeClass"]) == (code, cause)
    assert config_dir.game_pid("compat") is None


async def test_an_undeclared_argument_is_unknown_argument(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("compat")
    with anyio.fail_after(60):
        async with open_bridge(config_dir) as client:
            result = await client.call_tool("games_stop", {"gameId": "compat", "force": True})
    assert result.is_error
    assert {k: data(result)[k] for k in ("code", "path", "unknown", "allowed", "causeClass")} == {
        "code": "unknown_argument",
        "path": "/force",
        "unknown": ["force"],
        "allowed": ["gameId"],
        "causeClass": "call",
    }
    assert text_of(result).startswith('Unknown argument "force". Allowed arguments: gameId')


async def test_a_game_that_exits_while_starting_is_exited_during_start(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("crashy", env={"COMPAT_EXIT": "3"})
    with anyio.fail_after(60):
        async with open_bridge(config_dir) as client:
            result = await client.call_tool("games_start", {"gameId": "crashy"})
            status = await client.call_tool("games_status", {"gameId": "crashy"})
    assert result.is_error
    found = data(result)
    assert (found["code"], found["exitCode"], found["causeClass"]) == (
        "exited_during_start",
        3,
        "game",
    )
    assert "cannot load the save" in found["outputTail"]
    assert data(status)["status"] == "stopped"


#: Over every platform's combined exec limit (Linux at most 6 MiB, macOS 1 MiB, Windows far
#: less) without depending on Linux's page-sized cap on one string.
OVERSIZED_ARGS = ["x" * 100 * 1024] * 65


async def test_a_launch_over_the_exec_limits_is_spec_too_large_and_spawns_nothing(
    open_bridge: OpenBridge, config_dir: ConfigDir, gabs_cli: Any
) -> None:
    entry = config_dir.game("big")
    entry["args"] = entry["args"] + OVERSIZED_ARGS
    with anyio.fail_after(120):
        async with open_bridge(config_dir) as client:
            result = await client.call_tool("games_start", {"gameId": "big", "timeout": 1})
            status = await client.call_tool("games_status", {"gameId": "big"})
        cli = await anyio.to_thread.run_sync(lambda: gabs_cli(config_dir, "games", "start", "big"))
    assert result.is_error
    found = data(result)
    assert (found["code"], found["part"], found["gameId"], found["causeClass"]) == (
        "spec_too_large",
        "args",
        "big",
        "config",
    )
    assert next_tools(result) == ["games_show"]
    assert text_of(result).startswith("Refusing to start big: ")
    assert data(status)["status"] == "stopped", text_of(status)
    assert config_dir.game_pid("big") is None and config_dir.launch_report("big") is None
    folder = config_dir.path / "big"
    assert not (folder / "runtime.json").exists()
    bridge = json.loads((folder / "bridge.json").read_text(encoding="utf-8"))
    assert len(bridge["token"]) == 64
    assert not {"profile", "configRevision", "startedAt"} & {k for k, v in bridge.items() if v}
    assert cli.returncode == 1, cli.stderr
    assert any(line.startswith("spec_too_large: ") for line in cli.stderr.splitlines()), cli.stderr


async def test_a_slow_game_is_bridge_pending_then_connected(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("slow", env={"COMPAT_DELAY": "4"})
    with anyio.fail_after(120):
        async with open_bridge(config_dir) as client:
            pending = await client.call_tool("games_start", {"gameId": "slow", "timeout": 1})
            assert not pending.is_error, text_of(pending)
            assert data(pending)["code"] == "started_bridge_pending"
            assert (data(pending)["processStarted"], data(pending)["gabpConnected"]) == (
                True,
                False,
            )
            assert {"games_status", "games_connect"} <= set(next_tools(pending))
            while config_dir.game_pid("slow") is None:  # noqa: ASYNC110 - up once it wrote its pid
                await anyio.sleep(0.1)
            connected = await client.call_tool("games_connect", {"gameId": "slow"})
            assert not connected.is_error, text_of(connected)
            assert data(connected)["connected"] is True
            echo = await client.call_tool(
                "games_call_tool",
                {"gameId": "slow", "tool": "compat/echo", "arguments": {"text": "up"}},
            )
            assert not echo.is_error and "up" in text_of(echo)
            killed = await client.call_tool("games_kill", {"gameId": "slow"})
            assert data(killed)["code"] == "terminated", text_of(killed)


async def test_the_runtime_files_have_the_go_format(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("minecraft.paper")
    with anyio.fail_after(120):
        async with open_bridge(config_dir) as client:
            started = await client.call_tool("games_start", {"gameId": "minecraft.paper"})
            assert data(started)["code"] == "started_connected", text_of(started)
            folder = config_dir.path / "minecraft.paper"
            bridge = json.loads((folder / "bridge.json").read_text(encoding="utf-8"))
            claim = json.loads((folder / "runtime.json").read_text(encoding="utf-8"))
            launch = config_dir.launch_report("minecraft.paper")
            claim_mode = stat.S_IMODE((folder / "runtime.json").stat().st_mode)
            await client.call_tool("games_kill", {"gameId": "minecraft.paper"})
    assert (bridge["gameId"], len(bridge["token"])) == ("minecraft.paper", 64)
    assert (claim["gameId"], claim["schemaVersion"], claim["phase"], claim["source"]) == (
        "minecraft.paper",
        2,
        "active",
        "gabs",
    )
    assert claim["endpoint"] == {"port": bridge["port"], "token": bridge["token"]}
    assert claim["gamePid"] == config_dir.game_pid("minecraft.paper")
    assert claim_mode == 0o600
    assert launch is not None and launch["hasToken"]
    env = launch["env"]
    assert (env["GABP_SERVER_PORT"], env["GABS_GAME_ID"], env["GABS_BRIDGE_PATH"]) == (
        str(bridge["port"]),
        "minecraft.paper",
        str(folder / "bridge.json"),
    )
    assert {"GABP_SERVER_PORT", "GABP_TOKEN", "GABS_GAME_ID", "GABS_BRIDGE_PATH"} <= set(
        env["GABS_FORWARD_ENV"].split(",")
    )


async def test_the_status_probes_before_a_start_run_under_the_new_claim(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    """The start claim is published before the pre-start probes: a status hook run there finds
    the launch's claim (``starting``, ``preflight``, its start step), so a status or a second
    start meanwhile sees the start in progress."""
    claim_path = config_dir.path / "compat" / "runtime.json"
    seen = config_dir.games_dir / "claim-at-probe.json"
    pid_file = config_dir.games_dir / "compat.pid"
    # the first run copies what it finds; the hook reports running while the game's pid lives
    script = (
        '[ -e "$1" ] || cp "$0" "$1" 2>/dev/null || : > "$1"; '
        '[ -s "$2" ] && kill -0 "$(cat "$2")" 2>/dev/null && exit 0; exit 1'
    )
    status_hook = {
        "command": "/bin/sh",
        "args": ["-c", script, str(claim_path), str(seen), str(pid_file)],
    }
    config_dir.game("compat", lifecycle={"status": status_hook})
    with anyio.fail_after(120):
        async with open_bridge(config_dir) as client:
            started = await client.call_tool("games_start", {"gameId": "compat"})
            assert data(started)["code"] == "started_connected", text_of(started)
            stopped = await client.call_tool("games_stop", {"gameId": "compat"})
            assert data(stopped)["code"] == "terminated", text_of(stopped)
    text = seen.read_text(encoding="utf-8")
    assert text, "no claim existed while the pre-start probes ran"
    claim = json.loads(text)
    assert (claim["gameId"], claim["phase"], claim["spawnState"]) == (
        "compat",
        "starting",
        "preflight",
    )
    assert claim["operation"]["action"] == "start"


async def test_profiles_and_launch_inputs_shape_the_launch(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    entry = config_dir.game("profiled", env={"COMPAT_BASE": "game"})
    entry["args"] = [*entry["args"], "--base"]
    entry["unsetEnv"] = ["COMPAT_DROPPED"]
    entry["defaultProfile"] = "safe"
    entry["profiles"] = {
        "safe": {"description": "The default.", "args": ["--safe"]},
        "fast": {"description": "Quick runs.", "args": ["--fast"], "env": {"COMPAT_BASE": "fast"}},
    }
    entry["launchInputs"] = {
        "level": {
            "description": "Level.",
            "type": "integer",
            "minimum": 1,
            "maximum": 9,
            "args": ["--level", "${value}"],
        },
        "skip": {"description": "Skip intro.", "type": "boolean", "args": ["--skip"]},
        "map": {
            "description": "Map.",
            "type": "string",
            "enum": ["river", "desert"],
            "env": {"COMPAT_MAP": "${value}"},
        },
    }
    with anyio.fail_after(120):
        async with open_bridge(config_dir, env={"COMPAT_DROPPED": "leak"}) as client:
            shown = await client.call_tool("games_show", {"gameId": "profiled"})
            assert [p["name"] for p in data(shown)["profiles"]] == ["fast", "safe"]
            assert data(shown)["launchInputs"]["level"]["maximum"] == 9
            bad = await client.call_tool(
                "games_start", {"gameId": "profiled", "launchInputs": {"level": 10}}
            )
            assert (bad.is_error, data(bad)["code"]) == (True, "launch_input_invalid")
            unknown = await client.call_tool(
                "games_start", {"gameId": "profiled", "profile": "turbo"}
            )
            assert (unknown.is_error, data(unknown)["code"]) == (True, "profile_not_found")
            started = await client.call_tool(
                "games_start",
                {
                    "gameId": "profiled",
                    "profile": "fast",
                    "launchInputs": {"skip": True, "level": 3, "map": "river"},
                },
            )
            assert data(started)["code"] == "started_connected", text_of(started)
            status = await client.call_tool("games_status", {"gameId": "profiled"})
            await client.call_tool("games_kill", {"gameId": "profiled"})
    launch = config_dir.launch_report("profiled")
    assert launch is not None
    assert launch["argv"] == ["--base", "--fast", "--level", "3", "--skip"]
    env = launch["env"]
    assert (env["GABS_PROFILE"], env["COMPAT_BASE"], env["COMPAT_MAP"]) == ("fast", "fast", "river")
    assert "COMPAT_DROPPED" not in env and env["GABS_ABSENT_ENV"] == "COMPAT_DROPPED"
    assert data(status)["activeProfile"] == "fast"


async def test_the_command_line_starts_a_game_a_server_attaches_to(
    open_bridge: OpenBridge, config_dir: ConfigDir, gabs_cli: Any
) -> None:
    config_dir.game("compat")
    with anyio.fail_after(120):
        started = await anyio.to_thread.run_sync(
            lambda: gabs_cli(config_dir, "games", "start", "compat")
        )
        assert started.returncode == 0, started.stderr
        assert started.stdout.startswith("started_attachment_deferred: 'compat'")
        pid = config_dir.game_pid("compat")
        while pid is None:
            await anyio.sleep(0.05)
            pid = config_dir.game_pid("compat")
        status = await anyio.to_thread.run_sync(
            lambda: gabs_cli(config_dir, "games", "status", "compat")
        )
        assert status.stdout.startswith("compat: running — phase active"), status.stdout
        again = await anyio.to_thread.run_sync(
            lambda: gabs_cli(config_dir, "games", "start", "compat")
        )
        assert again.returncode == 1 and again.stderr.startswith("already_running"), again.stderr
        async with open_bridge(config_dir) as client:
            here = await client.call_tool("games_start", {"gameId": "compat"})
            assert not here.is_error and data(here)["code"] == "already_running", text_of(here)
            assert text_of(here).splitlines()[0] == (
                f"compat is already running (pid {pid} alive, start-time fingerprint matches)"
            )
            shared = await client.call_tool("games_status", {"gameId": "compat"})
            assert data(shared)["status"] == "shared-running", text_of(shared)
            assert "games_connect" in next_tools(shared)
            connected = await client.call_tool("games_connect", {"gameId": "compat"})
            assert not connected.is_error and data(connected)["connected"] is True, text_of(
                connected
            )
            called = await client.call_tool(
                "games_call_tool",
                {"gameId": "compat", "tool": "compat/add", "arguments": {"a": 1, "b": 2}},
            )
            assert "3" in text_of(called)
        assert process_alive(pid), "a game outlives the bridge session that attached to it"
        stopped = await anyio.to_thread.run_sync(
            lambda: gabs_cli(config_dir, "games", "stop", "compat")
        )
        assert stopped.returncode == 0 and stopped.stdout.startswith("compat: terminated"), stopped
        await wait_gone(pid)
        gone = await anyio.to_thread.run_sync(
            lambda: gabs_cli(config_dir, "games", "stop", "compat")
        )
        assert (gone.returncode, gone.stdout) == (0, "compat is not running (no runtime claim).\n")


async def test_a_config_with_every_go_key_is_served(
    open_bridge: OpenBridge, config_dir: ConfigDir, gabs_cli: Any
) -> None:
    entry = config_dir.game("compat", stopProcessName="compat-game", gabpMode="connect")
    entry.update(
        workingDir=str(config_dir.games_dir),
        unsetEnv=["COMPAT_NOTHING"],
        defaultProfile="plain",
        profiles={"plain": {"description": "No changes.", "workingDir": str(config_dir.games_dir)}},
        launchInputs={
            "note": {
                "description": "A note.",
                "type": "string",
                "maxLength": 32,
                "pattern": "[a-z]+",
                "args": ["--note", "${value}"],
            }
        },
        lifecycle={
            "kill": {"command": "/bin/false", "timeoutSeconds": 5, "verifyTimeoutSeconds": 5}
        },
    )
    config_dir.top.update(
        apiKey="an-api-key-for-http",
        toolNormalization={
            "enableOpenAINormalization": True,
            "maxToolNameLength": 64,
            "preserveOriginalName": True,
        },
        stripOutputSchema=False,
        portRanges={"customRanges": [{"min": 42000, "max": 42999}]},
        timeouts={
            "startup": {"processStartSeconds": 20, "gabpConnectSeconds": 30},
            "session": {"ownerLeaseSeconds": 30},
        },
    )
    with anyio.fail_after(120):
        async with open_bridge(config_dir) as client:
            listed = await client.call_tool("games_list", {})
            assert not listed.is_error and data(listed)["count"] == 1, text_of(listed)
            assert data(listed)["games"][0]["gameId"] == "compat"
            started = await client.call_tool(
                "games_start", {"gameId": "compat", "launchInputs": {"note": "hi"}}
            )
            assert data(started)["code"] == "started_connected", text_of(started)
            bridge = json.loads(
                (config_dir.path / "compat" / "bridge.json").read_text(encoding="utf-8")
            )
            assert 42000 <= bridge["port"] <= 42999
            stopped = await client.call_tool("games_stop", {"gameId": "compat"})
            assert data(stopped)["code"] == "terminated", text_of(stopped)
    shown = await anyio.to_thread.run_sync(lambda: gabs_cli(config_dir, "games", "show", "compat"))
    assert shown.returncode == 0 and "Launch Mode: CustomCommand" in shown.stdout


def _contexts(config_dir: ConfigDir) -> None:
    config_dir.game("compat")
    entry = config_dir.game("shaped")
    entry["defaultProfile"] = "safe"
    entry["profiles"] = {"safe": {"description": "s"}, "debug": {"description": "d"}}
    entry["launchInputs"] = {
        "map": {
            "description": "Map.",
            "type": "string",
            "enum": ["river", "desert"],
            "pattern": "[a-z]+",
            "env": {"COMPAT_MAP": "${value}"},
        },
        "trace": {
            "description": "Debug only.",
            "type": "string",
            "profiles": ["debug"],
            "args": ["--trace=${value}"],
        },
    }


@pytest.mark.parametrize(
    ("arguments", "first_line"),
    [
        ({"gameId": "compat", "profile": "fast"}, 'game "compat" has no profiles configured; edit '
         "the config to add them (changes apply without restart)"),
        ({"gameId": "shaped", "profile": "turbo"}, 'game "shaped" has no profile "turbo"'),
        ({"gameId": "shaped", "launchInputs": {"level": 1}}, 'launch input "level" is not '
         'declared for game "shaped"'),
        ({"gameId": "shaped", "launchInputs": {"map": 5}}, 'launch input "map": value must be a '
         "string"),
        ({"gameId": "shaped", "launchInputs": {"trace": "x"}}, 'launch input "trace" is not '
         'applicable to profile "safe"'),
    ],
)  # fmt: skip
async def test_a_refused_launch_context_reads_as_go(
    open_bridge: OpenBridge, config_dir: ConfigDir, arguments: dict[str, Any], first_line: str
) -> None:
    _contexts(config_dir)
    with anyio.fail_after(60):
        async with open_bridge(config_dir) as client:
            result = await client.call_tool("games_start", arguments)
    assert result.is_error
    assert text_of(result).splitlines()[0] == first_line


@pytest.mark.beyond_go
async def test_a_refused_launch_input_never_echoes_its_value(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    """The Go bridge quotes a value that is not in the enum."""
    _contexts(config_dir)
    with anyio.fail_after(60):
        async with open_bridge(config_dir) as client:
            result = await client.call_tool(
                "games_start", {"gameId": "shaped", "launchInputs": {"map": "s3cr3t"}}
            )
    assert (result.is_error, data(result)["code"]) == (True, "launch_input_invalid")
    assert "s3cr3t" not in text_of(result)
    assert "s3cr3t" not in json.dumps(data(result))
