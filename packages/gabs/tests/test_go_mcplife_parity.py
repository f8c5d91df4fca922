"""``games_status`` shows a runtime claim as the Go bridge does (its ``internal/mcp`` status
tests): a claim that never recorded when it was updated (an older Go bridge's) is shown with
Go's zero time, not with the moment of the status."""

from __future__ import annotations

import json
import os
from pathlib import Path

from gabs.mcp.call_results import call_view
from gabs_test_support import games_config, mcp_client, text

#: How the Go bridge formats a time it never recorded (Go's zero ``time.Time``, RFC 3339).
GO_ZERO_TIME = "0001-01-01T00:00:00Z"


def legacy_claim(folder: Path, game_id: str, **extra: object) -> None:
    """An older Go bridge's claim of a game that runs (this test's own process): no
    ``schemaVersion``, no ``updatedAt`` unless given."""
    folder.mkdir(parents=True, mode=0o700, exist_ok=True)
    claim = {"gameId": game_id, "status": "running", "ownerPid": 1, "gamePid": os.getpid()}
    path = folder / "runtime.json"
    path.write_text(json.dumps({**claim, **extra}), encoding="utf-8")
    path.chmod(0o600)


async def test_a_claim_without_updated_at_is_shown_with_go_s_zero_time(tmp_path: Path) -> None:
    legacy_claim(tmp_path / "g", "g")
    config = games_config(tmp_path, {"g": {"target": "/bin/true"}})
    async with mcp_client(config) as client:
        seen = await client.call_tool("games_status", {"gameId": "g"})
    runtime = call_view(seen)["diagnostics"]["runtime"]
    assert runtime["updatedAt"] == GO_ZERO_TIME, text(seen)
    # nothing to count an owner's lease from, as in Go
    assert "ownerLeaseUntil" not in runtime, runtime
    # a status reads a legacy claim as it is: the file is not rewritten
    assert "updatedAt" not in json.loads((tmp_path / "g" / "runtime.json").read_text())


async def test_a_recorded_update_is_shown_to_the_second(tmp_path: Path) -> None:
    legacy_claim(tmp_path / "g", "g", updatedAt="2026-01-02T03:04:05.123456789Z")
    config = games_config(tmp_path, {"g": {"target": "/bin/true"}})
    async with mcp_client(config) as client:
        seen = await client.call_tool("games_status", {"gameId": "g"})
    assert call_view(seen)["diagnostics"]["runtime"]["updatedAt"] == "2026-01-02T03:04:05Z"
