"""gabp.sockets: TCP streams on asyncio transports, and a Connection over them."""

from __future__ import annotations

import asyncio
import errno
import os
import socket
import struct
import threading
import time
from typing import Any

import anyio
import anyio.abc
import pytest

from gabp import (
    Connection,
    ConnectionClosed,
    ConnectionLimits,
    InboundRequest,
    SocketStream,
    connect_tcp,
    create_tcp_listener,
)
from gabp.messages import Event


async def echo(request: InboundRequest) -> Any:
    await request.connection.emit("test/echoed", {"id": request.id})
    return request.params


async def test_a_connection_over_gabp_sockets_answers_many_requests_in_flight_in_order() -> None:
    listener = await create_tcp_listener("127.0.0.1", 0)
    port = listener.extra(anyio.abc.SocketAttribute.local_port)
    seen: list[str] = []

    async def serve(stream: SocketStream) -> None:
        async with Connection(stream, handlers={"test/echo": echo}, name="game") as game:
            await game.wait_closed()

    results: list[Any] = [None] * 64
    async with listener, anyio.create_task_group() as tg:
        tg.start_soon(listener.serve, serve)
        stream = await connect_tcp("127.0.0.1", port)

        def on_event(event: Event) -> None:
            seen.append(event.payload["id"])

        async with Connection(stream, on_event=on_event, name="bridge") as bridge:

            async def call(index: int) -> None:
                results[index] = await bridge.request("test/echo", {"i": index, "t": "Ärger 🐛"})

            with anyio.fail_after(10):
                async with anyio.create_task_group() as calls:
                    for index in range(64):
                        calls.start_soon(call, index)
        tg.cancel_scope.cancel()
    assert results == [{"i": index, "t": "Ärger 🐛"} for index in range(64)]
    assert len(seen) == 64  # each event arrived before its response


async def test_the_listener_binds_the_loopback_address_it_was_given_and_reports_it() -> None:
    async with await create_tcp_listener("127.0.0.1", 0) as listener:
        host, port = listener.extra(anyio.abc.SocketAttribute.local_address)
        assert host == "127.0.0.1"
        assert port == listener.extra(anyio.abc.SocketAttribute.local_port) > 0
    with pytest.raises(anyio.ClosedResourceError):
        await listener.accept()


async def test_a_stream_reads_what_arrives_then_end_of_stream_and_refuses_sends_after_close() -> (
    None
):
    async with await create_tcp_listener("127.0.0.1", 0) as listener:
        port = listener.extra(anyio.abc.SocketAttribute.local_port)
        client = await connect_tcp("127.0.0.1", port)
        with anyio.fail_after(5):
            server = await listener.accept()
            await client.send(b"x" * 100_000)
            await client.send_eof()
            received = bytearray()
            with pytest.raises(anyio.EndOfStream):
                while True:
                    chunk = await server.receive(4096)
                    assert 0 < len(chunk) <= 4096
                    received += chunk
            await server.send(b"bye")  # the other direction stays open after the peer's EOF
            assert await client.receive() == b"bye"
        assert bytes(received) == b"x" * 100_000
        assert server.extra(anyio.abc.SocketAttribute.remote_port) == client.extra(
            anyio.abc.SocketAttribute.local_port
        )
        await server.aclose()
        with pytest.raises(anyio.ClosedResourceError):
            await server.send(b"late")
        with pytest.raises(anyio.ClosedResourceError):
            await client.send(b"after eof")
        await client.aclose()


async def test_a_peer_that_stops_reading_fails_writes_after_the_write_timeout() -> None:
    async with await create_tcp_listener("127.0.0.1", 0) as listener:
        port = listener.extra(anyio.abc.SocketAttribute.local_port)
        peer = socket.socket()
        peer.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        peer.setblocking(False)
        try:
            peer.connect_ex(("127.0.0.1", port))
            stream = await listener.accept()
            limits = ConnectionLimits(write_timeout=0.2, max_write_buffer_bytes=64 * 1024)
            async with Connection(stream, limits=limits, name="game") as game:
                with anyio.fail_after(20), pytest.raises(ConnectionClosed):
                    for _ in range(5000):
                        await game.emit("game/tick", "x" * 65536)
                assert await game.wait_closed(5)
            assert game.close_reason == "the peer read too slowly: a write waited 0.2 s"
        finally:
            peer.close()


def _request_frame(index: int) -> bytes:
    from gabp.framing import encode_frame

    body = (
        f'{{"v":"gabp/1","id":"00000000-0000-4000-8000-{index:012d}","type":"request",'
        f'"method":"test/plain","params":{{"i":{index}}}}}'
    )
    return encode_frame(body.encode())


