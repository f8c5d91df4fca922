"""The edit notice, as the Go bridge's ``EditNotice`` (GABS 1.1.0, ``internal/process/history.go``;
its tests ``TestEditNoticeFiresOncePerEdit`` and ``TestEditNoticeDoesNotFireForAdditiveEdit`` in
``internal/mcp/track_record_mcp_test.go``).

A start's failure or refusal in a launch context that replaced one which had started and whose
last failure was not the config's carries ``editNotice``, once per edit: the edit may have been
a "fix" of a setup that was never broken. The notice survives the entry's replacement (a
failure recorded in the new context arms it before the result is rendered).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gabs.config import GabsConfig
from gabs.lifecycle import TrackRecord, context_hash
from gabs.lifecycle.edit_notice import notice_text
from gabs.lifecycle.history import last_good_snapshot
from gabs_test_support import data, games_config
from gabs_test_support import mcp_client as client_for

MISSING = "/nonexistent/gabs-edit-notice/game"

NOTICE_4 = (
    "configuration changed after a environment-class failure; the previous context had 4 "
    "successful starts \u2014 verify this edit was intended"
)


def proven_then_failed(config: GabsConfig, game_id: str, profile: str, cause: str) -> str:
    """Four verified starts of ``profile``'s context, then one failure of class ``cause``."""
    game = config.games[game_id]
    digest = context_hash(game, profile)
    record = TrackRecord(config.game_dir(game_id))
    for launch in range(4):
        record.started(last_good_snapshot(game, profile), profile, digest, f"launch-{launch}")
    record.failed(profile, digest, "spawn_failed", cause)
    return digest


def test_the_notice_text_is_the_go_bridges() -> None:
    assert notice_text("environment", 4) == NOTICE_4


def test_an_edit_after_a_non_config_failure_is_noticed_once(tmp_path: Path) -> None:
    before = games_config(tmp_path, {"adv": {"target": "/opt/game", "args": ["-v1"]}})
    proven_then_failed(before, "adv", "", "environment")
    after = games_config(tmp_path, {"adv": {"target": "/opt/game", "args": ["-v2"]}})
    edited = context_hash(after.games["adv"], "")
    record = TrackRecord(after.game_dir("adv"))
    assert record.edit_notice("", edited) == NOTICE_4
    assert record.edit_notice("", edited) == ""
    shown = json.loads(record.path.read_text(encoding="utf-8"))["noticeShownForHash"]
    assert shown == {"": edited}


def test_an_unchanged_context_is_not_noticed(tmp_path: Path) -> None:
    # Adding a profile leaves the other profiles' contexts, so their hashes, as they were.
    config = games_config(
        tmp_path,
        {
            "adv": {
                "target": "/opt/game",
                "defaultProfile": "a",
                "profiles": {"a": {"args": ["-a"]}},
            }
        },
    )
    digest = proven_then_failed(config, "adv", "a", "environment")
    assert TrackRecord(config.game_dir("adv")).edit_notice("a", digest) == ""


def test_no_notice_after_a_config_failure_or_for_a_context_that_never_started(
    tmp_path: Path,
) -> None:
    config = games_config(tmp_path, {"cfg": {"target": "/opt/game"}, "new": {"target": "/x"}})
    proven_then_failed(config, "cfg", "", "config")
    record = TrackRecord(config.game_dir("new"))
    record.failed("", context_hash(config.games["new"], ""), "spawn_failed", "environment")
    assert TrackRecord(config.game_dir("cfg")).edit_notice("", "sha256:edited") == ""
    assert record.edit_notice("", "sha256:edited") == ""


def test_the_notice_survives_the_replacement_of_the_entry(tmp_path: Path) -> None:
    config = games_config(tmp_path, {"adv": {"target": "/opt/game"}})
    proven_then_failed(config, "adv", "", "game")
    record = TrackRecord(config.game_dir("adv"))
    record.failed("", "sha256:edited", "exited_during_start", "game")  # the new context's
    stored: dict[str, Any] = json.loads(record.path.read_text(encoding="utf-8"))
    assert stored["pendingEditNotice"] == {
        "": {"newHash": "sha256:edited", "oldStarts": 4, "oldClass": "game"}
    }
    assert stored["profiles"][""]["contextHash"] == "sha256:edited"
    assert record.edit_notice("", "sha256:other") == ""  # armed for another edit
    assert record.edit_notice("", "sha256:edited") == NOTICE_4.replace("environment", "game")
    stored = json.loads(record.path.read_text(encoding="utf-8"))
    assert "pendingEditNotice" not in stored
    assert record.edit_notice("", "sha256:edited") == ""
    # A later edit of that context is noticed again.
    record.started(None, "", "sha256:edited", "launch-9")
    record.failed("", "sha256:edited", "unobserved", "environment")
    record.failed("", "sha256:again", "unobserved", "environment")
    assert record.edit_notice("", "sha256:again") != ""


async def test_a_failed_start_of_an_edited_entry_carries_the_notice_once(tmp_path: Path) -> None:
    before = games_config(tmp_path, {"adv": {"target": "/bin/false", "args": ["-v1"]}})
    proven_then_failed(before, "adv", "", "environment")
    after = games_config(tmp_path, {"adv": {"target": "/bin/false", "args": ["-v2"]}})
    async with client_for(after) as client:
        first = data(await client.call_tool("games_start", {"gameId": "adv", "timeout": 2}))
        again = data(await client.call_tool("games_start", {"gameId": "adv", "timeout": 2}))
    assert first["code"] == again["code"] == "exited_during_start"
    assert first["editNotice"] == NOTICE_4
    assert (
        first["trackRecord"]
        == "no successful starts recorded for this context (1 consecutive failures)"
    )
    assert "editNotice" not in again


async def test_an_unresolvable_start_renders_the_requested_profile(tmp_path: Path) -> None:
    # Go renders launch_spec_unresolvable from the requested context (its profile's record
    # and notice), not the default profile's.
    entry = {"target": MISSING, "defaultProfile": "a", "profiles": {"a": {}, "b": {"args": ["-b"]}}}
    config = games_config(tmp_path, {"adv": entry})
    proven_then_failed(config, "adv", "b", "environment")
    edited = {**entry, "profiles": {"a": {}, "b": {"args": ["-b2"]}}}
    proven_then_failed(config, "adv", "a", "environment")
    after = games_config(tmp_path, {"adv": edited})
    async with client_for(after) as client:
        kept = data(
            await client.call_tool("games_start", {"gameId": "adv", "profile": "a", "timeout": 1})
        )
        changed = data(
            await client.call_tool("games_start", {"gameId": "adv", "profile": "b", "timeout": 1})
        )
    assert kept["code"] == changed["code"] == "launch_spec_unresolvable"
    assert kept["trackRecord"].startswith("started 4\u00d7")
    assert "editNotice" not in kept
    assert changed["trackRecord"] == "no successful starts recorded for this context"
    assert changed["editNotice"] == NOTICE_4
