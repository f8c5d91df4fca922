"""What integrations report to the attention manager, how it is classified, and what it answers."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from gabp.messages import Attention, AttentionAckResult
from lib_gab._attention_item import LEVELS, RANK, Level

__all__ = [
    "AckOutcome",
    "AttentionPolicy",
    "AttentionStats",
    "Classification",
    "DefaultAttentionPolicy",
    "UrgentEntry",
]

_LEVELS = LEVELS
_RANK = RANK


# --- what integrations report and how it is classified ----------------------------------------


@dataclass(frozen=True, slots=True)
class UrgentEntry:
    """One urgent diagnostics-plane entry an integration reports.

    ``signature`` is the identity used for coalescing (default: the message after truncation).
    ``sequence`` is the diagnostics-plane sequence, e.g. the log ring index (default: the
    manager's own counter). ``blocking`` and ``state_invalidated`` override the policy when not
    ``None``. ``causal_operation_id`` / ``causal_method`` default to the manager's operation
    provider. Negative sequences and cursors and unknown levels raise :class:`ValueError`.
    """

    level: Level
    message: str
    signature: str | None = None
    sequence: int | None = None
    blocking: bool | None = None
    state_invalidated: bool | None = None
    causal_operation_id: str | None = None
    causal_method: str | None = None
    diagnostics_cursor: int | None = None

    def __post_init__(self) -> None:
        if self.level not in _RANK:
            raise ValueError(f"level must be one of {', '.join(_LEVELS)}, got {self.level!r}")
        if type(self.message) is not str:
            raise TypeError(f"message must be a str, got {type(self.message).__name__}")
        if self.sequence is not None and self.sequence < 0:
            raise ValueError(f"sequence must be >= 0, got {self.sequence}")
        if self.diagnostics_cursor is not None and self.diagnostics_cursor < 0:
            raise ValueError(f"diagnostics_cursor must be >= 0, got {self.diagnostics_cursor}")


@dataclass(frozen=True, slots=True)
class Classification:
    """How a policy rates an attention-worthy entry."""

    blocking: bool
    state_invalidated: bool = False


class AttentionPolicy(Protocol):
    """Decides whether an entry deserves attention, and whether it blocks."""

    def classify(self, entry: UrgentEntry) -> Classification | None:
        """The classification of ``entry``, or ``None`` when it is not attention-worthy."""
        ...


_CLASSIFICATIONS: Final = (
    (Classification(False, False), Classification(False, True)),
    (Classification(True, False), Classification(True, True)),
)


class DefaultAttentionPolicy:
    """``error`` and ``fatal`` block, ``warning`` is advisory, ``info`` is ignored.

    An entry's own ``blocking`` / ``state_invalidated``, when not ``None``, override the level's
    default; setting either makes even an ``info`` entry attention-worthy.
    """

    __slots__ = ()

    def classify(self, entry: UrgentEntry) -> Classification | None:
        level = entry.level
        blocking = entry.blocking
        invalidated = entry.state_invalidated
        if blocking is None:
            if level == "info" and invalidated is None:
                return None
            blocking = level == "error" or level == "fatal"
        return _CLASSIFICATIONS[blocking][invalidated is True]

    def __repr__(self) -> str:
        return "DefaultAttentionPolicy()"


# --- results -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AckOutcome:
    """The answer to ``attention/ack``."""

    acknowledged: bool
    attention_id: str
    current: Attention | None
    """The item still open after the ack (``None`` when nothing is open)."""

    def to_wire(self) -> dict[str, Any]:
        """``{"acknowledged", "attentionId", "currentAttention"}``, the ``attention/ack`` result."""
        return AttentionAckResult(
            acknowledged=self.acknowledged,
            attention_id=self.attention_id,
            current_attention=self.current,
        ).to_wire()


@dataclass(frozen=True, slots=True)
class AttentionStats:
    """Counters since the manager was built."""

    entries_seen: int
    """Every entry reported, attention-worthy or not."""
    entries_ignored: int
    """Entries the policy did not classify."""
    items_opened: int
    events_emitted: dict[str, int] = field(default_factory=dict)
    """Notifications produced per kind: ``opened``, ``updated``, ``cleared``."""
