"""Checkpoint F: a tool's result description travels from its annotation to every place a reader
meets it, with the same text.

annotation (``rimbridge_annotations``) -> ``lib_gab``'s ``outputSchema`` root ``description``
(read with a raw GABP ``tools/list`` from the real ``rimbridge-sim`` process) -> the real
``gabs`` executable's ``games_tool_detail`` (``resultDescription`` and ``outputSchema``) -> the
generated ``docs/rimbridge/tool-reference.md`` (the tool's ``**Returns**`` section). A tool
without a result description works everywhere, with no ``Returns`` section and no description
key anywhere.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters

from gabs.config import GabsConfig
from gabs.games import GameManager
from gabs.mcp import ToolListNotifier, build_server
from gabs.mcp.call_results import call_view
from lib_gab import GabpServer
from lib_gab.server import ServerAddress
from lib_gab.testing import bridge_session
from rimbridge_annotations import ToolInfo, collect, parameter, tool, tool_info
from rimbridge_sim import tools as sim_tools
from rimbridge_sim.reference import render_reference
from rimbridge_sim.tools import DiagnosticsTools

BIN = Path(sys.executable).parent
GABS = BIN / "gabs"
RIMBRIDGE_SIM = BIN / "rimbridge-sim"
ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "docs" / "rimbridge" / "tool-reference.md"
TOKEN = "5eed" * 16


def annotated_tools() -> dict[str, ToolInfo]:
    """Every rimbridge-sim tool's annotation, by tool name (test tools included)."""
    infos: dict[str, ToolInfo] = {}
    groups = [getattr(sim_tools, name) for name in sim_tools.__all__ if name.endswith("Tools")]
    for cls in groups:
        for name in dir(cls):
            info = tool_info(getattr(cls, name))
            if info is not None:
                infos[info.name] = info
    return infos


def reference_sections(text: str) -> dict[str, str]:
    """The generated reference split into one Markdown section per tool (``### `name` ``)."""
    sections: dict[str, str] = {}
    name: str | None = None
    lines: list[str] = []
    for line in [*text.splitlines(), "## end"]:
        if line.startswith(("### ", "## ")):
            if name is not None:
                sections[name] = "\n".join(lines)
            name = line[5:-1] if line.startswith("### `") else None
            lines = []
        elif name is not None:
            lines.append(line)
    return sections


def returns_of(section: str) -> str | None:
    """The paragraph under ``**Returns**`` in a tool's section, or None without one."""
    lines = section.splitlines()
    if "**Returns**" not in lines:
        return None
    start = lines.index("**Returns**") + 2
    end = lines.index("", start)
    return " ".join(lines[start:end])


def data(result: types.CallToolResult) -> dict[str, Any]:
    assert result.structured_content is not None, result
    return call_view(result)


def write_config(config_dir: Path, games: dict[str, dict[str, Any]]) -> None:
    entries = {
        game_id: {"id": game_id, "name": game_id.title(), **entry}
        for game_id, entry in games.items()
    }
    (config_dir / "config.json").write_text(
        json.dumps({"version": "1.0", "games": entries}), encoding="utf-8"
    )


@asynccontextmanager
async def gabs_with_sim(config_dir: Path) -> AsyncIterator[Client]:
    """The real ``gabs`` over stdio, with ``rimbridge-sim`` (test tools on) started through it."""
    write_config(
        config_dir,
        {
            "rimworld": {
                "launchMode": "DirectPath",
                "target": str(RIMBRIDGE_SIM),
                "args": ["--enable-test-tools", "--log-level", "WARNING", "--tick-rate", "0"],
                "timeouts": {"startSeconds": 20, "stopGraceSeconds": 5},
            }
        },
    )
    params = StdioServerParameters(
        command=str(GABS),
        args=["serve", "--config-dir", str(config_dir), "--log-level", "WARNING"],
        env={"GABS_CONFIG_DIR": str(config_dir)},
    )
    async with Client(params, read_timeout_seconds=30) as client:
        started = await client.call_tool("games_start", {"gameId": "rimworld"})
        assert data(started)["code"] == "started_connected", started
        try:
            yield client
        finally:
            await client.call_tool("games_stop", {"gameId": "rimworld"})


async def test_every_result_description_reaches_output_schema_tool_detail_and_reference(
    tmp_path: Path,
) -> None:
    annotations = annotated_tools()
    assert len(annotations) >= 39
    described = {name: i.result_description for name, i in annotations.items()}
    sections = reference_sections(REFERENCE.read_text(encoding="utf-8"))
    assert set(sections) == set(annotations)

    with anyio.fail_after(60):
        async with gabs_with_sim(tmp_path) as client:
            handoff = json.loads(
                (tmp_path / "rimworld" / "bridge.json").read_text(encoding="utf-8")
            )
            address = ServerAddress("tcp", "127.0.0.1", int(handoff["port"]))
            async with bridge_session(address, handoff["token"]) as raw:
                listed = await raw.request("tools/list")
            wire = {entry["name"]: entry for entry in listed["tools"]}
            assert set(wire) == set(annotations)

            for name, description in described.items():
                # lib_gab: the root description of the advertised outputSchema
                output_schema = wire[name].get("outputSchema", {})
                assert output_schema.get("description") == description, name
                # gabs: games_tool_detail through the real bridge
                detail = data(
                    await client.call_tool(
                        "games_tool_detail", {"gameId": "rimworld", "tool": name}
                    )
                )
                assert detail.get("resultDescription") == description, name
                assert detail["outputSchema"] == output_schema, name
                # the generated reference: the Returns section, same text
                assert returns_of(sections[name]) == description, name