@pytest.mark.parametrize(("batch", "expected"), [(4, [4, 4, 2]), (16, [10])])
async def test_the_answers_to_one_read_leave_in_writes_of_at_most_max_batched_answers(
    batch: int, expected: list[int]
) -> None:
    listener = await create_tcp_listener("127.0.0.1", 0)
    port = listener.extra(anyio.abc.SocketAttribute.local_port)
    writes: list[int] = []
    limits = ConnectionLimits(max_batched_answers=batch, max_batch_hold=60.0)

    async def plain(request: InboundRequest) -> Any:
        return request.params  # answers without waiting: served as the read is processed

    async def serve(stream: SocketStream) -> None:
        send = stream.send_nowait

        def counting(item: bytes | bytearray | memoryview) -> None:
            writes.append(bytes(item).count(b"Content-Length"))
            send(item)

        stream.send_nowait = counting  # type: ignore[method-assign]
        handlers = {"test/plain": plain}
        async with Connection(stream, handlers=handlers, limits=limits, name="game") as game:
            await game.wait_closed()

    async with listener, anyio.create_task_group() as tg:
        tg.start_soon(listener.serve, serve)
        with anyio.fail_after(10):
            client = await anyio.connect_tcp("127.0.0.1", port)
            received = b""

            async def answers(count: int) -> None:
                nonlocal received
                while received.count(b'"type":"response"') < count:
                    received += await client.receive()

            await client.send(_request_frame(0))  # the first of a method takes the long way
            await answers(1)
            writes.clear()
            await client.send(b"".join(_request_frame(index) for index in range(1, 11)))
            await answers(11)
            await client.aclose()
        tg.cancel_scope.cancel()
    assert writes == expected
    for index in range(1, 11):
        assert b'"i":%d}' % index in received


