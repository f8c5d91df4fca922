"""GameSession against a raw-socket game that answers a call with something that is not a GABP
response: the call's outcome says the answer was unreadable, never a bridge failure."""

from __future__ import annotations

import asyncio
from typing import Any

import anyio
import pytest

from gabs.results import outcome_text
from gabs.session import GameSession
from gabs_test_support import read_raw_frame, write_raw_frame

TOKEN = "c0ffee" * 11
TOOLS = [{"name": "fault/act", "description": "Act up.", "inputSchema": {"type": "object"}}]
HELLO = {
    "agentId": "faulty",
    "app": {"name": "faulty", "version": "1"},
    "capabilities": {"methods": ["session/hello", "tools/list", "tools/call"]},
    "schemaVersion": "1.0",
}


def faulty_game(answer: dict[str, Any]) -> Any:
    """A game whose ``tools/call`` answer is ``answer`` (``v``, ``id``, ``type`` added unless
    given); every other request is answered properly."""

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while (message := await read_raw_frame(reader)) is not None:
            base = {"v": "gabp/1", "id": message["id"], "type": "response"}
            if message.get("method") == "session/hello":
                write_raw_frame(writer, {**base, "result": HELLO})
            elif message.get("method") == "tools/list":
                write_raw_frame(writer, {**base, "result": {"tools": TOOLS}})
            elif message.get("method") == "tools/call":
                write_raw_frame(writer, {**base, **answer})
            else:
                write_raw_frame(writer, {**base, "error": {"code": -32601, "message": "no"}})
            await writer.drain()
        writer.close()

    return serve


@pytest.mark.parametrize(
    "answer",
    [
        {},  # neither result nor error
        {"error": {"code": 7}},  # no message
        {"error": {"message": "x"}},  # no code
        {"error": "oops"},
        {"v": "gabp/2", "result": {"a": 1}},
    ],
)
async def test_an_answer_that_is_not_a_gabp_response_leaves_the_call_s_outcome_unknown(
    answer: dict[str, Any],
) -> None:
    server = await asyncio.start_server(faulty_game(answer), "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server, anyio.create_task_group() as tg:
        session = GameSession("faulty", port=port, token=TOKEN, liveness_interval=60)
        with anyio.fail_after(10):
            await tg.start(session.run)
            outcome = await session.call_tool("fault/act", {}, timeout=5)
            connected = session.connected
        await session.close()
    assert (outcome.executed, outcome.status) == ("unknown", "unknown")
    assert outcome.error is not None
    assert outcome.error["message"].startswith("unreadable answer (invalid response: ")
    text = outcome_text("faulty", outcome, {})
    assert text.startswith("UNKNOWN whether fault/act ran in game faulty: unreadable answer")
    assert connected  # the connection itself stays usable
