"""The reader and everything that happens to an inbound message.

One task at a time reads. It decodes each frame and, in arrival order: resolves the waiter of
a response, starts serving a request (eagerly, at most ``limits.max_concurrent_requests`` at
once, see :mod:`gabp._connection_serving`), hands an event to ``on_event`` or the event
buffer, answers a malformed message. The answers to one read are written together. When a
request's handler has to wait, the reading task stays with it, and a new task reads on from the
next frame: so the reader never waits for a handler.

On a :class:`gabp.sockets.SocketStream`, a read that is nothing but whole responses, arriving
while the reader waits, is taken in the event loop's data callback instead
(:meth:`ConnectionInbound._take_answers`): the same checks and waiters, one wake-up of the
reader fewer per answer.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

import anyio

from gabp._connection_base import (
    METHOD,
    NIL_ID,
    UUID,
    InboundRequest,
    RequestHandler,
    _call_late,
    describe_error,
    logger,
)
from gabp._connection_serving import ConnectionServing, Suspended
from gabp._envelope_names import case_hint, fold_request, foreign_member, plain_names
from gabp.errors import ErrorCode, MessageError
from gabp.framing import FramingError
from gabp.messages import METHOD_PATTERN, PROTOCOL_VERSION, Event, recover_id
from gabp.wirejson import decode, decode_replacing

__all__ = ["ConnectionInbound"]


class ConnectionInbound(ConnectionServing):
    """Reading frames and serving what arrives."""

    def _start_reader(self, carried: list[bytes]) -> None:
        """Make a new task the reader; it first serves ``carried``, the rest of a read."""
        loop = self._loop or asyncio.get_running_loop()
        task = loop.create_task(self._reader(carried))
        self._reader_task = task
        self._track(task)

    async def _reader(self, carried: list[bytes]) -> None:
        try:
            if await self._read_loop(carried):
                return  # this task served a request that waited; another one reads now
        except asyncio.CancelledError:
            if self._reader_task is not asyncio.current_task():
                raise  # a request this task stayed with: the connection is closing
            if not self._stopping:
                self._close_reason = "reading was cancelled"
        done = self._reading_done
        if done is not None and not done.done():
            done.set_result(None)

    async def _read_loop(self, bodies: list[bytes]) -> bool:
        """Read and serve until the stream ends or reading stops (False), or until this task
        stays with a request that waited and hands reading on (True)."""
        stream = self._stream
        decoder = self._decoder
        chunk = self.limits.read_chunk_bytes
        while True:
            if bodies:
                suspended = await self._serve_read(bodies)
                if suspended is not None:
                    await self._finish(suspended)
                    return True
            if self._stopping:
                return False
            try:
                data = await stream.receive(chunk)
            except anyio.EndOfStream:
                data = b""
            except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
                self._close_reason = f"connection lost while reading: {describe_error(exc)}"
                return False
            try:
                bodies = decoder.feed(data)
            except FramingError as exc:
                await self._answer_framing_error(exc)
                return False
            if not data:
                self._close_reason = "the peer closed the connection"
                return False

    async def _serve_read(self, bodies: list[bytes]) -> Suspended | None:
        """Process the frames of one read in order, their answers written together at the end;
        a handler that waited is returned, with reading handed to a new task."""
        self._batching = True
        try:
            for index, body in enumerate(bodies):
                if self._gate is not None:
                    await self._wait_for_gate()
                if self._stopping:
                    return None  # closing: what came after is not served, even if read
                try:
                    message = decode(body)
                except (ValueError, UnicodeDecodeError, RecursionError):
                    await self._process(body)  # answered there
                    continue
                taken = self._take_nowait(message)
                if taken is None:
                    await self._process_message(message)
                elif isinstance(taken, tuple):
                    suspended = self._serve_eagerly(*taken)
                    if suspended is not None:
                        self._hold_reading(suspended.request)
                        self._start_reader(bodies[index + 1 :])
                        return suspended
            return None
        finally:
            self._batching = False
            if self._direct is not None:
                self._flush_direct()

    async def _wait_for_gate(self) -> None:
        """Wait until the request served alone has been answered (its answers written first)."""
        self._batching = False
        if self._direct is not None:
            self._flush_direct()
        while self._gate is not None:
            await self._gate
        self._batching = True

    async def _answer_framing_error(self, exc: FramingError) -> None:
        # A Content-Length stream cannot resynchronise: say why, then close.
        logger.warning("%s: framing error, closing: %s", self.name, exc)
        self._close_reason = f"framing error: {exc}"
        with anyio.move_on_after(self.limits.close_timeout):
            await self._send_error(
                NIL_ID, ErrorCode.PARSE_ERROR, f"framing error: {exc}", closing=True
            )

    def _take_answers(self, data: bytes) -> bool:
        """Answers to this side's requests, taken where they arrive (see
        :meth:`gabp.sockets.SocketStream.take_while_waiting`): True when ``data`` was nothing
        but whole, well-formed responses and each went to its waiter, as the reader would have
        done; False, with nothing done, for anything else, which the reader then reads."""
        if not self._pending or self._stopping:
            return False
        bodies = self._decoder.whole_frames(data)
        if bodies is None:
            return False
        answers = []
        for body in bodies:
            try:
                message = decode(body)
            except (ValueError, UnicodeDecodeError, RecursionError):
                return False
            if not _well_formed(message) or message.get("type") != "response":
                return False
            if len(message) > 4 and foreign_member(message, "response") is not None:
                return False
            answers.append(message)
        for message in answers:
            self._accept_response(message)
        return True

    def _take_nowait(self, message: Any) -> tuple[RequestHandler, InboundRequest] | bool | None:
        """Handle a well-formed response (True), or say how to serve a well-formed request
        that has a free slot; None when ``message`` needs :meth:`_process_message`."""
        if not _well_formed(message) or (self._any_case_names and not plain_names(message)):
            return None
        if len(message) > 4 and foreign_member(message, message.get("type")) is not None:
            return None
        message_id: str = message["id"]
        kind = message.get("type")
        if kind == "response":
            self._accept_response(message)
            return True
        if kind != "request" or self._serving_now >= self.limits.max_concurrent_requests:
            return None
        method = message.get("method")
        if type(method) is not str or method not in self._methods_seen:
            return None
        params = message.get("params")
        if params is None:
            if "params" not in message and case_hint(message, "params"):
                return None
            params = {}
        elif not isinstance(params, dict):
            return None
        handler = self._handlers.get(method) or self._fallback_handler
        if handler is None:
            return None
        request = InboundRequest(
            id=message_id, method=method, params=params, connection=self, raw=message
        )
        return handler, request

    async def _process(self, body: bytes) -> None:
        try:
            message = decode(body)
        except (ValueError, UnicodeDecodeError) as exc:
            request_id = recover_id(body) or NIL_ID
            replaced = self._replaced_message(request_id, body)
            if replaced is not None:  # a call that ran, a thing that happened: read, not lost
                logger.warning(
                    "%s: an %s read with U+FFFD for what is not UTF-8 text: %s",
                    self.name,
                    "answer" if replaced.get("type") == "response" else "event",
                    exc,
                )
                await self._process_message(replaced)
                return
            logger.warning("%s: message is not valid JSON: %s", self.name, exc)
            if not self._fail_pending(request_id, f"not valid JSON: {exc}"):
                await self._send_error(
                    request_id, ErrorCode.PARSE_ERROR, f"message is not valid JSON: {exc}"
                )
            return
        except RecursionError:
            request_id = recover_id(body) or NIL_ID
            logger.warning("%s: message nested too deeply to parse", self.name)
            if not self._fail_pending(request_id, "nested too deeply to parse"):
                await self._send_error(
                    request_id,
                    ErrorCode.INVALID_REQUEST,
                    "invalid request: message nested too deeply",
                )
            return
        await self._process_message(message)

    def _replaced_message(self, request_id: str, body: bytes) -> dict[str, Any] | None:
        """``body`` read with U+FFFD for its bytes that are not UTF-8 and its lone surrogates
        (as Go's and .NET's readers read them) when it is an event or the answer to this
        side's request ``request_id``: what it says happened, and a changed character loses
        less than the whole message. None for anything else: a request so written is refused,
        as no handler should run with text its peer never sent."""
        try:
            message = decode_replacing(body)
        except (ValueError, RecursionError):
            return None
        if not isinstance(message, dict):
            return None
        kind = message.get("type")
        if kind == "response":
            answers = request_id in self._pending and message.get("id") == request_id
            return message if answers else None
        return message if kind == "event" else None

    def _fail_pending(self, request_id: str, problem: str) -> bool:
        """Fail this side's request ``request_id`` with an unreadable answer, at once rather
        than at its timeout; False when no request of this side has that id (the message is
        then answered as a bad request)."""
        waiter = self._pending.get(request_id)
        if waiter is None:
            return False
        if not waiter.done():
            waiter.set_exception(MessageError(f"invalid response: {problem}"))
        return True

    async def _process_message(self, message: Any) -> None:
        if not isinstance(message, dict):
            await self._send_error(
                NIL_ID,
                ErrorCode.INVALID_REQUEST,
                f"a message must be a JSON object, got {type(message).__name__}",
            )
            return
        kind = message.get("type")
        if self._any_case_names and kind == "request":
            try:
                message, taken = fold_request(message)
            except ValueError as exc:
                await self._reject(message, kind, _has_uuid_id(message), str(exc))
                return
            if taken:
                logger.warning(
                    "%s: request members taken in another letter case: %s",
                    self.name,
                    ", ".join(taken),
                )
        id_ok = _has_uuid_id(message)
        if message.get("v") != PROTOCOL_VERSION:
            problem = f"v must be {PROTOCOL_VERSION!r}, got {message.get('v')!r}"
            await self._reject(message, kind, id_ok, problem + _absent_hint(message, "v"))
        elif not id_ok:
            problem = "id must be a UUID string" + _absent_hint(message, "id")
            await self._reject(message, kind, False, problem)
        elif (foreign := foreign_member(message, kind)) is not None:
            await self._reject(message, kind, True, f"{kind}s carry no {foreign} member")
        elif kind == "response":
            self._accept_response(message)
        elif kind == "request":
            await self._accept_request(message)
        elif kind == "event":
            await self._accept_event(message)
        else:
            problem = f"type must be request, response or event, got {kind!r}"
            if message["id"] in self._pending:
                # The id of a request of ours: a malformed answer, never a request to answer
                # (an error sent back could come back as the answer). Dropped, as the Go
                # bridge drops it: the request waits for its answer or its timeout.
                logger.warning("%s: message dropped: %s", self.name, problem)
                return
            await self._reject(message, kind, id_ok, problem + _absent_hint(message, "type"))

    async def _reject(self, message: dict[str, Any], kind: Any, id_ok: bool, problem: str) -> None:
        if kind == "response":
            # never answer a response; fail the waiter it was meant for, if any
            waiter = self._pending.get(message.get("id")) if id_ok else None  # type: ignore[arg-type]
            logger.warning("%s: invalid response: %s", self.name, problem)
            if waiter is not None and not waiter.done():
                waiter.set_exception(MessageError(f"invalid response: {problem}"))
            return
        if kind == "event":
            logger.warning("%s: invalid event dropped: %s", self.name, problem)
            return
        await self._send_error(
            message["id"] if id_ok else NIL_ID,
            ErrorCode.INVALID_REQUEST,
            f"invalid request: {problem}",
        )

    def _accept_response(self, message: dict[str, Any]) -> None:
        has_result, error = "result" in message, message.get("error")
        problem = None
        if error is not None:
            if not (
                isinstance(error, dict)
                and isinstance(error.get("code"), int)
                and not isinstance(error.get("code"), bool)
                and isinstance(error.get("message"), str)
            ):
                problem = "error must be an object with an integer code and a message"
        elif not has_result:
            problem = "a response carries exactly one of result and error"
        waiter = self._pending.get(message["id"])
        if waiter is None:
            late = self._late.pop(message["id"], None)
            if late is not None:  # a request its caller gave up on, answered now
                _call_late(late)
                return
            logger.warning(
                "%s: response to an unknown or expired request %s ignored", self.name, message["id"]
            )
            return
        if waiter.done():
            return
        if problem is not None:
            logger.warning("%s: invalid response: %s", self.name, problem)
            waiter.set_exception(MessageError(f"invalid response: {problem}"))
            return
        waiter.set_result(message)

    async def _accept_request(self, message: dict[str, Any]) -> None:
        request_id: str = message["id"]
        method = message.get("method")
        missing = [n for n in ("method", "params") if n not in message and case_hint(message, n)]
        if missing:
            hints = "; ".join(f"{n} is missing{case_hint(message, n)}" for n in missing)
            await self._send_error(
                request_id, ErrorCode.INVALID_REQUEST, f"invalid request: {hints}"
            )
            return
        if not isinstance(method, str) or (
            method not in self._methods_seen and not self._check_method(method)
        ):
            await self._send_error(
                request_id,
                ErrorCode.INVALID_REQUEST,
                f"invalid request: method must match {METHOD_PATTERN}",
            )
            return
        params = message.get("params")
        if params is None:
            params = {}
        elif not isinstance(params, dict):
            await self._send_error(
                request_id, ErrorCode.INVALID_REQUEST, "invalid request: params must be an object"
            )
            return
        handler = self._handlers.get(method) or self._fallback_handler
        if handler is None:
            await self._send_error(
                request_id, ErrorCode.METHOD_NOT_FOUND, f"method not found: {method}"
            )
            return
        request = InboundRequest(
            id=request_id, method=method, params=params, connection=self, raw=message
        )
        while self._serving_now >= self.limits.max_concurrent_requests:
            slot = asyncio.get_running_loop().create_future()
            self._read_slot = slot
            try:
                await slot
            finally:
                self._read_slot = None
        self._hold_reading(request)
        self._start_serving(handler, request)

    def _check_method(self, method: str) -> bool:
        """True for a method name a receiver accepts (remembered: a peer uses a handful)."""
        if not METHOD.match(method):
            return False
        if len(self._methods_seen) < 1024:
            self._methods_seen.add(method)
        return True

    async def _accept_event(self, message: dict[str, Any]) -> None:
        channel, seq = message.get("channel"), message.get("seq")
        if not isinstance(channel, str) or not channel:
            logger.warning("%s: event without a channel dropped", self.name)
            return
        if not isinstance(seq, int) or isinstance(seq, bool) or seq < 0:
            logger.warning("%s: event on %s with an invalid seq dropped", self.name, channel)
            return
        fields: dict[str, Any] = {
            "v": PROTOCOL_VERSION,
            "id": message["id"],
            "type": "event",
            "channel": channel,
            "seq": seq,
            "payload": message.get("payload"),
        }
        stamp = message.get("timestamp")
        if isinstance(stamp, str):
            fields["timestamp"] = stamp
        event = Event.model_construct(**fields)
        if self._on_event is not None:
            try:
                outcome = self._on_event(event)
                if inspect.isawaitable(outcome):
                    await outcome
            except Exception:
                logger.exception("%s: the event handler failed on %s", self.name, channel)
            return
        assert self._events_send is not None
        try:
            await self._events_send.send(event)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            logger.debug("%s: event on %s arrived after the consumer stopped", self.name, channel)


def _has_uuid_id(message: dict[str, Any]) -> bool:
    message_id = message.get("id")
    return isinstance(message_id, str) and UUID.match(message_id) is not None


def _absent_hint(message: dict[str, Any], name: str) -> str:
    return case_hint(message, name) if name not in message else ""


def _well_formed(message: Any) -> bool:
    """An object of this protocol version with a UUID id: what the quick ways take on."""
    if not isinstance(message, dict) or message.get("v") != PROTOCOL_VERSION:
        return False
    message_id = message.get("id")
    return isinstance(message_id, str) and UUID.match(message_id) is not None
