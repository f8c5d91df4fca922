"""The MCP Inspector (``@modelcontextprotocol/inspector``, pinned in ``package-lock.json``)
against ``gabs``: its schema-portability check finds nothing over stdio and over HTTP (and finds
the problem it looks for in a server that has it), its CLI runs the attention flow over HTTP,
one invocation per step, and its connection CLI (``mcpdo``) runs the same flow over stdio.

``mcp-inspector --cli`` opens a new MCP session for each invocation; over stdio that is a new
bridge process each time, so a flow that needs one connected bridge across calls runs over
stdio through ``mcpdo``, which keeps one connection open between commands.
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Final

import anyio
import pytest

from .flow import CALL, CORE_TOOLS, GAME, STEPS, TROUBLE, GabsConfig, check_flow, gabs_http
from .node import HERE, INSPECTOR, MCPDO

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="Linux processes")

#: Seconds one Inspector invocation may take (a bridge starting and a game starting included).
INVOCATION_TIMEOUT: Final = 120.0
#: The Inspector CLI's exit status for a tool result with ``isError: true``.
TOOL_ERROR: Final = 5


async def node_tool(command: Sequence[str], env: dict[str, str]) -> tuple[int, dict[str, Any], str]:
    """Run one Inspector command; its exit status, JSON output and stderr."""
    with anyio.fail_after(INVOCATION_TIMEOUT):
        done = await anyio.run_process(list(command), env=env, cwd=HERE, check=False)
    stderr = done.stderr.decode(errors="replace")
    assert done.stdout.strip(), f"{shlex.join(command)} printed nothing: {stderr}"
    output: dict[str, Any] = json.loads(done.stdout)
    return done.returncode, output, stderr


def inspector(*options: str, target: Sequence[str]) -> list[str]:
    """``mcp-inspector --cli <options> --format json -- <target>``."""
    return [str(INSPECTOR), "--cli", *options, "--format", "json", "--", *target]


def step_view(result: dict[str, Any]) -> dict[str, Any]:
    """A tool result as :func:`~.flow.check_flow` reads it."""
    return {
        "isError": result.get("isError") is True,
        "structuredContent": result.get("structuredContent"),
        "meta": result.get("_meta"),
        "text": "\n".join(
            block["text"] for block in result.get("content", []) if block.get("type") == "text"
        ),
    }


FlowCall = Any  # an async callable: (tool, arguments) -> the tool result as a dict


async def run_flow(call: FlowCall) -> dict[str, dict[str, Any]]:
    """The flow's steps through ``call``, by step name."""
    game_call = {"gameId": GAME, **CALL}
    plan: list[tuple[str, str, dict[str, Any]]] = [
        ("start", "games_start", {"gameId": GAME}),
        ("call", "games_call_tool", game_call),
        ("trouble", "games_call_tool", {"gameId": GAME, **TROUBLE}),
        ("blocked", "games_call_tool", game_call),
        ("inspect", "games_get_attention", {"gameId": GAME}),
    ]
    steps: dict[str, dict[str, Any]] = {}
    for name, tool, arguments in plan:
        steps[name] = step_view(await call(tool, arguments))
    attention = (steps["inspect"]["structuredContent"] or {}).get("attention") or {}
    ack = {"gameId": GAME, "attentionId": attention.get("attentionId", "")}
    steps["ack"] = step_view(await call("games_ack_attention", ack))
    steps["retry"] = step_view(await call("games_call_tool", game_call))
    steps["stop"] = step_view(await call("games_stop", {"gameId": GAME}))
    return steps


def assert_portable(status: int, output: dict[str, Any], stderr: str) -> None:
    assert status == 0, stderr
    assert {tool["name"] for tool in output["result"]["tools"]} == CORE_TOOLS
    assert "schemaFindings" not in output, output.get("schemaFindings")
    assert "Warning: tool" not in stderr and "Error: tool" not in stderr, stderr


