"""The MCP surface, in memory: the SDK's client against build_server(manager), games being real
lib_gab servers on loopback TCP."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.server.lowlevel import Server

from gabs.config import GabsConfig
from gabs.games import GameManager
from gabs.mcp import BRIDGE_TOOLS, ToolListNotifier, build_server
from gabs.mcp.call_results import call_view
from gabs_test_support import text as _text
from lib_gab import GabpServer, UrgentEntry

TOKEN = "ab12" * 16
GO_NAMES = {
    "games_list",
    "games_show",
    "games_start",
    "games_stop",
    "games_kill",
    "games_status",
    "games_connect",
    "games_tool_names",
    "games_tool_detail",
    "games_tools",
    "games_call_tool",
    "games_get_attention",
    "games_ack_attention",
}


class Game:
    """A lib_gab game with counters, optionally with attention."""

    def __init__(self, *, attention: bool = True, agent: str = "sim") -> None:
        self.server = GabpServer(app_name="Sim", app_version="1", agent_id=agent, token=TOKEN)
        self.calls: dict[str, int] = {"draft": 0, "slow": 0}
        self.slow_release = anyio.Event()
        self.slow_started = anyio.Event()
        manager = self.server.enable_attention() if attention else None

        @self.server.tool("colony/draft", description="Draft a pawn.")
        def draft(pawn: str) -> dict[str, Any]:
            self.calls["draft"] += 1
            return {"drafted": pawn}

        @self.server.tool("colony/break_map", description="Succeed, then lose the map.")
        def break_map(why: str = "Map lost") -> dict[str, bool]:
            assert manager is not None
            manager.report(UrgentEntry(level="error", message=why, state_invalidated=True))
            return {"ok": True}

        @self.server.tool(
            "rimbridge/list_logs", description="Read logs.", tags=["diagnostic", "read-only"]
        )
        def list_logs() -> list[str]:
            return ["Map lost"]

        @self.server.tool("colony/slow", description="Take a while.")
        async def slow(seconds: float = 5.0) -> dict[str, bool]:
            self.calls["slow"] += 1
            self.slow_started.set()
            with anyio.move_on_after(seconds):
                await self.slow_release.wait()
            return {"slept": True}


def _config(tmp_path: Path, **games: dict[str, Any]) -> GabsConfig:
    entries = {
        game_id: {
            "id": game_id,
            "name": game_id.title(),
            "launchMode": "CustomCommand",
            "target": "unused-here",
            **extra,
        }
        for game_id, extra in games.items()
    }
    return GabsConfig.from_json({"version": "1.0", "games": entries}, config_dir=tmp_path)


class Bridge:
    def __init__(self, manager: GameManager, server: Server[Any], notifier: ToolListNotifier):
        self.manager = manager
        self.server = server
        self.notifier = notifier
        self.ports: dict[str, int] = {}

    async def connect(self, game_id: str) -> dict[str, Any]:
        return await self.manager.connect(game_id, port=self.ports[game_id], token=TOKEN)


@asynccontextmanager
async def bridge_for(
    tmp_path: Path, games: dict[str, Game], **config: dict[str, Any]
) -> AsyncIterator[Bridge]:
    entries = {game_id: config.get(game_id, {}) for game_id in games}
    notifier = ToolListNotifier()
    async with AsyncExitStack() as stack:
        ports = {}
        for game_id, game in games.items():
            address = await stack.enter_async_context(game.server.running())
            assert address.port is not None
            ports[game_id] = address.port
        manager = await stack.enter_async_context(
            GameManager(
                _config(tmp_path, **entries), on_tools_changed=notifier, liveness_interval=60
            )
        )
        bridge = Bridge(manager, build_server(manager, notifier=notifier), notifier)
        bridge.ports = ports
        yield bridge


def _data(result: types.CallToolResult) -> dict[str, Any]:
    assert result.structured_content is not None
    return call_view(result)


async def test_the_thirteen_tools_are_listed_with_strict_schemas(tmp_path: Path) -> None:
    async with bridge_for(tmp_path, {}) as bridge, Client(bridge.server) as client:
        listed = await client.list_tools()
        by_name = {tool.name: tool for tool in listed.tools}
        assert set(by_name) == GO_NAMES == set(BRIDGE_TOOLS)
        # in the Go bridge's order: by name (they came in the order of BRIDGE_TOOLS)
        assert [tool.name for tool in listed.tools] == sorted(GO_NAMES)
        for tool in by_name.values():
            schema = tool.input_schema
            assert schema["type"] == "object"
            assert schema["additionalProperties"] is False, tool.name
            assert tool.description and len(tool.description) > 40, tool.name
            assert tool.output_schema is not None and tool.output_schema["type"] == "object"
        assert by_name["games_show"].input_schema["required"] == ["gameId"]
        assert by_name["games_call_tool"].input_schema["required"] == ["tool"]
        assert by_name["games_ack_attention"].input_schema["required"] == ["attentionId"]
        assert "required" not in by_name["games_status"].input_schema
        assert set(by_name["games_tool_names"].input_schema["properties"]) == {
            "gameId",
            "query",
            "prefix",
            "cursor",
            "limit",
            "brief",
        }
        described = by_name["games_call_tool"].description or ""
        assert "executed" in described and "games_ack_attention" in described
        assert client.server_capabilities.tools is not None


@pytest.mark.parametrize(
    ("tool", "arguments", "field", "rule"),
    [
        ("games_show", {}, "$.gameId", "required"),
        ("games_call_tool", {"tool": 5}, "$.tool", "type"),
        ("games_call_tool", {"tool": "x", "timeout": 1.5}, "$.timeout", "type"),
        ("games_tool_names", {"limit": 0}, "$.limit", "minimum"),
        ("games_connect", {"gameId": "sim", "port": 70000}, "$.port", "maximum"),
        ("games_start", {"gameId": "sim", "timeout": "soon"}, "$.timeout", "type"),
    ],
)
async def test_invalid_arguments_are_refused_naming_the_field_and_rule(
    tmp_path: Path, tool: str, arguments: dict[str, Any], field: str, rule: str
) -> None:
    game = Game()
    async with bridge_for(tmp_path, {"sim": game}) as bridge, Client(bridge.server) as client:
        await bridge.connect("sim")
        result = await client.call_tool(tool, arguments)
    assert result.is_error
    data = _data(result)
    assert data["status"] == "invalid_arguments"
    assert {"field": field, "rule": rule} == {k: data["errors"][0][k] for k in ("field", "rule")}
    assert field.removeprefix("$.") in _text(result) and rule in _text(result)
    assert game.calls["draft"] == 0


@pytest.mark.parametrize("blank", ["", "  "])
async def test_games_status_looks_a_blank_game_id_up_as_the_go_bridge_does(
    tmp_path: Path, blank: str
) -> None:
    async with bridge_for(tmp_path, {"sim": Game()}) as bridge, Client(bridge.server) as client:
        result = await client.call_tool("games_status", {"gameId": blank})
        summary = await client.call_tool("games_status", {})
    assert result.is_error
    assert result.structured_content is not None
    assert result.structured_content["code"] == "game_not_found"
    assert _text(result).startswith(f"Game '{blank}' not found. Use games_list")
    # only the absent argument asks for every game
    assert not summary.is_error and _text(summary).startswith("Game Status Summary:")


@pytest.mark.parametrize("tool", ["games_show", "games_start", "games_stop", "games_kill"])
async def test_a_blank_game_id_is_not_found_by_the_lifecycle_tools_as_in_the_go_bridge(
    tmp_path: Path, tool: str
) -> None:
    async with bridge_for(tmp_path, {"sim": Game()}) as bridge, Client(bridge.server) as client:
        result = await client.call_tool(tool, {"gameId": " "})
    assert result.is_error
    assert result.structured_content is not None
    assert result.structured_content["code"] == "game_not_found"
    assert _text(result).startswith("Game ' ' not found. Use games_list")


@pytest.mark.parametrize("tool", ["games_show", "games_call_tool", "games_tool_names"])
async def test_unknown_arguments_are_refused_as_the_go_bridge_refuses_them(
    tmp_path: Path, tool: str
) -> None:
    async with bridge_for(tmp_path, {}) as bridge, Client(bridge.server) as client:
        result = await client.call_tool(tool, {"gameId": "sim", "zeta": 1, "extra": 2})
    allowed = sorted(BRIDGE_TOOLS[tool].input_schema["properties"])
    assert result.is_error
    assert _data(result) == {
        "code": "unknown_argument",
        "path": "/extra",
        "unknown": ["extra", "zeta"],
        "allowed": allowed,
        "causeClass": "call",
        "trackRecord": "no successful starts recorded for this context",
        "nextActions": [
            {
                "tool": "games_show",
                "arguments": {"gameId": "sim"},
                "reason": "Check the accepted profiles and declared inputs, then reissue the "
                "call correctly.",
            }
        ],
    }
    assert _text(result) == f'Unknown argument "extra". Allowed arguments: {", ".join(allowed)}'


async def test_a_call_succeeds_with_non_ascii_arguments(tmp_path: Path) -> None:
    game = Game()
    async with bridge_for(tmp_path, {"sim": game}) as bridge, Client(bridge.server) as client:
        await bridge.connect("sim")
        with anyio.fail_after(10):
            result = await client.call_tool(
                "games_call_tool", {"tool": "colony/draft", "arguments": {"pawn": "Ärger 龍 🐉"}}
            )
    assert not result.is_error
    data = _data(result)
    assert (data["executed"], data["status"], data["gameId"]) == (True, "ok", "sim")
    assert data["result"] == {"drafted": "Ärger 龍 🐉"}
    assert "Ärger 龍 🐉" in _text(result)


async def test_attention_is_attached_then_blocks_then_ack_clears(tmp_path: Path) -> None:
    game = Game()
    async with bridge_for(tmp_path, {"sim": game}) as bridge, Client(bridge.server) as client:
        await bridge.connect("sim")
        with anyio.fail_after(15):
            broke = await client.call_tool(
                "games_call_tool", {"tool": "colony/break_map", "arguments": {"why": "Karte weg"}}
            )
            assert not broke.is_error
            data = _data(broke)
            assert (data["executed"], data["status"]) == (True, "ok")
            assert data["attentionRelation"] == "caused_by_call"
            attention_id = data["attention"]["attentionId"]
            assert data["attention"]["blocking"] is True
            assert attention_id in _text(broke) and "Karte weg" in _text(broke)

            blocked = await client.call_tool(
                "games_call_tool", {"tool": "colony/draft", "arguments": {"pawn": "Ari"}}
            )
            assert blocked.is_error
            data = _data(blocked)
            assert data["executed"] is False
            assert data["status"] == data["code"] == "blocked_by_attention"
            # ``tool`` is the exposed MCP name, as the Go bridge has it; the game's name is kept.
            assert (data["gameId"], data["tool"], data["gabpName"], data["attentionId"]) == (
                "sim",
                "sim_colony_draft",
                "colony/draft",
                attention_id,
            )
            actions = {a["tool"]: a["arguments"] for a in data["nextActions"]}
            assert actions["games_ack_attention"] == {"gameId": "sim", "attentionId": attention_id}
            assert actions["games_call_tool"]["arguments"] == {"pawn": "Ari"}
            assert "NOT EXECUTED" in _text(blocked) and attention_id in _text(blocked)
            assert game.calls["draft"] == 0  # never dispatched

            logs = await client.call_tool("games_call_tool", {"tool": "rimbridge/list_logs"})
            assert not logs.is_error and _data(logs)["result"] == ["Map lost"]

            seen = await client.call_tool("games_get_attention", {"gameId": "sim"})
            assert _data(seen)["attention"]["attentionId"] == attention_id
            assert "BLOCKING" in _text(seen)

            wrong = await client.call_tool(
                "games_ack_attention", {"gameId": "sim", "attentionId": "att-nope"}
            )
            assert wrong.is_error
            assert _data(wrong)["acknowledged"] is False
            assert _data(wrong)["currentAttention"]["attentionId"] == attention_id
            assert attention_id in _text(wrong)
            still = await client.call_tool(
                "games_call_tool", {"tool": "colony/draft", "arguments": {"pawn": "Ari"}}
            )
            assert _data(still)["executed"] is False

            right = await client.call_tool("games_ack_attention", {"attentionId": attention_id})
            assert not right.is_error and _data(right)["acknowledged"] is True
            done = await client.call_tool(  # the retry by the blocked result's own ``tool``
                "games_call_tool", {"tool": data["tool"], "arguments": {"pawn": "Ari"}}
            )
            assert not done.is_error and _data(done)["result"] == {"drafted": "Ari"}
            assert game.calls["draft"] == 1

            status = await client.call_tool("games_status", {"gameId": "sim"})
            assert _data(status)["attention"]["open"] is False


async def test_a_game_without_attention_says_supported_false(tmp_path: Path) -> None:
    game = Game(attention=False)
    async with bridge_for(tmp_path, {"old": game}) as bridge, Client(bridge.server) as client:
        await bridge.connect("old")
        with anyio.fail_after(10):
            seen = await client.call_tool("games_get_attention", {})
            call = await client.call_tool(
                "games_call_tool", {"tool": "colony/draft", "arguments": {"pawn": "Bo"}}
            )
            status = await client.call_tool("games_status", {})
    assert _data(seen)["supported"] is False and "supported: false" in _text(seen)
    assert _data(call)["executed"] is True
    assert _data(status)["games"][0]["attention"]["supported"] is False


async def test_ambiguous_game_references_are_refused_with_candidates(tmp_path: Path) -> None:
    games = {"alpha": Game(agent="a"), "beta": Game(agent="b")}
    async with bridge_for(tmp_path, games) as bridge, Client(bridge.server) as client:
        await bridge.connect("alpha")
        await bridge.connect("beta")
        with anyio.fail_after(10):
            result = await client.call_tool("games_call_tool", {"tool": "colony/draft"})
            attention = await client.call_tool("games_get_attention", {})
            unknown = await client.call_tool("games_show", {"gameId": "gamma"})
            named = await client.call_tool(
                "games_call_tool",
                {"tool": "colony/draft", "gameId": "beta", "arguments": {"pawn": "Cy"}},
            )
            names = await client.call_tool("games_tool_names", {"query": "draft", "brief": False})
    assert result.is_error
    data = _data(result)
    assert (data["executed"], data["status"], data["code"]) == (
        False,
        "refused",
        "ambiguous_game_reference",
    )
    assert (data["causeClass"], data["candidates"]) == ("call", ["alpha", "beta"])
    assert "alpha" in _text(result) and "beta" in _text(result)
    assert attention.is_error and _data(attention)["code"] == "ambiguous_game_reference"
    assert unknown.is_error and _data(unknown)["code"] == "game_not_found"
    assert _data(unknown)["nextActions"][0]["tool"] == "games_show"  # as the Go bridge
    assert _data(named)["gameId"] == "beta" and games["beta"].calls["draft"] == 1
    assert {(t["gameId"], t["name"], t["gabpName"]) for t in _data(names)["tools"]} == {
        ("alpha", "alpha_colony_draft", "colony/draft"),
        ("beta", "beta_colony_draft", "colony/draft"),
    }


async def test_exposed_game_tools_are_listed_and_called_through_the_gate(tmp_path: Path) -> None:
    game = Game()
    async with (
        bridge_for(tmp_path, {"sim": game}, sim={"exposeGameTools": True}) as bridge,
        Client(bridge.server) as client,
    ):
        await bridge.connect("sim")
        with anyio.fail_after(10):
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert "sim_colony_draft" in tools and "sim_rimbridge_list_logs" in tools
            assert tools["sim_colony_draft"].input_schema["properties"]["pawn"]["type"] == "string"
            ok = await client.call_tool("sim_colony_draft", {"pawn": "Dee"})
            assert _data(ok)["result"] == {"drafted": "Dee"}
            await client.call_tool("sim_colony_break_map", {})
            blocked = await client.call_tool("sim_colony_draft", {"pawn": "Dee"})
            assert blocked.is_error
            assert (_data(blocked)["executed"], _data(blocked)["status"]) == (
                False,
                "blocked_by_attention",
            )
            logs = await client.call_tool("sim_rimbridge_list_logs", {})
            assert not logs.is_error
    assert game.calls["draft"] == 1


async def test_a_slow_game_call_does_not_block_status_or_attention(tmp_path: Path) -> None:
    game = Game()
    async with bridge_for(tmp_path, {"sim": game}) as bridge, Client(bridge.server) as client:
        await bridge.connect("sim")
        results: dict[str, types.CallToolResult] = {}

        async def slow() -> None:
            results["slow"] = await client.call_tool(
                "games_call_tool", {"tool": "colony/slow", "arguments": {"seconds": 10}}
            )

        with anyio.fail_after(10):
            async with anyio.create_task_group() as tg:
                tg.start_soon(slow)
                await game.slow_started.wait()
                with anyio.fail_after(2):
                    status = await client.call_tool("games_status", {"gameId": "sim"})
                    attention = await client.call_tool("games_get_attention", {"gameId": "sim"})
                assert "slow" not in results  # still running
                assert _data(status)["status"] == "connected"
                assert not attention.is_error
                game.slow_release.set()
        assert _data(results["slow"])["result"] == {"slept": True}


async def test_a_cancelled_call_cancels_the_bridge_wait(tmp_path: Path) -> None:
    game = Game()
    async with (
        bridge_for(tmp_path, {"sim": game}) as bridge,
        Client(bridge.server, mode="legacy") as client,
    ):
        await bridge.connect("sim")
        session = bridge.manager.runtime("sim").session
        assert session is not None
        with anyio.fail_after(10):
            with anyio.move_on_after(0.5):
                await client.call_tool(
                    "games_call_tool", {"tool": "colony/slow", "arguments": {"seconds": 30}}
                )
            # the client sent notifications/cancelled: the handler's wait on the game ends
            while session._watches:  # noqa: ASYNC110 - polling a core structure
                await anyio.sleep(0.02)
            status = await client.call_tool("games_status", {"gameId": "sim"})
        assert _data(status)["status"] == "connected"
        game.slow_release.set()


async def test_tool_list_changes_reach_legacy_clients(tmp_path: Path) -> None:
    game = Game()
    seen = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            seen.set()

    async with (
        bridge_for(tmp_path, {"sim": game}, sim={"exposeGameTools": True}) as bridge,
        Client(bridge.server, mode="legacy", message_handler=on_message) as client,
    ):
        assert client.server_capabilities.tools is not None
        assert client.server_capabilities.tools.list_changed is True
        await client.list_tools()
        with anyio.fail_after(10):
            await bridge.connect("sim")
            await seen.wait()
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert "sim_colony_draft" in names


async def test_each_tool_list_change_reaches_every_client_exactly_once(tmp_path: Path) -> None:
    counts = [0, 0]
    arrived = [anyio.Event(), anyio.Event()]
    changes = 3

    def counter(index: int) -> Any:
        async def on_message(message: Any) -> None:
            if isinstance(message, types.ToolListChangedNotification):
                counts[index] += 1
                if counts[index] == changes:
                    arrived[index].set()

        return on_message

    async with (
        bridge_for(tmp_path, {}) as bridge,
        Client(bridge.server, mode="legacy", message_handler=counter(0)) as first,
        Client(bridge.server, mode="legacy", message_handler=counter(1)) as second,
        Client(bridge.server) as modern,
    ):
        await first.list_tools()
        await second.list_tools()
        await first.list_tools()  # a second message on a connection registers nothing new
        assert bridge.notifier.legacy_connections == 2
        events: list[str] = []
        with anyio.fail_after(10):
            async with modern.listen(tools_list_changed=True) as subscription:
                for _ in range(changes):  # the client folds events that arrive together
                    await bridge.notifier()
                    events.append(type(await subscription.__anext__()).__name__)
            for event in arrived:
                await event.wait()
            # a round trip on each connection: anything sent before it has arrived by now
            await first.list_tools()
            await second.list_tools()
        assert counts == [changes, changes]
        assert events == ["ToolsListChanged"] * changes


async def test_the_notifier_keeps_only_the_most_recently_active_legacy_connections(
    tmp_path: Path,
) -> None:
    notifier = ToolListNotifier(max_legacy=2)
    seen: list[int] = [0, 0, 0]

    def counter(index: int) -> Any:
        async def on_message(message: Any) -> None:
            if isinstance(message, types.ToolListChangedNotification):
                seen[index] += 1

        return on_message

    async with GameManager(_config(tmp_path), liveness_interval=60) as manager:
        server = build_server(manager, notifier=notifier)
        async with AsyncExitStack() as stack:
            clients = [
                await stack.enter_async_context(
                    Client(server, mode="legacy", message_handler=counter(index))
                )
                for index in range(3)
            ]
            for client in (clients[0], clients[1], clients[2], clients[0]):
                await client.list_tools()
            assert notifier.legacy_connections == 2
            with anyio.fail_after(10):
                await notifier()
                for client in clients:
                    await client.list_tools()
            assert seen == [1, 0, 1]
        with anyio.fail_after(10):
            await notifier()  # the clients are gone: dropped quietly, no error, no wait
    with pytest.raises(ValueError, match="max_legacy"):
        ToolListNotifier(max_legacy=0)


@pytest.mark.parametrize("exposed", [False, True])
async def test_a_connect_and_a_stop_each_send_one_notification_per_list_that_changed(
    tmp_path: Path, exposed: bool
) -> None:
    """The default surface lists no game tools: a game coming and going changes only the
    resource list. Listing a game's tools publicly changes both, each told once."""
    seen: list[str] = []

    async def on_message(message: Any) -> None:
        if isinstance(
            message, types.ToolListChangedNotification | types.ResourceListChangedNotification
        ):
            seen.append(type(message).__name__)

    async with (
        bridge_for(tmp_path, {"sim": Game()}, sim={"exposeGameTools": exposed}) as bridge,
        Client(bridge.server, mode="legacy", message_handler=on_message) as client,
    ):
        await client.list_tools()  # registers this connection for notifications
        with anyio.fail_after(20):
            await bridge.connect("sim")
            await client.list_tools()  # a round trip: what was sent before it has arrived
            connected = list(seen)
            stopped = await bridge.manager.stop("sim")
            assert stopped["code"] == "terminated"
            await client.list_tools()
    tools = ["ToolListChangedNotification"] if exposed else []
    assert sorted(connected) == sorted(["ResourceListChangedNotification", *tools])
    assert sorted(seen) == sorted(connected * 2)


