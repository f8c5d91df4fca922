"""Pydantic models of every GABP message, strict to build and tolerant to receive.

The envelope is a discriminated union on ``type``: :class:`Request`, :class:`Response` and
:class:`Event`. Method params and results, and the attention payload, have their own models,
listed in :data:`PARAMS_MODELS`, :data:`RESULT_MODELS` and :data:`CHANNEL_PAYLOADS`.

Two modes of validation:

* **strict** (the default of every constructor and of ``strict=True``): exactly what this
  repository sends. That is what GABP 1.0's normative schemas accept (the public GABP 1.1.0
  release), narrowed by the extension set's rules: letters-only method names, an opened or
  updated attention item in state ``open``, a cleared one not blocking, an acknowledged item
  leaving nothing open, a well-formed ``concurrency`` extension.
* **peer** (``parse_message(..., strict=False)``, the default when receiving): everything
  GABP's schemas accept, and what real peers send besides. Unknown keys are dropped (extra
  tool descriptor keys such as ``parameters`` or ``requiresAuth``), ``tools/call`` may carry
  ``parameters`` instead of ``arguments`` (preferred when both are there) and ``null`` for
  either, ``platform: "darwin"`` means ``macos``, method names may hold digits, ``_`` and
  ``-``, a response that carries both ``result`` and ``error`` with one of them ``null`` is
  read as the other, an ``attention/cleared`` payload is read as cleared and not blocking, and
  an attention result without its ``attention`` or ``currentAttention`` member reads it as
  ``null``.

Field names are snake_case in Python and camelCase on the wire; :func:`dump_message` and
:meth:`WireModel.to_wire` write the wire form.

The models live in private modules by concern (``gabp._envelope``, ``gabp._method_models``,
``gabp._attention_models``, ``gabp._parsing``); this module is where they are imported from.
"""

from __future__ import annotations

from gabp._attention_models import (
    Attention,
    AttentionAckParams,
    AttentionAckResult,
    AttentionCurrentParams,
    AttentionCurrentResult,
    AttentionSample,
    ClearedAttention,
)
from gabp._envelope import ErrorObject, Event, Message, Request, Response
from gabp._method_models import (
    CONCURRENCY_EXTENSION,
    AppInfo,
    Capabilities,
    ClientInfo,
    EventsSubscribeParams,
    EventsSubscribeResult,
    EventsUnsubscribeParams,
    EventsUnsubscribeResult,
    HelloParams,
    HelloResult,
    Limits,
    ResourceDescriptor,
    ResourcesListParams,
    ResourcesListResult,
    ResourcesReadParams,
    ResourcesReadResult,
    ServerInfo,
    StateGetParams,
    StateGetResult,
    StateSetError,
    StateSetParams,
    StateSetResult,
    ToolDescriptor,
    ToolsCallParams,
    ToolsListFilter,
    ToolsListParams,
    ToolsListResult,
)
from gabp._parsing import (
    CHANNEL_PAYLOADS,
    PARAMS_MODELS,
    RESULT_MODELS,
    dump_message,
    parse_message,
    parse_params,
    parse_payload,
    parse_result,
    recover_id,
)
from gabp._wire import (
    EXTENSION_NAME_PATTERN,
    METHOD_PATTERN,
    PROTOCOL_VERSION,
    SCHEMA_VERSION,
    SEND_METHOD_PATTERN,
    TOOL_NAME_PATTERN,
    UUID_PATTERN,
    Json,
    MessageId,
    MethodName,
    NonEmpty,
    NonNegative,
    ToolName,
    WireModel,
    new_id,
    schema_regex,
    unique_id,
)

__all__ = [
    "CHANNEL_PAYLOADS",
    "CONCURRENCY_EXTENSION",
    "EXTENSION_NAME_PATTERN",
    "METHOD_PATTERN",
    "PARAMS_MODELS",
    "PROTOCOL_VERSION",
    "RESULT_MODELS",
    "SCHEMA_VERSION",
    "SEND_METHOD_PATTERN",
    "TOOL_NAME_PATTERN",
    "UUID_PATTERN",
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
    "Json",
    "Limits",
    "Message",
    "MessageId",
    "MethodName",
    "NonEmpty",
    "NonNegative",
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
    "StateSetError",
    "StateSetParams",
    "StateSetResult",
    "ToolDescriptor",
    "ToolName",
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
    "schema_regex",
    "unique_id",
]
