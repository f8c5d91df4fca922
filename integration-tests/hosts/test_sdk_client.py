"""The official TypeScript MCP SDK client (``@modelcontextprotocol/sdk``, pinned in
``package-lock.json``) runs the attention flow against ``gabs`` over stdio and over Streamable
HTTP with a bearer token. The client checks every structured result against the tool's
``outputSchema`` as it goes, as hosts built on it do."""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio
import pytest

from .flow import CALL, CORE_TOOLS, GAME, STEPS, TROUBLE, GabsConfig, check_flow, gabs_http
from .node import HERE

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="Linux processes")

#: The flow's own deadline (the script gives up after it); the test waits a little longer.
FLOW_DEADLINE = 120.0


async def run_flow(target: dict[str, Any], env: dict[str, str]) -> dict[str, Any]:
    spec = {
        **target,
        "game": GAME,
        "call": CALL,
        "trouble": TROUBLE,
        "deadlineMs": int(FLOW_DEADLINE * 1000),
    }
    with anyio.fail_after(FLOW_DEADLINE + 30):
        done = await anyio.run_process(
            ["node", str(HERE / "sdk_flow.mjs"), json.dumps(spec)],
            env=env,
            cwd=HERE,
            check=False,
        )
    stderr = done.stderr.decode(errors="replace")
    assert done.stdout, f"the SDK client wrote no report (exit {done.returncode}): {stderr}"
    report: dict[str, Any] = json.loads(done.stdout)
    assert done.returncode == 0 and report["error"] is None, (report["error"], stderr)
    return report


def check_report(report: dict[str, Any]) -> None:
    assert report["serverInfo"]["name"] == "gabs"
    assert set(report["tools"]) == CORE_TOOLS
    steps = {step["name"]: step for step in report["steps"]}
    assert list(steps) == list(STEPS)
    check_flow(steps)


async def test_the_sdk_client_runs_the_attention_flow_over_stdio(
    gabs_config: GabsConfig, node_env: dict[str, str]
) -> None:
    report = await run_flow(
        {"transport": "stdio", "command": gabs_config.stdio_command()}, node_env
    )
    check_report(report)


async def test_the_sdk_client_runs_the_attention_flow_over_streamable_http(
    gabs_config: GabsConfig, node_env: dict[str, str]
) -> None:
    async with gabs_http(gabs_config, node_env) as url:
        report = await run_flow(
            {"transport": "http", "url": url, "token": gabs_config.api_key}, node_env
        )
    assert report["sessionId"], "Streamable HTTP hands out a session id"
    check_report(report)
