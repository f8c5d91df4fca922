"""Checkpoint E: the gate end to end, with real processes only.

The real ``gabs`` executable runs as an MCP stdio server (driven by the SDK's client) and
launches real games from a temporary config: ``rimbridge-sim`` with its test tools, lib_gab's
legacy example (no attention) and ``blind_game.py`` (attention it cannot always tell). Every
claim is checked from the outside: what the MCP client got back, and what the game's own
diagnostics (its operation journal) say reached it.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

from gabs.demo import SCENARIOS, Reply, run_demo
from gabs.game_tools import mcp_tool_name
from gabs.mcp.call_results import call_view

BIN = Path(sys.executable).parent
GABS = BIN / "gabs"
SIM = BIN / "rimbridge-sim"
HERE = Path(__file__).resolve().parent
TIMEOUTS = {"startSeconds": 20, "callSeconds": 10, "stopGraceSeconds": 3}

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX executables and signals")


def sim(**extra: Any) -> dict[str, Any]:
    return {
        "launchMode": "CustomCommand",
        "target": str(SIM),
        "args": ["--enable-test-tools"],
        "timeouts": TIMEOUTS,
        # rimbridge-sim (lib_gab) serves overlapping requests; several cases call it while a
        # call is in flight
        "maxConcurrentRequests": 16,
        **extra,
    }


def python_game(*args: str, **extra: Any) -> dict[str, Any]:
    return {
        "launchMode": "CustomCommand",
        "target": sys.executable,
        "args": list(args),
        "timeouts": TIMEOUTS,
        **extra,
    }


def write_config(config_dir: Path, **games: dict[str, Any]) -> None:
    entries = {
        game_id: {"id": game_id, "name": game_id.title(), **e} for game_id, e in games.items()
    }
    (config_dir / "config.json").write_text(
        json.dumps({"version": "1.0", "games": entries}), encoding="utf-8"
    )


class Bridge:
    """The MCP client side: bridge tools by name, game tools through games_call_tool."""

    def __init__(self, client: Client) -> None:
        self.client = client

    async def call(self, tool: str, /, **arguments: Any) -> Reply:
        result = await self.client.call_tool(tool, arguments)
        text = "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))
        data = call_view(result)
        return Reply(bool(result.is_error), text, data)

    async def game(
        self, game_id: str, tool: str, arguments: dict[str, Any] | None = None, **extra: Any
    ) -> Reply:
        return await self.call(
            "games_call_tool", gameId=game_id, tool=tool, arguments=arguments or {}, **extra
        )

    async def start(self, game_id: str) -> Reply:
        started = await self.call("games_start", gameId=game_id)
        assert not started.is_error, started.text
        return started

    async def operations(self, game_id: str, method: str) -> list[dict[str, Any]]:
        """The game's own journal entries for ``method``: what really reached the game."""
        reply = await self.game(game_id, "rimbridge/list_operations", {"limit": 500})
        assert reply.get("executed") is True, reply.text
        return [op for op in reply.get("result", "operations") if op["method"] == method]

    async def open_error(self, game_id: str, message: str = "Exception in Pawn.Tick") -> Reply:
        """An action that logs an error during the call: blocking attention, caused by it."""
        reply = await self.game(game_id, "sim/inject_log", {"level": "error", "message": message})
        assert reply.get("executed") is True and reply.get("attention", "blocking") is True
        return reply


@asynccontextmanager
async def gabs(config_dir: Path, *, mode: str = "auto") -> AsyncIterator[Bridge]:
    params = StdioServerParameters(
        command=str(GABS),
        args=["serve", "--config-dir", str(config_dir), "--log-level", "ERROR"],
        env={"GABS_CONFIG_DIR": str(config_dir)},
    )
    async with Client(params, mode=mode, read_timeout_seconds=20) as client:  # type: ignore[arg-type]
        yield Bridge(client)


def blocked(reply: Reply, attention_id: str, tool: str) -> None:
    """``tool`` is the GABP name; the result's ``tool`` is the exposed MCP name, as Go's is."""
    assert reply.is_error, reply.text
    keys = ("executed", "status", "code", "tool", "gabpName", "attentionId")
    assert {k: reply.get(k) for k in keys} == {
        "executed": False,
        "status": "blocked_by_attention",
        "code": "blocked_by_attention",
        "tool": mcp_tool_name(reply.get("gameId"), tool),
        "gabpName": tool,
        "attentionId": attention_id,
    }
    assert reply.get("attention", "state") == "open" and reply.get("attention", "blocking")
    assert reply.text.startswith("NOT EXECUTED")


# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("scenario", list(SCENARIOS))
async def test_the_demo_scenario_behaves_as_scripted(tmp_path: Path, scenario: str) -> None:
    from gabs.demo import demo_config

    (tmp_path / "config.json").write_text(json.dumps(demo_config([scenario])), encoding="utf-8")
    with anyio.fail_after(40):
        report = await run_demo([scenario], config_dir=tmp_path, step_timeout=15)
    failed = [f"{s.title}: {s.problems}" for s in report.steps if not s.ok]
    assert report.ok, failed
    assert len(report.steps) >= 5


async def test_observe_mode_shows_attention_and_never_blocks(tmp_path: Path) -> None:
    write_config(tmp_path, colony=sim(attention={"mode": "observe"}))
    with anyio.fail_after(30):
        async with gabs(tmp_path) as bridge:
            started = await bridge.start("colony")
            assert started.get("attention", "mode") == "observe"
            opened = await bridge.open_error("colony", "Raid broke the storage")
            attention_id = opened.get("attention", "attentionId")
            assert opened.get("attentionRelation") == "caused_by_call"
            assert "Raid broke the storage" in opened.text

            for _ in range(2):
                after = await bridge.game("colony", "rimworld/list_colonists")
                assert not after.is_error, after.text
                assert after.get("executed") is True and after.get("status") == "ok"
                assert after.get("attention", "attentionId") == attention_id
                assert after.get("attentionRelation") == "open_before_call"
            assert len(await bridge.operations("colony", "rimworld/list_colonists")) == 2

            inspected = await bridge.call("games_get_attention", gameId="colony")
            assert inspected.get("mode") == "observe"
            assert inspected.get("attention", "attentionId") == attention_id
            status = await bridge.call("games_status", gameId="colony")
            assert status.get("attention", "open") is True


async def test_observe_mode_never_tells_the_model_that_calls_are_refused(tmp_path: Path) -> None:
    write_config(tmp_path, colony=sim(attention={"mode": "observe"}))
    with anyio.fail_after(30):
        async with gabs(tmp_path) as bridge:
            await bridge.start("colony")
            opened = await bridge.open_error("colony", "Raid broke the storage")
            after = await bridge.game("colony", "rimworld/get_game_info")
            inspected = await bridge.call("games_get_attention", gameId="colony")
            for reply in (opened, after, inspected):
                assert "refused" not in reply.text, reply.text


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_gate_refuses_the_next_game_bound_call_on_every_path(
    tmp_path: Path, mode: str
) -> None:
    write_config(tmp_path, colony=sim(exposeGameTools=True))
    with anyio.fail_after(30):
        async with gabs(tmp_path, mode=mode) as bridge:
            await bridge.start("colony")
            pawn = (await bridge.game("colony", "rimworld/list_colonists")).get(
                "result", "colonists", 0, "pawnId"
            )
            opened = await bridge.open_error("colony")
            attention_id = opened.get("attention", "attentionId")

            refused = await bridge.game(
                "colony", "rimworld/set_draft", {"pawnId": pawn, "drafted": True}
            )
            blocked(refused, attention_id, "rimworld/set_draft")
            assert refused.get("nextActions") == [
                {
                    "tool": "games_get_attention",
                    "arguments": {"gameId": "colony"},
                    "reason": "Inspect the open attention item.",
                },
                {
                    "tool": "games_ack_attention",
                    "arguments": {"gameId": "colony", "attentionId": attention_id},
                    "reason": "Acknowledge it once you have taken it into account.",
                },
                {
                    "tool": "games_call_tool",
                    "arguments": {
                        "gameId": "colony",
                        "tool": "rimworld/set_draft",
                        "arguments": {"pawnId": pawn, "drafted": True},
                    },
                    "reason": "Then retry the original call (re-read any state first if it was "
                    "invalidated).",
                },
            ]
            # Reads are game-bound calls too, and the directly exposed tool is the same path.
            blocked(
                await bridge.game("colony", "rimworld/get_camera_state"),
                attention_id,
                "rimworld/get_camera_state",
            )
            listed = {t.name for t in (await bridge.client.list_tools()).tools}
            assert "colony_rimworld_set_draft" in listed
            direct = await bridge.call("colony_rimworld_set_draft", pawnId=pawn, drafted=True)
            blocked(direct, attention_id, "rimworld/set_draft")

            assert await bridge.operations("colony", "rimworld/set_draft") == []
            assert await bridge.operations("colony", "rimworld/get_camera_state") == []


