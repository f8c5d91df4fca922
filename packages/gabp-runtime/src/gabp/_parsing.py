"""Parsing received messages into models, and dumping models as wire JSON."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from gabp._attention_models import (
    Attention,
    AttentionAckParams,
    AttentionAckResult,
    AttentionCurrentParams,
    AttentionCurrentResult,
    ClearedAttention,
)
from gabp._envelope import Event, Request, Response, message_adapter
from gabp._method_models import (
    EventsSubscribeParams,
    EventsSubscribeResult,
    EventsUnsubscribeParams,
    EventsUnsubscribeResult,
    HelloParams,
    HelloResult,
    ResourcesListParams,
    ResourcesListResult,
    ResourcesReadParams,
    ResourcesReadResult,
    StateGetParams,
    StateGetResult,
    StateSetParams,
    StateSetResult,
    ToolsCallParams,
    ToolsListParams,
    ToolsListResult,
)
from gabp._wire import UUID_PATTERN, WireModel, context_for
from gabp.errors import ErrorCode, MessageError

__all__ = [
    "CHANNEL_PAYLOADS",
    "PARAMS_MODELS",
    "RESULT_MODELS",
    "dump_message",
    "parse_message",
    "parse_params",
    "parse_payload",
    "parse_result",
    "recover_id",
]

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
    be recovered. ``strict=True`` accepts exactly what this repository sends (GABP's schemas
    and the extension set's rules); the default accepts everything GABP's schemas accept and
    what known peers send besides.
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
        return message_adapter.validate_python(data, context=context_for(strict))
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
        return model.model_validate(value, context=context_for(strict))
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


_OPEN_CHANNELS = frozenset({"attention/opened", "attention/updated"})


def parse_payload(channel: str, payload: Any, *, strict: bool = False) -> Any:
    """Parse an event payload into its model (the attention channels); others unchanged.

    ``strict=True`` also holds an opened or updated item to state ``open`` (the extension
    set's rule; a peer's is taken as it comes).
    """
    model = CHANNEL_PAYLOADS.get(channel)
    if model is None:
        return payload
    parsed = _parse_with(model, payload, strict, f"{channel} payload", ErrorCode.INVALID_REQUEST)
    if strict and channel in _OPEN_CHANNELS and getattr(parsed, "state", "open") != "open":
        raise MessageError(
            f"invalid {channel} payload: $.state: an {channel} item has state 'open'",
            code=ErrorCode.INVALID_REQUEST,
        )
    return parsed


def dump_message(message: Request | Response | Event | WireModel) -> bytes:
    """Compact UTF-8 JSON of a message (non-ASCII kept as UTF-8, not escaped)."""
    return json.dumps(
        message.to_wire(), ensure_ascii=False, separators=(",", ":"), allow_nan=False
    ).encode("utf-8")
