"""Experiments: ``gabs`` with one part swapped, to measure a fix before anyone writes it.

Runs the installed ``gabs`` command line with, in this process only:

* ``--stdio-pipes``: ``mcp.server.stdio.stdio_server`` replaced by a transport on non-blocking
  pipes (``loop.connect_read_pipe`` / ``connect_write_pipe``): one read takes every line that
  has arrived, one write per message, no threads. The SDK's transport reads every line, writes
  every message and flushes through ``anyio.to_thread`` (three worker-thread round trips per
  call: hot spot 1 of the README). Like the SDK's, it moves fd 0 to the null device and fd 1 to
  stderr while serving, so children never touch the wire.
* ``--http-json``: the SDK's Streamable HTTP app built with ``json_response=True``: a POST is
  answered with one JSON body instead of an SSE stream (hot spot 5; progress notifications of
  a request are then not streamed).

Side by side with the stock bridge (``V=benchmarks/gabs_variant.py``)::

    uv run python benchmarks/bench_e2e.py --compare-name variant \\
        --compare-stdio "{python} $V --stdio-pipes serve --config-dir {config_dir}" \\
        --compare-http "{python} $V --http-json serve --transport http --host 127.0.0.1 \\
            --port {port} --config-dir {config_dir}"

Not part of gabs and not a supported way to run it.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp.server.stdio as sdk_stdio
import mcp_types
from mcp.shared.message import SessionMessage

MAX_LINE = 64 * 1024 * 1024


class _WriteSide(asyncio.Protocol):
    """Flow control of the stdout pipe: writers wait while the transport's buffer is full."""

    def __init__(self) -> None:
        self.can_write = asyncio.Event()
        self.can_write.set()

    def pause_writing(self) -> None:
        self.can_write.clear()

    def resume_writing(self) -> None:
        self.can_write.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self.can_write.set()


@asynccontextmanager
async def pipe_stdio_server(
    stdin: Any = None, stdout: Any = None
) -> AsyncIterator[tuple[Any, Any]]:
    loop = asyncio.get_running_loop()
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    reader = asyncio.StreamReader(limit=MAX_LINE)
    read_transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(wire_in, "rb", buffering=0)
    )
    write_transport, write_side = await loop.connect_write_pipe(
        _WriteSide, os.fdopen(wire_out, "wb", buffering=0)
    )
    read_send, read_receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_send, write_receive = anyio.create_memory_object_stream[SessionMessage](0)

    async def read_lines() -> None:
        async with read_send:
            while line := await reader.readline():
                try:
                    message = mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                except Exception as exc:
                    await read_send.send(exc)
                    continue
                await read_send.send(SessionMessage(message))

    async def write_lines() -> None:
        async with write_receive:
            async for session_message in write_receive:
                data = session_message.message.model_dump_json(by_alias=True, exclude_unset=True)
                write_transport.write(data.encode() + b"\n")
                with anyio.fail_after(60):  # a host that reads nothing for a minute is gone
                    await write_side.can_write.wait()

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(read_lines)
            tg.start_soon(write_lines)
            try:
                yield read_receive, write_send
            finally:
                tg.cancel_scope.cancel()
    finally:
        read_transport.close()
        write_transport.close()


def json_responses() -> None:
    """Make the SDK's Streamable HTTP app answer POSTs with JSON bodies."""
    from mcp.server.lowlevel.server import Server

    original = Server.streamable_http_app

    def with_json(self: Server[Any], **options: Any) -> Any:
        return original(self, **{**options, "json_response": True})

    Server.streamable_http_app = with_json  # type: ignore[method-assign]


def pipe_stdio() -> None:
    sdk_stdio.stdio_server = pipe_stdio_server


VARIANTS = {"--stdio-pipes": pipe_stdio, "--http-json": json_responses}


if __name__ == "__main__":
    arguments = sys.argv[1:]
    while arguments and arguments[0] in VARIANTS:
        VARIANTS[arguments.pop(0)]()
    from gabs.cli import main

    sys.argv[0] = "gabs"
    main(arguments)