async def test_the_inspector_portability_check_finds_a_nullable_type_union(
    node_env: dict[str, str],
) -> None:
    server = [sys.executable, str(HERE / "unportable_server.py")]
    status, output, stderr = await node_tool(
        inspector("--method", "tools/list", "--strict", target=server), node_env
    )
    assert status == 0, stderr
    [tool] = output["schemaFindings"]
    assert tool["toolName"] == "maybe_name"
    assert [(f["rule"], f["path"]) for f in tool["findings"]] == [("type-union", "properties.name")]
    assert 'Warning: tool "maybe_name"' in stderr and "1 warning across 1 tool" in stderr


async def test_the_inspector_finds_no_schema_portability_problem_over_stdio_and_http(
    gabs_config: GabsConfig, node_env: dict[str, str]
) -> None:
    listing = ("--method", "tools/list", "--strict")
    assert_portable(
        *await node_tool(inspector(*listing, target=gabs_config.stdio_command()), node_env)
    )
    async with gabs_http(gabs_config, node_env) as url:
        bearer = f"Authorization: Bearer {gabs_config.api_key}"
        over_http = inspector(*listing, "--transport", "http", "--header", bearer, target=[url])
        assert_portable(*await node_tool(over_http, node_env))


async def test_the_inspector_cli_runs_the_attention_flow_over_http(
    gabs_config: GabsConfig, node_env: dict[str, str]
) -> None:
    async with gabs_http(gabs_config, node_env) as url:
        bearer = f"Authorization: Bearer {gabs_config.api_key}"

        async def call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
            command = inspector(
                *("--transport", "http", "--header", bearer, "--method", "tools/call"),
                *("--tool-name", tool, "--tool-args-json", json.dumps(arguments)),
                target=[url],
            )
            status, output, stderr = await node_tool(command, node_env)
            result: dict[str, Any] = output["result"]
            assert status == (TOOL_ERROR if result.get("isError") else 0), stderr
            return result

        steps = await run_flow(call)
    assert list(steps) == list(STEPS)
    check_flow(steps)


@asynccontextmanager
async def mcpdo_daemon(env: dict[str, str]) -> AsyncIterator[dict[str, str]]:
    """A private ``mcpdo`` daemon (its own socket and token); stopped, and its folder removed,
    afterwards. Yields the environment that reaches it."""
    with anyio.fail_after(INVOCATION_TIMEOUT):
        done = await anyio.run_process([str(MCPDO), "private"], env=env, cwd=HERE, check=True)
    exports = dict(
        shlex.split(line.removeprefix("export "))[0].split("=", 1)
        for line in done.stdout.decode().splitlines()
        if line.startswith("export ")
    )
    folder = Path(exports["MCP_INSPECTOR_DAEMON_DIR"])
    private = {**env, **exports}
    try:
        yield private
    finally:
        with anyio.move_on_after(INVOCATION_TIMEOUT, shield=True):
            await anyio.run_process([str(MCPDO), "daemon", "stop"], env=private, check=False)
        shutil.rmtree(folder, ignore_errors=True)


async def test_the_inspectors_connection_cli_runs_the_attention_flow_over_stdio(
    gabs_config: GabsConfig, node_env: dict[str, str]
) -> None:
    async with mcpdo_daemon(node_env) as env:
        connect = [str(MCPDO), "--format", "json", "connect", "--", *gabs_config.stdio_command()]
        status, connected, stderr = await node_tool(connect, env)
        assert status == 0, stderr
        name = connected["name"]

        async def call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
            command = [str(MCPDO), "--format", "json", "--connection", name, "tools/call"]
            command += [tool, "--tool-args-json", json.dumps(arguments)]
            status, result, stderr = await node_tool(command, env)
            assert status == (TOOL_ERROR if result.get("isError") else 0), stderr
            return result

        listed = [str(MCPDO), "--format", "json", "--connection", name, "tools/list"]
        status, tools, stderr = await node_tool(listed, env)
        assert status == 0, stderr
        steps = await run_flow(call)
        await node_tool([str(MCPDO), "--format", "json", "disconnect", name], env)
    assert {tool["name"] for tool in tools["tools"]} == CORE_TOOLS
    check_flow(steps)
