"""Member names inside params in another letter case, read as Lib.GAB 1.0.3 reads them.

Lib.GAB hands the params of three methods to Newtonsoft as a class (``SessionHelloParams``
with its ``GabpClientInfo``, ``ToolsCallParams``, ``AttentionAckParams``), and Newtonsoft
matches a JSON member to a property by its exact name first, then in any ASCII letter case
(``Token``, ``NAME``, ``attentionid``; a non-ASCII look-alike such as U+0131, the dotless
i, is no match). The members are read in the order they were sent, so of two spellings the
later one wins, except that the hello's and the call's members go through Gabp.Runtime's
settings, which skip a ``null``: there an earlier non-null value stays. ``attention/ack`` is
read with Newtonsoft's plain defaults, so a later ``null`` does replace it.

Everything else Lib.GAB reads by exact name (``parameters`` of tools/call, ``channels`` of
the event methods): those stay as they came. Used with ``ProtocolOptions.param_names``
``"any_case"``; the default (``"exact"``) reads only the names GABP gives.
"""

from __future__ import annotations

import logging
from typing import Any

__all__ = ["fold_params"]

logger = logging.getLogger("lib_gab.server")

_FOLDED: dict[str, tuple[tuple[str, ...], bool]] = {
    # method: (the members taken in any case, whether a null is skipped)
    "session/hello": (("token", "bridgeVersion", "platform", "launchId", "clientInfo"), True),
    "tools/call": (("name", "arguments"), True),
    "attention/ack": (("attentionId",), False),
}
_CLIENT_INFO = ("name", "version")


def _fold(params: dict[str, Any], names: tuple[str, ...], skip_null: bool) -> dict[str, Any]:
    lowered = {name.lower(): name for name in names}
    if all(key in names or not key.isascii() or key.lower() not in lowered for key in params):
        return params  # nothing to rename: the common case, untouched
    folded: dict[str, Any] = {}
    for key, value in params.items():
        name = lowered.get(key.lower()) if key.isascii() else None
        if name is None:
            folded[key] = value
            continue
        if key != name:
            logger.warning("params member %r taken as %r (Lib.GAB reads it so)", key, name)
        if value is None and skip_null and name in folded:
            continue
        folded[name] = value
    return folded


def fold_params(method: str, params: dict[str, Any]) -> dict[str, Any]:
    """``params`` of ``method`` with the members Lib.GAB matches in any letter case under
    their GABP names (``params`` itself when nothing differs)."""
    entry = _FOLDED.get(method)
    if entry is None:
        return params
    folded = _fold(params, *entry)
    info = folded.get("clientInfo") if method == "session/hello" else None
    if isinstance(info, dict):
        client = _fold(info, _CLIENT_INFO, True)
        if client is not info:
            folded = {**folded, "clientInfo": client}
    return folded
