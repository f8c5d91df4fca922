"""The Go bridge's bookkeeping keys on the lifecycle results: ``contextDelivery`` (a launch's
delivery verdict) and a status item's ``diagnostics``, pinned as the Go bridge 1.1.0 gives
them (without the Go binary)."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

from gabs.config import GameConfig
from gabs.games_diagnostics import diagnostics_next_actions, runtime_structured, state_diagnostics
from gabs.lifecycle.delivery import (
    EXTERNAL_DELIVERY,
    connection_delivery,
    delivery_json,
)
from gabs.runtime import RuntimeState
from gabs.runtime.claim import load_claim, save_claim

#: Go's reason when the game's welcome carries no ``observed`` report.
GO_NOT_REPORTED = "the bridge reported no observed context (pre-report bridge)"


def game(env: dict[str, str] | None = None) -> GameConfig:
    return GameConfig(
        id="g", name="G", launch_mode="CustomCommand", target="/bin/true", env=env or {}
    )


def test_a_connection_without_a_report_records_unknown_channels_with_go_s_reason() -> None:
    claim = RuntimeState(
        game_id="g", status="running", context_digests={"salt": "s", "argvSha256": "a"}
    )
    assert connection_delivery(claim, {"agentId": "g"}) == {
        "overall": "unknown",
        "channels": {"argv": "unknown", "cwd": "unknown"},
        "reasons": {"argv": GO_NOT_REPORTED, "cwd": GO_NOT_REPORTED},
    }


def test_a_go_launch_is_compared_with_its_pinned_digests_and_a_legacy_one_not() -> None:
    go_claim = RuntimeState.from_json(
        {
            "gameId": "g",
            "status": "running",
            "ownerPid": 1,
            "contextDigests": {"salt": "s", "argvSha256": "a", "managedEnvSha256": {"X": "b"}},
        }
    )
    assert connection_delivery(go_claim, None)["channels"] == {
        "argv": "unknown",
        "cwd": "unknown",
        "managedEnv": "unknown",
    }
    legacy = RuntimeState(game_id="g", status="running")
    assert connection_delivery(legacy, None) == {
        "overall": "unknown",
        "reasons": {"overall": "no expected-context digests were pinned at spawn"},
    }


def test_the_verdict_is_kept_in_runtime_json_and_shown_in_go_shape(tmp_path: Path) -> None:
    pinned = {"salt": "s", "argvSha256": "a"}
    claim = RuntimeState(game_id="g", status="running", context_digests=pinned)
    assert delivery_json(claim) is None  # no connection yet
    claim.context_delivery = connection_delivery(claim, None)
    save_claim(tmp_path, claim)
    loaded = load_claim(tmp_path)
    assert loaded is not None and loaded.context_digests == pinned
    assert delivery_json(loaded) == claim.context_delivery
    external = RuntimeState(game_id="g", status="running", context_delivery=EXTERNAL_DELIVERY)
    assert delivery_json(external) == {
        "overall": "unknown",
        "reasons": {"overall": "externally started instance: GABS delivered no launch context"},
    }


def test_a_stopped_game_has_go_s_healthy_diagnostics() -> None:
    assert state_diagnostics(game(), "stopped", None, "", timedelta(seconds=35)) == {
        "code": "healthy",
        "severity": "info",
        "message": "No bridge state issue detected.",
        "processEnvironment": {"present": False, "readable": False},
        "runtime": {"present": False},
    }


def test_an_unreadable_claim_is_a_runtime_state_error() -> None:
    found = state_diagnostics(game(), "unknown", None, "corrupt", timedelta(seconds=35))
    assert (found["code"], found["severity"]) == ("runtime-state-error", "warning")
    assert found["message"] == "Could not read runtime state: corrupt"
    assert found["runtime"] == {"present": False, "error": "corrupt"}


def test_the_runtime_part_is_the_claim_with_its_resolved_status_and_lease() -> None:
    moment = datetime.now(UTC).replace(microsecond=0)
    claim = RuntimeState(
        game_id="g",
        status="running",
        owner_pid=os.getpid(),
        owner_instance_id="i",
        game_pid=os.getpid(),
        owner_last_active=moment,
        updated_at=moment,
    )
    item = runtime_structured(claim, timedelta(seconds=35))
    stamp = moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    until = (moment + timedelta(seconds=35)).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert {k: v for k, v in item.items() if k != "ownerLeaseRemainingMs"} == {
        "present": True,
        "gameId": "g",
        "status": "running",
        "ownerPid": os.getpid(),
        "ownerInstanceId": "i",
        "gamePid": os.getpid(),
        "stopProcessName": "",
        "updatedAt": stamp,
        "resolvedStatus": "running",
        "ownerLastActive": stamp,
        "ownerLeaseUntil": until,
        "ownerLeaseActive": True,
    }
    assert 0 < item["ownerLeaseRemainingMs"] <= 35000


def test_a_steam_url_game_without_a_visible_bridge_env_points_at_games_show() -> None:
    steam = GameConfig(id="s", name="S", launch_mode="SteamAppId", target="123")
    found = state_diagnostics(steam, "running", None, "", timedelta(seconds=35))
    assert found["code"] == "healthy" and len(found["warnings"]) == 1
    fallback = [{"tool": "games_connect", "arguments": {"gameId": "s"}, "reason": "r"}]
    actions = diagnostics_next_actions(steam, found, fallback)
    assert [a["tool"] for a in actions] == ["games_show", "games_connect"]


def test_a_status_text_names_the_diagnosed_issue_as_go_does() -> None:
    from gabs.mcp.lifecycle import _status_text

    item = {
        "gameId": "g",
        "name": "G",
        "statusDescription": "stale runtime state cleaned",
        "diagnostics": {
            "code": "stale-runtime-cleaned",
            "message": "Stale runtime state was removed.",
        },
    }
    assert _status_text(item) == (
        "**g** (G): stale runtime state cleaned\n\nDiagnosis: Stale runtime state was removed.\n"
    )
    assert _status_text(item, summary=True) == (
        "• **g**: stale runtime state cleaned — Stale runtime state was removed.\n"
    )
    healthy = {
        **item,
        "diagnostics": {"code": "healthy", "message": "No bridge state issue detected."},
    }
    assert _status_text(healthy) == "**g** (G): stale runtime state cleaned\n"
