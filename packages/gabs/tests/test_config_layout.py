"""What ``games add`` / ``games remove`` leave in config.json: the Go bridge's bytes.

The expected bytes were written by the Go bridge (GABS 1.1.0) for the same commands on the same
files; the only difference allowed is that keys it does not know are kept, after the known ones.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gabs.cli import run

#: ``gabs games add m`` (stdin not a terminal) in a config dir that does not exist yet.
GO_FRESH_ADD = (
    b'{\n  "version": "1.0",\n  "games": {\n    "m": {\n      "id": "m",\n      "name": "m",\n'
    b'      "launchMode": "DirectPath",\n      "target": ""\n    }\n  },\n'
    b'  "toolNormalization": {\n    "enableOpenAINormalization": true,\n'
    b'    "maxToolNameLength": 64,\n    "preserveOriginalName": true\n  },\n'
    b'  "portRanges": {}\n}'
)

#: A file with unknown keys, unsorted maps, an empty ``args``, HTML characters and zeroes.
EXISTING = {
    "version": "1.0",
    "extra": {"k": 1},
    "games": {
        "z": {
            "id": "z",
            "name": "Z",
            "launchMode": "CustomCommand",
            "target": "/bin/x<y>&",
            "foo": 2,
            "env": {"B": "1", "A": "2"},
            "args": [],
        }
    },
    "toolNormalization": {"maxToolNameLength": 0},
    "timeouts": {"startup": {}},
}

#: ``gabs games add m`` on that file (Go drops ``extra`` and ``foo``; we keep them, last).
GO_ADD_TO_EXISTING = (
    b'{\n  "version": "1.0",\n  "games": {\n    "m": {\n      "id": "m",\n      "name": "m",\n'
    b'      "launchMode": "DirectPath",\n      "target": ""\n    },\n    "z": {\n'
    b'      "id": "z",\n      "name": "Z",\n      "launchMode": "CustomCommand",\n'
    b'      "target": "/bin/x\\u003cy\\u003e\\u0026",\n      "env": {\n        "A": "2",\n'
    b'        "B": "1"\n      },\n      "foo": 2\n    }\n  },\n  "toolNormalization": {\n'
    b'    "maxToolNameLength": 64\n  },\n  "portRanges": {},\n  "timeouts": {\n'
    b'    "startup": {\n      "processStartSeconds": 10,\n      "gabpConnectSeconds": 60\n'
    b'    }\n  },\n  "extra": {\n    "k": 1\n  }\n}'
)


@pytest.fixture(autouse=True)
def _not_a_terminal(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setattr("sys.stdin.isatty", lambda: False, raising=False)


def _games(*args: str, config_dir: Path) -> int:
    return run(["games", *args, "--configDir", str(config_dir)])


def test_add_to_a_missing_config_dir_writes_the_go_bridge_bytes(tmp_path: Path) -> None:
    config_dir = tmp_path / "new"
    assert _games("add", "m", config_dir=config_dir) == 0
    assert (config_dir / "config.json").read_bytes() == GO_FRESH_ADD


def test_add_and_remove_rewrite_in_go_layout_keeping_unknown_keys(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(EXISTING, indent=4), encoding="utf-8")
    assert _games("add", "m", config_dir=tmp_path) == 0
    assert path.read_bytes() == GO_ADD_TO_EXISTING
    assert _games("remove", "m", config_dir=tmp_path) == 0
    after = path.read_bytes()
    assert not after.endswith(b"\n")
    assert b'"m"' not in after and b'"foo": 2' in after and b'"extra"' in after
    if os.name == "posix":
        assert path.stat().st_mode & 0o777 == 0o600


# -- how an unusable file is reported (the Go bridge's framing, our details) --


def test_an_invalid_file_is_reported_in_the_go_bridge_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "config.json"
    path.write_bytes(b'{"version":"1.0","version":"1.0","games":{}}')
    assert _games("list", config_dir=tmp_path) == 1
    assert capsys.readouterr().err == (
        "failed to load games config: invalid configuration:\n  /version: duplicate JSON member\n"
    )
    assert _games("doctor", "a", config_dir=tmp_path) == 1
    out = capsys.readouterr().out
    assert out.startswith(
        "Configuration: invalid\n"
        "  configuration sha256:f73916c6c698 is invalid: invalid configuration:\n"
        "    /version: duplicate JSON member\n"
        "Game 'a': not found in configuration\n"
    )


def test_a_directory_in_place_of_the_file_is_reported_as_go_reports_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "config.json").mkdir()
    assert _games("list", config_dir=tmp_path) == 1
    where = tmp_path / "config.json"
    assert capsys.readouterr().err == (
        f"failed to load games config: failed to read config file: read {where}: is a directory\n"
    )
    assert _games("doctor", "a", config_dir=tmp_path) == 1
    assert capsys.readouterr().out.startswith(
        f"Configuration: invalid\n  configuration unreadable is invalid: read {where}: "
        "is a directory\n"
    )


def test_a_byte_order_mark_is_refused_as_the_go_bridge_refuses_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "config.json").write_bytes(b'\xef\xbb\xbf{"version":"1.0","games":{}}')
    assert _games("list", config_dir=tmp_path) == 1
    assert capsys.readouterr().err.startswith(
        "failed to load games config: failed to parse config file: "
    )


def test_an_integer_the_go_bridge_cannot_hold_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the Go bridge refuses the whole file: its int has 64 bits
    (tmp_path / "config.json").write_text(
        '{"version":"1.0","games":{},'
        '"timeouts":{"startup":{"processStartSeconds":99999999999999999999}}}',
        encoding="utf-8",
    )
    assert _games("list", config_dir=tmp_path) == 1
    assert capsys.readouterr().err == (
        "failed to load games config: invalid configuration:\n"
        "  /timeouts/startup/processStartSeconds: must be an integer between "
        "-9223372036854775808 and 9223372036854775807\n"
    )


def test_a_missing_launch_mode_is_shown_as_written_and_started_as_direct_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from gabs.config import GabsConfig
    from gabs.games_views import game_structured

    (tmp_path / "config.json").write_text(
        '{"version":"1.0","games":{"a":{"id":"a","name":"A","target":"/bin/sleep"}}}',
        encoding="utf-8",
    )
    assert _games("show", "a", config_dir=tmp_path) == 0
    # the Go bridge prints the empty value (and starts the game as DirectPath)
    assert capsys.readouterr().out == (
        "Game Configuration: a\n  Name: A\n  Launch Mode: \n  Target: /bin/sleep\n"
        "  Attention Mode: gate\n"
    )
    game = GabsConfig.load(tmp_path).game("a")
    assert game.launch_mode == "DirectPath" and game.launchable
    assert game_structured(game)["launchMode"] == ""
    assert "writtenLaunchMode" not in game.to_json()


def test_a_broken_entry_is_written_back_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    broken = {"id": "b", "name": 0, "launchMode": "DirectPath", "target": "/x", "args": "x"}
    path.write_text(json.dumps({"version": "1.0", "games": {"b": broken}}), encoding="utf-8")
    assert _games("add", "a", config_dir=tmp_path) == 0
    assert json.loads(path.read_bytes())["games"]["b"] == broken


def test_doctor_prints_only_the_permission_bits_of_a_directory_in_place_of_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "config.json").mkdir(mode=0o755)
    (tmp_path / "config.json").chmod(0o755)
    assert _games("doctor", "a", config_dir=tmp_path) == 1
    # the Go bridge prints the mode's permission bits: -rwxr-xr-x, not drwxr-xr-x
    assert "config file is broadly readable (-rwxr-xr-x): " in capsys.readouterr().out


def test_games_show_text_prints_an_empty_name_as_written() -> None:
    from gabs.config import GameConfig
    from gabs.games_text import show_text

    text = show_text(GameConfig(id="a", launch_mode="CustomCommand", target="/x"), [])
    assert "  ID: a ()\n" in text  # the Go bridge prints the name as written
