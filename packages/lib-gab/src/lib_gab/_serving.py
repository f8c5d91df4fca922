"""Listening, accepting bridge connections and serving each one: the running server."""

from __future__ import annotations

import contextlib
import errno
import ipaddress
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import anyio.abc

from gabp import Connection, ConnectionLimits, stdio_stream
from gabp.sockets import TcpListener, create_tcp_listener, serve_listener
from lib_gab._method_handlers import MethodHandlers, Session
from lib_gab._server_config import (
    ProtocolOptions,
    ServerAddress,
    ServerConfigError,
    Transport,
)

__all__ = ["Serving"]

logger = logging.getLogger("lib_gab.server")


class PortInUseError(ServerConfigError, OSError):
    """The port is taken: a configuration error that is still the ``OSError`` it was."""

    def __init__(self, host: str, port: int, cause: OSError) -> None:
        super().__init__(
            f"port {port} on {host} is already in use (another game, or this one started twice?)"
        )
        self.errno, self.strerror = cause.errno, cause.strerror

    def __str__(self) -> str:
        return str(self.args[0])


class Serving(MethodHandlers):
    """The part of the server that owns the listener and the connections."""

    host: str
    _port: int
    transport: Transport
    unix_path: Path | None
    _sessions: set[Session]
    _address: ServerAddress | None
    _connection_limits: ConnectionLimits
    options: ProtocolOptions
    _started: bool = False
    """Listening (or serving stdio) now: a second start is refused, as Lib.GAB's is."""

    @property
    def port(self) -> int:
        """The TCP port bridges reach: the one listened on once the server has listened (so
        the free port taken when it was asked for port 0, as Lib.GAB's ``Port``), before that
        the one it was configured with. A restart listens on the configured one again."""
        bound = self._address.port if self._address is not None else None
        return self._port if bound is None else bound

    @port.setter
    def port(self, value: int) -> None:
        """Configure the port the next listen uses (0: a free one)."""
        if type(value) is not int or not 0 <= value <= 65535:
            raise ValueError(f"port must be an int from 0 to 65535, got {value!r}")
        self._port = value

    @property
    def address(self) -> ServerAddress | None:
        """Where the server listens, once it runs."""
        return self._address

    @property
    def connection_count(self) -> int:
        return len(self._sessions)

    @asynccontextmanager
    async def running(self) -> AsyncIterator[ServerAddress]:
        """Serve in the background for the duration of the block; yields the bound address."""
        # listen first: a port in use is raised as itself, not inside an exception group
        listener = await self._open()
        try:
            async with anyio.create_task_group() as tg:
                address: ServerAddress = await tg.start(self._serve_on, listener)
                try:
                    yield address
                finally:
                    tg.cancel_scope.cancel()
        finally:
            self._started = False

    def run(self) -> None:
        """Serve until interrupted (blocking). Ctrl-C stops the server cleanly."""
        with contextlib.suppress(KeyboardInterrupt):
            anyio.run(self.serve)

    async def serve(
        self, *, task_status: anyio.abc.TaskStatus[ServerAddress] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        """Listen and serve until cancelled; reports the bound address through ``task_status``."""
        listener = await self._open()
        try:
            await self._serve_on(listener, task_status=task_status)
        finally:
            self._started = False

    async def _open(self) -> TcpListener | anyio.abc.SocketListener | None:
        if self._started:  # Lib.GAB's StartAsync: "Transport is already running"
            raise RuntimeError(
                "the server is already running: leave running() (or cancel serve()) first"
            )
        self._started = True
        try:
            self._relay.bind_loop()
            return None if self.transport == "stdio" else await self._listen()
        except BaseException:
            self._started = False
            raise

    async def _serve_on(
        self,
        listener: TcpListener | anyio.abc.SocketListener | None,
        *,
        task_status: anyio.abc.TaskStatus[ServerAddress] = anyio.TASK_STATUS_IGNORED,
    ) -> None:
        async with anyio.create_task_group() as tg:
            if self._attention is not None:
                tg.start_soon(self._relay.pump, self._attention)
            if listener is None:
                self._address = ServerAddress("stdio")
                task_status.started(self._address)
                await self._serve_connection(stdio_stream())
                tg.cancel_scope.cancel()
                return
            try:
                async with listener:
                    task_status.started(self._address)  # type: ignore[arg-type]
                    # a failed accept() (EMFILE, ENOBUFS, a connection aborted before it was
                    # taken) is logged and accepting goes on: it never ends the server
                    await serve_listener(listener, self._accept)
            finally:
                self._remove_socket_file()

    def _remove_socket_file(self) -> None:
        """Remove the Unix socket this server listened on (GABP: remove it on exit)."""
        if self.transport == "unix" and self.unix_path is not None:
            with contextlib.suppress(OSError):
                if self.unix_path.is_socket():
                    self.unix_path.unlink()

    async def _listen(self) -> TcpListener | anyio.abc.SocketListener:
        if self.transport == "unix":
            assert self.unix_path is not None
            if self.unix_path.exists():
                raise ServerConfigError(f"{self.unix_path} already exists")
            listener = await anyio.create_unix_listener(self.unix_path, mode=0o600)
            self._address = ServerAddress("unix", path=str(self.unix_path))
            return listener
        # gabp's own TCP streams: asyncio transports without anyio's per-call costs
        try:
            tcp = await create_tcp_listener(self.host, self._port)
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE:
                raise
            raise PortInUseError(self.host, self._port, exc) from exc
        bound = tcp.extra(anyio.abc.SocketAttribute.local_address)
        if not ipaddress.ip_address(bound[0]).is_loopback:  # check what was bound, not asked
            await tcp.aclose()
            raise ServerConfigError(f"refusing to serve on non-loopback address {bound[0]}")
        port = tcp.extra(anyio.abc.SocketAttribute.local_port)
        self._address = ServerAddress("tcp", host=self.host, port=port)
        return tcp

    async def _accept(self, stream: anyio.abc.ByteStream) -> None:
        if len(self._sessions) >= self.limits.max_connections:
            logger.warning(
                "refusing a bridge connection: %d connections already open",
                self.limits.max_connections,
            )
            await stream.aclose()
            return
        await self._serve_connection(stream)

    async def _serve_connection(self, stream: anyio.abc.ByteStream) -> None:
        connection = Connection(
            stream,
            limits=self._connection_limits,
            name=self.agent_id,
            lenient_headers=self.options.frame_headers == "lenient",
            any_case_names=self.options.envelope_names == "any_case",
            # hellos are judged one at a time, in order, and a refused one (which closes the
            # connection) leaves everything sent after it unserved, even in the same write
            serial_methods=("session/hello",),
        )
        session = Session(connection)
        connection.set_fallback_handler(lambda request: self._dispatch(session, request))
        self._sessions.add(session)
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(self._expire_without_hello, session)
                await connection.run()
                tg.cancel_scope.cancel()
        finally:
            self._sessions.discard(session)
            logger.info("bridge connection closed: %s", connection.close_reason)

    async def _expire_without_hello(self, session: Session) -> None:
        await anyio.sleep(self.limits.hello_timeout)
        if not session.established:
            logger.warning("closing a connection that sent no valid session/hello in time")
            session.connection.close_soon(
                f"no session/hello within {self.limits.hello_timeout:g} s"
            )