async def test_tool_list_changes_reach_subscriptions_listen(tmp_path: Path) -> None:
    game = Game()
    async with (
        bridge_for(tmp_path, {"sim": game}, sim={"exposeGameTools": True}) as bridge,
        Client(bridge.server) as client,
    ):
        with anyio.fail_after(10):
            async with client.listen(tools_list_changed=True) as subscription:
                await bridge.connect("sim")
                event = await subscription.__anext__()
        assert type(event).__name__ == "ToolsListChanged"


async def test_games_start_reports_progress(tmp_path: Path) -> None:
    import sys

    config = {
        "sim": {
            "target": sys.executable,
            "args": ["-m", "lib_gab.example"],
            "timeouts": {"startSeconds": 20, "stopGraceSeconds": 3},
        }
    }
    progress: list[str] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(message or "")

    notifier = ToolListNotifier()
    async with GameManager(
        _config(tmp_path, **config),
        on_tools_changed=notifier,
        liveness_interval=60,
        backoff=(0.05, 0.4),
    ) as manager:
        server = build_server(manager, notifier=notifier)
        async with Client(server, mode="legacy") as client:
            with anyio.fail_after(30):
                started = await client.call_tool(
                    "games_start", {"gameId": "sim"}, progress_callback=on_progress
                )
                assert not started.is_error, _text(started)
                assert _data(started)["code"] == "started_connected"
                # the session reconnects with the bridge's --reconnectBackoff window
                session = manager.runtime("sim").session
                assert session is not None and session.reconnect_backoff == (0.05, 0.4)
                echo = await client.call_tool(
                    "games_call_tool", {"tool": "example/echo", "arguments": {"text": "ß"}}
                )
                assert _data(echo)["result"] == {"text": "ß"}
                stopped = await client.call_tool("games_stop", {"gameId": "sim"})
                assert _data(stopped)["code"] == "terminated"
    assert progress and any("waiting for its GABP server" in line for line in progress)


