"""The JSON types of the track record's members, as Go's ``GameHistory`` gives them.

The track record (``track-record.json``) has the shape of the Go bridge's ``history.json``, and
is read as the Go bridge reads that file: one whose members do not decode into that shape (a
``workloadStarts`` written as a string, a ``lastFailure`` that is no object) is a corrupt record,
which counts as no record at all, as in Go. Counting on in such a file would crash on the first
sum or credit what is not there.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from gabs.go_decode import INT, STRING, STRING_MAP, STRINGS, TIME, UINT, GoType, go_type_problem
from gabs.runtime.claim_fields import SNAPSHOT

__all__ = ["record_type_problem"]

_BUCKET: Final[Mapping[str, GoType]] = {
    "inputNames": STRINGS,
    "perInputDecl": STRING_MAP,
    "declHash": STRING,
    "valueDigest": STRING,
    "count": UINT,
    "lastAt": TIME,
}
_ENTRY: Final[Mapping[str, GoType]] = {
    "contextHash": STRING,
    "workloadStarts": UINT,
    "bridgeConnects": UINT,
    "deliveriesVerified": UINT,
    "cleanStops": UINT,
    "lastSuccessAt": TIME,
    "consecutiveFailures": UINT,
    "lastFailure": {"outcome": STRING, "class": STRING, "at": TIME, "inputNames": STRINGS},
    "buckets": ("list", _BUCKET),
    "creditedLaunchIds": STRINGS,
    "creditedEvents": STRINGS,
    "creditedPendingEvents": STRINGS,
}
_RECORD: Final[Mapping[str, GoType]] = {
    "version": INT,
    "bucketKey": STRING,
    "profiles": ("map", _ENTRY),
    "lastGood": ("map", {"contextHash": STRING, "entrySnapshot": SNAPSHOT, "at": TIME}),
    "noticeShownForHash": STRING_MAP,
    "pendingEditNotice": (
        "map",
        {"newHash": STRING, "oldStarts": UINT, "oldClass": STRING},
    ),
}


def record_type_problem(data: Any) -> str | None:
    """What makes ``data`` (a decoded track record) undecodable for Go's ``GameHistory``, as
    ``path: problem``; None when it decodes."""
    return go_type_problem(data, _RECORD)
