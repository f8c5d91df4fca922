"""Checkpoint C: an agent flow written only from RimBridgeServer's own tool documentation runs
against the simulation through the real ``gabs`` executable without a single argument error.

``gabs serve`` runs as an MCP stdio server (driven by the SDK's client) and launches
``rimbridge-sim`` at the main menu. Every game call goes through ``games_call_tool`` with the
names, parameters and values the mod documents: ``start_debug_game_ready``, ``pause_game``
with ``pause``, ``set_time_speed`` with ``"Fast"``, ``select_pawn`` / ``set_draft`` by
``pawnName``, the Architect through ``list_architect_categories`` ->
``list_architect_designators`` -> ``apply_architect_designator`` (``designatorId``, ``x``,
``z``, ``width``, ``height``, ``dryRun``) at a spot ``find_random_cell_near`` picked, and
``save_game`` / ``load_game_ready`` by ``saveName`` with a non-ASCII name.

The same flow runs through another GABS build when ``GABS_FLOW_BRIDGE`` names its executable
(for example the Go bridge 1.1.0: ``GABS_FLOW_BRIDGE=/path/to/gabs``); that run checks the game's
results only, since the call info and the attention attached to a call are ours.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import Client

from gabs.mcp.call_results import call_view

BIN = Path(sys.executable).parent
RIMBRIDGE_SIM = BIN / "rimbridge-sim"
SAVE_NAME = "Kolonie Ærø \u2013 開拓 ✓"  # an en dash, CJK and a check mark


NO_SUCCESS_FIELD = frozenset({"rimworld/get_game_info"})
"""Tools whose answer has no success field, in the mod as in the sim."""


class Agent:
    """Calls game tools through ``games_call_tool`` and insists that each one ran and
    succeeded: no argument error, no refusal, no attention in the way."""

    def __init__(self, client: Client, *, ours: bool = True) -> None:
        self.client = client
        self.ours = ours
        """Our gabs: its call info (``_meta``) and attached attention are checked too."""
        self.calls: list[str] = []
        self.last: dict[str, Any] = {}

    async def bridge(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = await self.client.call_tool(tool, arguments)
        text = "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))
        assert not result.is_error, f"{tool} {arguments}: {text}"
        assert isinstance(result.structured_content, dict), text
        return call_view(result)

    async def game(self, tool: str, **arguments: Any) -> dict[str, Any]:
        self.last = reply = await self.bridge(
            "games_call_tool", {"gameId": "rimworld", "tool": tool, "arguments": arguments}
        )
        self.calls.append(tool)
        if not self.ours:  # another bridge: its structured content is the game's result
            assert reply.get("success", tool in NO_SUCCESS_FIELD) is True, (tool, reply)
            return dict(reply)
        assert (reply["executed"], reply["status"]) == (True, "ok"), (tool, reply)
        attention = reply.get("attention")
        assert attention is None or attention["blocking"] is False, (tool, attention)
        result = reply["result"]
        assert result.get("success", tool in NO_SUCCESS_FIELD) is True, (tool, result)
        assert result["operation"]["Status"] == 2, (tool, result["operation"])  # Completed
        return dict(result)


@asynccontextmanager
async def agent_at_main_menu(config_dir: Path, bridge: Any) -> AsyncIterator[Agent]:
    """The real ``gabs`` (or the ``other`` bridge executable) with ``rimbridge-sim`` started
    through it, at the main menu."""
    config = {
        "version": "1.0",
        "games": {
            "rimworld": {
                "id": "rimworld",
                "name": "RimWorld",
                "launchMode": "DirectPath",
                "target": str(RIMBRIDGE_SIM),
                "args": ["--no-start-game", "--log-level", "WARNING", "--seed", "11"],
                "timeouts": {"startSeconds": 20, "stopGraceSeconds": 5, "callSeconds": 20},
            }
        },
    }
    async with Client(
        bridge.params(config_dir, config), mode="legacy", read_timeout_seconds=30
    ) as client:
        agent = Agent(client, ours=not bridge.other)
        started = await agent.bridge("games_start", {"gameId": "rimworld"})
        assert started["code"] == "started_connected", started
        try:
            yield agent
        finally:
            await client.call_tool("games_stop", {"gameId": "rimworld"})


async def test_the_documented_flow_runs_through_gabs_without_an_argument_error(
    tmp_path: Path, flow_bridge: Any
) -> None:
    with anyio.fail_after(90):
        async with agent_at_main_menu(tmp_path, flow_bridge) as agent:
            # the tool list the model sees is the mod's
            names = await agent.bridge(
                "games_tool_names", {"gameId": "rimworld", "prefix": "rimworld/", "limit": 500}
            )
            listed = {tool["gabpName"] for tool in names["tools"]}
            assert {"rimworld/start_debug_game_ready", "rimworld/load_game_ready"} <= listed
            assert not listed & {"rimworld/get_pawn", "rimworld/order_move"}

            # start a debug game from the main menu and wait until it is playable
            info = await agent.game("rimworld/get_game_info")
            assert info["status"] == "no_game"
            ready = await agent.game(
                "rimworld/start_debug_game_ready", readiness="playable", pauseIfNeeded=True
            )
            assert (ready["state"]["programState"], ready["state"]["playable"]) == (
                "Playing",
                True,
            )

            paused = await agent.game("rimworld/pause_game", pause=True)
            assert paused["paused"] is True
            fast = await agent.game("rimworld/set_time_speed", speed="Fast")
            assert fast["timeSpeed"] == "Fast"
            await agent.game("rimworld/pause_game", pause=True)

            # select and draft a colonist by name
            colonists = await agent.game("rimworld/list_colonists", currentMapOnly=True)
            name = colonists["colonists"][0]["name"]
            selected = await agent.game("rimworld/select_pawn", pawnName=name)
            assert selected["selected"]["name"] == name
            drafted = await agent.game("rimworld/set_draft", pawnName=name, drafted=True)
            assert drafted["drafted"] is True

            # the Architect: category -> designator -> a dry run, then a wall rectangle
            categories = await agent.game("rimworld/list_architect_categories")
            structure = next(
                c for c in categories["categories"] if c["categoryDefName"] == "Structure"
            )
            designators = await agent.game(
                "rimworld/list_architect_designators", categoryId=structure["id"]
            )
            wall = next(
                d
                for d in designators["designators"]
                if d["buildableDefName"] == "Wall" and d["supportsRectangleApplication"]
            )
            # a 3 x 2 spot the designator accepts, that the colonist can reach
            position = colonists["colonists"][0]["position"]
            spot = await agent.game(
                "rimworld/find_random_cell_near",
                x=position["x"],
                z=position["z"],
                width=3,
                height=2,
                designatorId=wall["id"],
                reachablePawnName=name,
                requireNotFogged=True,
            )
            corner = spot["cell"]
            rectangle = {"x": corner["x"], "z": corner["z"], "width": 3, "height": 2}
            dry = await agent.game(
                "rimworld/apply_architect_designator",
                designatorId=wall["id"],
                dryRun=True,
                **rectangle,
            )
            assert (dry["acceptedCellCount"], dry["appliedCellCount"]) == (6, 0)
            applied = await agent.game(
                "rimworld/apply_architect_designator",
                designatorId=wall["id"],
                keepSelected=False,
                **rectangle,
            )
            assert applied["appliedCellCount"] == 6
            inside = {"x": corner["x"] + 1, "z": corner["z"] + 1}
            cell = await agent.game("rimworld/get_cell_info", **inside)
            assert cell["cell"]["blueprintBuildDefs"] == ["Wall"]

            # save under a non-ASCII name, load it back and wait until it is playable
            saved = await agent.game("rimworld/save_game", saveName=SAVE_NAME)
            assert saved["saveName"] == SAVE_NAME
            assert Path(saved["path"]).name == f"{SAVE_NAME}.rws"
            loaded = await agent.game(
                "rimworld/load_game_ready", saveName=SAVE_NAME, readiness="playable"
            )
            assert loaded["state"]["playable"] is True
            if agent.ours:
                # the load says that ids read before it are stale (advisory); the agent saw it
                attention = agent.last["attention"]
                assert (attention["stateInvalidated"], attention["blocking"]) == (True, False)
                acked = await agent.bridge(
                    "games_ack_attention",
                    {"gameId": "rimworld", "attentionId": attention["attentionId"]},
                )
                assert acked["acknowledged"] is True
            # the loaded game has the blueprints and the colonist, found again by name
            cell = await agent.game("rimworld/get_cell_info", **inside)
            assert cell["cell"]["blueprintBuildDefs"] == ["Wall"]
            again = await agent.game("rimworld/select_pawn", pawnName=name)
            assert again["selected"]["name"] == name

            assert len(agent.calls) == 18