async def test_a_lifecycle_tool_refuses_an_undeclared_argument_as_the_go_bridge_does(
    tmp_path: Path,
) -> None:
    async with bridge_for(tmp_path, {"sim": Game()}) as bridge, Client(bridge.server) as client:
        result = await client.call_tool("games_start", {"gameId": "sim", "speed": 2, "area": 1})
    assert result.is_error
    assert _data(result) == {
        "code": "unknown_argument",
        "path": "/area",
        "unknown": ["area", "speed"],
        "allowed": ["gameId", "launchInputs", "profile", "resetEndpoint", "timeout"],
        "causeClass": "call",
        "trackRecord": "no successful starts recorded for this context",
        "nextActions": [
            {
                "tool": "games_show",
                "arguments": {"gameId": "sim"},
                "reason": "Check the accepted profiles and declared inputs, then reissue the "
                "call correctly.",
            }
        ],
    }
    assert _text(result).startswith('Unknown argument "area". Allowed arguments: gameId, ')


async def test_a_tool_not_found_counts_the_tools_looked_through(tmp_path: Path) -> None:
    # The Go bridge's tool-not-found object: requested, availableTotal (the tools of the game
    # named, or of every connected game), candidates and a games_tool_names query.
    games = {"alpha": Game(agent="a"), "beta": Game(agent="b")}
    async with bridge_for(tmp_path, games) as bridge, Client(bridge.server) as client:
        await bridge.connect("alpha")
        await bridge.connect("beta")
        with anyio.fail_after(10):
            one = await client.call_tool("games_tool_detail", {"tool": "nope", "gameId": "alpha"})
            every = await client.call_tool("games_call_tool", {"tool": "nope"})
    assert one.is_error and every.is_error
    assert (_data(one)["code"], _data(one)["requested"]) == ("tool_not_found", "nope")
    assert _data(one)["availableTotal"] == 4
    assert _data(every)["availableTotal"] == 8


