"""The JSON types of a runtime claim's members, as the Go bridge decodes ``runtime.json``.

The Go bridge decodes the claim into a struct, nested structs included, so a member of the
wrong JSON type at any depth (a ``gamePid`` written as a string, an ``endpoint.port`` that is
no number, an ``updatedAt`` that is no RFC 3339 time) makes the whole claim unreadable, and an
unreadable claim blocks every lifecycle step until a person looks at it (``games repair
--forget-runtime``). Reading such a member as its zero value instead would act on a claim
neither bridge wrote. ``null`` is the zero value for every member, as in Go; members neither
bridge knows are ignored. A member name matches a field as Go's decoder matches it: exactly, or
else in another letter case.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Final, TypeAlias

from gabs.config import json_kind

__all__ = ["claim_type_problem"]

# A Go type: a scalar's name, ("list", item) for a slice, ("map", value) for a map with string
# keys, or a mapping of JSON member names to types for a struct.
GoType: TypeAlias = "str | tuple[str, GoType] | Mapping[str, GoType]"

_S: Final = "string"
_I: Final = "int64"
_U: Final = "uint64"
_B: Final = "bool"
_T: Final = "time"
_STRINGS: Final = ("list", _S)
_STRING_MAP: Final = ("map", _S)

_HOOK: Final[Mapping[str, GoType]] = {
    "command": _S,
    "args": _STRINGS,
    "workingDir": _S,
    "env": _STRING_MAP,
    "unsetEnv": _STRINGS,
    "timeoutSeconds": _I,
    "verifyTimeoutSeconds": _I,
    "runningExitCodes": ("list", _I),
    "stoppedExitCodes": ("list", _I),
}
_LIFECYCLE: Final[Mapping[str, GoType]] = {"status": _HOOK, "stop": _HOOK, "kill": _HOOK}
_HISTORY_SUCCESS: Final[Mapping[str, GoType]] = {
    "snapshot": {
        "target": _S,
        "mode": _S,
        "args": _STRINGS,
        "configEnv": _STRING_MAP,
        "absentEnvNames": _STRINGS,
        "workingDir": _S,
        "lifecycle": _LIFECYCLE,
    },
    # Go writes this struct's fields under their own names (it has no JSON tags)
    "bucket": {
        "InputNames": _STRINGS,
        "PerInputDecl": _STRING_MAP,
        "DeclHash": _S,
        "ValueDigest": _S,
    },
}
_PENDING_CREDIT: Final[Mapping[str, GoType]] = {
    "id": _S,
    "profile": _S,
    "contextHash": _S,
    "at": _T,
}
_CLAIM: Final[Mapping[str, GoType]] = {
    "gameId": _S,
    "status": _S,
    "ownerPid": _I,
    "ownerInstanceId": _S,
    "ownerLeaseUntil": _T,
    "ownerLastActive": _T,
    "gamePid": _I,
    "stopProcessName": _S,
    "updatedAt": _T,
    "schemaVersion": _I,
    "launchId": _S,
    "generation": _U,
    "phase": _S,
    "spawnState": _S,
    "source": _S,
    "launchMode": _S,
    "pidRole": _S,
    "pidStartTime": _I,
    "adopted": _B,
    "normalizedFromLegacy": _B,
    "historyContextHash": _S,
    "historySuccess": _HISTORY_SUCCESS,
    "profile": _S,
    "appliedInputNames": _STRINGS,
    "appliedLaunchInputsState": _S,
    "configRevision": _S,
    "lifecycle": _LIFECYCLE,
    "builtinFallback": {"gracefulStrategy": _S, "forceStrategy": _S},
    "endpoint": {"port": _I, "token": _S},
    "operation": {
        "operationId": _S,
        "action": _S,
        "executorInstanceId": _S,
        "executorPid": _I,
        "executorPidStartTime": _I,
        "attemptStartedAt": _T,
        "deadline": _T,
    },
    "attachment": {
        "connectionId": _S,
        "ownerInstanceId": _S,
        "ownerPid": _I,
        "ownerPidStartTime": _I,
        "observedAt": _T,
        "leaseDeadline": _T,
    },
    "lastActionResult": {
        "action": _S,
        "outcome": _S,
        "exitCode": _I,
        "stderrTail": _S,
        "detail": _S,
        "treeKillWarning": _B,
        "timestamp": _T,
    },
    "contextDigests": {
        "salt": _S,
        "argvSha256": _S,
        "cwdSha256": _S,
        "managedEnvSha256": _STRING_MAP,
        "contextEnvSha256": _STRING_MAP,
        "absentEnvNames": _STRINGS,
        "cwdUnverifiable": _B,
    },
    "contextDelivery": {"overall": _S, "channels": _STRING_MAP, "reasons": _STRING_MAP},
    "processStartDeadline": _T,
    "observedProfile": _S,
    "pendingCleanStops": ("list", _PENDING_CREDIT),
    "pendingDeliveries": ("list", _PENDING_CREDIT),
}

_BOUNDS: Final = {_I: (-(2**63), 2**63 - 1), _U: (0, 2**64 - 1)}
_SCALAR_PROBLEMS: Final = {
    _S: "must be a string",
    _I: "must be a 64-bit integer",
    _U: "must be an unsigned 64-bit integer",
    _B: "must be true or false",
    _T: "must be an RFC 3339 time",
}
_RFC3339: Final = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:Z|[+-](\d{2}):(\d{2}))"
)


def _fold(name: str) -> str:
    # Go's decoder folds case as Unicode's simple folding does: the long s and the Kelvin sign
    # fold to s and k (``lower`` already handles the Kelvin sign); nothing folds to two letters.
    return name.lower().replace("\u017f", "s")


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


def _scalar_fits(value: Any, kind: str) -> bool:
    if kind == _S:
        return isinstance(value, str)
    if kind == _B:
        return isinstance(value, bool)
    if kind == _T:
        return isinstance(value, str) and _rfc3339(value)
    low, high = _BOUNDS[kind]
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _field(fields: Mapping[str, GoType], name: str) -> GoType | None:
    exact = fields.get(name)
    if exact is not None:
        return exact
    folded = _fold(name)
    for field, kind in fields.items():
        if _fold(field) == folded:
            return kind
    return None


def _problem(value: Any, kind: GoType, where: str) -> str | None:
    if value is None:
        return None
    if isinstance(kind, str):
        if _scalar_fits(value, kind):
            return None
        said = _SCALAR_PROBLEMS[kind]
        return f"{where}: {said}" + (f", not {json_kind(value)}" if kind in (_S, _B) else "")
    if isinstance(kind, tuple):
        container, item = kind
        if container == "list":
            if not isinstance(value, list):
                return f"{where}: must be an array, not {json_kind(value)}"
            for index, element in enumerate(value):
                found = _problem(element, item, f"{where}[{index}]")
                if found is not None:
                    return found
            return None
        if not isinstance(value, dict):
            return f"{where}: must be an object, not {json_kind(value)}"
        for key in sorted(value):
            found = _problem(value[key], item, f"{where}.{key}")
            if found is not None:
                return found
        return None
    if not isinstance(value, dict):
        return f"{where}: must be an object, not {json_kind(value)}"
    return _members(value, kind, f"{where}.")


def _members(data: dict[str, Any], fields: Mapping[str, GoType], prefix: str) -> str | None:
    for name in sorted(data):
        kind = _field(fields, name)
        if kind is None:
            continue
        found = _problem(data[name], kind, prefix + name)
        if found is not None:
            return found
    return None


def claim_type_problem(data: dict[str, Any]) -> str | None:
    """The first member, at any depth, whose JSON type the Go bridge could not decode, as
    ``path: problem`` (``endpoint.port: must be a 64-bit integer``); None when every known
    member has its type."""
    return _members(data, _CLAIM, "")
