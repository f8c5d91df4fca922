r"""Fine points of the Go bridge's track record and delivery verification (GABS 1.1.0,
``design/PROGRESS.md`` M2.9 and M2.10; ``internal/process/classifier.go``,
``context_delivery.go``, ``internal/gabp/client.go``), checked against ``gabs``.

* The one-line track record (Go's ``TrackRecordLine``) names the verified deliveries,
  ``, delivery verified N\u00d7``, between the bridge connections and the clean stops, wherever it
  is shown (a failure result, ``games_show``, ``games doctor``).
"""

from __future__ import annotations

from gabs.lifecycle import summary_line


def test_the_track_record_line_names_the_verified_deliveries() -> None:
    entry = {
        "contextHash": "sha256:x",
        "workloadStarts": 3,
        "bridgeConnects": 2,
        "deliveriesVerified": 2,
        "cleanStops": 1,
        "consecutiveFailures": 1,
    }
    assert summary_line(entry) == (
        "started 3\u00d7; bridge connected 2\u00d7, delivery verified 2\u00d7, "
        "clean stops 1\u00d7; 1 consecutive failures"
    )
    assert summary_line({**entry, "deliveriesVerified": 0}) == (
        "started 3\u00d7; bridge connected 2\u00d7, clean stops 1\u00d7; 1 consecutive failures"
    )