async def test_games_tools_are_described_and_laid_out_as_the_go_bridge_does(
    tmp_path: Path,
) -> None:
    games = {"alpha": Game(agent="a"), "beta": Game(agent="b")}
    async with bridge_for(tmp_path, games) as bridge, Client(bridge.server) as client:
        await bridge.connect("alpha")
        await bridge.connect("beta")
        with anyio.fail_after(10):
            one = await client.call_tool("games_tools", {"gameId": "alpha", "query": "draft"})
            every = await client.call_tool("games_tools", {"query": "draft"})
            detail = await client.call_tool(
                "games_tool_detail", {"gameId": "beta", "tool": "colony/draft"}
            )
    assert _data(one)["tools"][0]["description"] == "Draft a pawn. (Game: alpha)"
    assert _data(detail)["description"] == "Draft a pawn. (Game: beta)"
    assert _text(one) == (
        "Tools for game 'alpha' (1 shown of 1 matching):\n\n"
        "• **alpha_colony_draft** - Draft a pawn. (Game: alpha)\n"
        "  Parameters:\n    - `pawn` (string)\n\n"
        "Use games_tool_names for a smaller list and games_tool_detail for one tool."
    )
    assert _text(every).startswith(
        "Game-Specific Tools Available (2 shown of 2 matching):\n\n"
        "**alpha** (running):\n  • alpha_colony_draft - Draft a pawn. (Game: alpha)\n"
        "  Parameters:\n    - `pawn` (string)\n\n"
        "**beta** (running):\n  • beta_colony_draft - Draft a pawn. (Game: beta)\n"
    )
    assert _text(detail).splitlines()[2] == "Draft a pawn. (Game: beta)"


