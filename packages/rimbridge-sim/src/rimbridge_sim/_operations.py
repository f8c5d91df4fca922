"""One tool call, one operation: journaling, the main loop, and how failures answer.

:class:`OperationRunner` runs a tool body as an operation of the journal, keyed by the GABP
request id (``lib_gab.current_operation()``). Every result that is an object gets the call's
own envelope under ``operation``, as the real mod adds it to every answer.
"""

from __future__ import annotations

import functools
import json
import logging
import traceback
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final, Literal

import anyio
import anyio.to_thread
import msgspec

from lib_gab import InvalidArguments, ToolError, current_operation
from rimbridge_sim._mainloop import MainLoop
from rimbridge_sim.calls import CallSpec, MainLoopTimeout, payload_failure, spec_of
from rimbridge_sim.contract import wire_name
from rimbridge_sim.contract.capabilities import capability_id, capability_of
from rimbridge_sim.diagnostics import OperationJournal, new_operation_id
from rimbridge_sim.diagnostics.script_context import current_script_step
from rimbridge_sim.world import WorldError

__all__ = ["OperationRunner"]

logger = logging.getLogger("rimbridge_sim.integration")

_SUMMARY_LIMIT: Final = 200
LogFunction = Callable[[str, str, str, str | None, str], None]
"""``(level, message, source, operation id, stack trace)``."""


_SUMMARY_ENCODER: Final = msgspec.json.Encoder(order="sorted", enc_hook=str)
"""Compact JSON with sorted keys, non-ASCII kept, other values as ``str()``: a fifth of the
standard library's cost on a 1 KB result, and every call writes two summaries."""
_FALLBACK_ENCODER: Final = json.JSONEncoder(
    sort_keys=True, default=str, separators=(",", ":"), ensure_ascii=False
)
"""For what ``msgspec`` refuses (keys that are not strings, integers past 64 bits)."""


_wire_name: Final = functools.lru_cache(maxsize=1024)(wire_name)
""":func:`wire_name` of each argument of each call, worked out once per keyword."""


def _summary(value: Any) -> str:
    """``value`` as compact JSON, cut to ``_SUMMARY_LIMIT`` characters (a ``repr`` when it
    cannot be JSON at all)."""
    if type(value) is dict and not value:  # a call without arguments
        return "{}"
    try:
        text = _SUMMARY_ENCODER.encode(value).decode()
    except (msgspec.MsgspecError, TypeError, ValueError, OverflowError, RecursionError):
        try:
            text = _FALLBACK_ENCODER.encode(value)
        except (TypeError, ValueError, RecursionError):
            try:
                text = repr(value)
            except RecursionError:
                text = f"<a {type(value).__name__} nested too deep to be shown>"
    return text if len(text) <= _SUMMARY_LIMIT else text[: _SUMMARY_LIMIT - 1] + "…"