async def test_the_same_text_survives_for_one_tool_read_end_to_end(tmp_path: Path) -> None:
    """One tool followed by hand, so a failure reads as a story rather than a loop index."""
    info = tool_info(DiagnosticsTools.ping)
    assert info is not None and info.result_description is not None
    text = info.result_description
    assert text.startswith("{message: 'pong'")
    section = reference_sections(REFERENCE.read_text(encoding="utf-8"))["rimbridge/ping"]
    assert f"**Returns**\n\n{text}\n" in section
    with anyio.fail_after(60):
        async with gabs_with_sim(tmp_path) as client:
            detail = await client.call_tool("games_tool_detail", {"tool": "rimbridge/ping"})
            assert not detail.is_error
            assert data(detail)["resultDescription"] == text
            assert data(detail)["outputSchema"]["description"] == text
            # and the detail text the model reads carries it too
            assert text in "\n".join(
                c.text for c in detail.content if isinstance(c, types.TextContent)
            )
            pinged = await client.call_tool("games_call_tool", {"tool": "rimbridge/ping"})
            assert data(pinged)["executed"] is True
            assert data(pinged)["result"]["pong"] is True


class _Colony:
    """Two annotated tools: one with a result description, one without."""

    @tool(
        "colony/count_pawns",
        "Count the colony's pawns.",
        title="Count pawns",
        result_description="{count}: how many pawns live in the colony.",
    )
    @parameter("faction", "Whose pawns to count.")
    def count_pawns(self, faction: str = "player") -> dict[str, int]:
        return {"count": 3 if faction == "player" else 0}

    @tool("colony/ring_bell", "Ring the colony bell.", title="Ring the bell")
    def ring_bell(self) -> dict[str, bool]:
        return {"rung": True}


async def test_a_tool_without_a_result_description_works_everywhere(tmp_path: Path) -> None:
    colony = _Colony()
    server = GabpServer(app_name="Colony", app_version="1", agent_id="colony", token=TOKEN)
    server.enable_attention()
    for info, function in collect(colony):
        server.add_tool(
            function,
            name=info.name,
            description=info.description,
            title=info.title,
            tags=info.tags,
            result_description=info.result_description,
            parameter_descriptions=info.parameter_descriptions(),
        )
    bare = server.tools.get("colony/ring_bell")
    described = server.tools.get("colony/count_pawns")
    assert bare is not None and described is not None
    assert bare.result_description is None
    assert "description" not in bare.descriptor().get("outputSchema", {})
    assert described.descriptor()["outputSchema"]["description"] == (
        "{count}: how many pawns live in the colony."
    )

    # the reference renders a Returns section for one and none for the other
    sections = reference_sections(render_reference([described, bare]))
    assert returns_of(sections["colony/count_pawns"]) == (
        "{count}: how many pawns live in the colony."
    )
    assert returns_of(sections["colony/ring_bell"]) is None
    assert "**Returns**" not in sections["colony/ring_bell"]

    config = GabsConfig.from_json(
        {
            "version": "1.0",
            "games": {
                "colony": {
                    "id": "colony",
                    "name": "Colony",
                    "launchMode": "CustomCommand",
                    "target": "unused-here",
                }
            },
        },
        config_dir=tmp_path,
    )
    notifier = ToolListNotifier()
    with anyio.fail_after(30):
        async with AsyncExitStack() as stack:
            address = await stack.enter_async_context(server.running())
            assert address.port is not None
            manager = await stack.enter_async_context(
                GameManager(config, on_tools_changed=notifier, liveness_interval=60)
            )
            await manager.connect("colony", port=address.port, token=TOKEN)
            client = await stack.enter_async_context(
                Client(build_server(manager, notifier=notifier))
            )
            # over raw GABP: no description key at the root of the bare tool's outputSchema
            async with bridge_session(address, TOKEN) as raw:
                listed = await raw.request("tools/list")
            wire = {entry["name"]: entry for entry in listed["tools"]}
            assert "description" not in wire["colony/ring_bell"].get("outputSchema", {})

            detail = data(await client.call_tool("games_tool_detail", {"tool": "colony/ring_bell"}))
            assert "resultDescription" not in detail
            assert "description" not in detail.get("outputSchema", {})
            assert detail["gabpName"] == "colony/ring_bell"
            # the game's description, then its game, as the Go bridge gives it
            assert detail["description"] == "Ring the colony bell. (Game: colony)"

            other = data(
                await client.call_tool("games_tool_detail", {"tool": "colony/count_pawns"})
            )
            assert other["resultDescription"] == "{count}: how many pawns live in the colony."

            rung = await client.call_tool("games_call_tool", {"tool": "colony/ring_bell"})
            assert not rung.is_error
            assert (data(rung)["executed"], data(rung)["result"]) == (True, {"rung": True})
            counted = await client.call_tool(
                "games_call_tool", {"tool": "colony/count_pawns", "arguments": {}}
            )
            assert data(counted)["result"] == {"count": 3}
