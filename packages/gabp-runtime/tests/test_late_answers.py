"""``Connection.request(on_late_answer=...)``: learning when the peer is done with a request
its caller gave up on (a timeout, a cancellation)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest

from gabp import Connection, ConnectionLimits, InboundRequest, RequestTimeout, memory_pipe, new_id


@asynccontextmanager
async def pair(
    release: anyio.Event, *, client_limits: ConnectionLimits | None = None
) -> AsyncIterator[tuple[Connection, Connection]]:
    """A server whose ``slow`` method answers once ``release`` is set, and a client."""

    async def slow(request: InboundRequest) -> Any:
        await release.wait()
        return {"done": True}

    async def quick(request: InboundRequest) -> Any:
        return {"quick": True}

    a, b = memory_pipe()
    async with (
        Connection(a, handlers={"test/slow": slow, "test/quick": quick}, name="server") as server,
        Connection(b, limits=client_limits, name="client") as client,
    ):
        yield server, client


async def test_a_timed_out_request_is_reported_when_its_late_answer_arrives() -> None:
    release, told = anyio.Event(), anyio.Event()
    async with pair(release) as (_, client):
        request_id = new_id()
        with anyio.fail_after(5), pytest.raises(RequestTimeout):
            await client.request(
                "test/slow", timeout=0.05, request_id=request_id, on_late_answer=told.set
            )
        assert client.awaits_late_answer(request_id)
        assert not told.is_set()
        release.set()
        with anyio.fail_after(5):
            await told.wait()
        assert not client.awaits_late_answer(request_id)


async def test_a_cancelled_caller_is_reported_too_and_an_answered_request_never() -> None:
    release, told = anyio.Event(), anyio.Event()
    calls: list[str] = []
    async with pair(release) as (_, client):
        answered_id = new_id()
        result = await client.request(
            "test/quick", request_id=answered_id, on_late_answer=lambda: calls.append("quick")
        )
        assert result == {"quick": True}
        assert not client.awaits_late_answer(answered_id)

        request_id = new_id()
        with anyio.move_on_after(0.05):
            await client.request("test/slow", request_id=request_id, on_late_answer=told.set)
        assert client.awaits_late_answer(request_id)
        release.set()
        with anyio.fail_after(5):
            await told.wait()
    assert calls == []


async def test_closing_the_connection_reports_every_request_still_unanswered() -> None:
    release = anyio.Event()
    told: list[int] = []
    async with pair(release) as (_, client):
        for index in range(3):
            with pytest.raises(RequestTimeout):
                await client.request(
                    "test/slow", timeout=0.02, on_late_answer=lambda i=index: told.append(i)
                )
        assert told == []
    assert sorted(told) == [0, 1, 2]


async def test_past_the_bound_the_oldest_unanswered_request_is_reported_first() -> None:
    release = anyio.Event()
    told: list[int] = []
    limits = ConnectionLimits(max_outstanding_requests=2)
    async with pair(release, client_limits=limits) as (_, client):
        for index in range(3):
            with pytest.raises(RequestTimeout):
                await client.request(
                    "test/slow", timeout=0.02, on_late_answer=lambda i=index: told.append(i)
                )
        assert told == [0]  # two remembered at most: the oldest was let go
        release.set()


async def test_a_failing_callback_is_logged_and_the_connection_keeps_serving(
    caplog: pytest.LogCaptureFixture,
) -> None:
    release, called = anyio.Event(), anyio.Event()

    def broken() -> None:
        called.set()
        raise RuntimeError("boom")

    async with pair(release) as (_, client):
        with pytest.raises(RequestTimeout):
            await client.request("test/slow", timeout=0.02, on_late_answer=broken)
        release.set()
        with anyio.fail_after(5):
            await called.wait()
            assert await client.request("test/quick") == {"quick": True}
    assert "on_late_answer callback failed" in caplog.text
