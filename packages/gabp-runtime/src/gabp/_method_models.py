"""Params and results of the session, tools, events, resources and state methods."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationInfo,
    field_validator,
    model_validator,
)

from gabp._wire import (
    EXTENSION_NAME_PATTERN,
    SCHEMA_VERSION,
    Json,
    MessageId,
    MethodName,
    NonEmpty,
    NonNegative,
    ToolName,
    WireModel,
    check_uri,
    peer_mode,
    schema_regex,
    unique,
)

__all__ = [
    "CONCURRENCY_EXTENSION",
    "AppInfo",
    "Capabilities",
    "ClientInfo",
    "EventsSubscribeParams",
    "EventsSubscribeResult",
    "EventsUnsubscribeParams",
    "EventsUnsubscribeResult",
    "HelloParams",
    "HelloResult",
    "Limits",
    "ResourceDescriptor",
    "ResourcesListParams",
    "ResourcesListResult",
    "ResourcesReadParams",
    "ResourcesReadResult",
    "ServerInfo",
    "StateGetParams",
    "StateGetResult",
    "StateSetError",
    "StateSetParams",
    "StateSetResult",
    "ToolDescriptor",
    "ToolsCallParams",
    "ToolsListFilter",
    "ToolsListParams",
    "ToolsListResult",
]

CONCURRENCY_EXTENSION = "concurrency"
"""``capabilities.extensions.concurrency = {"maxConcurrentRequests": n}``: how many requests a
server answers correctly while they overlap on one connection (an extension; other bridges
ignore it)."""

_EXTENSION_NAME = schema_regex(EXTENSION_NAME_PATTERN)
Uri = Annotated[str, AfterValidator(check_uri)]


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
        if isinstance(data, dict) and data.get("platform") == "darwin" and peer_mode(info):
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

    methods: Annotated[list[MethodName], AfterValidator(unique)] = Field(default_factory=list)
    events: Annotated[list[str], AfterValidator(unique)] = Field(default_factory=list)
    resources: Annotated[list[Uri], AfterValidator(unique)] = Field(default_factory=list)
    extensions: dict[str, dict[str, Json]] = Field(default_factory=dict)
    limits: Limits | None = None

    def model_post_init(self, context: Any, /) -> None:
        self.model_fields_set.update({"methods", "events", "resources"})

    @field_validator("extensions")
    @classmethod
    def _extension_names_and_concurrency(
        cls, extensions: dict[str, dict[str, Any]], info: ValidationInfo
    ) -> dict[str, dict[str, Any]]:
        for name in extensions:
            if _EXTENSION_NAME.match(name) is None:
                raise ValueError(f"extension name {name!r} must match {EXTENSION_NAME_PATTERN}")
        declared = extensions.get(CONCURRENCY_EXTENSION)
        if declared is not None and not peer_mode(info):
            limit = declared.get("maxConcurrentRequests")
            if type(limit) is not int or limit < 1:
                raise ValueError(
                    "extensions.concurrency.maxConcurrentRequests must be an integer >= 1"
                )
        return extensions

    @property
    def supports_attention(self) -> bool:
        """True when both attention methods are advertised (how attention is discovered)."""
        return "attention/current" in self.methods and "attention/ack" in self.methods

    @property
    def max_concurrent_requests(self) -> int | None:
        """Requests the server serves at once on one connection, if it declares it with the
        ``concurrency`` extension (None otherwise: assume one at a time)."""
        declared = self.extensions.get(CONCURRENCY_EXTENSION)
        limit = declared.get("maxConcurrentRequests") if declared is not None else None
        return limit if type(limit) is int and limit >= 1 else None


class HelloResult(WireModel):
    """The response to ``session/hello`` (GABP calls it the welcome; it is the hello's response)."""

    _required_on_wire = frozenset({"schemaVersion"})
    agent_id: NonEmpty
    app: AppInfo
    capabilities: Capabilities
    # [0-9], not \d: pydantic-core's regex takes any Unicode digit for \d
    schema_version: Annotated[str, StringConstraints(pattern=r"^1\.[0-9]+(\.[0-9]+)?$")] = (
        SCHEMA_VERSION
    )
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
    tags: Annotated[list[str], AfterValidator(unique)] | None = None
    deprecated: bool | None = None
    version: str | None = None


class ToolsListResult(WireModel):
    tools: list[ToolDescriptor]


class ToolsCallParams(WireModel):
    """``tools/call`` params. Send ``arguments``.

    From peers, also: ``parameters`` (what the Go bridge sends), preferred over ``arguments``
    when both are there, as the C# runtime does; and ``null`` for either, meaning no arguments.
    """

    name: ToolName
    arguments: dict[str, Json] = Field(default_factory=dict)

    def model_post_init(self, context: Any, /) -> None:
        self.model_fields_set.add("arguments")

    @model_validator(mode="before")
    @classmethod
    def _parameters_means_arguments(cls, data: Any, info: ValidationInfo) -> Any:
        if not (isinstance(data, dict) and peer_mode(info)):
            return data
        data = dict(data)
        parameters = data.pop("parameters", None)
        if parameters is not None:
            data["arguments"] = parameters
        elif data.get("arguments", {}) is None:
            data["arguments"] = {}
        return data


# --- events ------------------------------------------------------------------------------------


Channels = Annotated[list[NonEmpty], Field(min_length=1), AfterValidator(unique)]


class EventsSubscribeParams(WireModel):
    channels: Channels


class EventsSubscribeResult(WireModel):
    subscribed: Annotated[list[NonEmpty], AfterValidator(unique)]


class EventsUnsubscribeParams(WireModel):
    channels: Channels


class EventsUnsubscribeResult(WireModel):
    unsubscribed: Annotated[list[NonEmpty], AfterValidator(unique)]


# --- resources ---------------------------------------------------------------------------------


class ResourcesListParams(WireModel):
    pattern: str | None = None
    namespace: str | None = None


class ResourceDescriptor(WireModel):
    uri: Uri
    name: str
    description: str | None = None
    mime_type: str | None = None
    size: NonNegative | None = None


class ResourcesListResult(WireModel):
    resources: list[ResourceDescriptor]


class ResourcesReadParams(WireModel):
    uri: Uri


class ResourcesReadResult(WireModel):
    content: Json
    mime_type: str | None = None
    encoding: Literal["utf-8", "base64", "ascii", "binary"] | None = None

    def model_post_init(self, context: Any, /) -> None:
        self.model_fields_set.add("content")


# --- state -------------------------------------------------------------------------------------


class StateGetParams(WireModel):
    components: list[str] | None = None
    player_id: str | None = None


class StateGetResult(WireModel):
    state: dict[str, Json]
    timestamp: NonNegative
    """Unix time in seconds at which the state was read."""


class StateSetParams(WireModel):
    updates: dict[str, Json]
    player_id: str | None = None
    validate_: bool | None = Field(default=None, alias="validate")


class StateSetError(WireModel):
    """One change state/set refused or failed to make."""

    model_config = ConfigDict(extra="allow")
    field: str
    message: str
    code: str | None = None


class StateSetResult(WireModel):
    applied: dict[str, Json]
    errors: list[StateSetError] | None = None
