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

from collections.abc import Mapping
from typing import Any, Final

from gabs.go_decode import (
    BOOL,
    INT,
    STRING,
    STRING_MAP,
    STRINGS,
    TIME,
    UINT,
    GoType,
    go_type_problem,
)

__all__ = ["LIFECYCLE", "SNAPSHOT", "claim_type_problem"]

_HOOK: Final[Mapping[str, GoType]] = {
    "command": STRING,
    "args": STRINGS,
    "workingDir": STRING,
    "env": STRING_MAP,
    "unsetEnv": STRINGS,
    "timeoutSeconds": INT,
    "verifyTimeoutSeconds": INT,
    "runningExitCodes": ("list", INT),
    "stoppedExitCodes": ("list", INT),
}
LIFECYCLE: Final[Mapping[str, GoType]] = {"status": _HOOK, "stop": _HOOK, "kill": _HOOK}
SNAPSHOT: Final[Mapping[str, GoType]] = {
    "target": STRING,
    "mode": STRING,
    "args": STRINGS,
    "configEnv": STRING_MAP,
    "absentEnvNames": STRINGS,
    "workingDir": STRING,
    "lifecycle": LIFECYCLE,
}
"""Go's ``ContextSnapshot``: a launch context, as claims and the track record keep it."""
_HISTORY_SUCCESS: Final[Mapping[str, GoType]] = {
    "snapshot": SNAPSHOT,
    # Go writes this struct's fields under their own names (it has no JSON tags)
    "bucket": {
        "InputNames": STRINGS,
        "PerInputDecl": STRING_MAP,
        "DeclHash": STRING,
        "ValueDigest": STRING,
    },
}
_PENDING_CREDIT: Final[Mapping[str, GoType]] = {
    "id": STRING,
    "profile": STRING,
    "contextHash": STRING,
    "at": TIME,
}
_CLAIM: Final[Mapping[str, GoType]] = {
    "gameId": STRING,
    "status": STRING,
    "ownerPid": INT,
    "ownerInstanceId": STRING,
    "ownerLeaseUntil": TIME,
    "ownerLastActive": TIME,
    "gamePid": INT,
    "stopProcessName": STRING,
    "updatedAt": TIME,
    "schemaVersion": INT,
    "launchId": STRING,
    "generation": UINT,
    "phase": STRING,
    "spawnState": STRING,
    "source": STRING,
    "launchMode": STRING,
    "pidRole": STRING,
    "pidStartTime": INT,
    "adopted": BOOL,
    "normalizedFromLegacy": BOOL,
    "historyContextHash": STRING,
    "historySuccess": _HISTORY_SUCCESS,
    "profile": STRING,
    "appliedInputNames": STRINGS,
    "appliedLaunchInputsState": STRING,
    "configRevision": STRING,
    "lifecycle": LIFECYCLE,
    "builtinFallback": {"gracefulStrategy": STRING, "forceStrategy": STRING},
    "endpoint": {"port": INT, "token": STRING},
    "operation": {
        "operationId": STRING,
        "action": STRING,
        "executorInstanceId": STRING,
        "executorPid": INT,
        "executorPidStartTime": INT,
        "attemptStartedAt": TIME,
        "deadline": TIME,
    },
    "attachment": {
        "connectionId": STRING,
        "ownerInstanceId": STRING,
        "ownerPid": INT,
        "ownerPidStartTime": INT,
        "observedAt": TIME,
        "leaseDeadline": TIME,
    },
    "lastActionResult": {
        "action": STRING,
        "outcome": STRING,
        "exitCode": INT,
        "stderrTail": STRING,
        "detail": STRING,
        "treeKillWarning": BOOL,
        "timestamp": TIME,
    },
    "contextDigests": {
        "salt": STRING,
        "argvSha256": STRING,
        "cwdSha256": STRING,
        "managedEnvSha256": STRING_MAP,
        "contextEnvSha256": STRING_MAP,
        "absentEnvNames": STRINGS,
        "cwdUnverifiable": BOOL,
    },
    "contextDelivery": {"overall": STRING, "channels": STRING_MAP, "reasons": STRING_MAP},
    "processStartDeadline": TIME,
    "observedProfile": STRING,
    "pendingCleanStops": ("list", _PENDING_CREDIT),
    "pendingDeliveries": ("list", _PENDING_CREDIT),
}


def claim_type_problem(data: dict[str, Any]) -> str | None:
    """The first member, at any depth, whose JSON type the Go bridge could not decode, as
    ``path: problem`` (``endpoint.port: must be a 64-bit integer``); None when every known
    member has its type."""
    return go_type_problem(data, _CLAIM)
