"""One GABP client session per game: connect, hello, mirror tools, observe attention, call.

A :class:`GameSession` owns the bridge's connection to one game. It says hello with the
launch's token, detects capabilities, mirrors the game's tools (also the older descriptor shape
of the C# runtime), subscribes to the attention channels the game advertises, keeps the
:class:`~gabs.attention.AttentionCache` in event order, reconnects while the game's process
lives (waiting as :mod:`gabs.backoff` says), and notices a stalled game with a liveness probe.

:meth:`GameSession.call_tool` is where the three answers to "did it run?" are decided
(ARCHITECTURE decision 5): refused by the gate means ``executed: false``; answered means
``executed: true`` with any attention the call caused or met attached
(:func:`gabs.call_outcome.attach_attention`); a connection that died (or a timeout) before the
answer means ``executed: "unknown"``.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, Literal

import anyio
import anyio.abc

from gabp import (
    Connection,
    ConnectionClosed,
    ConnectionLimits,
    ErrorCode,
    GabpError,
    RemoteError,
    RequestTimeout,
    connect_tcp,
    new_id,
    unique_id,
)
from gabp.messages import Attention, Capabilities, Event, parse_result
from gabs.attention import AttentionCache, Gate, GateDecision
from gabs.backoff import DEFAULT_BACKOFF, backoff_delays
from gabs.call_outcome import (
    CallOutcome,
    CallWatch,
    NotSent,
    attach_attention,
    record_failure,
)
from gabs.game_tools import MirroredTool, read_tool_list
from gabs.request_slots import QueueFull, RequestSlots, SlotHold, declared_concurrency
from gabs.session_close import CLOSE_GRACE, close_when_answered, owed
from gabs.session_hello import HandshakeFailed, SessionError, hello_params, read_welcome

__all__ = [
    "ATTENTION_CHANNELS",
    "CallOutcome",
    "GameSession",
    "HandshakeFailed",
    "NotSent",
    "SessionError",
]

logger = logging.getLogger("gabs.session")

ATTENTION_CHANNELS = ("attention/opened", "attention/updated", "attention/cleared")


def _single(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The one real exception of a task group's failure (or the group, if there are several)."""
    errors = [e for e in group.exceptions if not isinstance(e, anyio.get_cancelled_exc_class())]
    if len(errors) == 1:
        inner = errors[0]
        return _single(inner) if isinstance(inner, BaseExceptionGroup) else inner
    return group


