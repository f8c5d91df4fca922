"""The last known good launch context, as the Go bridge 1.1.0 keeps it (``design/08``;
``internal/process/history.go``: ``GameHistory.LastGood``, ``HistoryLastGood``,
``ContextSnapshot``; ``cmd/gabs/games_doctor.go``: ``doctorLastGood``).

* The file carries Go's ``version`` (1). A verified start refreshes the profile's
  ``lastGood`` pointer, kept beside the profiles (not in the profile's entry):
  ``contextHash``, ``entrySnapshot`` (``target``, ``mode``, ``args``, ``configEnv``,
  ``absentEnvNames``, ``workingDir``, ``lifecycle``, empty ones left out) and ``at``. A start
  promoted later records it from the snapshot pinned in its claim.
* An edit of the context resets the profile's counts at its next record, but the pointer stays,
  so ``gabs games doctor ID --show-last-good`` still prints the proven context after a failed
  start of the edited one, with Go's note that the current context differs.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from gabs.cli import main
from gabs.config import GabsConfig
from gabs.launch import resolve
from gabs.lifecycle import (
    Lifecycle,
    LifecycleError,
    TrackRecord,
    context_hash,
    start_game,
    stop_game,
)
from gabs.lifecycle.history import SNAPSHOT_MAX_BYTES, last_good_snapshot
from gabs.runtime.claim import load_claim

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")

SLEEPER = "import time; time.sleep(120)"
GO_NOTE = (
    "      NOTE: the current context differs from this proven one — it was edited. Compare or "
    "restore by hand; GABS never restores automatically."
)


def write(tmp_path: Path, args: list[str]) -> GabsConfig:
    game = {
        "name": "G",
        "launchMode": "CustomCommand",
        "target": sys.executable,
        "args": args,
        "env": {"LEVEL": "3"},
    }
    document = {"timeouts": {"startup": {"processStartSeconds": 2}}, "games": {"g": game}}
    (tmp_path / "config.json").write_text(json.dumps(document), encoding="utf-8")
    (tmp_path / "config.json").chmod(0o600)
    config = GabsConfig.load(tmp_path)
    assert config.broken == {}, config.broken
    return config


def stored(config: GabsConfig) -> dict[str, Any]:
    text = (config.game_dir("g") / "track-record.json").read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


async def test_a_proven_context_stays_the_last_good_after_an_edit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write(tmp_path, ["-c", SLEEPER])
    game = config.game("g")
    proven = context_hash(game, "")
    lc = Lifecycle(config.config_dir, config.settings, cli=True)
    with anyio.fail_after(30):
        started = await start_game(lc, game, resolve(game), gabp_timeout=5)
        pinned = started.claim.extra["historySuccess"]
        await stop_game(lc, "g", "kill")
    assert pinned["snapshot"]["args"] == ["-c", SLEEPER]
    data = stored(config)
    assert data["version"] == 1
    assert "lastGood" not in data["profiles"][""]
    good = data["lastGood"][""]
    assert set(good) == {"contextHash", "entrySnapshot", "at"}
    assert good["contextHash"] == proven
    assert good["entrySnapshot"] == {
        "target": sys.executable,
        "mode": "CustomCommand",
        "args": ["-c", SLEEPER],
        "configEnv": {"LEVEL": "3"},
    }

    edited = write(tmp_path, ["-c", "raise SystemExit(3)"])
    game = edited.game("g")
    lc = Lifecycle(edited.config_dir, edited.settings, cli=True)
    with anyio.fail_after(30), pytest.raises(LifecycleError) as failed:
        await start_game(lc, game, resolve(game), gabp_timeout=5)
    assert failed.value.code == "exited_during_start"
    data = stored(edited)
    assert data["profiles"][""]["contextHash"] == context_hash(game, "")
    assert data["profiles"][""]["workloadStarts"] == 0
    assert data["lastGood"][""]["contextHash"] == proven

    with pytest.raises(SystemExit):
        main(["games", "doctor", "g", "--show-last-good", "--configDir", str(tmp_path)])
    tail = capsys.readouterr().out.split("Last known good:\n")[1].splitlines()
    assert tail[:3] == [
        '  profile "" (default) (recorded moments ago):',
        f"      context hash: {proven}",
        f"      target: {sys.executable}  mode: CustomCommand",
    ]
    assert tail[3:] == [f"      args: -c {SLEEPER}", GO_NOTE]


async def test_a_start_promoted_from_its_claim_refreshes_the_last_good(tmp_path: Path) -> None:
    config = write(tmp_path, ["-c", SLEEPER])
    game = config.game("g")
    lc = Lifecycle(config.config_dir, config.settings, cli=True)
    with anyio.fail_after(30):
        await start_game(lc, game, resolve(game), gabp_timeout=5)
    try:
        (config.game_dir("g") / "track-record.json").unlink()
        claim = load_claim(config.game_dir("g"))
        assert claim is not None
        TrackRecord(config.game_dir("g")).promoted(claim)
        good = stored(config)["lastGood"][""]
        assert good["entrySnapshot"]["args"] == ["-c", SLEEPER]
    finally:
        with anyio.fail_after(30):
            await stop_game(lc, "g", "kill")


def test_a_context_too_large_to_pin_is_not_kept(tmp_path: Path) -> None:
    small = write(tmp_path, ["-c", SLEEPER])
    assert last_good_snapshot(small.games["g"], "") is not None
    huge = write(tmp_path, ["-c", SLEEPER, "x" * SNAPSHOT_MAX_BYTES])
    # pinned in the claim, which readers refuse past 4 MiB: a larger one is left out
    assert last_good_snapshot(huge.games["g"], "") is None
