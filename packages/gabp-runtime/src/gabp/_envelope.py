"""The three kinds of message: request, response and event, and the error object."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter, ValidationInfo, field_validator, model_validator

from gabp._envelope_names import foreign_member
from gabp._wire import (
    DATE_TIME_PATTERN,
    PROTOCOL_VERSION,
    Json,
    MessageId,
    MethodName,
    NonEmpty,
    NonNegative,
    WireModel,
    check_send_method,
    new_id,
    peer_mode,
    schema_regex,
)

__all__ = ["ErrorObject", "Event", "Message", "Request", "Response", "message_adapter"]

_DATE_TIME = schema_regex(DATE_TIME_PATTERN)


class ErrorObject(WireModel):
    """The ``error`` of a response."""

    code: Annotated[int, Field(strict=True)]
    message: NonEmpty
    data: Json = None


def _refuse_foreign_members(data: Any, info: ValidationInfo, kind: str) -> Any:
    """Refuse a peer's message that carries a member GABP forbids for its type (in strict
    parsing every unknown member is refused anyway)."""
    if isinstance(data, dict) and peer_mode(info):
        foreign = foreign_member(data, kind)
        if foreign is not None:
            raise ValueError(f"{kind}s carry no {foreign} member")
    return data


class Request(WireModel):
    _required_on_wire = frozenset({"v", "id", "type"})
    v: Literal["gabp/1"] = PROTOCOL_VERSION
    id: MessageId = Field(default_factory=new_id)
    type: Literal["request"] = "request"
    method: MethodName
    params: dict[str, Json] | None = None

    @field_validator("method")
    @classmethod
    def _letters_only_when_sending(cls, method: str, info: ValidationInfo) -> str:
        return check_send_method(method, info)

    def model_post_init(self, context: Any, /) -> None:
        self.model_fields_set.update({"v", "id", "type"})

    @model_validator(mode="before")
    @classmethod
    def _no_foreign_members(cls, data: Any, info: ValidationInfo) -> Any:
        return _refuse_foreign_members(data, info, "request")


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
        _refuse_foreign_members(data, info, "response")
        has_result, has_error = "result" in data, "error" in data
        if has_result and has_error and peer_mode(info):
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


def _valid_date_time(value: str) -> bool:
    match = _DATE_TIME.match(value)
    if match is None:
        return False
    try:
        date(int(value[0:4]), int(value[5:7]), int(value[8:10]))
    except ValueError:
        return False
    return int(value[11:13]) < 24 and int(value[14:16]) < 60 and int(value[17:19]) <= 60


class Event(WireModel):
    _required_on_wire = frozenset({"v", "id", "type", "payload"})
    v: Literal["gabp/1"] = PROTOCOL_VERSION
    id: MessageId = Field(default_factory=new_id)
    type: Literal["event"] = "event"
    channel: NonEmpty
    seq: NonNegative
    payload: Json = None
    timestamp: str | None = None
    """When the event happened (RFC 3339), if the sender says; GABP's event schema allows it."""

    def model_post_init(self, context: Any, /) -> None:
        self.model_fields_set.update({"v", "id", "type", "payload"})

    @model_validator(mode="before")
    @classmethod
    def _no_foreign_members(cls, data: Any, info: ValidationInfo) -> Any:
        return _refuse_foreign_members(data, info, "event")

    @field_validator("timestamp", mode="before")
    @classmethod
    def _rfc_3339(cls, value: Any, info: ValidationInfo) -> Any:
        if value is None and (info.context is None or peer_mode(info)):
            return None
        if isinstance(value, str) and _valid_date_time(value):
            return value
        if peer_mode(info):
            return None  # a peer's unreadable timestamp is not worth refusing the event for
        raise ValueError(f"timestamp must be an RFC 3339 date-time string, got {value!r}")


Message = Annotated[Request | Response | Event, Field(discriminator="type")]
message_adapter: TypeAdapter[Request | Response | Event] = TypeAdapter(Message)
