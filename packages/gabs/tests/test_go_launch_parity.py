"""Cases of the Go bridge's own launch tests (``internal/launch/resolver_test.go``,
``internal/lifecycle/inprocess_snapshot_test.go``) that no other test here pins: a value stays
one argument, lengths count code points, a later layer re-sets what an earlier one unset,
Windows' case-insensitive names fold to one, a launcher whose direct child ended still counts
as running by its launch's ``stopProcessName``; and (``internal/steam/readiness.go``) the macOS
Steam readiness wait names a client it cannot open and a probe helper that ends without a word
as the Go bridge does."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import gabs.games_lost_claim as lost_claim
from gabs.config import GabsConfig, GameConfig
from gabs.games_runtime import GameRuntime
from gabs.launch import ResolveError, resolve
from gabs.launch.spawn import SpawnedGame
from gabs.launch.steam_probe import Observation
from gabs.launch.steam_ready import (
    ensure_ready_within,
    run_probe_process,
    set_readiness_for_testing,
)
from gabs.lifecycle.core import Lifecycle


def game(**entry: Any) -> GameConfig:
    config = GabsConfig.from_json({"games": {"g": {"name": "G", "target": "/bin/g", **entry}}})
    assert config.broken == {}, config.broken
    return config.game("g")


ADVENTURE: dict[str, Any] = {
    "env": {"LOG_FORMAT": "json"},
    "defaultProfile": "vanilla",
    "profiles": {"vanilla": {}, "combat": {"unsetEnv": ["LOG_FORMAT"]}},
    "launchInputs": {
        "free": {"description": "d", "type": "string", "args": ["--free", "${value}"]},
        "note": {"description": "d", "type": "string", "maxLength": 5, "args": ["${value}"]},
        "logfmt": {"description": "d", "type": "string", "env": {"LOG_FORMAT": "${value}"}},
    },
}


def test_a_value_stays_one_literal_argument() -> None:
    resolved = resolve(game(**ADVENTURE), inputs={"free": "two words; $(rm -rf)"}, inherited={})
    assert resolved.args == ("--free", "two words; $(rm -rf)")


@pytest.mark.parametrize(("value", "fits"), [("ééééé", True), ("éééééé", False), ("a\x00", False)])
def test_max_length_counts_code_points_and_nul_is_refused(value: str, fits: bool) -> None:
    if fits:
        assert resolve(game(**ADVENTURE), inputs={"note": value}, inherited={}).args == (value,)
        return
    with pytest.raises(ResolveError) as caught:
        resolve(game(**ADVENTURE), inputs={"note": value}, inherited={})
    assert caught.value.code == "launch_input_invalid"


def test_a_name_unset_by_the_profile_and_set_by_an_input_is_present_not_absent() -> None:
    resolved = resolve(game(**ADVENTURE), profile="combat", inputs={"logfmt": "text"}, inherited={})
    assert resolved.env["LOG_FORMAT"] == "text"
    assert "LOG_FORMAT" not in resolved.absent_env_names
    unset = resolve(game(**ADVENTURE), profile="combat", inherited={"LOG_FORMAT": "x"})
    assert "LOG_FORMAT" not in unset.env and unset.absent_env_names == ("LOG_FORMAT",)


def test_windows_names_fold_to_one_with_the_last_writer_s_spelling(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    resolve_module = importlib.import_module(
        "gabs.launch.resolve"
    )  # the package's function hides it
    monkeypatch.setattr(resolve_module, "_CASE_INSENSITIVE", True)
    entry = {
        "env": {"FOO": "game", "MYVAR": "new"},
        "unsetEnv": ["BAR"],
        "defaultProfile": "combat",
        "profiles": {"combat": {"env": {"Foo": "profile"}, "unsetEnv": ["bar"]}},
    }
    resolved = resolve(game(**entry), inherited={"MyVar": "old", "BAR": "x"})
    assert dict(resolved.env) == {"MYVAR": "new", "Foo": "profile"}
    assert resolved.context_env_keys == ("Foo", "MYVAR")
    assert resolved.absent_env_names == ("bar",)


@pytest.fixture
def ended_launcher() -> subprocess.Popen[bytes]:
    """A direct child that has ended, as a launcher does once it started the real game."""
    launcher = subprocess.Popen([sys.executable, "-c", "pass"])
    launcher.wait(timeout=30)
    return launcher


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")
async def test_a_launcher_that_ended_still_runs_by_its_launch_s_stop_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ended_launcher: subprocess.Popen[bytes]
) -> None:
    config = GabsConfig.from_json({"games": {}}, config_dir=tmp_path)
    lc = Lifecycle(config.config_dir, config.settings)
    launcher = ended_launcher
    runtime = GameRuntime("g", None, stop_process_name="RealGame")
    runtime.spawned = SpawnedGame(launcher, (sys.executable,), tmp_path / "log", 0.0)
    running: list[str] = []
    monkeypatch.setattr(lost_claim, "find_by_name", lambda name: [4242] if name in running else [])
    assert not await lost_claim.claim_lost(lc, runtime)  # nothing runs by that name
    running.append("RealGame")
    assert await lost_claim.claim_lost(lc, runtime)
    runtime.stop_process_name = ""  # no name to find it by: it is gone as far as we can tell
    assert not await lost_claim.claim_lost(lc, runtime)


def test_a_steam_client_that_cannot_be_opened_is_named_in_go_s_words() -> None:
    def probe(app_id: str, budget: float) -> Observation:
        return {"state": "unavailable", "stage": "client_library"}

    with set_readiness_for_testing(True, probe, opener=lambda: "no open command"):
        result = ensure_ready_within("123456", 0.05, poll=0.01)
    assert (result.reason, result.detail) == (
        "probe_unavailable",
        "Steam could not be opened: no open command",
    )


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize(
    ("body", "says"),
    [
        ("import sys; sys.exit(7)", "readiness probe helper failed: exit status 7"),
        (
            "import os, signal; os.kill(os.getpid(), signal.SIGKILL)",
            "readiness probe helper failed: signal: killed",
        ),
    ],
)
def test_a_probe_helper_that_ends_silently_is_described_as_go_describes_it(
    body: str, says: str
) -> None:
    found = run_probe_process("123456", 30, [sys.executable, "-c", body])
    assert found == {"state": "unavailable", "stage": "client_library", "detail": says}
