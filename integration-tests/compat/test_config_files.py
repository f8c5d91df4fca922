"""Reading and writing ``config.json`` from the command line: what ``games add`` and ``games
remove`` leave in the file, byte for byte, and how an unusable file is reported."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from .harness import bridge_environment

#: ``games add m`` with stdin not a terminal, in a config folder that does not exist yet.
FRESH_ADD = (
    b'{\n  "version": "1.0",\n  "games": {\n    "m": {\n      "id": "m",\n      "name": "m",\n'
    b'      "launchMode": "DirectPath",\n      "target": ""\n    }\n  },\n'
    b'  "toolNormalization": {\n    "enableOpenAINormalization": true,\n'
    b'    "maxToolNameLength": 64,\n    "preserveOriginalName": true\n  },\n'
    b'  "portRanges": {}\n}'
)


def _games(
    bridge_command: list[str], tmp_path: Path, directory: Path, *arguments: str
) -> subprocess.CompletedProcess[str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return subprocess.run(
        [*bridge_command, "games", *arguments, "--configDir", str(directory)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        input="",  # a pipe: not a terminal, so nothing is asked
        env=bridge_environment(home),
    )


def test_add_and_remove_write_the_same_bytes(bridge_command: list[str], tmp_path: Path) -> None:
    directory = tmp_path / "not-yet"
    added = _games(bridge_command, tmp_path, directory, "add", "m")
    assert added.returncode == 0, added
    assert added.stdout == (
        "Game 'm' added with minimal configuration. Configure it manually or edit the config "
        "file.\n"
    )
    path = directory / "config.json"
    assert path.read_bytes() == FRESH_ADD
    if os.name == "posix":
        assert path.stat().st_mode & 0o777 == 0o600
    assert _games(bridge_command, tmp_path, directory, "add", "b").returncode == 0
    removed = _games(bridge_command, tmp_path, directory, "remove", "m")
    assert (removed.returncode, removed.stdout) == (0, "Game 'm' removed successfully.\n")
    assert path.read_bytes() == FRESH_ADD.replace(b'"m"', b'"b"')


def test_an_invalid_file_is_reported_with_its_revision(
    bridge_command: list[str], tmp_path: Path
) -> None:
    directory = tmp_path / "config"
    directory.mkdir()
    (directory / "config.json").write_bytes(b'{"version":"1.0","version":"1.0","games":{}}')
    listed = _games(bridge_command, tmp_path, directory, "list")
    assert (listed.returncode, listed.stdout) == (1, "")
    assert "failed to load games config" in listed.stderr
    assert "/version: duplicate JSON member" in listed.stderr
    doctor = _games(bridge_command, tmp_path, directory, "doctor", "a")
    assert doctor.returncode == 1
    assert doctor.stdout.startswith(
        "Configuration: invalid\n"
        "  configuration sha256:f73916c6c698 is invalid: invalid configuration:\n"
        "    /version: duplicate JSON member\n"
        "Game 'a': not found in configuration\n"
    )
