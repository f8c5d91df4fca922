"""``gabs games doctor``: the Go bridge's lines (labels, indentation, order), pinned here.

The expected texts were taken from the Go bridge 1.1.0 run side by side on the same config;
explanatory warnings after ``!`` are worded our own way and only checked for their start.
"""

from __future__ import annotations

import json
import os
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from gabs.cli import main

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX paths and file modes")


def doctor(config_dir: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exited:
        main(["games", "doctor", *extra, "--configDir", str(config_dir)])
    out, err = capsys.readouterr()
    assert err == ""
    code = exited.value.code
    assert isinstance(code, int)
    return code, out


def write(config_dir: Path, games: dict[str, Any], mode: int = 0o600) -> None:
    config_dir.mkdir(parents=True, exist_ok=True)
    path = config_dir / "config.json"
    path.write_text(json.dumps({"version": "1.0", "games": games}), encoding="utf-8")
    os.chmod(path, mode)


@pytest.fixture(autouse=True)
def _no_steam(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("GABS_STEAM_LIBRARYFOLDERS", raising=False)


def test_a_healthy_game_reads_as_go_prints_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, {"direct": {"launchMode": "DirectPath", "target": "/bin/sh", "args": ["x"]}})
    assert doctor(tmp_path, capsys, "direct", "--show-last-good") == (
        0,
        "Game: direct\n"
        "Launch Mode: DirectPath\n"
        "Target: /bin/sh\n"
        "Configuration: valid\n"
        "default context: resolves (cwd (inherited))\n"
        "Track record: none recorded\n"
        "Last known good: none recorded\n",
    )


def test_an_unresolvable_context_lists_its_problems_indented_by_four(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, {"g": {"launchMode": "DirectPath", "target": "/nonexistent/game"}})
    code, out = doctor(tmp_path, capsys, "g")
    assert code == 1
    assert out.endswith(
        "default context: unresolvable\n"
        "    target does not exist (/games/g/target -> /nonexistent/game)\n"
        "Track record: none recorded\n"
    )


def test_every_context_is_checked_with_its_hooks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hooks = {
        "status": {"command": "/nonexistent/docker", "args": ["inspect", "x"]},
        "stop": {"command": "/bin/true", "workingDir": "/tmp"},
    }
    entry = {
        "launchMode": "DirectPath",
        "target": "/bin/sh",
        "defaultProfile": "dev",
        "profiles": {"dev": {"description": "d"}, "prod": {"workingDir": "/tmp"}},
        "lifecycle": hooks,
    }
    write(tmp_path, {"g": entry})
    code, out = doctor(tmp_path, capsys, "g")
    assert code == 1
    lines = out.splitlines()
    context_block = [
        "    status hook command does not exist "
        "(/games/g/lifecycle/status/command -> /nonexistent/docker)",
        "  status hook: /nonexistent/docker inspect x",
        "  ! status hook command not found on disk: /nonexistent/docker",
        "  stop hook: /bin/true (cwd /tmp)",
    ]
    for label in ("default context", 'profile "dev"', 'profile "prod"'):
        start = lines.index(f"{label}: unresolvable")
        assert lines[start + 1 : start + 5] == context_block
        assert lines[start + 5].startswith(f"  ! {label} status hook: ")
    assert lines.index("default context: unresolvable") < lines.index('profile "dev": unresolvable')
    assert lines[-2].startswith("  ! this game uses launch-context fields")
    assert lines[-1] == "Track record: none recorded"


def test_a_steam_url_game_says_the_bridge_environment_may_not_arrive(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, {"s": {"launchMode": "SteamAppId", "target": "294100"}})
    _, out = doctor(tmp_path, capsys, "s")
    assert out.splitlines()[4:7] == [
        "Steam launch: launcher URL mode",
        "Bridge environment: not guaranteed on the real game process",
        "Managed Steam readiness: failed (no Steam library folders found)",
    ]


def test_every_file_others_can_read_is_named_with_go_s_label(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, {"g": {"launchMode": "DirectPath", "target": "/bin/sh"}}, mode=0o644)
    game_dir = tmp_path / "g"
    game_dir.mkdir()
    for name in ("runtime.json", "launch.log", "transition.lock", "other.txt"):
        (game_dir / name).write_text("{}", encoding="utf-8")
        os.chmod(game_dir / name, 0o644)
    (game_dir / "private.json").write_text("{}", encoding="utf-8")
    os.chmod(game_dir / "private.json", 0o600)
    _, out = doctor(tmp_path, capsys, "g")
    warned = [line.split(" is broadly readable (-rw-r--r--): ") for line in out.splitlines()]
    assert [(parts[0], parts[1].split(" — ")[0]) for parts in warned if len(parts) == 2] == [
        ("  ! config file", str(tmp_path / "config.json")),
        ("  ! launch log", str(game_dir / "launch.log")),
        ("  ! runtime file", str(game_dir / "other.txt")),
        ("  ! runtime state file", str(game_dir / "runtime.json")),
        ("  ! coordination lock", str(game_dir / "transition.lock")),
    ]


def test_the_track_record_and_last_good_context_read_as_go_prints_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, {"g": {"launchMode": "DirectPath", "target": "/bin/sh", "args": ["a", "b"]}})
    moment = datetime.now(UTC).isoformat()
    record = {
        "profiles": {
            "": {
                "contextHash": "sha256:old",
                "workloadStarts": 2,
                "bridgeConnects": 1,
                "cleanStops": 1,
                "lastSuccessAt": moment,
                "lastFailure": {"outcome": "exited_during_start", "class": None, "at": moment},
                "consecutiveFailures": 1,
            }
        },
        "lastGood": {
            "": {
                "contextHash": "sha256:old",
                "entrySnapshot": {"target": "/bin/sh", "mode": "DirectPath", "args": ["a"]},
                "at": moment,
            }
        },
    }
    (tmp_path / "g").mkdir()
    (tmp_path / "g" / "track-record.json").write_text(json.dumps(record), encoding="utf-8")
    os.chmod(tmp_path / "g" / "track-record.json", 0o600)
    _, out = doctor(tmp_path, capsys, "g", "--show-last-good")
    tail = out.split("default context: resolves (cwd (inherited))\n")[1].splitlines()
    assert tail[:8] == [
        "Track record:",
        '  profile "" (default): started 2\u00d7, last moments ago; '
        "bridge connected 1\u00d7, clean stops 1\u00d7; 1 consecutive failures",
        "      last failure: exited_during_start / unclassified, moments ago",
        "Last known good:",
        '  profile "" (default) (recorded moments ago):',
        "      context hash: sha256:old",
        "      target: /bin/sh  mode: DirectPath",
        "      args: a",
    ]
    assert tail[8].startswith("      NOTE: ")


def test_repair_names_a_broken_entry_instead_of_calling_it_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, {"bad": {"launchMode": "Nonsense", "target": "/bin/true"}})
    with pytest.raises(SystemExit) as exited:
        main(["games", "repair", "bad", "--configDir", str(tmp_path)])
    out, _ = capsys.readouterr()
    assert exited.value.code == 1
    assert out.startswith(
        "Game 'bad' has an invalid entry; fix it first:\n  /games/bad/launchMode: "
    )
