"""The bridge side of attention: an ordered cache per game, and the execution gate.

The cache holds the game's one open attention item as the game last described it. Events are
applied in arrival order by one consumer (the connection's read loop), and an update older than
what the cache already holds (a lower ``latestSequence`` for the same item) is dropped, so the
cache never moves backwards. While the game's attention channels are subscribed, the cache is
authoritative and the gate costs no round trip (ARCHITECTURE decision 8).

The gate decides, before a call is dispatched, whether it may reach the game:

* mode ``off``: attention is ignored entirely;
* mode ``observe``: calls always pass; open items are shown, never enforced;
* mode ``gate`` (the default): while an open item is ``blocking``, a call passes only if the
  tool is allowlisted, by its tags (``attention-bypass``, ``diagnostic``, ...) or by name in the
  game's config. Never by words found in tool names. Advisory items never block.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from gabp import MessageError
from gabp.messages import Attention, parse_payload

__all__ = [
    "ALLOW_TAGS",
    "AttentionCache",
    "AttentionMode",
    "Gate",
    "GateDecision",
]

logger = logging.getLogger("gabs.attention")

AttentionMode = Literal["off", "observe", "gate"]

ALLOW_TAGS = frozenset(
    {
        "attention-bypass",
        "diagnostic",
        "diagnostics",
        "read-only",
        "status",
        "health",
        "telemetry",
        "lifecycle",
        "observation",
    }
)
"""Tool tags that let a call through a blocking item (an explicit list, never name words)."""


@dataclass
class AttentionCache:
    """The last known attention item of one game, kept in event order."""

    item: Attention | None = None
    known: bool = False
    """True once the cache was filled (from attention/current or an event) since connecting."""
    applied: int = 0
    dropped_stale: int = 0
    behind: bool = False
    """Since the last ``attention/current`` answer an event was lost (a gap in a channel's
    ``seq``) or its payload could not be read: the item may have changed unseen, so the gate
    asks the game again before the next call (the answer clears it)."""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def reset(self) -> None:
        with self._lock:
            self.item = None
            self.known = False
            self.behind = False

    def set_current(self, item: Attention | None) -> None:
        """Fill from an ``attention/current`` answer (unless events already told more)."""
        with self._lock:
            self.behind = False  # the answer is newer than any event read before it
            if (
                item is not None
                and self.item is not None
                and item.attention_id == self.item.attention_id
                and item.latest_sequence < self.item.latest_sequence
            ):
                return  # an event already brought a newer state of the same item
            self.item = item
            self.known = True

    def apply(self, channel: str, payload: Any) -> Attention | None:
        """Apply one lifecycle event; returns the parsed item, or None if it was not applied."""
        try:
            item = parse_payload(channel, payload)
        except MessageError as exc:
            logger.warning("ignoring an invalid %s payload: %s", channel, exc)
            self.behind = True
            return None
        if not isinstance(item, Attention):
            return None
        with self._lock:
            current = self.item
            if channel == "attention/cleared" or item.state == "cleared":
                if current is not None and current.attention_id == item.attention_id:
                    self.item = None
                self.known = True
                self.applied += 1
                return item
            if (
                current is not None
                and current.attention_id == item.attention_id
                and item.latest_sequence < current.latest_sequence
            ):
                self.dropped_stale += 1
                return None
            self.item = item
            self.known = True
            self.applied += 1
            return item

    def snapshot(self) -> Attention | None:
        with self._lock:
            return self.item


@dataclass(frozen=True)
class GateDecision:
    """What the gate said about one call."""

    allowed: bool
    reason: Literal[
        "no_attention",
        "mode_off",
        "observe_only",
        "advisory",
        "allowlisted_tag",
        "allowlisted_name",
        "blocked",
        "unavailable",
        "unsupported",
    ]
    attention: Attention | None = None
    detail: str = ""


@dataclass(frozen=True)
class Gate:
    """The execution gate of one game."""

    mode: AttentionMode = "gate"
    allow: frozenset[str] = frozenset()
    fail_closed: bool = True

    @classmethod
    def from_config(cls, mode: str, allow: Iterable[str], fail_closed: bool) -> Gate:
        if mode not in ("off", "observe", "gate"):
            raise ValueError(f"attention mode must be off, observe or gate, not {mode!r}")
        return cls(mode=mode, allow=frozenset(allow), fail_closed=fail_closed)  # type: ignore[arg-type]

    def check(
        self,
        tool: str,
        tags: Iterable[str],
        *,
        supported: bool,
        attention: Attention | None,
        known: bool,
    ) -> GateDecision:
        """Decide for a call of ``tool`` (with its ``tags``) given the cached attention."""
        if self.mode == "off":
            return GateDecision(True, "mode_off")
        if not supported:
            return GateDecision(True, "unsupported")
        if not known:
            if self.mode == "gate" and self.fail_closed and not self._allowlisted(tool, tags):
                return GateDecision(
                    False, "unavailable", detail="the game's attention state could not be read"
                )
            return GateDecision(True, "observe_only" if self.mode == "observe" else "no_attention")
        if attention is None or attention.state != "open":
            return GateDecision(True, "no_attention")
        if self.mode == "observe":
            return GateDecision(True, "observe_only", attention)
        if not attention.blocking:
            return GateDecision(True, "advisory", attention)
        if tool in self.allow:
            return GateDecision(True, "allowlisted_name", attention)
        if ALLOW_TAGS.intersection(tags):
            return GateDecision(True, "allowlisted_tag", attention)
        return GateDecision(False, "blocked", attention)

    def _allowlisted(self, tool: str, tags: Iterable[str]) -> bool:
        return tool in self.allow or bool(ALLOW_TAGS.intersection(tags))

    def describe(self) -> Mapping[str, Any]:
        return {"mode": self.mode, "allow": sorted(self.allow), "failClosed": self.fail_closed}
