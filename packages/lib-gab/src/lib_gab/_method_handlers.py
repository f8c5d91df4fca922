"""What each protocol method means to a server: dispatch and the method handlers.

:class:`MethodHandlers` is the part of :class:`lib_gab.GabpServer` that answers requests; the
server itself (``lib_gab.server``) owns registration, connections and events.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import anyio
import anyio.to_thread

from gabp import (
    Connection,
    ErrorCode,
    InboundRequest,
    MessageError,
    ProtocolError,
    parse_params,
    tokens_equal,
)
from gabp.messages import (
    CONCURRENCY_EXTENSION,
    SCHEMA_VERSION,
    AppInfo,
    Capabilities,
    HelloResult,
    Limits,
    ServerInfo,
)
from lib_gab._attention_relay import AttentionRelay
from lib_gab._param_names import fold_params
from lib_gab._server_config import ProtocolOptions, ServerLimits
from lib_gab.attention import AttentionManager
from lib_gab.operation import Operation, enter_operation, leave_operation
from lib_gab.resources import ResourceRegistry
from lib_gab.tool_registry import ToolRegistry
from lib_gab.tools import Tool, ToolContext, ToolNotFound

__all__ = ["ATTENTION_CHANNELS", "Channel", "MethodHandlers", "Session"]

logger = logging.getLogger("lib_gab.server")

ATTENTION_CHANNELS = ("attention/opened", "attention/updated", "attention/cleared")


@dataclass
class Channel:
    name: str
    description: str | None = None


@dataclass(eq=False)
class Session:
    """One bridge connection and what it asked for."""

    connection: Connection
    established: bool = False
    subscriptions: set[str] = field(default_factory=set)
    client: str = ""


Handler = Callable[["MethodHandlers", Session, InboundRequest], Awaitable[Any]]


def _call_target(params: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """The tool name and arguments of ``tools/call`` params, read as ``parse_params`` reads
    them from a peer (``parameters`` before ``arguments``, ``null`` meaning none, other keys
    ignored) without building the model; None when only the model can say what they mean."""
    name = params.get("name")
    if type(name) is not str:
        return None
    arguments = params.get("parameters")
    if arguments is None:
        arguments = params.get("arguments")
        if arguments is None:
            return name, {}
    if type(arguments) is not dict:
        return None
    return name, arguments


def parse(request: InboundRequest) -> Any:
    """The request's params as their model; ``-32602`` naming each field when invalid."""
    try:
        return parse_params(request.method, request.params)
    except MessageError as exc:
        raise ProtocolError(ErrorCode.INVALID_PARAMS, str(exc)) from None