class GameSession:
    """The bridge's connection to one game."""

    def __init__(
        self,
        game_id: str,
        *,
        host: str = "127.0.0.1",
        port: int,
        token: str,
        gate: Gate | None = None,
        call_timeout: float = 30.0,
        connect_timeout: float = 10.0,
        liveness_interval: float = 5.0,
        liveness_timeout: float = 5.0,
        process_alive: Callable[[], bool] | None = None,
        on_change: Callable[[str], Awaitable[None] | None] | None = None,
        max_concurrent_requests: int | None = None,
        reconnect_backoff: tuple[float, float] = DEFAULT_BACKOFF,
    ) -> None:
        self.game_id = game_id
        self.host = host
        self.port = port
        self._token = token
        self.gate = gate or Gate()
        self.call_timeout = call_timeout
        self.connect_timeout = connect_timeout
        self.liveness_interval = liveness_interval
        self.liveness_timeout = liveness_timeout
        self._process_alive = process_alive
        self._on_change = on_change
        self.cache = AttentionCache()
        self.capabilities: Capabilities | None = None
        self.hello: dict[str, Any] | None = None  # without ``observed`` (delivery_report)
        self._observed: Any = None
        self.tools: dict[str, MirroredTool] = {}
        self.tools_error: str | None = None
        """Why the game's last ``tools/list`` failed (an error answer): the session is set up
        and calls go through, but the tool list is unknown until a sync succeeds."""
        self.subscribed: list[str] = []
        self.state: Literal["connecting", "connected", "stalled", "reconnecting", "closed"] = (
            "connecting"
        )
        self.last_error: str | None = None
        self.reconnects = 0
        self.reconnect_backoff = reconnect_backoff
        """The waits between reconnection attempts (see :mod:`gabs.backoff`)."""
        self._connection: Connection | None = None
        self._connected = anyio.Event()
        self._closed = False
        self._watches: dict[str, CallWatch] = {}
        self._last_seq: dict[str, int] = {}
        self._tg: anyio.abc.TaskGroup | None = None
        self._launch_id = new_id()
        self.configured_concurrency = max_concurrent_requests
        """The per-game config setting that replaces what the game declares, if any."""
        self.slots = RequestSlots(max_concurrent_requests or 1)
        """Requests in flight to the game (replaced on every connection, see request_slots)."""

    def __repr__(self) -> str:
        return f"GameSession({self.game_id!r}, {self.host}:{self.port}, state={self.state})"

    # -- properties -----------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self._connection is not None and not self._connection.closed

    @property
    def supports_attention(self) -> bool:
        return self.capabilities is not None and self.capabilities.supports_attention

    @property
    def attention(self) -> Attention | None:
        return self.cache.snapshot()

    def delivery_report(self) -> dict[str, Any] | None:
        """The welcome's delivery report (``{"observed": ...}``) until it is dropped: its raw
        values are compared with the launch's digests, then dropped (Go's consume-once
        ``TakeObservedContext``); None when there is none."""
        return None if self._observed is None else {"observed": self._observed}

    def drop_delivery_report(self) -> None:
        self._observed = None

    # -- lifecycle ------------------------------------------------------------------------------

    async def run(
        self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        """Connect, then keep the session alive (reconnecting) until :meth:`close`.

        A failure to connect at first raises it as it is (not wrapped in an exception group).
        """
        try:
            await self._run(task_status=task_status)
        except BaseExceptionGroup as group:
            raise _single(group) from None

    async def _run(self, *, task_status: anyio.abc.TaskStatus[None]) -> None:
        async with anyio.create_task_group() as tg:
            self._tg = tg
            await self._connect_once()
            task_status.started()
            tg.start_soon(self._liveness)
            while not self._closed:
                connection = self._connection
                assert connection is not None
                await connection.wait_closed()
                if self._closed:
                    break
                self.last_error = connection.close_reason
                self._observed = None  # raw reported values never outlive their connection
                logger.warning("%s: connection lost: %s", self.game_id, connection.close_reason)
                await self._changed("disconnected")
                if not await self._reconnect():
                    break
            self.state = "closed"
            tg.cancel_scope.cancel()

    async def close(self, *, grace: float | None = None) -> None:
        """Close once the game wrote the answers it owes (bounded: :mod:`gabs.session_close`)."""
        self._closed = True
        self.state = "closed"
        self._observed = None
        if self._connection is not None:
            limit = min(self.call_timeout, CLOSE_GRACE) if grace is None else grace
            await close_when_answered(self._connection, limit, self.game_id)
        if self._tg is not None:
            self._tg.cancel_scope.cancel()

    async def _connect_once(self) -> None:
        with anyio.fail_after(self.connect_timeout):
            try:
                stream = await connect_tcp(self.host, self.port)
            except OSError as exc:
                raise SessionError(
                    f"cannot connect to {self.game_id} at {self.host}:{self.port}: {exc}"
                ) from None
        connection = Connection(
            stream,
            on_event=self._on_event,
            limits=ConnectionLimits(request_timeout=self.call_timeout),
            name=f"bridge->{self.game_id}",
        )
        assert self._tg is not None
        await self._tg.start(connection.run)
        self._connection = connection
        try:
            await self._handshake(connection)
        except BaseException:
            await connection.aclose("handshake failed")
            raise
        self.state = "connected"
        self._connected.set()
        await self._changed("connected")

    async def _handshake(self, connection: Connection) -> None:
        try:
            reply = await connection.request(
                "session/hello",
                hello_params(self._token, self._launch_id),
                timeout=self.connect_timeout,
            )
        except RemoteError as exc:
            raise HandshakeFailed(
                f"{self.game_id} refused the session: {exc.message} ({exc.code})"
            ) from None
        except RequestTimeout:
            raise HandshakeFailed(
                f"{self.game_id} did not answer session/hello within {self.connect_timeout:g} s"
            ) from None
        except ConnectionClosed as exc:
            raise HandshakeFailed(f"{self.game_id} closed the connection at hello: {exc}") from None
        hello = read_welcome(self.game_id, reply)
        self.hello = {k: v for k, v in reply.items() if k != "observed"}
        self._observed = reply.get("observed")
        self.capabilities = hello.capabilities
        limits = hello.capabilities.limits  # a request the game would not read is not sent
        connection.peer_max_message_bytes = limits.max_message_size if limits else None
        self.slots = RequestSlots(
            self.configured_concurrency or declared_concurrency(hello.capabilities.extensions) or 1
        )
        with contextlib.suppress(RemoteError):  # connected without a list: see tools_error
            await self.refresh_tools()
        self.cache.reset()
        self.subscribed = []
        self._last_seq.clear()
        if self.supports_attention and self.gate.mode != "off":
            channels = [c for c in ATTENTION_CHANNELS if c in self.capabilities.events]
            if channels:
                answer = await self._request("events/subscribe", {"channels": channels})
                self.subscribed = list(answer.get("subscribed", channels))
            await self.refresh_attention()

    async def _reconnect(self) -> bool:
        self.state = "reconnecting"
        delays = backoff_delays(self.reconnect_backoff)
        deadline = time.monotonic() + 60.0
        while not self._closed and time.monotonic() < deadline:
            if self._process_alive is not None and not self._process_alive():
                self.last_error = "the game process exited"
                return False
            try:
                await self._connect_once()
                self.reconnects += 1
                return True
            except (SessionError, GabpError, OSError, TimeoutError) as exc:
                self.last_error = str(exc)
                await anyio.sleep(next(delays))
        return False

    async def _liveness(self) -> None:
        """Probe a quiet game now and then; a probe without an answer marks it stalled."""
        while not self._closed:
            await anyio.sleep(self.liveness_interval)
            connection = self._connection
            if connection is None or connection.closed:
                continue
            method = "attention/current" if self.supports_attention else "tools/list"
            slots = self.slots
            if not slots.try_acquire():
                continue  # busy with the bridge's own requests: their answers tell
            try:
                await connection.request(method, timeout=self.liveness_timeout, on_late_answer=owed)
            except RequestTimeout:
                if self.state == "connected":
                    self.state = "stalled"
                    self.last_error = (
                        f"no answer to a liveness probe within {self.liveness_timeout:g} s"
                    )
                    await self._changed("stalled")
                continue
            except (ConnectionClosed, RemoteError):
                continue
            finally:
                slots.release()
            if self.state == "stalled":
                self.state = "connected"
                await self._changed("recovered")

    async def _changed(self, what: str) -> None:
        if self._on_change is not None:
            outcome = self._on_change(what)
            if outcome is not None:
                await outcome

    # -- events ---------------------------------------------------------------------------------

    def _on_event(self, event: Event) -> None:
        if event.channel in ATTENTION_CHANNELS:
            last = self._last_seq.get(event.channel)
            if last is not None and event.seq != last + 1:
                # a gap: an event was lost, so the cache may be behind; ask before the next call
                logger.warning(
                    "%s: %s jumped from seq %d to %d", self.game_id, event.channel, last, event.seq
                )
                self.cache.behind = True
            self._last_seq[event.channel] = event.seq
            item = self.cache.apply(event.channel, event.payload)
            if item is not None:
                for watch in self._watches.values():
                    watch.seen.append(item)

    # -- requests -------------------------------------------------------------------------------

    def _require(self) -> Connection:
        connection = self._connection
        if connection is None or connection.closed:  # nothing is sent: the game never saw it
            raise NotSent(self.last_error or f"{self.game_id} is not connected")
        return connection

    async def _request(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        timeout: float | None = None,
        request_id: str | None = None,
    ) -> Any:
        """One request to the game in one of its slots (see :mod:`gabs.request_slots`).

        The wait for a slot counts against ``timeout``; a request that got no slot in time
        raises :class:`NotSent` and never reached the game.
        """
        connection = self._require()
        limit = self.call_timeout if timeout is None else timeout
        slots = self.slots
        if not slots.try_acquire():
            started = time.monotonic()
            try:
                with anyio.fail_after(limit):
                    await slots.acquire()
            except TimeoutError:
                raise NotSent(
                    f"{self.game_id} was busy: no request slot within {limit:g} s "
                    f"({slots.limit} at a time)"
                ) from None
            except QueueFull as exc:
                raise NotSent(f"{self.game_id} is overloaded: {exc}") from None
            limit = max(limit - (time.monotonic() - started), 0.001)
        hold, request_id = SlotHold(slots), request_id or unique_id()
        try:
            return await connection.request(
                method, params, timeout=limit, request_id=request_id, on_late_answer=hold.release
            )
        finally:
            hold.settle(connection.awaits_late_answer(request_id))

    async def refresh_tools(self) -> dict[str, MirroredTool]:
        """Ask the game for its tools; an error answer is kept in :attr:`tools_error` (and
        raised), a list clears it."""
        try:
            reply = await self._request("tools/list")
        except RemoteError as exc:
            self.tools_error = f"the game answered tools/list with error {exc.code}: {exc.message}"
            raise
        self.tools, self.tools_error = read_tool_list(self.game_id, reply), None
        return self.tools

    async def refresh_attention(self, *, timeout: float | None = None) -> Attention | None:
        """Ask the game for its current item (``attention/current``) and update the cache."""
        reply = await self._request("attention/current", timeout=timeout)
        result = parse_result("attention/current", reply)
        item = result.attention
        self.cache.set_current(item)
        return self.cache.snapshot()

    async def ack_attention(
        self, attention_id: str, *, timeout: float | None = None
    ) -> dict[str, Any]:
        """``attention/ack``; the cache follows the answer (and the cleared event)."""
        reply = await self._request("attention/ack", {"attentionId": attention_id}, timeout=timeout)
        result = parse_result("attention/ack", reply)
        if result.acknowledged:
            current = self.cache.snapshot()
            if current is not None and current.attention_id == attention_id:
                self.cache.set_current(result.current_attention)
        else:
            self.cache.set_current(result.current_attention)
        return reply if isinstance(reply, dict) else {}

    async def gate_check(self, tool: str) -> GateDecision:
        """The gate's decision for ``tool`` now, refreshing attention when it is not pushed."""
        mirrored = self.tools.get(tool)
        tags = mirrored.tags if mirrored is not None else ()
        fully_subscribed = set(ATTENTION_CHANNELS) <= set(self.subscribed)
        if (
            self.gate.mode != "off"
            and self.supports_attention
            and (not fully_subscribed or self.cache.behind)
        ):
            # the cache may be behind (a channel missing, a seq gap, an unreadable event): ask
            try:
                await self.refresh_attention()
            except (GabpError, OSError):
                self.cache.reset()
        return self.gate.check(
            tool,
            tags,
            supported=self.supports_attention,
            attention=self.cache.snapshot(),
            known=self.cache.known,
        )

    async def call_tool(
        self, tool: str, arguments: dict[str, Any] | None = None, *, timeout: float | None = None
    ) -> CallOutcome:
        """Call a game tool through the gate. Never raises for what the game answered."""
        started = time.perf_counter()
        if not self.connected:
            return CallOutcome(  # nothing can be sent: say so, never "unknown" (decision 5)
                executed=False,
                status="error",
                tool=tool,
                error={
                    "code": int(ErrorCode.SERVER_ERROR),
                    "message": f"game {self.game_id} is not connected ({self.state})"
                    + (f": {self.last_error}" if self.last_error else ""),
                },
                sent=False,
            )
        decision = await self.gate_check(tool)
        if not decision.allowed:
            return CallOutcome(
                executed=False,
                status="blocked_by_attention"
                if decision.reason == "blocked"
                else "attention_unavailable",
                tool=tool,
                attention=decision.attention,
                attention_relation="blocking" if decision.attention is not None else None,
                gate=decision,
            )
        before = self.cache.snapshot()
        operation_id = unique_id()
        watch = CallWatch(operation_id)
        self._watches[operation_id] = watch
        outcome = CallOutcome(
            executed="unknown",
            status="unknown",
            tool=tool,
            operation_id=operation_id,
            gate=decision,
        )
        try:
            outcome.result = await self._request(
                "tools/call",  # the GABP name, dots read as slashes (as Go sends it)
                {"name": tool.strip().replace(".", "/"), "arguments": arguments or {}},
                timeout=timeout,
                request_id=operation_id,
            )
            outcome.executed, outcome.status = True, "ok"
        except GabpError as exc:
            if not record_failure(outcome, exc):
                raise
        finally:
            self._watches.pop(operation_id, None)
            outcome.duration_ms = (time.perf_counter() - started) * 1000
        if self.gate.mode != "off":
            attach_attention(outcome, before=before, current=self.cache.snapshot(), watch=watch)
        return outcome