async def test_allowlisted_calls_pass_while_the_gate_is_shut(tmp_path: Path) -> None:
    write_config(
        tmp_path, colony=sim(attention={"mode": "gate", "allow": ["rimworld/get_camera_state"]})
    )
    with anyio.fail_after(30):
        async with gabs(tmp_path) as bridge:
            await bridge.start("colony")
            opened = await bridge.open_error("colony", "Map generation failed")
            attention = opened.data["attention"]
            attention_id = attention["attentionId"]

            # Diagnostics and status tools, by their tags.
            logs = await bridge.game(
                "colony", "rimbridge/list_logs", {"afterSequence": attention["diagnosticsCursor"]}
            )
            assert logs.get("executed") is True and not logs.is_error
            # the page is newest first: the trigger line is its oldest entry
            assert logs.get("result", "logs", -1, "Message") == "Map generation failed"
            operation = await bridge.game(
                "colony",
                "rimbridge/get_operation",
                {"operationId": attention["causalOperationId"]},
            )
            assert operation.get("result", "trackedOperation", "method") == "sim/inject_log"
            for tool in ("rimbridge/ping", "rimbridge/get_bridge_status", "rimworld/get_game_info"):
                passed = await bridge.game("colony", tool)
                assert passed.get("executed") is True and passed.get("status") == "ok", tool
            # A game tool listed in the game's config.
            camera = await bridge.game("colony", "rimworld/get_camera_state")
            assert camera.get("executed") is True and camera.get("result", "success") is True
            # Not listed, not tagged: gated. A script runs game tools, so it is gated too.
            blocked(
                await bridge.game("colony", "rimworld/list_colonists"),
                attention_id,
                "rimworld/list_colonists",
            )
            steps = [{"id": "colonists", "call": "rimworld/list_colonists"}]
            script = {"scriptJson": json.dumps({"steps": steps})}
            blocked(
                await bridge.game("colony", "rimbridge/run_script", script),
                attention_id,
                "rimbridge/run_script",
            )
            # The bridge's own tools are never gated.
            for tool, arguments in [
                ("games_status", {"gameId": "colony"}),
                ("games_list", {}),
                ("games_tool_names", {"gameId": "colony", "prefix": "rimworld/"}),
                ("games_tool_detail", {"tool": "rimworld/set_draft", "gameId": "colony"}),
                ("games_get_attention", {"gameId": "colony"}),
            ]:
                assert not (await bridge.call(tool, **arguments)).is_error, tool
            assert await bridge.operations("colony", "rimbridge/run_script") == []


async def test_ack_clears_the_gate_a_stale_ack_does_not_and_new_trouble_blocks_again(
    tmp_path: Path,
) -> None:
    write_config(tmp_path, colony=sim())
    with anyio.fail_after(30):
        async with gabs(tmp_path) as bridge:
            await bridge.start("colony")
            first = (await bridge.open_error("colony", "first")).get("attention", "attentionId")

            stale = await bridge.call(
                "games_ack_attention", gameId="colony", attentionId="att-000000-99"
            )
            assert stale.is_error
            assert (stale.get("acknowledged"), stale.get("currentAttention", "attentionId")) == (
                False,
                first,
            )
            blocked(
                await bridge.game("colony", "rimworld/list_colonists"),
                first,
                "rimworld/list_colonists",
            )

            acked = await bridge.call("games_ack_attention", gameId="colony", attentionId=first)
            assert not acked.is_error
            assert (acked.get("acknowledged"), acked.get("currentAttention")) == (True, None)
            proceeded = await bridge.game("colony", "rimworld/list_colonists")
            assert proceeded.get("executed") is True and proceeded.get("attention") is None

            second = (await bridge.open_error("colony", "second")).get("attention", "attentionId")
            assert second != first
            blocked(
                await bridge.game("colony", "rimworld/list_colonists"),
                second,
                "rimworld/list_colonists",
            )
            again = await bridge.call("games_ack_attention", gameId="colony", attentionId=first)
            assert again.get("acknowledged") is False
            assert again.get("currentAttention", "attentionId") == second