async def test_empty_discovery_pages_are_laid_out_as_the_go_bridge_lays_them_out(
    tmp_path: Path,
) -> None:
    """Go's empty pages: a first line saying what is empty (pinned here), then the hint, each
    line ending with a newline. The hints are ours."""
    games = {"alpha": Game(agent="a")}
    async with bridge_for(tmp_path, games) as bridge, Client(bridge.server) as client:
        texts = {
            "none": await client.call_tool("games_tool_names", {}),
            "tools-none": await client.call_tool("games_tools", {}),
            "game": await client.call_tool("games_tool_names", {"gameId": "alpha"}),
        }
        await bridge.connect("alpha")
        with anyio.fail_after(10):
            texts["no-match"] = await client.call_tool(
                "games_tools", {"gameId": "alpha", "query": "zzz"}
            )
            texts["cursor"] = await client.call_tool(
                "games_tool_names", {"gameId": "alpha", "cursor": "4"}
            )
    first_lines = {
        "none": "No game-specific tool names available.",
        "tools-none": "No game-specific tools available.",
        "game": "No game-specific tool names available for 'alpha'.",
        "no-match": "No matching game-specific tools for 'alpha'.",
        "cursor": "No more matching tool names for cursor 4.",
    }
    for key, first in first_lines.items():
        text = _text(texts[key])
        assert not texts[key].is_error, text
        assert text.endswith("\n") and text.count("\n") == 2, (key, text)
        assert text.splitlines()[0] == first, (key, text)


