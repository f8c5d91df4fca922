"""Running request handlers and answering: the one place a handler's outcome becomes a frame.

A request is served **eagerly**: the reader calls the handler and runs its coroutine up to its
first wait, in a context of its own (a copy of the reader's, as a new task would get). Most
handlers of a game (a quick tool, a lookup) never wait, and then the request is answered right
there: no task, no extra turn of the event loop. A handler that does wait is finished by the
very task that started it (so a cancel scope, lock or task group it entered stays in its own
task), and reading moves on to a new task (see :mod:`gabp._connection_inbound`). Requests that
arrive while every serving slot is taken are served in a task of their own.

Every failure becomes a wire error here: a :class:`~gabp.errors.ProtocolError` as it is, the
handler timeout as ``-32000``, anything else as a sanitized ``-32603`` with a logged error id.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import types
from collections.abc import Awaitable, Coroutine, Generator
from typing import Any

from gabp._connection_base import ConnectionCore, InboundRequest, RequestHandler, logger
from gabp._deadlines import HandlerDeadline
from gabp.errors import ConnectionClosed, ErrorCode, ProtocolError
from gabp.messages import PROTOCOL_VERSION, new_id
from gabp.wirejson import EncodedJson, encode

__all__ = ["ConnectionServing", "Suspended"]

Outcome = tuple[Any, ProtocolError | None]
"""``(result, None)``, or ``(None, the wire error to answer with)``."""


class Suspended:
    """A handler that waited during its eager start: what it takes to finish it."""

    __slots__ = ("context", "coroutine", "request", "yielded")

    def __init__(
        self,
        request: InboundRequest,
        coroutine: Coroutine[Any, Any, Any],
        yielded: Any,
        context: contextvars.Context,
    ) -> None:
        self.request = request
        self.coroutine = coroutine
        self.yielded = yielded
        self.context = context


@types.coroutine
def _resume(
    coroutine: Coroutine[Any, Any, Any], yielded: Any, context: contextvars.Context
) -> Generator[Any, Any, Any]:
    """Await the rest of a coroutine already started, each step in ``context``."""
    while True:
        try:
            value = yield yielded
        except BaseException as exc:  # thrown in by the task (a cancellation, a failed future)
            try:
                yielded = context.run(coroutine.throw, exc)
            except StopIteration as stop:
                return stop.value
        else:
            try:
                yielded = context.run(coroutine.send, value)
            except StopIteration as stop:
                return stop.value


async def _awaiting(awaitable: Awaitable[Any]) -> Any:
    return await awaitable


class ConnectionServing(ConnectionCore):
    """Serving inbound requests: eagerly, or in a task of their own."""

    # -- eager --------------------------------------------------------------------------------

    def _serve_eagerly(self, handler: RequestHandler, request: InboundRequest) -> Suspended | None:
        """Run ``handler`` up to its first wait; answer it if it finished (then None)."""
        context = contextvars.copy_context()
        self._serving_now += 1
        try:
            coroutine = context.run(handler, request)
            if not inspect.iscoroutine(coroutine):
                coroutine = _awaiting(coroutine)
            yielded = context.run(coroutine.send, None)
        except StopIteration as stop:
            outcome: Outcome = (stop.value, None)
        except ProtocolError as exc:
            outcome = None, exc
        except (Exception, asyncio.CancelledError) as exc:
            outcome = None, self._internal_error(request, "the handler failed", exc)
        else:
            return Suspended(request, coroutine, yielded, context)
        try:
            self._answer_nowait(request, outcome)
        finally:
            self._served_one(request)
        return None

    async def _finish(self, suspended: Suspended) -> None:
        """Finish a handler that waited, in this task, under the handler timeout; answer it."""
        request = suspended.request
        deadline = HandlerDeadline()
        deadline.task = asyncio.current_task()
        if self._deadlines is not None and deadline.task is not None:
            self._deadlines.add(deadline, self._loop or asyncio.get_running_loop())
        try:
            outcome = await self._outcome(
                _resume(suspended.coroutine, suspended.yielded, suspended.context),
                request,
                deadline,
            )
            await self._answer(request, outcome)
        except Exception:
            logger.exception("%s: serving request %s failed", self.name, request.id)
        finally:
            self._served_one(request)

    # -- in a task (when the serving slots were all taken) --------------------------------------

    def _start_serving(self, handler: RequestHandler, request: InboundRequest) -> None:
        """Serve ``request`` in a task of its own, under the handler timeout."""
        loop = self._loop or asyncio.get_running_loop()
        deadline = HandlerDeadline()
        task = deadline.task = loop.create_task(self._serve(handler, request, deadline))
        if self._deadlines is not None:
            self._deadlines.add(deadline, loop)
        self._serving_now += 1
        self._track(task)

    async def _serve(
        self, handler: RequestHandler, request: InboundRequest, deadline: HandlerDeadline
    ) -> None:
        try:
            outcome = await self._outcome(_awaiting(handler(request)), request, deadline)
            await self._answer(request, outcome)
        except Exception:
            logger.exception("%s: serving request %s failed", self.name, request.id)
        finally:
            self._served_one(request)

    # -- outcomes and answers -------------------------------------------------------------------

    async def _outcome(
        self, running: Awaitable[Any], request: InboundRequest, deadline: HandlerDeadline
    ) -> Outcome:
        try:
            return await running, None
        except asyncio.CancelledError:
            # The handler timeout cancels the task; that cancellation (and only that one) is
            # taken back here and answered with a timeout error.
            if not deadline.fired or deadline.settle() > 0:
                raise  # cancelled from outside: the connection is closing
            return None, self._timeout_error(request)
        except ProtocolError as exc:
            return None, exc
        except Exception as exc:  # the one place a handler failure becomes a wire error
            return None, self._internal_error(request, "the handler failed", exc)
        finally:
            deadline.settle()

    def _answer_nowait(self, request: InboundRequest, outcome: Outcome) -> None:
        body = self._response_body(request, outcome)
        if not self._queue_nowait(body):
            self._track(asyncio.ensure_future(self._send_answer(request, body)))
        if request.close_after_response is not None:
            self.close_soon(request.close_after_response)

    async def _answer(self, request: InboundRequest, outcome: Outcome) -> None:
        body = self._response_body(request, outcome)
        if not self._queue_nowait(body):
            await self._send_answer(request, body)
        if request.close_after_response is not None:
            self.close_soon(request.close_after_response)

    async def _send_answer(self, request: InboundRequest, body: bytes) -> None:
        try:
            await self._queue_frame(lambda: body)
        except ConnectionClosed:
            logger.debug("%s: response to %s not sent: connection closed", self.name, request.id)

    def _response_body(self, request: InboundRequest, outcome: Outcome) -> bytes:
        body = _encode_response(request.id, outcome)
        if body is None:
            error = self._internal_error(request, "its result could not be encoded as JSON")
            body = _encode_response(request.id, (None, error))
            assert body is not None
        elif len(body) > self._send_limit():
            body = self._too_large(request, len(body))
        return body

    def _too_large(self, request: InboundRequest, size: int) -> bytes:
        """The answer in place of one larger than the message limit: a peer with the same
        limit would close the connection on its header, so it gets an error it can read."""
        limit = self._send_limit()
        logger.warning(
            "%s: the answer to %s (request %s) is %d bytes, more than the %d-byte message "
            "limit: answered with an error instead",
            self.name,
            request.method,
            request.id,
            size,
            limit,
        )
        error = ProtocolError(
            ErrorCode.INTERNAL_ERROR,
            f"the answer to {request.method} is {size} bytes, more than the {limit}-byte "
            "message limit",
            {"size": size, "limit": limit},
        )
        body = _encode_response(request.id, (None, error))
        assert body is not None
        return body

    def _served_one(self, request: InboundRequest) -> None:
        self._serving_now -= 1
        slot = self._read_slot
        if slot is not None and not slot.done():
            slot.set_result(None)
        if request is self._gate_request:
            gate, self._gate, self._gate_request = self._gate, None, None
            if gate is not None and not gate.done():
                gate.set_result(None)

    def _hold_reading(self, request: InboundRequest) -> None:
        """Before ``request`` is finished elsewhere: if its method is served alone, make the
        reader wait for its answer before serving anything that came after it."""
        if request.method in self._serial_methods:
            self._gate = (self._loop or asyncio.get_running_loop()).create_future()
            self._gate_request = request

    def _track(self, task: asyncio.Future[Any]) -> None:
        """Keep ``task`` until it ends, to cancel it when the connection closes."""
        self._tasks.add(task)
        task.add_done_callback(self._untrack)

    def _untrack(self, task: asyncio.Future[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            logger.error("%s: a connection task failed", self.name, exc_info=task.exception())

    def _timeout_error(self, request: InboundRequest) -> ProtocolError:
        timeout = self.limits.handler_timeout
        assert timeout is not None
        return ProtocolError(
            ErrorCode.SERVER_ERROR,
            f"{request.method} was not answered within {timeout:g} s",
            {"timeoutSeconds": timeout},
        )

    def _internal_error(
        self, request: InboundRequest, what: str, exc: BaseException | None = None
    ) -> ProtocolError:
        error_id = new_id()
        logger.error(
            "%s: %s while serving %s (request %s, error id %s)",
            self.name,
            what,
            request.method,
            request.id,
            error_id,
            exc_info=exc,
        )
        return ProtocolError(
            ErrorCode.INTERNAL_ERROR,
            f"internal error while serving {request.method}",
            {"errorId": error_id},
        )


def _encode_response(request_id: str, outcome: Outcome) -> bytes | None:
    """The body of a response, or None when the result is not JSON-encodable."""
    result, error = outcome
    if error is None:
        # the envelope around the encoded result, spliced (the id is a checked UUID)
        try:
            data = result.data if type(result) is EncodedJson else encode(result)
        except (TypeError, ValueError):
            return None
        return b"".join((_RESPONSE_HEAD, request_id.encode(), _RESULT_KEY, data, b"}"))
    message: dict[str, Any] = {"v": PROTOCOL_VERSION, "id": request_id, "type": "response"}
    message["error"] = error.to_wire()
    try:
        return encode(message)
    except (TypeError, ValueError):
        message["error"] = {"code": error.code, "message": error.message}
        return encode(message)


_RESPONSE_HEAD = b'{"v":"' + PROTOCOL_VERSION.encode() + b'","id":"'
_RESULT_KEY = b'","type":"response","result":'