async def test_repeated_retries_are_stable_and_never_acknowledge(tmp_path: Path) -> None:
    write_config(tmp_path, colony=sim())
    with anyio.fail_after(30):
        async with gabs(tmp_path) as bridge:
            await bridge.start("colony")
            opened = await bridge.open_error("colony")
            item = opened.data["attention"]
            before = await bridge.game("colony", "rimbridge/get_bridge_status")
            retries = [await bridge.game("colony", "rimworld/list_colonists") for _ in range(6)]
            for retry in retries:
                blocked(retry, item["attentionId"], "rimworld/list_colonists")
                # The same item each time, unchanged: no new flows, no new evidence.
                assert retry.data["attention"] == item
            after = await bridge.game("colony", "rimbridge/get_bridge_status")
            assert after.get("result", "attention") == item == before.get("result", "attention")
            assert after.get("result", "logs", "latestSequence") == before.get(
                "result", "logs", "latestSequence"
            )
            assert await bridge.operations("colony", "rimworld/list_colonists") == []
            inspected = await bridge.call("games_get_attention", gameId="colony", refresh=True)
            assert inspected.get("attention", "attentionId") == item["attentionId"]
            assert inspected.get("attention", "state") == "open"


async def test_blocked_executed_and_unknown_are_three_different_answers(tmp_path: Path) -> None:
    write_config(tmp_path, colony=sim())
    with anyio.fail_after(40):
        async with gabs(tmp_path) as bridge:
            started = await bridge.start("colony")
            pid = started.get("pid")

            # executed true: the game answered, and the attention it raised is attached.
            opened = await bridge.open_error("colony")
            assert (opened.get("executed"), opened.is_error) == (True, False)
            # executed false: refused by the gate, nothing sent.
            refused = await bridge.game("colony", "rimworld/pause_game", {"pause": False})
            assert refused.get("executed") is False
            assert await bridge.operations("colony", "rimworld/pause_game") == []
            await bridge.call(
                "games_ack_attention",
                gameId="colony",
                attentionId=opened.get("attention", "attentionId"),
            )
            # executed true with the game's in-band error: it ran and failed.
            # (select_pawn without a name or an id throws in the game)
            failed = await bridge.game("colony", "rimworld/select_pawn", {})
            assert failed.is_error and failed.get("executed") is True
            assert failed.get("status") == "error" and failed.get("attention", "blocking")
            await bridge.call(
                "games_ack_attention",
                gameId="colony",
                attentionId=failed.get("attention", "attentionId"),
            )

            # unknown: the call was written, then the answer did not come in time.
            stalled = await bridge.game("colony", "sim/stall", {"ms": 6000})
            assert stalled.get("executed") is True
            late = await bridge.game("colony", "rimworld/get_game_info", timeout=1)
            assert late.is_error
            assert (late.get("executed"), late.get("status")) == ("unknown", "unknown")
            assert "UNKNOWN" in late.text
            # The game did receive it: its journal shows it waiting for the main loop.
            assert await bridge.operations("colony", "rimworld/get_game_info")

            # unknown: the call was written, then the game died before answering.
            result: dict[str, Reply] = {}

            async def in_flight() -> None:
                result["reply"] = await bridge.game("colony", "rimworld/list_colonists")

            async with anyio.create_task_group() as tg:
                tg.start_soon(in_flight)
                while True:
                    operations = await bridge.operations("colony", "rimworld/list_colonists")
                    if any(op["Status"] == 1 for op in operations):
                        break
                    await anyio.sleep(0.02)
                os.kill(pid, signal.SIGKILL)
            crashed = result["reply"]
            assert crashed.is_error
            assert (crashed.get("executed"), crashed.get("status")) == ("unknown", "unknown")
            assert "may have run" in crashed.text

            # Afterwards nothing is sent: refused, not executed.
            while True:
                status = await bridge.call("games_status", gameId="colony")
                if status.get("status") in ("stopped", "stale-runtime-cleaned"):
                    break
                await anyio.sleep(0.05)
            gone = await bridge.game("colony", "rimworld/list_colonists")
            assert (gone.get("executed"), gone.get("code")) == (False, "not_connected")


