"""Checkpoint B: a game that publishes whole attention items (RimBridgeServer's way, through
``publish`` and ``clear``) drives the attention lifecycle end to end, as a real process over
real loopback TCP, judged by both schema sets at every step."""

from __future__ import annotations

from typing import Any

import anyio

from gabp import Connection, generate_token, new_id
from gabp.messages import Event
from gabp_schemas import validate

ATTENTION = ["attention/opened", "attention/updated", "attention/cleared"]


class Wire:
    """What the bridge saw, in arrival order; every message judged by both schema sets."""

    def __init__(self) -> None:
        self.log: list[tuple[str, Any]] = []
        self.seqs: dict[str, list[int]] = {}

    def on_event(self, event: Event) -> None:
        wire = event.to_wire()
        validate(wire)
        validate(wire, schema_set="ext")
        self.seqs.setdefault(event.channel, []).append(event.seq)
        self.log.append((event.channel, event.payload))

    async def request(self, conn: Connection, method: str, params: Any = None) -> Any:
        request_id = new_id()
        result = await conn.request(method, params, request_id=request_id)
        response = {"v": "gabp/1", "id": request_id, "type": "response", "result": result}
        validate(response, method=method)
        validate(response, method=method, schema_set="ext")
        self.log.append((method, result))
        return result

    def take(self) -> list[tuple[str, Any]]:
        taken, self.log = self.log, []
        return taken


async def test_a_publishing_game_opens_updates_is_acknowledged_reopens_and_clears(
    example_process: Any,
) -> None:
    token = generate_token()
    wire = Wire()
    async with example_process("lib_gab.publisher_example", token) as port:
        stream = await anyio.connect_tcp("127.0.0.1", port)
        async with Connection(stream, on_event=wire.on_event, name="bridge") as conn:
            with anyio.fail_after(30):
                welcome = await wire.request(
                    conn,
                    "session/hello",
                    {
                        "token": token,
                        "bridgeVersion": "1.1.0",
                        "platform": "linux",
                        "launchId": new_id(),
                    },
                )
                capabilities = welcome["capabilities"]
                assert {"attention/current", "attention/ack"} <= set(capabilities["methods"])
                assert set(ATTENTION) <= set(capabilities["events"])
                await wire.request(conn, "events/subscribe", {"channels": ATTENTION})
                wire.take()

                # a failing call: the published item arrives before the call's response
                call_id = new_id()
                await conn.request(
                    "tools/call",
                    {"name": "game/fail", "parameters": {"message": "Pawn not found"}},
                    request_id=call_id,
                )
                ((channel, opened),) = wire.take()
                assert channel == "attention/opened"
                assert opened["attentionId"] == "game-attn-1"
                assert (opened["causalOperationId"], opened["causalMethod"]) == (
                    call_id,
                    "game/fail",
                )
                assert (opened["blocking"], opened["stateInvalidated"]) == (True, True)
                assert opened["summary"] == "1 problem(s) since sequence 1: Pawn not found"

                # the same problem again, and a warning: the game updates its item
                await wire.request(
                    conn,
                    "tools/call",
                    {"name": "game/fail", "arguments": {"message": "Pawn not found"}},
                )
                await wire.request(
                    conn,
                    "tools/call",
                    {
                        "name": "game/log",
                        "arguments": {"level": "warning", "message": "Job dropped"},
                    },
                )
                updates = [p for c, p in wire.take() if c == "attention/updated"]
                assert [u["totalUrgentEntries"] for u in updates] == [2, 3]
                latest = updates[-1]
                assert latest["sample"] == [
                    {
                        "level": "error",
                        "message": "Pawn not found",
                        "repeatCount": 2,
                        "latestSequence": 2,
                    },
                    {
                        "level": "warning",
                        "message": "Job dropped",
                        "repeatCount": 1,
                        "latestSequence": 3,
                    },
                ]
                assert await wire.request(conn, "attention/current") == {"attention": latest}

                # a stale id is not an ack; the right one clears, cleared first
                stale = await wire.request(conn, "attention/ack", {"attentionId": "game-attn-0"})
                assert stale == {
                    "acknowledged": False,
                    "attentionId": "game-attn-0",
                    "currentAttention": latest,
                }
                wire.take()
                acked = await wire.request(conn, "attention/ack", {"attentionId": "game-attn-1"})
                assert acked == {
                    "acknowledged": True,
                    "attentionId": "game-attn-1",
                    "currentAttention": None,
                }
                (cleared_channel, cleared), _answer = wire.take()
                assert cleared_channel == "attention/cleared"
                assert cleared == {**latest, "state": "cleared", "blocking": False}

                # the next problem is a new item under a new id
                await wire.request(
                    conn, "tools/call", {"name": "game/fail", "arguments": {"message": "Map lost"}}
                )
                ((channel, reopened), _) = wire.take()
                assert (channel, reopened["attentionId"]) == ("attention/opened", "game-attn-2")
                assert reopened["openedAtSequence"] == 4

                # the game recovers by itself and clears from its side
                recovered = await wire.request(conn, "tools/call", {"name": "game/recover"})
                assert recovered == {"cleared": "game-attn-2"}
                ((channel, cleared_by_game), _) = wire.take()
                assert channel == "attention/cleared"
                assert cleared_by_game["attentionId"] == "game-attn-2"
                assert cleared_by_game["summary"] == "The game recovered on its own."
                assert (cleared_by_game["state"], cleared_by_game["blocking"]) == ("cleared", False)
                assert await wire.request(conn, "attention/current") == {"attention": None}
                late = await wire.request(conn, "attention/ack", {"attentionId": "game-attn-2"})
                assert late == {
                    "acknowledged": False,
                    "attentionId": "game-attn-2",
                    "currentAttention": None,
                }
    assert wire.seqs == {
        "attention/opened": [0, 1],
        "attention/updated": [0, 1],
        "attention/cleared": [0, 1],
    }
