"""Envelope member names: those of another message type, and those in another letter case.

GABP names, for each type of message, the members it must not carry (a request has no
``result``, ``error``, ``channel``, ``seq`` or ``payload``; a response no ``method``,
``params``, ``channel``, ``seq`` or ``payload``; an event no ``method``, ``params``,
``result`` or ``error``). A message that carries one is refused, whatever the mode: its type
and its members disagree, and no known peer sends such a message. Other unknown members are
ignored.

GABP's member names are case-sensitive, and by default a ``"Method"`` is not a ``method``: the
refusal then names the member found, so the peer sees what went wrong. A connection made with
``any_case_names`` takes such a name as Lib.GAB does (Newtonsoft matches member names in any
letter case), as long as only one member claims the name.
"""

from __future__ import annotations

from typing import Any

from gabp._wire import PROTOCOL_VERSION

__all__ = [
    "FOREIGN_MEMBERS",
    "REQUEST_MEMBERS",
    "case_hint",
    "fold_request",
    "foreign_member",
    "plain_names",
]

REQUEST_MEMBERS = ("v", "id", "method", "params")
"""The members of a request taken in another letter case (``type`` is not: Lib.GAB reads it
exactly and drops a message whose ``type`` is named otherwise)."""

_KNOWN = frozenset((*REQUEST_MEMBERS, "type"))

FOREIGN_MEMBERS: dict[str, tuple[str, ...]] = {
    "request": ("result", "error", "channel", "seq", "payload"),
    "response": ("method", "params", "channel", "seq", "payload"),
    "event": ("method", "params", "result", "error"),
}
"""For each message type, the members GABP says it must not carry."""


def foreign_member(message: dict[str, Any], kind: Any) -> str | None:
    """The first member ``message`` carries that GABP forbids for its type ``kind``."""
    for name in FOREIGN_MEMBERS.get(kind, ()) if isinstance(kind, str) else ():
        if name in message:
            return name
    return None


def case_hint(message: dict[str, Any], name: str) -> str:
    """For an error about the missing member ``name``: the member that differs from it only in
    letter case, if the message has one."""
    for key in message:
        if key != name and key.lower() == name:
            return f" (the message has {key!r}; member names are case-sensitive)"
    return ""


def plain_names(message: dict[str, Any]) -> bool:
    """True when no member name differs from an envelope member's only in letter case."""
    return all(key in _KNOWN or key.lower() not in _KNOWN for key in message)


def fold_request(message: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The request with its envelope members under their own names, and what was renamed.

    Raises ``ValueError`` when two members claim one name (``method`` and ``Method``): which
    one is meant cannot be known."""
    folded: dict[str, Any] | None = None
    taken: list[str] = []
    for name in REQUEST_MEMBERS:
        keys = [key for key in message if key.lower() == name]
        if len(keys) > 1:
            raise ValueError(
                f"members {' and '.join(map(repr, keys))} differ only in letter case; "
                f"send one {name}"
            )
        if keys and keys[0] != name:
            folded = folded if folded is not None else dict(message)
            folded[name] = folded.pop(keys[0])
            taken.append(f"{keys[0]!r} as {name!r}")
    version = (folded or message).get("v")
    if (
        isinstance(version, str)
        and version != PROTOCOL_VERSION
        and version.lower() == PROTOCOL_VERSION
    ):
        folded = folded if folded is not None else dict(message)
        folded["v"] = PROTOCOL_VERSION
        taken.append(f"v {version!r} as {PROTOCOL_VERSION!r}")
    return (folded if folded is not None else message), taken
