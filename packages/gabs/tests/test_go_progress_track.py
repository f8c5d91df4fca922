r"""Fine points of the Go bridge's track record and delivery verification (GABS 1.1.0,
``design/PROGRESS.md`` M2.9 and M2.10; ``internal/process/classifier.go``,
``context_delivery.go``, ``internal/gabp/client.go``), checked against ``gabs``.

* The one-line track record (Go's ``TrackRecordLine``) names the verified deliveries,
  ``, delivery verified N\u00d7``, between the bridge connections and the clean stops, wherever it
  is shown (a failure result, ``games_show``, ``games doctor``).
* The welcome's delivery report is decoded as Go's ``encoding/json`` decodes it: a null where a
  string belongs is the empty string (so a null value is a mismatch, not an unreadable report
  that leaves every channel unknown), and a member matches in any letter case.
"""

from __future__ import annotations

from gabs.lifecycle import summary_line
from gabs.lifecycle.digests import Observed, parse_observed


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


def test_a_delivery_report_is_decoded_as_go_decodes_it() -> None:
    # parseObservedContext: json.Unmarshal into ObservedContext (a null string is "", a
    # member matches in any letter case, the last one winning); a wrong type drops it whole.
    welcome = {
        "observed": {
            "ARGV": ["game", None],
            "Cwd": None,
            "envvalues": {"A": None, "B": "b"},
            "envAbsent": ["C"],
            "EnvAbsent": [None],
        }
    }
    assert parse_observed(welcome) == Observed(
        argv=["game", ""], cwd="", env_values={"A": "", "B": "b"}, env_absent=[""]
    )
    assert parse_observed({"observed": {"argv": None, "envValues": None}}) == Observed()
    assert parse_observed({"observed": {"argv": [1]}}) is None
    assert parse_observed({"observed": {"envValues": {"A": 1}}}) is None
    assert parse_observed({"observed": {"cwd": 5}}) is None
    assert parse_observed({"observed": {"envAbsent": {}}}) is None
