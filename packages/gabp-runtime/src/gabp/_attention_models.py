"""The attention item and the attention methods' params and results."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, ValidationInfo, model_validator

from gabp._wire import NonEmpty, NonNegative, WireModel, peer_mode

__all__ = [
    "Attention",
    "AttentionAckParams",
    "AttentionAckResult",
    "AttentionCurrentParams",
    "AttentionCurrentResult",
    "AttentionSample",
    "ClearedAttention",
]

Level = Literal["info", "warning", "error", "fatal"]


class AttentionSample(WireModel):
    """One distinct urgent entry of an attention item, with how often it repeated."""

    level: Level
    message: str
    repeat_count: Annotated[int, Field(ge=1, strict=True)]
    latest_sequence: NonNegative

    @model_validator(mode="before")
    @classmethod
    def _lenient_from_peers(cls, data: Any, info: ValidationInfo) -> Any:
        if not isinstance(data, dict):
            return data
        if peer_mode(info):
            level = data.get("level")
            if isinstance(level, str) and level.lower() != level:
                data = {**data, "level": level.lower()}
            return data
        if data.get("message") == "":
            raise ValueError("a sample's message must not be empty")
        return data


class Attention(WireModel):
    """The one attention item a game holds open (or the item just cleared)."""

    attention_id: NonEmpty
    state: Literal["open", "cleared"]
    severity: Level
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

    @model_validator(mode="before")
    @classmethod
    def _causes_are_not_empty(cls, data: Any, info: ValidationInfo) -> Any:
        if not isinstance(data, dict):
            return data
        empty = [key for key in ("causalOperationId", "causalMethod") if data.get(key) == ""]
        empty += [key for key in ("causal_operation_id", "causal_method") if data.get(key) == ""]
        if not empty:
            return data
        if peer_mode(info):  # a peer's empty cause means no cause
            return {key: value for key, value in data.items() if key not in empty}
        raise ValueError(f"{', '.join(empty)} must not be empty (leave it out instead)")


class ClearedAttention(Attention):
    """The payload of ``attention/cleared``: the item as it was closed.

    From a peer, the channel decides: the item is read as cleared and not blocking.
    """

    state: Literal["cleared"]
    blocking: Literal[False]

    @model_validator(mode="before")
    @classmethod
    def _the_channel_says_cleared(cls, data: Any, info: ValidationInfo) -> Any:
        if isinstance(data, dict) and peer_mode(info):
            return {**data, "state": "cleared", "blocking": False}
        return data


class AttentionCurrentParams(WireModel):
    pass


def _missing_item_is_null(data: Any, key: str, info: ValidationInfo) -> Any:
    """From a peer, a left-out item member means no item (``null``).

    The .NET runtime's serializer leaves every ``null`` member out, so a game built on it
    answers "no item" without the member; the Go runtime reads the gap as ``null`` too.
    """
    if isinstance(data, dict) and key not in data and peer_mode(info):
        return {**data, key: None}
    return data


class AttentionCurrentResult(WireModel):
    attention: Attention | None

    @model_validator(mode="before")
    @classmethod
    def _no_member_from_a_peer(cls, data: Any, info: ValidationInfo) -> Any:
        return _missing_item_is_null(data, "attention", info)

    def model_post_init(self, context: Any, /) -> None:
        self.model_fields_set.add("attention")

    @model_validator(mode="after")
    def _open(self, info: ValidationInfo) -> AttentionCurrentResult:
        if self.attention is not None and self.attention.state != "open" and not peer_mode(info):
            raise ValueError("attention/current returns an open item or null")
        return self


class AttentionAckParams(WireModel):
    attention_id: NonEmpty


class AttentionAckResult(WireModel):
    acknowledged: bool
    attention_id: NonEmpty
    current_attention: Attention | None

    @model_validator(mode="before")
    @classmethod
    def _no_member_from_a_peer(cls, data: Any, info: ValidationInfo) -> Any:
        return _missing_item_is_null(data, "currentAttention", info)

    def model_post_init(self, context: Any, /) -> None:
        self.model_fields_set.add("current_attention")

    @model_validator(mode="after")
    def _consistent(self, info: ValidationInfo) -> AttentionAckResult:
        if peer_mode(info):
            return self
        item = self.current_attention
        if self.acknowledged and item is not None:
            raise ValueError("an acknowledged item leaves nothing open: currentAttention is null")
        if item is not None and item.state != "open":
            raise ValueError("currentAttention is the item still open (state 'open')")
        return self