class MethodHandlers:
    """Dispatch of inbound requests to the protocol method they name."""

    agent_id: str
    app: AppInfo
    server_info: ServerInfo
    limits: ServerLimits
    options: ProtocolOptions
    tools: ToolRegistry
    resources: ResourceRegistry
    _token: str
    _channels: dict[str, Channel]
    _state_get: Callable[..., Any] | None
    _state_set: Callable[..., Any] | None
    _attention: AttentionManager | None
    _relay: AttentionRelay
    _tool_threads: anyio.CapacityLimiter
    inline_sync_tools: bool
    _served: frozenset[str] | None
    _auth_failures: deque[float]

    emit: Callable[[str, Any], Awaitable[int]]

    # -- capabilities ---------------------------------------------------------------------------

    def methods(self) -> list[str]:
        """The protocol methods this server serves (as advertised in the hello reply)."""
        methods = [
            "session/hello",
            "tools/list",
            "tools/call",
            "events/subscribe",
            "events/unsubscribe",
            "resources/list",
            "resources/read",
        ]
        if self._state_get is not None:
            methods.append("state/get")
        if self._state_set is not None:
            methods.append("state/set")
        if self._attention is not None:
            methods += ["attention/current", "attention/ack"]
        return methods

    def channels(self) -> list[str]:
        names = list(self._channels)
        if self._attention is not None:
            names += list(ATTENTION_CHANNELS)
        return names

    def capabilities(self) -> Capabilities:
        """What the hello reply announces, including how many requests may overlap."""
        return Capabilities(
            methods=self.methods(),
            events=self.channels(),
            resources=self.resources.uris(),
            extensions={
                CONCURRENCY_EXTENSION: {
                    "maxConcurrentRequests": self.limits.max_concurrent_requests
                }
            },
            limits=Limits(
                max_message_size=self.limits.max_message_bytes,
                max_concurrent_requests=self.limits.max_concurrent_requests,
                request_timeout=self.limits.request_timeout,
            ),
        )

    # -- dispatch -------------------------------------------------------------------------------

    async def _dispatch(self, session: Session, request: InboundRequest) -> Any:
        method = request.method
        if self.options.param_names == "any_case":
            request.params = fold_params(method, request.params)
        if not session.established:
            if method != "session/hello":
                raise ProtocolError(
                    ErrorCode.SESSION_NOT_ESTABLISHED,
                    f"session not established: send session/hello before {method}",
                )
            return await self._hello(session, request)
        if self._served is None:
            self._served = frozenset(self.methods())
        handler = self._handlers.get(method)
        if handler is None or method not in self._served:
            raise ProtocolError(ErrorCode.METHOD_NOT_FOUND, f"method not found: {method}")
        return await handler(self, session, request)

    async def _hello(self, session: Session, request: InboundRequest) -> dict[str, Any]:
        token = request.params.get("token")
        # the server's own token is never empty, and short only where its options accept that
        if not (isinstance(token, str) and tokens_equal(token, self._token)):
            logger.warning("refusing a bridge: authentication failed")
            request.close_after_response = "authentication failed"
            await self._slow_down_guessing()
            raise ProtocolError(ErrorCode.AUTHENTICATION_FAILED, "authentication failed")
        try:
            params = parse(request)
            client = params.client_info.name if params.client_info else None
            version, platform = params.bridge_version, params.platform
        except ProtocolError as exc:
            if self.options.hello_params != "token_only":
                raise
            logger.warning("welcoming a bridge whose hello GABP would refuse: %s", exc.message)
            raw = request.params
            info = raw.get("clientInfo")
            client = info.get("name") if isinstance(info, dict) else None
            version, platform = raw.get("bridgeVersion"), raw.get("platform")
        again = session.established
        session.established = True
        session.client = f"{client or 'bridge'} {version}"
        logger.info(
            "bridge session %s (%s, %s)",
            "hello repeated" if again else "established",
            session.client,
            platform,
        )
        return HelloResult(
            agent_id=self.agent_id,
            app=self.app,
            capabilities=self.capabilities(),
            schema_version=SCHEMA_VERSION,
            server_info=self.server_info,
        ).to_wire()

    async def _slow_down_guessing(self) -> None:
        """Delay the answer to a failed hello once failures come too fast (token guessing)."""
        now = time.monotonic()
        failures = self._auth_failures
        failures.append(now)
        window = self.limits.auth_failure_window
        while failures and failures[0] < now - window:
            failures.popleft()
        if len(failures) > self.limits.auth_failures_before_delay:
            await anyio.sleep(self.limits.auth_failure_delay)

    async def _session_hello_again(self, session: Session, request: InboundRequest) -> Any:
        if self.options.repeated_hello == "welcome":
            return await self._hello(session, request)
        raise ProtocolError(ErrorCode.METHOD_NOT_ALLOWED, "the session is already established")

    # -- tools ----------------------------------------------------------------------------------

    async def _tools_list(self, session: Session, request: InboundRequest) -> Any:
        params = parse(request)
        selected = params.filter
        return {
            "tools": self.tools.list(
                tags=selected.tags if selected else None,
                name_pattern=selected.name_pattern if selected else None,
                extras=self.options.descriptor_extras,
            )
        }

    async def _tools_call(self, session: Session, request: InboundRequest) -> Any:
        target = _call_target(request.params)
        tool = self.tools.get(target[0]) if target is not None else None
        if tool is None or target is None:
            name = request.params.get("name") if isinstance(request.params, Mapping) else None
            if isinstance(name, str) and name.strip() and name not in self.tools:
                # a tool that is not there is not found, whatever its name looks like
                raise ToolNotFound(name)
            params = parse(request)  # the model names what is wrong, if anything is
            tool = self.tools.get(params.name)
            if tool is None:
                raise ToolNotFound(params.name)
            arguments: Mapping[str, Any] = params.arguments
        else:
            arguments = target[1]
        operation = Operation(  # by position: a third cheaper than by keyword
            request.id,
            tool.name,
            lambda reason: setattr(request, "close_after_response", reason),
        )
        return tool.encode_result_json(await self._run_tool(tool, arguments, operation))

    async def _run_tool(
        self, tool: Tool, arguments: Mapping[str, Any] | None, operation: Operation
    ) -> Any:
        """Check the arguments, run the tool under ``operation``; its result, not encoded.

        Attention the call raised is sent before this returns (so before the response).
        """
        values = tool.validate_arguments(
            arguments,
            unknown=self.options.unknown_arguments,
            argument_values=self.options.argument_values,
        )
        token = enter_operation(operation)
        try:
            if tool.context_parameter is not None:
                values[tool.context_parameter] = ToolContext(
                    tool.name,
                    operation,
                    self.emit,
                    close_after_response=operation.close_connection or (lambda reason: None),
                )
            try:
                function = tool.function
                mapping = tool.call_style == "mapping"
                if tool.is_async:
                    result = await (function(values) if mapping else function(**values))
                elif self._runs_inline(tool):
                    result = function(values) if mapping else function(**values)
                else:
                    result = await anyio.to_thread.run_sync(
                        (lambda: function(values)) if mapping else (lambda: function(**values)),
                        limiter=self._tool_threads,
                    )
                if mapping and isinstance(result, Awaitable):
                    result = await result
            finally:
                # attention raised by this call goes out before its response (decision 4)
                if self._attention is not None:
                    self._attention.flush_pending()
                if self._relay.pending:
                    await self._relay.flush()
        finally:
            leave_operation(token)
        return result

    def _runs_inline(self, tool: Tool) -> bool:
        """Whether the sync ``tool`` runs on the event loop rather than in a worker thread."""
        return self.inline_sync_tools if tool.inline is None else tool.inline

    # -- events ---------------------------------------------------------------------------------

    def _check_channels(self, channels: list[str]) -> list[str]:
        """The offered ones among ``channels``; with ``unknown_channels="refuse"``, ``-31003``
        naming any channel this server does not offer."""
        known = set(self.channels())
        unknown = [name for name in channels if name not in known]
        if unknown and self.options.unknown_channels == "refuse":
            raise ProtocolError(
                ErrorCode.CHANNEL_NOT_FOUND,
                f"event channel not found: {', '.join(unknown)}",
                {"channels": unknown, "available": sorted(known)},
            )
        return [name for name in channels if name in known]

    def _none_named(self, request: InboundRequest) -> bool:
        """An empty or null channel list, taken as naming none when unknown channels are
        skipped (Lib.GAB answers it with an empty list). Without a ``channels`` member (or
        without params) the request is refused in both modes, as Lib.GAB refuses it."""
        if self.options.unknown_channels != "skip" or "channels" not in request.params:
            return False
        return request.params["channels"] in (None, [])

    async def _events_subscribe(self, session: Session, request: InboundRequest) -> Any:
        if self._none_named(request):
            return {"subscribed": []}
        params = parse(request)
        offered = self._check_channels(params.channels)
        session.subscriptions.update(offered)
        return {"subscribed": offered}

    async def _events_unsubscribe(self, session: Session, request: InboundRequest) -> Any:
        if self._none_named(request):
            return {"unsubscribed": []}
        params = parse(request)
        removed = []
        for name in self._check_channels(params.channels):
            if name in session.subscriptions:  # a channel named twice is removed (listed) once
                session.subscriptions.discard(name)
                removed.append(name)
        return {"unsubscribed": removed}

    # -- resources and state --------------------------------------------------------------------

    async def _resources_list(self, session: Session, request: InboundRequest) -> Any:
        params = parse(request)
        return {
            "resources": self.resources.list(pattern=params.pattern, namespace=params.namespace)
        }

    async def _resources_read(self, session: Session, request: InboundRequest) -> Any:
        params = parse(request)
        resource = self.resources.get(params.uri)
        if resource is None:
            raise ProtocolError(
                ErrorCode.RESOURCE_NOT_FOUND,
                f"resource not found: {params.uri}",
                {"uri": params.uri},
            )
        return await resource.read()

    async def _state_get_handler(self, session: Session, request: InboundRequest) -> Any:
        params = parse(request)
        assert self._state_get is not None
        getter = self._state_get
        state = await anyio.to_thread.run_sync(
            lambda: getter(params.components, params.player_id), limiter=self._tool_threads
        )
        return {"state": dict(state), "timestamp": int(time.time())}

    async def _state_set_handler(self, session: Session, request: InboundRequest) -> Any:
        params = parse(request)
        assert self._state_set is not None
        setter = self._state_set
        validate = True if params.validate_ is None else params.validate_
        return dict(
            await anyio.to_thread.run_sync(
                lambda: setter(params.updates, params.player_id, validate),
                limiter=self._tool_threads,
            )
        )

    # -- attention ------------------------------------------------------------------------------

    async def _attention_current(self, session: Session, request: InboundRequest) -> Any:
        if request.params:
            raise ProtocolError(ErrorCode.INVALID_PARAMS, "attention/current takes no parameters")
        assert self._attention is not None
        item = self._attention.current()
        return {"attention": item.to_wire() if item is not None else None}

    async def _attention_ack(self, session: Session, request: InboundRequest) -> Any:
        params = parse(request)
        if not params.attention_id.strip():  # Lib.GAB refuses a blank id as a missing one
            raise ProtocolError(ErrorCode.INVALID_PARAMS, "attentionId must not be blank")
        assert self._attention is not None
        outcome = self._attention.ack(params.attention_id)
        await self._relay.flush()  # attention/cleared goes out before the ack's answer
        return outcome.to_wire()

    _handlers: ClassVar[dict[str, Handler]] = {
        "session/hello": _session_hello_again,
        "tools/list": _tools_list,
        "tools/call": _tools_call,
        "events/subscribe": _events_subscribe,
        "events/unsubscribe": _events_unsubscribe,
        "resources/list": _resources_list,
        "resources/read": _resources_read,
        "state/get": _state_get_handler,
        "state/set": _state_set_handler,
        "attention/current": _attention_current,
        "attention/ack": _attention_ack,
    }
