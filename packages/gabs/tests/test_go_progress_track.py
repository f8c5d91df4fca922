r"""Fine points of the Go bridge's track record and delivery verification (GABS 1.1.0,
``design/PROGRESS.md`` M2.9 and M2.10; ``internal/process/classifier.go``,
``context_delivery.go``, ``internal/gabp/client.go``), checked against ``gabs``.

* The one-line track record (Go's ``TrackRecordLine``) names the verified deliveries,
  ``, delivery verified N\u00d7``, between the bridge connections and the clean stops, wherever it
  is shown (a failure result, ``games_show``, ``games doctor``).
* The welcome's delivery report is decoded as Go's ``encoding/json`` decodes it: a null where a
  string belongs is the empty string (so a null value is a mismatch, not an unreadable report
  that leaves every channel unknown), and a member matches in any letter case.
* An unobserved start keeps its claim, and records its failure, only while the claim is still
  its launch's: a claim replaced or removed by then makes the start superseded
  (``keepClaimUnobserved``), judged by the claim there is now, and nothing is recorded.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import mcp_types as types

from gabs.config import GabsConfig
from gabs.lifecycle import TrackRecord, summary_line
from gabs.lifecycle.digests import Observed, parse_observed
from gabs_test_support import mcp_client


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


async def test_an_unobserved_start_whose_claim_went_meanwhile_is_superseded(
    tmp_path: Path,
) -> None:
    # keepClaimUnobserved: the outcome is kept (and the failure recorded) in one transition
    # fenced to the launch; a claim removed by then makes the start superseded, recording
    # nothing. The game marks that it ran; the status hook then removes the claim.
    mark = tmp_path / "ran"
    claim = tmp_path / "g" / "runtime.json"
    hook = f'if [ -f "{mark}" ]; then rm -f "{mark}" "{claim}"; fi; exit 7'
    document = {
        "version": "1.0",
        "timeouts": {"startup": {"processStartSeconds": 1}},
        "games": {
            "g": {
                "id": "g",
                "name": "G",
                "launchMode": "DirectPath",
                "target": "/bin/sh",
                "args": ["-c", f'touch "{mark}"'],
                "lifecycle": {"status": {"command": "/bin/sh", "args": ["-c", hook]}},
            }
        },
    }
    config = GabsConfig.from_json(document, config_dir=tmp_path)
    async with mcp_client(config) as client:
        with anyio.fail_after(30):
            result = await client.call_tool("games_start", {"gameId": "g", "timeout": 2})
    body = result.structured_content
    assert body is not None
    assert (body["code"], body["causeClass"]) == ("operation_in_progress", "state"), body
    text = result.content[0]
    assert isinstance(text, types.TextContent)
    assert text.text.startswith("the launch of 'g' was superseded during startup")
    assert not claim.exists()
    recorded = TrackRecord(config.game_dir("g")).load()["profiles"]
    assert "lastFailure" not in recorded.get("", {}), recorded
