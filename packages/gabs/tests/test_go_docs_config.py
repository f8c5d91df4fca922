"""The Go bridge 1.1.0's own configuration guide (``docs/CONFIGURATION.md``) followed with
``gabs``: the example configs and commands of the page, with the Go bridge's answers taken from
runs of both bridges side by side (the Go binary is not needed here)."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from gabs.cli import main
from gabs.lifecycle.history import TrackRecord

GAME = "g"

#: A CustomCommand game whose target is a bare name found on ``PATH`` (the guide's
#: "the target looked up on PATH"), printing the ``argv[0]`` it was given, and the guide's
#: kinds of launch input (a boolean bound to ``env``, an integer bound to ``args``).
SHOUT_ARGV0 = "echo argv0=$0; exit 3"


def _config(tmp_path: Path, script: str = SHOUT_ARGV0) -> None:
    game: dict[str, Any] = {
        "id": GAME,
        "name": "G",
        "launchMode": "CustomCommand",
        "target": "sh",
        "args": ["-c", script],
        "launchInputs": {
            "quickStart": {
                "description": "Quick",
                "type": "boolean",
                "env": {"QUICK_START": "1"},
            },
            "seed": {"description": "Seed", "type": "integer", "args": ["${value}"]},
        },
    }
    (tmp_path / "config.json").write_text(
        json.dumps({"version": "1.0", "games": {GAME: game}}), encoding="utf-8"
    )
    (tmp_path / "config.json").chmod(0o600)


def _run(args: list[str], tmp_path: Path) -> int:
    try:
        code = main([*args, "--configDir", str(tmp_path)])
    except SystemExit as exc:
        return int(exc.code or 0)
    return int(code or 0)


# "CustomCommand: your complete command ... GABS delivers argv": the Go bridge starts
# exec.Command(target, args...), so a bare target found on PATH is still the game's argv[0]
# as configured (`sh`), not the path it was found at (`/usr/bin/sh`). The command line's
# failure is the Go CLI's short line, then the output tail (which ends in its newline).
def test_a_game_that_ends_while_starting_has_the_go_clis_line_and_its_own_argv0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _config(tmp_path)
    assert _run(["games", "start", GAME, "--input", "quickStart=true"], tmp_path) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        f"exited_during_start: '{GAME}' exited during start (exit code 3); this is attributed "
        "to the workload\nargv0=sh\n\n"
    )


# "gabs games doctor <id> ... track record": the last failure names the launch inputs that
# start applied (names only), as the Go bridge's `[inputs: ...]`; a boolean given as false is
# not applied and names nothing.
def test_doctor_names_the_inputs_of_the_last_failed_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _config(tmp_path)
    _run(["games", "start", GAME, "--input", "quickStart=true", "--input", "seed=7"], tmp_path)
    capsys.readouterr()
    assert _run(["games", "doctor", GAME], tmp_path) == 0
    out = capsys.readouterr().out
    assert (
        "Track record:\n"
        '  profile "" (default): no successful starts recorded for this context '
        "(1 consecutive failures)\n"
        "      last failure: exited_during_start / game, moments ago [inputs: quickStart, seed]\n"
    ) in out
    _run(["games", "start", GAME, "--input", "quickStart=false"], tmp_path)
    capsys.readouterr()
    _run(["games", "doctor", GAME], tmp_path)
    out = capsys.readouterr().out
    assert (
        "(2 consecutive failures)\n      last failure: exited_during_start / game, moments ago\n"
        in out
    )


# The inputs of a failed stop or kill come from the launch's claim (`appliedInputNames`).
def test_a_recorded_failure_keeps_only_input_names(tmp_path: Path) -> None:
    record = TrackRecord(tmp_path)
    record.failed("", "sha256:x", "action_failed", "environment", ("mode", "seed"))
    failure = record.load()["profiles"][""]["lastFailure"]
    assert failure["inputNames"] == ["mode", "seed"]
    record.failed("", "sha256:x", "action_failed", "environment")
    assert "inputNames" not in record.load()["profiles"][""]["lastFailure"]


# A started game: the running process's argv[0] is the configured name too.
def test_a_running_game_sees_its_configured_argv0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _config(tmp_path, "echo argv0=$0; exec sleep 30")
    assert _run(["games", "start", GAME], tmp_path) == 0
    try:
        assert re.match(r"started_attachment_deferred: 'g' verified", capsys.readouterr().out)
        log = tmp_path / GAME / "launch.log"
        deadline = time.monotonic() + 5
        while "argv0=" not in log.read_text(encoding="utf-8") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert log.read_text(encoding="utf-8") == "argv0=sh\n"
    finally:
        assert _run(["games", "kill", GAME], tmp_path) == 0


# "Launch Inputs": `pattern` is "RE2 syntax (Go regexp) matched against the entire value". Each
# row is what the Go bridge answers for the pattern and the value (True: accepted).
RE2_MATCHES = [
    ("[a-z]{2}-[a-z]+-[0-9]", "us-west-1", True),  # the guide's example
    ("[a-z]{2}-[a-z]+-[0-9]", "us-west-12", False),
    (r"\d+", "٣", False),  # \d, \w, \s are ASCII in RE2
    (r"[\d]+", "٣", False),
    (r"\w+", "é", False),
    (r"\s", "\v", False),
    (r"\bab\b", "ab", True),
    ("(?i)k", "K", True),  # a flag group where RE2 allows it, not only at the start
    ("a(?i)b", "aB", True),
    ("a(?i)b", "AB", False),
    ("(a(?i)b)c", "aBC", False),
    ("(?i)é", "É", True),
    (r"\p{L}+", "é", True),  # Unicode classes
    (r"\p{Lu}", "é", False),
    (r"\PN", "a", True),
    (r"a\z", "a", True),
    ("a$", "a\n", False),  # `$` is the end of the text without (?m)
    (r"\Qa.b\E", "a.b", True),
    (r"\Qa.b\E", "axb", False),
    (r"\x{41}", "A", True),
    ("[[:alpha:]]+", "ab", True),
    ("[[:^digit:]]", "5", False),
    ("x{,3}", "x{,3}", True),  # not a repeat in RE2: a literal brace
    ("x{,3}", "xx", False),
    ("(?U)(a+)(a*)", "aaa", True),
    ("(?<n>a)", "a", True),
]


@pytest.mark.parametrize(("pattern", "value", "accepted"), RE2_MATCHES)
def test_a_pattern_means_what_it_means_in_re2(pattern: str, value: str, accepted: bool) -> None:
    from gabs.config import full_match

    assert full_match(pattern, value) is accepted


#: Patterns RE2 refuses, with the Go bridge's line for them; `(?i)k` is accepted.
RE2_REFUSALS = [
    ("(?=a)a", "invalid or unsupported Perl syntax: `(?=`"),
    ("x*+", "invalid nested repetition operator: `*+`"),
    ("a**", "invalid nested repetition operator: `**`"),
    ("a{2}+", "invalid nested repetition operator: `{2}+`"),
    (r"(a)\1", r"invalid escape sequence: `\1`"),
    (r"a\Z", r"invalid escape sequence: `\Z`"),
]


@pytest.mark.parametrize(("pattern", "detail"), RE2_REFUSALS)
def test_a_pattern_re2_refuses_is_refused_with_the_go_bridges_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], pattern: str, detail: str
) -> None:
    _config(tmp_path)
    data = json.loads((tmp_path / "config.json").read_text(encoding="utf-8"))
    data["games"][GAME]["launchInputs"]["seed"] = {
        "description": "Seed",
        "type": "string",
        "pattern": pattern,
        "args": ["${value}"],
    }
    (tmp_path / "config.json").write_text(json.dumps(data), encoding="utf-8")
    assert _run(["games", "start", GAME], tmp_path) == 1
    err = capsys.readouterr().err
    assert (
        f"  /games/{GAME}/launchInputs/seed/pattern: invalid pattern (RE2, matched against the "
        f"entire value): error parsing regexp: {detail}\n"
    ) in err


def test_a_flag_group_inside_a_pattern_leaves_the_entry_usable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _config(tmp_path)
    data = json.loads((tmp_path / "config.json").read_text(encoding="utf-8"))
    data["games"][GAME]["launchInputs"]["seed"] = {
        "description": "Seed",
        "type": "string",
        "pattern": "(?i)[a-z]+",
        "args": ["${value}"],
    }
    (tmp_path / "config.json").write_text(json.dumps(data), encoding="utf-8")
    assert _run(["games", "show", GAME], tmp_path) == 0
    assert "Warning" not in capsys.readouterr().out
    assert _run(["games", "start", GAME, "--input", "seed=ABC"], tmp_path) == 1
    assert capsys.readouterr().err.startswith("exited_during_start: ")


# "SteamAppId ... launcher-only fields (args, workingDir) still load": `games_show` of such an
# entry answers the status word's next action only, as the Go bridge's (the repair advice is
# `games_status`'s, after its diagnosis).
def test_games_show_of_a_launcher_url_entry_has_the_go_bridges_next_actions(
    tmp_path: Path,
) -> None:
    from gabs.config import GabsConfig
    from gabs.games import GameManager

    entry = {
        "id": "s",
        "name": "S",
        "launchMode": "SteamAppId",
        "target": "123456",
        "stopProcessName": "GameName.exe",
        "args": ["-x"],
        "workingDir": "/tmp",
    }
    (tmp_path / "config.json").write_text(
        json.dumps({"version": "1.0", "games": {"s": entry}}), encoding="utf-8"
    )

    async def show() -> tuple[dict[str, Any], dict[str, Any]]:
        async with GameManager(GabsConfig.load(tmp_path), liveness_interval=60) as manager:
            _, shown = await manager.show("s")
            return shown, await manager.status("s")

    shown, status = anyio.run(show)
    assert shown["nextActions"] == [
        {
            "tool": "games_start",
            "arguments": {"gameId": "s"},
            "reason": "Start the game before connecting to GABP tools.",
        }
    ]
    assert [action["tool"] for action in status["nextActions"]] == ["games_show", "games_start"]


# "Game won't start ... Try running the launch command manually first": a target that exists
# but cannot be executed is `spawn_failed`, with the Go CLI's lead-in (the OS error after it is
# the runtime's own words).
def test_a_target_that_cannot_run_is_spawn_failed_with_the_go_clis_lead_in(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "bad.bin"
    target.write_bytes(b"\x7fELFgarbage")
    target.chmod(0o755)
    entry = {"id": GAME, "name": "G", "launchMode": "DirectPath", "target": str(target)}
    (tmp_path / "config.json").write_text(
        json.dumps({"version": "1.0", "games": {GAME: entry}}), encoding="utf-8"
    )
    assert _run(["games", "start", GAME], tmp_path) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"spawn_failed: failed to start '{GAME}': ")
    assert err.count("\n") == 1
