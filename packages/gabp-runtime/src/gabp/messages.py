"""Pydantic models of every GABP message, strict to build and tolerant to receive.

The envelope is a discriminated union on ``type``: :class:`Request`, :class:`Response` and
:class:`Event`. Method params and results, and the attention payload, have their own models,
listed in :data:`PARAMS_MODELS`, :data:`RESULT_MODELS` and :data:`CHANNEL_PAYLOADS`.

Two modes of validation:

* **strict** (the default of every constructor and of ``strict=True``): exactly what the
  frozen schemas accept. No unknown keys, no aliases.
* **peer** (``parse_message(..., strict=False)``, the default when receiving): also what real
  peers send. Unknown keys are dropped (a top-level event ``timestamp``, extra tool descriptor
  keys such as ``parameters`` or ``requiresAuth``), ``tools/call`` may carry ``parameters``
  instead of ``arguments``, ``platform: "darwin"`` means ``macos``, and a response that carries
  both ``result`` and ``error`` with one of them ``null`` is read as the other.

Field names are snake_case in Python and camelCase on the wire; :func:`dump_message` and
:meth:`WireModel.to_wire` write the wire form.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Final, Literal, TypeAlias

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    StringConstraints,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    model_serializer,
    model_validator,
)
from pydantic.alias_generators import to_camel

from gabp.errors import ErrorCode, MessageError

__all__ = [
    "CHANNEL_PAYLOADS",
    "METHOD_PATTERN",
    "PARAMS_MODELS",
    "PROTOCOL_VERSION",
    "RESULT_MODELS",
    "SCHEMA_VERSION",
    "SEND_METHOD_PATTERN",
    "TOOL_NAME_PATTERN",
    "AppInfo",
    "Attention",
    "AttentionAckParams",
    "AttentionAckResult",
    "AttentionCurrentParams",
    "AttentionCurrentResult",
    "AttentionSample",
    "Capabilities",
    "ClearedAttention",
    "ClientInfo",
    "ErrorObject",
    "Event",
    "EventsSubscribeParams",
    "EventsSubscribeResult",
    "EventsUnsubscribeParams",
    "EventsUnsubscribeResult",
    "HelloParams",
    "HelloResult",
    "Limits",
    "Message",
    "Request",
    "ResourceDescriptor",
    "ResourcesListParams",
    "ResourcesListResult",
    "ResourcesReadParams",
    "ResourcesReadResult",
    "Response",
    "ServerInfo",
    "StateGetParams",
    "StateGetResult",
    "StateSetParams",
    "StateSetResult",
    "ToolDescriptor",
    "ToolsCallParams",
    "ToolsListFilter",
    "ToolsListParams",
    "ToolsListResult",
    "WireModel",
    "dump_message",
    "new_id",
    "parse_message",
    "parse_params",
    "parse_payload",
    "parse_result",
    "recover_id",
]

PROTOCOL_VERSION: Final = "gabp/1"
SCHEMA_VERSION: Final = "1.0"
METHOD_PATTERN = r"^[a-z][a-z0-9_-]*(/[a-z][a-z0-9_-]*)+$"
"""Method names a receiver accepts."""
SEND_METHOD_PATTERN = r"^[a-z]+(/[a-z]+)+$"
"""Method names a sender uses (letters only)."""
TOOL_NAME_PATTERN = r"^[a-z][a-z0-9_-]*(/[a-z][a-z0-9_-]*)+$"
UUID_PATTERN = r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"

MessageId = Annotated[str, StringConstraints(pattern=UUID_PATTERN)]
MethodName = Annotated[str, StringConstraints(pattern=METHOD_PATTERN)]
ToolName = Annotated[str, StringConstraints(pattern=TOOL_NAME_PATTERN)]
NonEmpty = Annotated[str, StringConstraints(min_length=1)]
NonNegative = Annotated[int, Field(ge=0, strict=True)]
Json: TypeAlias = Any

_PEER = "peer"


def new_id() -> str:
    """A fresh message id (a random UUID)."""
    return str(uuid.uuid4())


def _peer_mode(info: ValidationInfo) -> bool:
    context = info.context
    return isinstance(context, Mapping) and bool(context.get(_PEER))


class WireModel(BaseModel):
    """Base of every wire model: camelCase aliases, no unknown keys (dropped in peer mode)."""

    model_config = ConfigDict(
        extra="forbid",
        alias_generator=to_camel,
        populate_by_name=True,
        frozen=False,
        strict=True,  # JSON types exactly: no "1" for 1, no 1 for true
    )
    _wire_keys: ClassVar[frozenset[str]] = frozenset()
    _required_on_wire: ClassVar[frozenset[str]] = frozenset()
    """Keys a received message must carry although Python callers may leave them out."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        cls._wire_keys = frozenset(
            {field.alias or name for name, field in cls.model_fields.items()}
        )

    @model_validator(mode="before")
    @classmethod
    def _drop_unknown_keys_from_peers(cls, data: Any, info: ValidationInfo) -> Any:
        if isinstance(data, dict) and info.context is not None:  # parsing, not building
            missing = [key for key in cls._required_on_wire if key not in data]
            if missing:
                raise ValueError(f"missing required member(s): {', '.join(sorted(missing))}")
        if isinstance(data, dict) and _peer_mode(info):
            keys = cls._wire_keys
            if any(key not in keys for key in data):
                return {key: value for key, value in data.items() if key in keys}
        return data

    @model_serializer(mode="wrap")
    def _omit_unset_nones(
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            fields_set = self.model_fields_set
            for name, field in type(self).model_fields.items():
                if name in fields_set:
                    continue
                key = (field.alias or name) if info.by_alias else name
                if key in data and data[key] is None:
                    del data[key]
        return data

    def to_wire(self) -> dict[str, Any]:
        """The JSON-ready wire form (camelCase keys, optional fields left out when not set)."""
        return self.model_dump(mode="json", by_alias=True)


# --- envelope ----------------------------------------------------------------------------


class ErrorObject(WireModel):
    """The ``error`` of a response."""

    code: Annotated[int, Field(strict=True)]
    message: NonEmpty
    data: Json = None


class Request(WireModel):
    _required_on_wire = frozenset({"v", "id", "type"})
    v: Literal["gabp/1"] = PROTOCOL_VERSION
    id: MessageId = Field(default_factory=new_id)
    type: Literal["request"] = "request"
    method: MethodName
    params: dict[str, Json] | None = None

    def _force_envelope(self) -> None:
        self.model_fields_set.update({"v", "id", "type"})

    def model_post_init(self, context: Any, /) -> None:
        self._force_envelope()


class Response(WireModel):
    _required_on_wire = frozenset({"v", "id", "type"})
    v: Literal["gabp/1"] = PROTOCOL_VERSION
    id: MessageId
    type: Literal["response"] = "response"
    result: Json = None
    error: ErrorObject | None = None

    def model_post_init(self, context: Any, /) -> None:
        self.model_fields_set.update({"v", "type"})
        if self.error is None:
            # a success response always carries ``result``, even when it is null
            self.model_fields_set.add("result")

    @model_validator(mode="before")
    @classmethod
    def _exactly_one_of_result_and_error(cls, data: Any, info: ValidationInfo) -> Any:
        if not isinstance(data, dict):
            return data
        has_result, has_error = "result" in data, "error" in data
        if has_result and has_error and _peer_mode(info):
            # a known peer sends both, one of them null
            data = dict(data)
            if data["error"] is None:
                del data["error"]
                has_error = False
            elif data["result"] is None:
                del data["result"]
                has_result = False
        if has_result and has_error:
            raise ValueError("a response carries exactly one of result and error, not both")
        if not has_result and not has_error:
            raise ValueError("a response carries exactly one of result and error, got neither")
        if has_error and data["error"] is None:
            raise ValueError("error must be an object {code, message}, not null")
        return data

    @property
    def is_error(self) -> bool:
        return self.error is not None


class Event(WireModel):
    _required_on_wire = frozenset({"v", "id", "type", "payload"})
    v: Literal["gabp/1"] = PROTOCOL_VERSION
    id: MessageId = Field(default_factory=new_id)
    type: Literal["event"] = "event"
    channel: NonEmpty
    seq: NonNegative
    payload: Json = None

    def model_post_init(self, context: Any, /) -> None:
        self.model_fields_set.update({"v", "id", "type", "payload"})


Message = Annotated[Request | Response | Event, Field(discriminator="type")]
_MESSAGE_ADAPTER: TypeAdapter[Request | Response | Event] = TypeAdapter(Message)


# --- session/hello ---------------------------------------------------------------------------


class ClientInfo(WireModel):
    name: str | None = None
    version: str | None = None


class HelloParams(WireModel):
    token: Annotated[str, StringConstraints(min_length=32)]
    bridge_version: NonEmpty
    platform: Literal["windows", "macos", "linux"]
    launch_id: MessageId
    client_info: ClientInfo | None = None

    def __repr_args__(self) -> Any:
        for key, value in super().__repr_args__():
            yield key, ("<redacted>" if key == "token" else value)

    @model_validator(mode="before")
    @classmethod
    def _darwin_is_macos(cls, data: Any, info: ValidationInfo) -> Any:
        if isinstance(data, dict) and data.get("platform") == "darwin" and _peer_mode(info):
            return {**data, "platform": "macos"}
        return data


class AppInfo(WireModel):
    name: NonEmpty
    version: NonEmpty


class ServerInfo(WireModel):
    name: str | None = None
    version: str | None = None
    author: str | None = None


class Limits(WireModel):
    max_message_size: Annotated[int, Field(ge=1024, strict=True)] | None = None
    max_concurrent_requests: Annotated[int, Field(ge=1, strict=True)] | None = None
    request_timeout: Annotated[int, Field(ge=1, strict=True)] | None = None


class Capabilities(WireModel):
    """What a server offers. There is no ``tools`` key: tools come from ``tools/list``."""

    methods: list[MethodName] = Field(default_factory=list)
    events: list[NonEmpty] = Field(default_factory=list)
    resources: list[str] = Field(default_factory=list)
    extensions: dict[str, dict[str, Json]] = Field(default_factory=dict)
    limits: Limits | None = None

    def model_post_init(self, context: Any, /) -> None:
        self.model_fields_set.update({"methods", "events", "resources"})

    @property
    def supports_attention(self) -> bool:
        """True when both attention methods are advertised (how attention is discovered)."""
        return "attention/current" in self.methods and "attention/ack" in self.methods


class HelloResult(WireModel):
    """The response to ``session/hello`` (there is no separate welcome message)."""

    _required_on_wire = frozenset({"schemaVersion"})
    agent_id: NonEmpty
    app: AppInfo
    capabilities: Capabilities
    schema_version: Annotated[str, StringConstraints(pattern=r"^1\.\d+(\.\d+)?$")] = SCHEMA_VERSION
    server_info: ServerInfo | None = None

    def model_post_init(self, context: Any, /) -> None:
        self.model_fields_set.add("schema_version")


# --- tools -------------------------------------------------------------------------------------


class ToolsListFilter(WireModel):
    tags: list[str] | None = None
    name_pattern: str | None = None


class ToolsListParams(WireModel):
    filter: ToolsListFilter | None = None


class ToolDescriptor(WireModel):
    name: ToolName
    title: NonEmpty
    description: NonEmpty
    input_schema: dict[str, Json]
    output_schema: dict[str, Json]
    tags: list[str] | None = None
    deprecated: bool | None = None
    version: str | None = None


class ToolsListResult(WireModel):
    tools: list[ToolDescriptor]


class ToolsCallParams(WireModel):
    """``tools/call`` params. Send ``arguments``; ``parameters`` is accepted from peers."""

    name: ToolName
    arguments: dict[str, Json] = Field(default_factory=dict)

    def model_post_init(self, context: Any, /) -> None:
        self.model_fields_set.add("arguments")

    @model_validator(mode="before")
    @classmethod
    def _parameters_means_arguments(cls, data: Any, info: ValidationInfo) -> Any:
        if isinstance(data, dict) and "parameters" in data and _peer_mode(info):
            data = dict(data)
            parameters = data.pop("parameters")
            if "arguments" in data and data["arguments"] != parameters:
                raise ValueError(
                    "tools/call carries both arguments and parameters, and they differ"
                )
            data["arguments"] = parameters
        return data


# --- events ------------------------------------------------------------------------------------


Channels = Annotated[list[NonEmpty], Field(min_length=1)]


def _unique(values: list[str]) -> list[str]:
    if len(set(values)) != len(values):
        raise ValueError("channels must be unique")
    return values


class EventsSubscribeParams(WireModel):
    channels: Annotated[Channels, AfterValidator(_unique)]


class EventsSubscribeResult(WireModel):
    subscribed: list[str]


class EventsUnsubscribeParams(WireModel):
    channels: Annotated[Channels, AfterValidator(_unique)]


class EventsUnsubscribeResult(WireModel):
    unsubscribed: list[str]


# --- resources ---------------------------------------------------------------------------------


class ResourcesListParams(WireModel):
    pattern: str | None = None
    namespace: str | None = None


class ResourceDescriptor(WireModel):
    uri: NonEmpty
    name: NonEmpty
    description: str | None = None
    mime_type: str | None = None
    size: NonNegative | None = None


class ResourcesListResult(WireModel):
    resources: list[ResourceDescriptor]


class ResourcesReadParams(WireModel):
    uri: NonEmpty


class ResourcesReadResult(WireModel):
    content: Json
    mime_type: str | None = None
    encoding: str | None = None

    def model_post_init(self, context: Any, /) -> None:
        self.model_fields_set.add("content")


# --- state -------------------------------------------------------------------------------------


class StateGetParams(WireModel):
    components: list[str] | None = None
    player_id: str | None = None


class StateGetResult(WireModel):
    state: dict[str, Json]
    timestamp: Json


class StateSetParams(WireModel):
    updates: dict[str, Json]
    player_id: str | None = None
    validate_: bool | None = Field(default=None, alias="validate")


class StateSetResult(WireModel):
    applied: bool | list[Json] | dict[str, Json]
    errors: list[Json] | None = None


# --- attention -----------------------------------------------------------------------------------


class AttentionSample(WireModel):
    """One distinct urgent entry of an attention item, with how often it repeated."""

    level: NonEmpty
    message: str
    repeat_count: Annotated[int, Field(ge=1, strict=True)]
    latest_sequence: NonNegative


class Attention(WireModel):
    """The one attention item a game holds open (or the item just cleared)."""

    attention_id: NonEmpty
    state: Literal["open", "cleared"]
    severity: Literal["info", "warning", "error", "fatal"]
    blocking: bool
    state_invalidated: bool
    summary: NonEmpty
    opened_at_sequence: NonNegative
    latest_sequence: NonNegative
    total_urgent_entries: NonNegative
    causal_operation_id: str | None = None
    causal_method: str | None = None
    diagnostics_cursor: NonNegative | None = None
    sample: list[AttentionSample] | None = None


class ClearedAttention(Attention):
    """The payload of ``attention/cleared``: the item as it was closed."""

    state: Literal["cleared"]
    blocking: Literal[False]


class AttentionCurrentParams(WireModel):
    pass


class AttentionCurrentResult(WireModel):
    attention: Attention | None

    def model_post_init(self, context: Any, /) -> None:
        self.model_fields_set.add("attention")


class AttentionAckParams(WireModel):
    attention_id: NonEmpty


class AttentionAckResult(WireModel):
    acknowledged: bool
    attention_id: str
    current_attention: Attention | None

    def model_post_init(self, context: Any, /) -> None:
        self.model_fields_set.add("current_attention")


PARAMS_MODELS: dict[str, type[WireModel]] = {
    "session/hello": HelloParams,
    "tools/list": ToolsListParams,
    "tools/call": ToolsCallParams,
    "events/subscribe": EventsSubscribeParams,
    "events/unsubscribe": EventsUnsubscribeParams,
    "resources/list": ResourcesListParams,
    "resources/read": ResourcesReadParams,
    "state/get": StateGetParams,
    "state/set": StateSetParams,
    "attention/current": AttentionCurrentParams,
    "attention/ack": AttentionAckParams,
}
"""The params model of every protocol method."""

RESULT_MODELS: dict[str, type[WireModel]] = {
    "session/hello": HelloResult,
    "tools/list": ToolsListResult,
    "events/subscribe": EventsSubscribeResult,
    "events/unsubscribe": EventsUnsubscribeResult,
    "resources/list": ResourcesListResult,
    "resources/read": ResourcesReadResult,
    "state/get": StateGetResult,
    "state/set": StateSetResult,
    "attention/current": AttentionCurrentResult,
    "attention/ack": AttentionAckResult,
}
"""The result model of every protocol method whose result has a fixed shape.

``tools/call`` is absent: its result is whatever the tool returns (any JSON value).
"""

CHANNEL_PAYLOADS: dict[str, type[WireModel]] = {
    "attention/opened": Attention,
    "attention/updated": Attention,
    "attention/cleared": ClearedAttention,
}
"""The payload model of every event channel with a fixed payload."""


# --- parsing and dumping -------------------------------------------------------------------------


def _context(strict: bool) -> dict[str, bool]:
    return {_PEER: not strict}


_ID_IN_TEXT = re.compile(
    rb'"id"\s*:\s*"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})"'
)


def recover_id(raw: bytes | dict[str, Any]) -> str | None:
    """The request id of a message that failed to parse, when one can be found in it."""
    if isinstance(raw, dict):
        value = raw.get("id")
        if isinstance(value, str) and re.match(UUID_PATTERN, value):
            return value
        return None
    match = _ID_IN_TEXT.search(raw[:4096])
    return match.group(1).decode("ascii") if match else None


def _describe(error: ValidationError, *, tagged: bool = False) -> str:
    parts = []
    for item in error.errors(include_url=False):
        loc = item["loc"][1:] if tagged and item["loc"] else item["loc"]
        location = "$" + "".join(
            f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc
        )
        parts.append(f"{location}: {item['msg']}")
    return "; ".join(parts)


def parse_message(
    data: bytes | bytearray | str | dict[str, Any], *, strict: bool = False
) -> Request | Response | Event:
    """Parse one GABP message (a frame body or an already-decoded object).

    Raises :class:`~gabp.errors.MessageError` with code ``-32700`` when the bytes are not
    JSON and ``-32600`` when the envelope is invalid; ``message_id`` holds the id when it could
    be recovered. ``strict=True`` accepts exactly what the schemas accept; the default also
    accepts what known peers send.
    """
    if isinstance(data, (bytes, bytearray, str)):
        raw = data.encode() if isinstance(data, str) else bytes(data)
        try:
            data = json.loads(raw)
        except RecursionError:
            raise MessageError(
                "message nested too deeply", code=ErrorCode.INVALID_REQUEST, message_id=None
            ) from None
        except (ValueError, UnicodeDecodeError) as exc:
            raise MessageError(
                f"message is not valid JSON: {exc}",
                code=ErrorCode.PARSE_ERROR,
                message_id=recover_id(raw),
            ) from None
    if not isinstance(data, dict):
        raise MessageError(
            f"a message must be a JSON object, got {type(data).__name__}",
            code=ErrorCode.INVALID_REQUEST,
        )
    try:
        return _MESSAGE_ADAPTER.validate_python(data, context=_context(strict))
    except ValidationError as exc:
        raise MessageError(
            f"invalid message: {_describe(exc, tagged=True)}",
            code=ErrorCode.INVALID_REQUEST,
            message_id=recover_id(data),
        ) from None


def _parse_with(
    model: type[WireModel], value: Any, strict: bool, what: str, code: int
) -> WireModel:
    try:
        return model.model_validate(value, context=_context(strict))
    except ValidationError as exc:
        raise MessageError(f"invalid {what}: {_describe(exc)}", code=code) from None


def parse_params(
    method: str, params: Mapping[str, Any] | None, *, strict: bool = False
) -> WireModel:
    """Parse the params of a protocol method into its model (``-32602`` on failure)."""
    model = PARAMS_MODELS.get(method)
    if model is None:
        raise MessageError(f"unknown method {method!r}", code=ErrorCode.METHOD_NOT_FOUND)
    return _parse_with(
        model, dict(params or {}), strict, f"{method} params", ErrorCode.INVALID_PARAMS
    )


def parse_result(method: str, result: Any, *, strict: bool = False) -> Any:
    """Parse the result of a protocol method into its model.

    Methods without a fixed result shape (``tools/call``) return the value unchanged.
    """
    model = RESULT_MODELS.get(method)
    if model is None:
        return result
    return _parse_with(model, result, strict, f"{method} result", ErrorCode.INVALID_REQUEST)


def parse_payload(channel: str, payload: Any, *, strict: bool = False) -> Any:
    """Parse an event payload into its model (the attention channels); others unchanged."""
    model = CHANNEL_PAYLOADS.get(channel)
    if model is None:
        return payload
    return _parse_with(model, payload, strict, f"{channel} payload", ErrorCode.INVALID_REQUEST)


def dump_message(message: Request | Response | Event | WireModel) -> bytes:
    """Compact UTF-8 JSON of a message (non-ASCII kept as UTF-8, not escaped)."""
    return json.dumps(
        message.to_wire(), ensure_ascii=False, separators=(",", ":"), allow_nan=False
    ).encode("utf-8")
