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
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import Final

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

from gabs._version import __version__
from gabs.config import GabsConfig
from gabs.mcp import ToolListNotifier, build_server, initialization_options
from gabs.transports._manager import open_manager
from gabs.transports.stdio_framing import FramingError, StdioFrameDecoder, encode_frame

__all__ = ["framed_stdio", "serve_stdio"]

logger = logging.getLogger("gabs.stdio")

_READ_BYTES: Final = 65536


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


@asynccontextmanager
async def framed_stdio(
    wire_in: int | None = None, wire_out: int | None = None
) -> AsyncIterator[
    tuple[
        MemoryObjectReceiveStream[SessionMessage | Exception],
        MemoryObjectSendStream[SessionMessage],
    ]
]:
    """The read and write streams of an MCP server on stdin/stdout (or the given fds)."""
    saved: tuple[int, int] | None = None
    if wire_in is None or wire_out is None:
        wire_in, wire_out, saved_in, saved_out = _claim_fds()
        saved = (saved_in, saved_out)
    decoder = StdioFrameDecoder()
    read_send, read_receive = anyio.create_memory_object_stream[SessionMessage | Exception](16)
    write_send, write_receive = anyio.create_memory_object_stream[SessionMessage](16)

    async def read_loop() -> None:
        async with read_send:
            while True:
                # a blocked read cannot be interrupted: on cancellation its thread is left
                # behind (the process is ending), and its descriptor is never closed under it
                chunk = await anyio.to_thread.run_sync(
                    os.read, wire_in, _READ_BYTES, abandon_on_cancel=True
                )
                if not chunk:
                    return
                decoder.feed(chunk)
                for body in decoder.messages():
                    if isinstance(body, FramingError):
                        logger.warning("stdin: %s", body)
                        continue
                    try:
                        message = types.jsonrpc_message_adapter.validate_json(body, by_name=False)
                    except Exception as exc:
                        await read_send.send(exc)
                        continue
                    await read_send.send(SessionMessage(message))

    async def write_loop() -> None:
        async with write_receive:
            async for session_message in write_receive:
                body = session_message.message.model_dump_json(by_alias=True, exclude_unset=True)
                frame = encode_frame(body.encode("utf-8"), decoder.mode)
                view = memoryview(frame)
                while view:
                    written = await anyio.to_thread.run_sync(os.write, wire_out, view)
                    view = view[written:]

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(read_loop)
            tg.start_soon(write_loop)
            try:
                yield read_receive, write_send
            finally:
                tg.cancel_scope.cancel()
    finally:
        if saved is not None:
            with suppress(OSError):
                os.close(wire_out)
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
            async with framed_stdio() as (read_stream, write_stream):
                await server.run(read_stream, write_stream, initialization_options(server))
            tg.cancel_scope.cancel()