class OperationRunner:
    """Runs tool bodies as journaled operations (see the module doc)."""

    def __init__(self, journal: OperationJournal, loop: MainLoop, log: LogFunction) -> None:
        self._journal = journal
        self._loop = loop
        self._log = log

    def _begin(self, name: str, arguments: Mapping[str, Any], parent_id: str | None) -> str:
        operation = current_operation()
        operation_id = operation.id if operation is not None else new_operation_id()
        wire = {_wire_name(key): value for key, value in arguments.items()} if arguments else {}
        self._journal.begin(
            operation_id,
            name,
            parent_id=parent_id,
            arguments_summary=_summary(wire),
            metadata=self._metadata(name, wire, parent_id),
        )
        return operation_id

    def _metadata(
        self, name: str, arguments: dict[str, Any], parent_id: str | None
    ) -> dict[str, Any]:
        """What the mod's registry records as an operation's ``Metadata`` when it starts it:
        the name called (a script step's ``call`` as the script spells it), the provider, its
        category and the arguments, then the caller's operation (the parent, its capability,
        the root) and script step when there is one."""
        capability = capability_of(name)
        step = current_script_step()
        metadata: dict[str, Any] = {
            "requestedId": name if step is None else step.call,
            "providerId": capability.provider_id,
            "category": capability.category,
            "arguments": arguments,
        }
        if parent_id is not None:
            metadata["parentOperationId"] = parent_id
            parent_method = self._journal.method_of(parent_id)
            if parent_method is not None:
                metadata["parentCapabilityId"] = capability_id(parent_method)
            metadata["rootOperationId"] = self._journal.root_of(parent_id)
        if step is not None:
            metadata["scriptStatementId"] = step.statement_id
            metadata["scriptStepId"] = step.step_id
            metadata["scriptCall"] = step.call
        return metadata

    def _end(self, operation_id: str, result: Any) -> Any:
        # dict first: most results are one, and the Mapping test alone is a slow ABC check
        if isinstance(result, (dict, Mapping)) and result.get("success") is False:
            summary = f"payload failure: {result.get('message', '')}"
        else:
            summary = _summary(result)
        if isinstance(result, dict):
            # the call's own envelope, as the mod adds it to the answer (WithoutResult: Result
            # null, and the handler's empty Metadata); the journal keeps the result as the
            # body returned it, without the envelope
            envelope = self._journal.complete_call(operation_id, summary, result)
            return {**result, "operation": envelope}
        self._journal.complete(operation_id, summary, result=result)
        return result

    def invoke(
        self,
        name: str,
        function: Callable[..., Any],
        arguments: Mapping[str, Any],
        *,
        parent_id: str | None = None,
        held: bool = False,
    ) -> Any:
        """Run a sync tool body as one operation (the current one, else a new id); ``held``:
        the caller already holds the world lock.

        The operation is started in the journal, the body runs (under the world lock and
        ``world.caused_by`` when its :class:`~rimbridge_sim.calls.CallSpec` says so), then:

        * a result (a payload failure included) completes the operation;
        * a :class:`WorldError` whose code is in the spec's ``payload_codes`` becomes a payload
          failure and completes it;
        * any other exception is logged at error level (source ``tool``, its traceback as the
          line's stack trace), fails the operation
          (``timed_out`` when the main loop did not answer) and reaches the caller as a
          :class:`ToolError` whose data names the error code and the operation id; a
          ``TimeoutError`` times the operation out rather than failing it.

        A cancelled async body (:meth:`invoke_async`) ends its operation ``cancelled``.
        """
        return self._run(name, function, spec_of(function), arguments, parent_id, held)

    def _run(
        self,
        name: str,
        function: Callable[..., Any],
        spec: CallSpec,
        arguments: Mapping[str, Any],
        parent_id: str | None,
        held: bool,
    ) -> Any:
        operation_id = self._begin(name, arguments, parent_id)
        try:
            if spec.world and held:
                result = self._in_world(operation_id, function, arguments)
            elif spec.world:
                with self._loop.hold():
                    result = self._in_world(operation_id, function, arguments)
            else:
                result = function(**arguments)
        except Exception as error:
            result = self._failed(operation_id, name, spec.payload_codes, error)
        return self._end(operation_id, result)

    def _in_world(
        self, operation_id: str, function: Callable[..., Any], arguments: Mapping[str, Any]
    ) -> Any:
        """Run a body that touches the world (world lock held) as caused by the operation."""
        loop = self._loop
        with loop.world.caused_by(operation_id):
            try:
                return function(**arguments)
            finally:
                loop.observe(operation_id)

    async def invoke_quick(
        self, name: str, function: Callable[..., Any], arguments: Mapping[str, Any]
    ) -> Any:
        """:meth:`invoke` for a quick read of the world (``CallSpec.quick``): on the event loop
        when the world lock is free at this moment, otherwise in a worker thread that waits
        for it (a stalled main loop never blocks the event loop)."""
        return await self.quick(name, function)(**arguments)

    def quick(self, name: str, function: Callable[..., Any]) -> Callable[..., Awaitable[Any]]:
        """The tool function of the quick read ``function`` (see :meth:`invoke_quick`), its
        call spec read once."""
        spec = spec_of(function)
        lock = self._loop.lock
        run = self._run

        async def call_quick(**arguments: Any) -> Any:
            if lock.acquire(blocking=False):
                try:
                    return run(name, function, spec, arguments, None, True)
                finally:
                    lock.release()
            return await anyio.to_thread.run_sync(
                functools.partial(run, name, function, spec, arguments, None, False)
            )

        return call_quick

    async def invoke_async(
        self,
        name: str,
        function: Callable[..., Any],
        arguments: Mapping[str, Any],
        *,
        parent_id: str | None = None,
    ) -> Any:
        """:meth:`invoke` for async tool bodies (they take the main loop in short steps)."""
        spec = spec_of(function)
        operation_id = self._begin(name, arguments, parent_id)
        try:
            result = await function(**arguments)
        except anyio.get_cancelled_exc_class():
            # the call was cancelled (its connection went away): the operation ends cancelled,
            # as the mod's registry ends one whose handler was cancelled, never left running
            self._journal.fail(
                operation_id, "The operation was canceled.", kind="cancelled", code="tool.cancelled"
            )
            raise
        except Exception as error:
            result = self._failed(operation_id, name, spec.payload_codes, error)
        return self._end(operation_id, result)

    def _failed(
        self, operation_id: str, name: str, payload_codes: frozenset[str], error: Exception
    ) -> dict[str, Any]:
        """What a tool body's exception becomes (see :meth:`invoke`): the payload failure to
        answer with, or a raised :class:`ToolError` (``InvalidArguments`` passes through)."""
        if isinstance(error, InvalidArguments):
            self._journal.complete(operation_id, f"refused: {error.message}")
            raise error
        if isinstance(error, WorldError):
            if error.code in payload_codes:
                return payload_failure(error.message, error.code)
            raise self._exception(operation_id, name, error, error.code) from None
        if isinstance(error, MainLoopTimeout):
            raise self._exception(
                operation_id, name, error, "main_loop_timeout", kind="timed_out"
            ) from None
        if isinstance(error, TimeoutError):  # as the mod's registry: a timeout, not a failure
            raise self._exception(
                operation_id, name, error, "internal_error", kind="timed_out"
            ) from None
        if isinstance(error, ToolError):
            raise self._exception(operation_id, name, error, "tool_error") from None
        logger.debug("%s crashed", name, exc_info=error)
        raise self._exception(operation_id, name, error, "internal_error") from None

    def _exception(
        self,
        operation_id: str,
        name: str,
        error: BaseException,
        code: str,
        *,
        kind: Literal["failed", "timed_out"] = "failed",
    ) -> ToolError:
        """Log the exception line, fail the operation, and build the in-band error."""
        text = error.message if isinstance(error, WorldError | ToolError) else str(error)
        text = text or type(error).__name__
        self._log(
            "error",
            f"Exception in {name}: {type(error).__name__}: {text}",
            "tool",
            operation_id,
            "".join(traceback.format_exception(error)),
        )
        self._journal.fail(
            operation_id,
            f"{type(error).__name__}: {text}",
            kind=kind,
            code=f"tool.{kind}" if code == "internal_error" else code,
            exception_type=type(error).__name__,
        )
        logger.info("%s raised %s: %s", name, type(error).__name__, text)
        return ToolError(
            f"{name} failed: {text}",
            {
                "code": code,
                "exception": type(error).__name__,
                "operationId": operation_id,
                "tool": name,
            },
        )
