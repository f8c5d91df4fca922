"""The JSON types of a runtime claim's members, as the Go bridge decodes ``runtime.json``.

The Go bridge decodes the claim into a struct, so a member of the wrong JSON type (a
``gamePid`` written as a string, an ``updatedAt`` that is no RFC 3339 time) makes the whole
claim unreadable, and an unreadable claim blocks every lifecycle step until a person looks at it
(``games repair --forget-runtime``). Reading such a member as its zero value instead would act
on a claim neither bridge wrote. ``null`` is the zero value for every member, as in Go; members
neither bridge knows are ignored.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any, Final

from gabs.config import json_kind

__all__ = ["claim_type_problem"]

_STRING: Final = frozenset(
    {
        "gameId",
        "status",
        "ownerInstanceId",
        "stopProcessName",
        "launchId",
        "phase",
        "spawnState",
        "source",
        "launchMode",
        "pidRole",
        "historyContextHash",
        "profile",
        "appliedLaunchInputsState",
        "configRevision",
        "observedProfile",
    }
)
_INT: Final = frozenset({"ownerPid", "gamePid", "schemaVersion", "pidStartTime"})
_UINT: Final = frozenset({"generation"})
_BOOL: Final = frozenset({"adopted", "normalizedFromLegacy"})
_TIME: Final = frozenset(
    {"ownerLeaseUntil", "ownerLastActive", "updatedAt", "processStartDeadline"}
)
_OBJECT: Final = frozenset(
    {
        "historySuccess",
        "lifecycle",
        "builtinFallback",
        "endpoint",
        "operation",
        "attachment",
        "lastActionResult",
        "contextDigests",
        "contextDelivery",
    }
)
_ARRAY: Final = frozenset({"appliedInputNames", "pendingCleanStops", "pendingDeliveries"})

_INT64: Final = (-(2**63), 2**63 - 1)
_UINT64: Final = (0, 2**64 - 1)
_RFC3339: Final = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:Z|[+-](\d{2}):(\d{2}))"
)


def _integer(value: Any, bounds: tuple[int, int]) -> bool:
    return (
        isinstance(value, int) and not isinstance(value, bool) and bounds[0] <= value <= bounds[1]
    )


def _rfc3339(value: str) -> bool:
    match = _RFC3339.fullmatch(value)
    if match is None:
        return False
    year, month, day, hour, minute, second = (int(part) for part in match.groups()[:6])
    try:
        datetime(year, month, day, hour, minute, second)
    except ValueError:
        return False
    offset = match.group(7)
    return offset is None or (int(offset) < 24 and int(match.group(8)) < 60)


def claim_type_problem(data: dict[str, Any]) -> str | None:
    """The first member whose JSON type the Go bridge could not decode, as ``name: problem``;
    None when every known member has its type."""
    for name in sorted(data):
        value = data[name]
        if value is None:
            continue
        problem: str | None = None
        if name in _STRING and not isinstance(value, str):
            problem = f"must be a string, not {json_kind(value)}"
        elif name in _INT and not _integer(value, _INT64):
            problem = "must be a 64-bit integer"
        elif name in _UINT and not _integer(value, _UINT64):
            problem = "must be an unsigned 64-bit integer"
        elif name in _BOOL and not isinstance(value, bool):
            problem = f"must be true or false, not {json_kind(value)}"
        elif name in _TIME and not (isinstance(value, str) and _rfc3339(value)):
            problem = "must be an RFC 3339 time"
        elif name in _OBJECT and not isinstance(value, dict):
            problem = f"must be an object, not {json_kind(value)}"
        elif name in _ARRAY and not isinstance(value, list):
            problem = f"must be an array, not {json_kind(value)}"
        elif name == "appliedInputNames" and not all(
            item is None or isinstance(item, str) for item in value
        ):
            problem = "must be an array of strings"
        if problem is not None:
            return f"{name}: {problem}"
    return None