async def test_held_answers_leave_once_the_first_waited_max_batch_hold() -> None:
    # Three requests in one read; the second handler is slow. The first answer must not wait
    # for the whole read: it leaves with the second, so the peer has it while the third runs.
    got_first = threading.Event()
    limits = ConnectionLimits(max_batch_hold=0.001)

    async def plain(request: InboundRequest) -> Any:
        index = request.params["i"]
        if index == 2:
            # blocks the loop on purpose: the first answer's hold passes meanwhile
            time.sleep(0.02)  # noqa: ASYNC251
        if index == 3:
            return {"i": index, "peerHadTheFirst": got_first.wait(10)}
        return request.params

    async def serve(stream: SocketStream) -> None:
        handlers = {"test/plain": plain}
        async with Connection(stream, handlers=handlers, limits=limits, name="game") as game:
            await game.wait_closed()

    def peer(port: int) -> bytes:
        with socket.create_connection(("127.0.0.1", port), timeout=20) as sock:
            received = b""
            sock.sendall(_request_frame(0))  # the first of a method takes the long way
            while b'"i":0}' not in received:
                received += sock.recv(65536)
            sock.sendall(b"".join(_request_frame(index) for index in range(1, 4)))
            while received.count(b'"type":"response"') < 4:
                received += sock.recv(65536)
                if b'"i":1}' in received:
                    got_first.set()
            return received

    listener = await create_tcp_listener("127.0.0.1", 0)
    port = listener.extra(anyio.abc.SocketAttribute.local_port)
    async with listener, anyio.create_task_group() as tg:
        tg.start_soon(listener.serve, serve)
        with anyio.fail_after(30):
            received = await anyio.to_thread.run_sync(peer, port)
        tg.cancel_scope.cancel()
    assert b'"peerHadTheFirst":true' in received


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("max_batch_hold", -0.001, "max_batch_hold must be a finite number >= 0"),
        ("max_batch_hold", float("inf"), "max_batch_hold must be a finite number >= 0"),
        ("max_batch_hold", float("nan"), "max_batch_hold must be a finite number >= 0"),
        ("max_batched_answers", 0, "max_batched_answers must be at least 1"),
    ],
)
def test_connection_limits_refuse_bad_batching_bounds(field: str, value: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ConnectionLimits(**{field: value})


def _fail_next_accepts(
    monkeypatch: pytest.MonkeyPatch, error: OSError, times: int = 1
) -> anyio.Event:
    """Make the running loop's next ``times`` socket accepts fail with ``error``; the event is
    set once they have."""
    loop = asyncio.get_running_loop()
    real = loop.sock_accept
    raised: list[OSError] = []
    done = anyio.Event()

    async def sock_accept(sock: socket.socket) -> tuple[socket.socket, Any]:
        if len(raised) < times:
            raised.append(error)
            if len(raised) == times:
                done.set()
            raise error
        return await real(sock)

    monkeypatch.setattr(loop, "sock_accept", sock_accept)
    return done


@pytest.mark.parametrize(
    "code",
    [errno.EMFILE, errno.ECONNABORTED, errno.ENOBUFS],
    ids=["EMFILE", "ECONNABORTED", "ENOBUFS"],
)
async def test_a_failed_accept_is_survived_and_the_connections_served_keep_running(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, code: int
) -> None:
    listener = await create_tcp_listener("127.0.0.1", 0)
    port = listener.extra(anyio.abc.SocketAttribute.local_port)

    async def serve(stream: SocketStream) -> None:
        async with Connection(stream, handlers={"test/echo": echo}, name="game") as game:
            await game.wait_closed()

    with anyio.fail_after(20):
        async with listener, anyio.create_task_group() as tg:
            tg.start_soon(listener.serve, serve)
            async with Connection(await connect_tcp("127.0.0.1", port)) as first:
                assert await first.request("test/echo", {"n": 1}) == {"n": 1}
                # the listener waits in an accept already: the one after the next connection
                # fails (a process out of descriptors, a connection reset before it was taken)
                failed = _fail_next_accepts(monkeypatch, OSError(code, os.strerror(code)), 2)
                async with Connection(await connect_tcp("127.0.0.1", port)) as second:
                    assert await second.request("test/echo", {"n": 2}) == {"n": 2}
                    await failed.wait()
                    async with Connection(await connect_tcp("127.0.0.1", port)) as third:
                        assert await third.request("test/echo", {"n": 3}) == {"n": 3}
                    assert await second.request("test/echo", {"n": 4}) == {"n": 4}
                assert await first.request("test/echo", {"n": 5}) == {"n": 5}
                assert not first.closed
            tg.cancel_scope.cancel()
    assert "accepting a connection failed, still listening" in caplog.text


async def test_a_broken_listening_socket_ends_serve_with_its_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    listener = await create_tcp_listener("127.0.0.1", 0)
    _fail_next_accepts(monkeypatch, OSError(errno.EINVAL, "not listening"))

    async def never(stream: SocketStream) -> None:
        raise AssertionError("nothing is accepted")

    with anyio.fail_after(5), pytest.RaisesGroup(anyio.BrokenResourceError):
        async with listener:
            await listener.serve(never)


async def test_an_accepted_connection_that_cannot_be_set_up_is_dropped_and_accepting_goes_on(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    listener = await create_tcp_listener("127.0.0.1", 0)
    port = listener.extra(anyio.abc.SocketAttribute.local_port)
    loop = asyncio.get_running_loop()
    real = loop.connect_accepted_socket
    failed: list[socket.socket] = []

    async def connect_accepted_socket(factory: Any, sock: socket.socket) -> Any:
        if not failed:
            failed.append(sock)
            raise OSError(errno.EINVAL, "reset before it was set up")
        return await real(factory, sock)

    monkeypatch.setattr(loop, "connect_accepted_socket", connect_accepted_socket)
    with anyio.fail_after(20):
        async with listener:
            with (
                socket.create_connection(("127.0.0.1", port), timeout=5) as dropped,
                socket.create_connection(("127.0.0.1", port), timeout=5) as kept,
            ):
                stream = await listener.accept()  # the first is dropped, the second taken
                async with stream:
                    kept.sendall(b"x")
                    assert await stream.receive() == b"x"
                assert dropped.recv(1) == b""  # closed, not left hanging
                assert failed and failed[0].fileno() == -1
    assert "an accepted connection could not be set up, dropped" in caplog.text


async def test_a_reset_by_the_peer_is_named_in_the_close_reason() -> None:
    async with await create_tcp_listener("127.0.0.1", 0) as listener:
        port = listener.extra(anyio.abc.SocketAttribute.local_port)
        with socket.create_connection(("127.0.0.1", port), timeout=5) as peer:
            stream = await listener.accept()
            async with Connection(stream, name="game") as game:
                # SO_LINGER 0: closing sends a reset, not an end of stream
                peer.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                peer.close()
                with anyio.fail_after(5):
                    assert await game.wait_closed()
    reason = game.close_reason
    assert reason.startswith("connection lost while reading: "), reason
    assert reason.endswith(
        str(ConnectionResetError(errno.ECONNRESET, os.strerror(errno.ECONNRESET)))
    )