@pytest.mark.parametrize(
    ("value", "what"),
    [(float("nan"), "NaN"), (float("inf"), "an infinite number"), (-float("inf"), "infinite")],
    ids=["nan", "infinity", "minus-infinity"],
)
async def test_a_number_json_cannot_carry_is_refused_before_the_game_is_asked(
    tmp_path: Path, value: float, what: str
) -> None:
    """NaN or infinity in a game tool's arguments (a JSON reader gives them for ``NaN``,
    ``Infinity`` or ``1e400``) cannot be written to the game: ``invalid_arguments`` at its
    path, nothing run, for ``games_call_tool`` and for a game tool called by its own name.
    (Handed to the dispatcher as the transports hand it what they read: the SDK's in-memory
    client would write such a value as null.)"""
    game = Game()
    async with bridge_for(tmp_path, {"sim": game}, sim={"exposeGameTools": True}) as bridge:
        await bridge.connect("sim")
        dispatcher = bridge.server.dispatcher  # type: ignore[attr-defined]
        with anyio.fail_after(10):
            nested = {"pawn": "Dee", "tags": [1.5, {"weight": value}]}
            through = await dispatcher.call(
                None, "games_call_tool", {"tool": "colony/draft", "arguments": nested}
            )
            direct = await dispatcher.call(None, "sim_colony_draft", {"pawn": "Dee", "w": value})
            fine = await dispatcher.call(None, "sim_colony_draft", {"pawn": "Dee"})
    for result, field in ((through, "$.arguments.tags[1].weight"), (direct, "$.w")):
        assert result.is_error
        data = _data(result)
        assert (data["executed"], data["code"]) == (False, "invalid_arguments"), data
        assert [(e["field"], e["rule"]) for e in data["errors"]] == [(field, "type")]
        assert what in data["errors"][0]["message"]
        assert "nothing was run" in _text(result)
    assert _data(direct)["gameId"] == "sim"
    assert not fine.is_error
    assert game.calls["draft"] == 1