async def test_a_game_without_attention_is_never_gated(tmp_path: Path) -> None:
    write_config(tmp_path, legacy=python_game("-m", "lib_gab.legacy_example"))
    with anyio.fail_after(30):
        async with gabs(tmp_path) as bridge:
            started = await bridge.start("legacy")
            assert started.get("attention", "supported") is False
            for text in ("eins", "zwei", "drei"):
                echo = await bridge.game("legacy", "example/echo", {"text": text})
                assert (echo.get("executed"), echo.get("result")) == (True, {"text": text})
                assert echo.get("attention") is None
            attention = await bridge.call("games_get_attention", gameId="legacy")
            assert (attention.get("supported"), attention.get("attention")) == (False, None)
            ack = await bridge.call("games_ack_attention", gameId="legacy", attentionId="att-1")
            assert not ack.is_error
            assert (ack.get("supported"), ack.get("acknowledged")) == (False, False)


async def test_two_games_one_gated_one_observed(tmp_path: Path) -> None:
    write_config(tmp_path, gated=sim(), watched=sim(attention={"mode": "observe"}))
    with anyio.fail_after(40):
        async with gabs(tmp_path) as bridge:
            await bridge.start("gated")
            await bridge.start("watched")
            gated = (await bridge.open_error("gated", "gated broke")).get(
                "attention", "attentionId"
            )
            watched = (await bridge.open_error("watched", "watched broke")).get(
                "attention", "attentionId"
            )

            blocked(
                await bridge.game("gated", "rimworld/list_colonists"),
                gated,
                "rimworld/list_colonists",
            )
            free = await bridge.game("watched", "rimworld/list_colonists")
            assert free.get("executed") is True
            assert free.get("attention", "attentionId") == watched
            # Without a gameId the tool is ambiguous: refused, not executed, candidates named.
            ambiguous = await bridge.call("games_call_tool", tool="rimworld/list_colonists")
            assert ambiguous.is_error
            assert (ambiguous.get("executed"), ambiguous.get("code")) == (
                False,
                "ambiguous_game_reference",
            )
            assert sorted(ambiguous.get("candidates")) == ["gated", "watched"]

            await bridge.call("games_ack_attention", gameId="gated", attentionId=gated)
            assert (await bridge.game("gated", "rimworld/list_colonists")).get("executed") is True
            assert await bridge.operations("gated", "rimworld/list_colonists") != []


async def test_the_gate_fails_closed_when_the_game_cannot_tell_its_attention(
    tmp_path: Path,
) -> None:
    blind = python_game(str(HERE / "blind_game.py"))
    write_config(
        tmp_path,
        closed=blind,
        open=python_game(str(HERE / "blind_game.py"), attention={"failClosed": False}),
    )
    with anyio.fail_after(30):
        async with gabs(tmp_path) as bridge:
            for game_id in ("closed", "open"):
                started = await bridge.start(game_id)
                assert started.get("attention", "supported") is True
                assert started.get("attention", "subscribed") is False
                ran = await bridge.game(game_id, "blind/act")
                assert ran.get("result") == {"runs": 1}
                broken = await bridge.game(game_id, "blind/break_attention")
                assert broken.get("executed") is True

            refused = await bridge.game("closed", "blind/act")
            assert refused.is_error
            assert {k: refused.get(k) for k in ("executed", "status", "code", "attention")} == {
                "executed": False,
                "status": "attention_unavailable",
                "code": "attention_unavailable",
                "attention": None,
            }
            assert refused.text.startswith("NOT EXECUTED")
            # Tagged read-only: allowed even now; and it proves blind/act did not run again.
            count = await bridge.game("closed", "blind/count")
            assert (count.get("executed"), count.get("result")) == (True, {"runs": 1})

            # failClosed: false lets the call through the same blindness.
            passed = await bridge.game("open", "blind/act")
            assert (passed.get("executed"), passed.get("result")) == (True, {"runs": 2})
