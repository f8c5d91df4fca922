"""MCP over this process's stdin and stdout (what MCP hosts launch).

The framing is detected from the client's first bytes (:mod:`gabs.transports.stdio_framing`):
newline-delimited JSON, as MCP specifies, or ``Content-Length`` frames, answered in kind. While
serving, fd 0 reads the null device and fd 1 points at stderr, so nothing else in the process
(or a child it starts) can write into the protocol stream; both are restored at the end. SIGTERM
ends the server cleanly (exit status 0), as stdin closing does.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import Final

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.dispatcher import as_request_id, coerce_request_id
from mcp.shared.message import SessionMessage
from mcp_types import RequestId

from gabs._version import __version__
from gabs.config import GabsConfig
from gabs.mcp import ToolListNotifier, build_server, initialization_options
from gabs.transports._manager import open_manager
from gabs.transports.initialize_request import complete_initialize
from gabs.transports.invalid_requests import invalid_request_answer, skipped_reason
from gabs.transports.request_body import decode_body
from gabs.transports.request_ids import IdAliases
from gabs.transports.stdio_calls import LeanCalls, plain_call
from gabs.transports.stdio_framing import FramingError, StdioFrameDecoder, encode_frame
from gabs.transports.stdio_wire import WireClosed, open_wire

__all__ = ["EOF_GRACE_SECONDS", "MAX_UNANSWERED", "framed_stdio", "serve_stdio"]

logger = logging.getLogger("gabs.stdio")

#: How long the bridge keeps answering after stdin ends, for requests read before the end.
EOF_GRACE_SECONDS: Final = 30.0
#: Requests read and not yet answered, at most; reading stdin waits beyond.
MAX_UNANSWERED: Final = 1024
_WRITE_BATCH: Final = 64
_FINAL_WRITE_SECONDS: Final = 5.0


def _claim_fds() -> tuple[int, int, int, int]:
    """Private copies of fd 0 and 1; fd 0 then reads /dev/null and fd 1 writes to stderr."""
    wire_in, wire_out = os.dup(0), os.dup(1)
    saved_in, saved_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
    finally:
        os.close(null)
    os.dup2(2, 1)
    return wire_in, wire_out, saved_in, saved_out


def _restore_fds(saved_in: int, saved_out: int) -> None:
    for saved, fd in ((saved_in, 0), (saved_out, 1)):
        with suppress(OSError):
            os.dup2(saved, fd)
        with suppress(OSError):
            os.close(saved)


class _Unanswered:
    """Requests read from the client and not answered yet (what stdin's end waits for).

    Keyed as the SDK correlates ids (``"7"`` and ``7`` are one id); a request leaves when its
    answer is written or the client cancels it (a cancelled request is never answered).
    """

    def __init__(self) -> None:
        self._ids: Counter[RequestId] = Counter()
        self._changed: anyio.Event | None = None  # made only while someone waits

    def __len__(self) -> int:
        return self._ids.total()

    def _touch(self) -> None:
        if self._changed is not None:
            self._changed.set()
            self._changed = None

    def read(self, message: types.JSONRPCMessage) -> RequestId | None:
        """Count a request in; for a cancellation, settle its request and return its id."""
        if isinstance(message, types.JSONRPCRequest):
            self._ids[coerce_request_id(message.id)] += 1
        elif (
            isinstance(message, types.JSONRPCNotification)
            and message.method == "notifications/cancelled"
            and isinstance(message.params, dict)
        ):
            request_id = as_request_id(message.params.get("requestId"))
            if request_id is not None:
                self.settle(request_id)
                return request_id
        return None

    def written(self, message: types.JSONRPCMessage) -> None:
        answered = (
            getattr(message, "id", None) if not isinstance(message, types.JSONRPCRequest) else None
        )
        if answered is not None:
            self.settle(answered)

    def settle(self, request_id: RequestId) -> None:
        """``request_id`` was answered (or cancelled)."""
        key = coerce_request_id(request_id)
        count = self._ids.get(key, 0)
        if count <= 0:
            return
        if count == 1:
            del self._ids[key]
        else:
            self._ids[key] = count - 1
        self._touch()

    def clear(self) -> None:
        self._ids.clear()
        self._touch()

    async def at_most(self, count: int) -> None:
        """Wait until no more than ``count`` requests are unanswered."""
        while len(self) > count:
            if self._changed is None:
                self._changed = anyio.Event()
            await self._changed.wait()


def _decode(body: bytes) -> SessionMessage | Exception:
    message: types.JSONRPCMessage | None = plain_call(body)  # the hot path, read lean
    if message is None:
        try:
            message = types.jsonrpc_message_adapter.validate_json(body, by_name=False)
        except Exception as exc:
            return exc
    return SessionMessage(message)


#: How much of a refusal a log line shows (its id is the client's and may be long).
_LOGGED: Final = 200
_OPENED_WITHOUT_HANDSHAKE: Final = SessionMessage(
    types.JSONRPCNotification(jsonrpc="2.0", method="notifications/initialized")
)
_ENVELOPE_KEY: Final = "io.modelcontextprotocol/protocolVersion"


def _skips_the_handshake(message: types.JSONRPCMessage) -> bool:
    """Whether a connection's first request is a handshake-era one that is not ``initialize``
    (nor ``ping``, served before it anyway): a client of the Go bridge may start right away."""
    if not isinstance(message, types.JSONRPCRequest):
        return False
    if message.method in ("initialize", "ping"):
        return False
    meta = (message.params or {}).get("_meta")
    return not (isinstance(meta, dict) and _ENVELOPE_KEY in meta)


@asynccontextmanager
async def framed_stdio(
    wire_in: int | None = None,
    wire_out: int | None = None,
    *,
    eof_grace: float = EOF_GRACE_SECONDS,
    lean: LeanCalls | None = None,
) -> AsyncIterator[
    tuple[
        MemoryObjectReceiveStream[SessionMessage | Exception],
        MemoryObjectSendStream[SessionMessage],
    ]
]:
    """The read and write streams of an MCP server on stdin/stdout (or the given fds).

    When the input ends, the read stream ends only once every request read so far has been
    answered (or cancelled by the client), or after ``eof_grace`` seconds: a host that writes
    its requests and closes stdin still gets every answer. At most :data:`MAX_UNANSWERED`
    requests are read ahead of their answers, and nothing is read while the host is not reading
    what was written. Game calls ``lean`` takes are run here instead of going to the server
    (:mod:`gabs.transports.stdio_calls`); a read of nothing but such calls, in whole lines,
    that arrives while the read loop waits for input starts them right in the pipe's data
    callback (:meth:`~gabs.transports.stdio_wire.Wire.take_while_waiting`), one wake-up of
    the read loop fewer per call, under the same limits the read loop keeps.

    As the Go bridge does, a client may skip the handshake: when its first request is not
    ``initialize``, the server is told the connection is initialized before it reads that
    request. A request that is not valid JSON-RPC but has an id is answered with an error
    (``-32602`` or ``-32600``), not dropped. An ``initialize`` request without
    ``protocolVersion``, ``capabilities`` or ``clientInfo`` is served as the Go bridge serves it
    (:mod:`gabs.transports.initialize_request`).
    """
    saved: tuple[int, int] | None = None
    if wire_in is None or wire_out is None:
        wire_in, wire_out, saved_in, saved_out = _claim_fds()
        saved = (saved_in, saved_out)
    decoder = StdioFrameDecoder()
    unanswered = _Unanswered()
    aliases = IdAliases()
    wire = await open_wire(wire_in, wire_out)
    read_send, read_receive = anyio.create_memory_object_stream[SessionMessage | Exception](16)
    write_send, write_receive = anyio.create_memory_object_stream[SessionMessage](16)
    written_all = anyio.Event()

    def answer(request_id: RequestId, body: bytes, alone: bool) -> None:
        wire.write(encode_frame(aliases.restore(request_id, body), decoder.mode), now=alone)
        unanswered.settle(request_id)

    def take(data: bytes) -> bool:
        """Game calls started where they arrive, while the read loop waits for input: only a
        read of nothing but whole lines, each a call ``lean`` takes, and only while the read
        loop itself would read on (few enough unanswered, stdout keeping up)."""
        assert lean is not None
        if len(unanswered) >= MAX_UNANSWERED or not wire.flowing:
            return False
        bodies = decoder.whole_lines(data)
        if not bodies:
            return False
        calls = []
        for body in bodies:
            message = plain_call(aliases.alias(body))
            if message is None or not lean.read(message):
                return False
            calls.append(message)
        for message in calls:
            unanswered.read(message)
            lean.start(message, answer)
        return True

    async def read_loop() -> None:
        opened = False  # the client's first request was read
        async with read_send:
            while True:
                await unanswered.at_most(MAX_UNANSWERED)
                with suppress(WireClosed):
                    await wire.drain()
                chunk = await wire.read()
                if not chunk:
                    break
                decoder.feed(chunk)
                for body in decoder.messages():
                    if isinstance(body, FramingError):
                        logger.warning("stdin: %s", body)
                        continue
                    body = complete_initialize(aliases.alias(body))
                    item = _decode(body)
                    if not isinstance(item, SessionMessage) or (
                        isinstance(item.message, types.JSONRPCNotification) and b'"id"' in body
                    ):
                        decoded = decode_body(body)
                        refusal = invalid_request_answer(decoded, known_invalid=True)
                        if refusal is not None:
                            refusal = aliases.restore_answer(refusal)
                            shown = refusal[:_LOGGED].decode("utf-8", "replace")
                            logger.warning("stdin: an invalid request answered: %s", shown)
                            wire.write(encode_frame(refusal, decoder.mode))
                            continue
                        if not isinstance(item, SessionMessage):
                            reason = skipped_reason(decoded)
                            size = len(body)
                            logger.warning("stdin: skipped a message: %s (%d bytes)", reason, size)
                            continue
                    if isinstance(item, SessionMessage):
                        message = item.message
                        if not opened and isinstance(message, types.JSONRPCRequest):
                            opened = True
                            if _skips_the_handshake(message):
                                await read_send.send(_OPENED_WITHOUT_HANDSHAKE)
                        cancelled = unanswered.read(message)
                        if lean is not None:
                            if cancelled is not None:
                                lean.cancel(cancelled)
                            elif lean.read(message):
                                assert isinstance(message, types.JSONRPCRequest)
                                lean.start(message, answer)
                                continue
                    await read_send.send(item)
            if len(unanswered):
                logger.info("stdin closed: answering %d requests first", len(unanswered))
                with anyio.move_on_after(eof_grace) as grace:
                    await unanswered.at_most(0)
                if grace.cancelled_caught:
                    left = len(unanswered)
                    logger.warning("stdin closed: %d unanswered after %g s", left, eof_grace)
            if lean is not None:
                await lean.aclose()

    async def write_loop() -> None:
        async with write_receive:
            async for first in write_receive:
                batch = [first]
                with suppress(anyio.WouldBlock):
                    while len(batch) < _WRITE_BATCH:
                        batch.append(write_receive.receive_nowait())
                for session_message in batch:
                    message = session_message.message
                    body = types.jsonrpc_message_adapter.dump_json(
                        message, by_alias=True, exclude_unset=True
                    )
                    if len(aliases):
                        body = aliases.restore(getattr(message, "id", None), body)
                    wire.write(encode_frame(body, decoder.mode))
                    unanswered.written(message)
                    if lean is not None:
                        lean.written(message)
                try:
                    await wire.drain()
                except WireClosed as exc:
                    if len(unanswered):
                        logger.info("%s: %d requests stay unanswered", exc, len(unanswered))
                    unanswered.clear()
        written_all.set()

    if lean is not None:
        wire.take_while_waiting(take)
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(read_loop)
            tg.start_soon(write_loop)
            try:
                yield read_receive, write_send
                # the server is done: write what it left, then stop reading
                write_send.close()
                with anyio.move_on_after(_FINAL_WRITE_SECONDS):
                    await written_all.wait()
            finally:
                tg.cancel_scope.cancel()
    finally:
        wire.take_while_waiting(None)
        if lean is not None:
            await lean.aclose()  # calls still running answer "Connection closed"
        await wire.aclose()
        if saved is not None:
            with suppress(OSError):
                os.close(wire_out)
            if not wire.threaded:
                with suppress(OSError):
                    os.close(wire_in)
            _restore_fds(*saved)


async def _until_sigterm(scope: anyio.CancelScope) -> None:
    with anyio.open_signal_receiver(signal.SIGTERM) as signals:
        async for _ in signals:
            logger.info("SIGTERM: stopping")
            scope.cancel()
            return


async def serve_stdio(config_dir: str | os.PathLike[str] | None = None) -> None:
    """Serve MCP over this process's stdin and stdout until stdin closes or SIGTERM."""
    config = GabsConfig.load(config_dir)
    notifier = ToolListNotifier()
    async with open_manager(config, notifier) as manager:
        server = build_server(manager, notifier=notifier)
        logger.info(
            "gabs %s serving MCP on stdio (%d games configured)", __version__, len(config.games)
        )
        async with anyio.create_task_group() as tg:
            if sys.platform != "win32":
                tg.start_soon(_until_sigterm, tg.cancel_scope)
            async with framed_stdio(lean=LeanCalls(server)) as (read_stream, write_stream):
                await server.run(read_stream, write_stream, initialization_options(server))
            tg.cancel_scope.cancel()
