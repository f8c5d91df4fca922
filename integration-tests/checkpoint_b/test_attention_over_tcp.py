"""Checkpoint B: lib_gab's example servers, run as real processes, over real loopback TCP.

The attention example opens, updates, clears and re-opens attention exactly as the frozen
protocol says, with every event on the wire before the response of the call that caused it;
the legacy example (attention off) behaves as a server that predates attention. Every message
the bridge receives is also checked against the JSON Schemas.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import anyio.abc
import pytest

from gabp import Connection, RemoteError, generate_token, new_id
from gabp.messages import Event
from gabp_schemas import validate

ATTENTION = ["attention/opened", "attention/updated", "attention/cleared"]


class Recorder:
    """Everything the bridge saw, in arrival order, each checked against the schemas."""

    def __init__(self) -> None:
        self.log: list[tuple[str, Any]] = []

    def on_event(self, event: Event) -> None:
        wire = event.to_wire()
        validate(wire)
        self.log.append((event.channel, event.payload))

    async def call(self, conn: Connection, tool: str, **arguments: Any) -> tuple[str, Any]:
        request_id = new_id()
        result = await conn.request(
            "tools/call", {"name": tool, "arguments": arguments}, request_id=request_id
        )
        validate(
            {"v": "gabp/1", "id": request_id, "type": "response", "result": result},
            method="tools/call",
        )
        self.log.append(("result", result))
        return request_id, result

    def events(self, channel: str) -> list[dict[str, Any]]:
        return [payload for name, payload in self.log if name == channel]


@asynccontextmanager
async def attention_bridge(port: int, token: str, recorder: Recorder) -> AsyncIterator[Connection]:
    stream = await anyio.connect_tcp("127.0.0.1", port)
    async with Connection(stream, on_event=recorder.on_event) as conn:
        with anyio.fail_after(10):
            hello = await conn.request(
                "session/hello",
                {
                    "token": token,
                    "bridgeVersion": "1.1.0",
                    "platform": "linux",
                    "launchId": new_id(),
                },
            )
        validate(
            {"v": "gabp/1", "id": new_id(), "type": "response", "result": hello},
            method="session/hello",
        )
        assert hello["agentId"] == "checkpoint-b"
        assert {"attention/current", "attention/ack"} <= set(hello["capabilities"]["methods"])
        assert set(ATTENTION) <= set(hello["capabilities"]["events"])
        await conn.request("events/subscribe", {"channels": ATTENTION})
        yield conn


async def test_attention_opens_before_the_response_updates_clears_and_reopens(
    example_process: Any,
) -> None:
    token = generate_token()
    recorder = Recorder()
    async with (
        example_process("lib_gab.example", token) as port,
        attention_bridge(port, token, recorder) as conn,
    ):
        with anyio.fail_after(20):
            assert await conn.request("attention/current") == {"attention": None}

            # a successful call that opens blocking attention: the event precedes the result
            call_id, result = await recorder.call(
                conn, "example/fail", message="Map lost after load"
            )
            assert result == {"recorded": "Map lost after load", "blocking": True}
            assert [name for name, _ in recorder.log] == ["attention/opened", "result"]
            opened = recorder.events("attention/opened")[0]
            assert opened["state"] == "open" and opened["blocking"] is True
            assert opened["severity"] == "error" and opened["totalUrgentEntries"] == 1
            assert opened["causalOperationId"] == call_id
            assert opened["causalMethod"] == "example/fail"
            attention_id = opened["attentionId"]

            # a second entry updates the same item, also before that call's result
            await recorder.call(conn, "example/fail", message="Pathing grid missing")
            assert [name for name, _ in recorder.log][-2:] == ["attention/updated", "result"]
            updated = recorder.events("attention/updated")[-1]
            assert updated["attentionId"] == attention_id
            assert updated["totalUrgentEntries"] == 2
            assert updated["causalOperationId"] == call_id  # the root cause stays
            assert [s["message"] for s in updated["sample"]] == [
                "Map lost after load",
                "Pathing grid missing",
            ]
            current = await conn.request("attention/current")
            assert current["attention"]["attentionId"] == attention_id

            # a stale id is refused and shows the item still open
            stale = await conn.request("attention/ack", {"attentionId": "att-stale"})
            assert stale["acknowledged"] is False
            assert stale["currentAttention"]["attentionId"] == attention_id

            # the right id clears it; attention/cleared arrives before the ack's answer
            acked = await conn.request("attention/ack", {"attentionId": attention_id})
            recorder.log.append(("ack", acked))
            assert acked == {
                "acknowledged": True,
                "attentionId": attention_id,
                "currentAttention": None,
            }
            assert [name for name, _ in recorder.log][-2:] == ["attention/cleared", "ack"]
            cleared = recorder.events("attention/cleared")[0]
            assert (cleared["attentionId"], cleared["state"], cleared["blocking"]) == (
                attention_id,
                "cleared",
                False,
            )
            assert await conn.request("attention/current") == {"attention": None}
            again = await conn.request("attention/ack", {"attentionId": attention_id})
            assert again == {
                "acknowledged": False,
                "attentionId": attention_id,
                "currentAttention": None,
            }

            # the next entry opens a new item with a new id; advisory this time
            await recorder.call(conn, "example/fail", message="Low food", blocking=False)
            reopened = recorder.events("attention/opened")[-1]
            assert reopened["attentionId"] != attention_id
            assert (reopened["blocking"], reopened["severity"]) == (False, "warning")


async def test_echo_over_the_example_keeps_non_ascii_and_accepts_parameters(
    example_process: Any,
) -> None:
    token = generate_token()
    recorder = Recorder()
    async with (
        example_process("lib_gab.example", token) as port,
        attention_bridge(port, token, recorder) as conn,
    ):
        with anyio.fail_after(10):
            text = "Ärger 🐛 日本語"
            assert await conn.request(
                "tools/call", {"name": "example/echo", "parameters": {"text": text}}
            ) == {"text": text}
            assert await conn.request(
                "tools/call", {"name": "example/echo", "arguments": {"text": text}}
            ) == {"text": text}


async def test_the_example_refuses_wrong_tokens_and_early_calls(example_process: Any) -> None:
    token = generate_token()
    async with example_process("lib_gab.example", token) as port:
        stream = await anyio.connect_tcp("127.0.0.1", port)
        async with Connection(stream) as conn:
            with anyio.fail_after(10):
                with pytest.raises(RemoteError) as early:
                    await conn.request("tools/list")
                with pytest.raises(RemoteError) as wrong:
                    await conn.request(
                        "session/hello",
                        {
                            "token": generate_token(),
                            "bridgeVersion": "1",
                            "platform": "linux",
                            "launchId": new_id(),
                        },
                    )
                assert await conn.wait_closed(5)
    assert early.value.code == -31001
    assert wrong.value.code == -31000


async def test_the_legacy_example_serves_tools_and_events_and_knows_no_attention(
    example_process: Any,
) -> None:
    token = generate_token()
    events: list[Event] = []
    async with example_process("lib_gab.legacy_example", token) as port:
        stream = await anyio.connect_tcp("127.0.0.1", port)
        async with Connection(stream, on_event=events.append) as conn:
            with anyio.fail_after(10):
                hello = await conn.request(
                    "session/hello",
                    {
                        "token": token,
                        "bridgeVersion": "1.1.0",
                        "platform": "darwin",
                        "launchId": new_id(),
                    },
                )
                capabilities = hello["capabilities"]
                assert "attention/current" not in capabilities["methods"]
                assert capabilities["events"] == ["example/counter"]
                for method, params in (
                    ("attention/current", None),
                    ("attention/ack", {"attentionId": "x"}),
                ):
                    with pytest.raises(RemoteError) as info:
                        await conn.request(method, params)
                    assert info.value.code == -32601
                await conn.request("events/subscribe", {"channels": ["example/counter"]})
                assert (
                    await conn.request(
                        "tools/call", {"name": "example/count", "arguments": {"times": 3}}
                    )
                    == 3
                )
                assert await conn.request(
                    "tools/call", {"name": "example/echo", "arguments": {"text": "ok"}}
                ) == {"text": "ok"}
    assert [(e.seq, e.payload) for e in events] == [(0, {"i": 0}), (1, {"i": 1}), (2, {"i": 2})]
