"""The Go bridge 1.1.0's configuration tests (``internal/config/*_test.go``) where ``gabs``
answered differently: launch-input patterns, exit-code sets, the Windows hook and environment
rules, and the privacy of a game's runtime folder. The Go bridge's answers were taken from runs
of both bridges side by side (the Go binary is not needed here)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

import gabs.config._rules as rules
from gabs.cli import main
from gabs.config import GabsConfig, LooseGameDir, ensure_game_dir
from gabs.runtime.claim import RuntimeState, save_claim
from gabs.runtime.endpoint import EndpointError, prepare_endpoint
from gabs.runtime.publish import publish_claim

GAME = "g"


def _problems(tmp_path: Path, entry: dict[str, Any]) -> list[str]:
    """The problem lines of a config holding ``entry``, as the Go bridge lists them."""
    game = {"id": GAME, "name": "G", "launchMode": "DirectPath", "target": "/x", **entry}
    (tmp_path / "config.json").write_text(
        json.dumps({"version": "1.0", "games": {GAME: game}}), encoding="utf-8"
    )
    config = GabsConfig.load(tmp_path)
    return [f"{issue.path}: {issue.message}" for issue in config.problems]


def _pattern_input(pattern: str, enum: list[str] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "description": "d",
        "type": "string",
        "pattern": pattern,
        "args": ["${value}"],
    }
    if enum is not None:
        spec["enum"] = enum
    return {"launchInputs": {"x": spec}}


# TestStringConstraints, TestEnumMembersValidatedAgainstConstraints: the Go bridge compiles
# `^(?:<pattern>)$` with Go's regexp and checks every enum member against it. Each row is a
# pattern the Go bridge accepts, a value, and whether the value matches.
GO_MATCHES = [
    ("(?:a|b)c", "bc", True),  # a non-capturing group
    ("(?:a|b)c", "c", False),
    ("(?)a", "a", True),  # an empty flag group
    ("(?i-i)a", "a", True),  # a flag set and cleared
    ("(?i-i)a", "A", False),
    ("^*a", "a", True),  # a repeated assertion
    ("a(?i)*", "aaa", True),  # a flag group is no operand: the star repeats `a`
    ("a)b(", "ab", True),  # closes and reopens the group the Go bridge wraps it in
    ("(?P<1a>x)", "x", True),  # group names of ASCII letters, digits and `_`
    ("(?P<n>a)(?P<n>b)", "ab", True),  # a name used twice
    (r"\12", "\n", True),  # an octal escape
    (r"\x41\101", "AA", True),
    ("x(?i)a|b", "B", True),  # a flag holds after `|`, which still splits the group
    ("x(?i)a|b", "xA", True),
    ("](?m)\\pL|(?i)", "", True),
    ("x{01}", "x{01}", True),  # not a repeat: a count has no leading zero
    ("(?s).", "\n", True),
    (".", "\n", False),
]


@pytest.mark.parametrize(("pattern", "value", "matches"), GO_MATCHES)
def test_a_pattern_the_go_bridge_accepts_matches_what_it_matches_there(
    tmp_path: Path, pattern: str, value: str, matches: bool
) -> None:
    problem = (
        f"/games/{GAME}/launchInputs/x/enum/0: enum value {json.dumps(value)} does not match "
        "the declared pattern; every start would reject it"
    )
    assert _problems(tmp_path, _pattern_input(pattern, [value])) == ([] if matches else [problem])


#: Patterns the Go bridge refuses, with the text of its refusal after `error parsing regexp: `
#: (the text it quotes is taken from `^(?:<pattern>)$`, the expression it compiles).
GO_REFUSALS = [
    ("([", "missing closing ]: `[)$`"),
    ("[^]", "missing closing ]: `[^])$`"),
    ("(abc", "missing closing ): `^(?:(abc)$`"),
    ("abc)", "unexpected ): `^(?:abc))$`"),
    ("a\\", "missing closing ): `^(?:a\\)$`"),
    ("\\Q(abc", "missing closing ): `^(?:\\Q(abc)$`"),
    ("*a", "missing argument to repetition operator: `*`"),
    ("a|*", "missing argument to repetition operator: `*`"),
    ("a**?", "invalid nested repetition operator: `**?`"),
    ("a{1001}", "invalid repeat count: `{1001}`"),
    ("x{2,1}?", "invalid repeat count: `{2,1}`"),
    ("[z-a]", "invalid character class range: `z-a`"),
    ("[[:foo:]]", "invalid character class range: `[:foo:]`"),
    ("(?<=a)b", "invalid named capture: `(?<=a)b)$`"),
    ("(?P<é>a)", "invalid named capture: `(?P<é>`"),
    ("(?P=n)", "invalid or unsupported Perl syntax: `(?P`"),
    ("(?i-)a", "invalid or unsupported Perl syntax: `(?i-)`"),
    ("\\xZZ", "invalid escape sequence: `\\xZZ`"),
    ("a\\C", "invalid escape sequence: `\\C`"),
    ("\\e", "invalid escape sequence: `\\e`"),
    ("\\8", "invalid escape sequence: `\\8`"),
    ("[a-\\d]", "invalid escape sequence: `\\d`"),
]


@pytest.mark.parametrize(("pattern", "detail"), GO_REFUSALS)
def test_a_pattern_the_go_bridge_refuses_is_refused_with_its_words(
    tmp_path: Path, pattern: str, detail: str
) -> None:
    assert _problems(tmp_path, _pattern_input(pattern)) == [
        f"/games/{GAME}/launchInputs/x/pattern: invalid pattern (RE2, matched against the "
        f"entire value): error parsing regexp: {detail}"
    ]


def test_a_refusal_re2_makes_is_reported_before_a_script_re_cannot_express(
    tmp_path: Path,
) -> None:
    assert _problems(tmp_path, _pattern_input("\\p{Greek}[z-a]")) == [
        f"/games/{GAME}/launchInputs/x/pattern: invalid pattern (RE2, matched against the "
        "entire value): error parsing regexp: invalid character class range: `z-a`"
    ]


# TestHookValidation: every repetition in an exit-code set is a problem of its own.
def test_each_repeated_exit_code_is_reported(tmp_path: Path) -> None:
    status = {"command": "c", "runningExitCodes": [1, 1, 1, 2, 2], "stoppedExitCodes": [3, 3]}
    hook = f"/games/{GAME}/lifecycle/status"
    assert _problems(tmp_path, {"lifecycle": {"status": status}}) == [
        f"{hook}/runningExitCodes: duplicate exit code 1",
        f"{hook}/runningExitCodes: duplicate exit code 1",
        f"{hook}/runningExitCodes: duplicate exit code 2",
        f"{hook}/stoppedExitCodes: duplicate exit code 3",
    ]


# TestWindowsScriptHooksRejected: on Windows a script is not run as a hook's command.
def test_a_script_hook_on_windows_is_refused_with_the_go_bridges_advice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rules, "_HOOK_RULES_OS", "nt")
    assert _problems(tmp_path, {"lifecycle": {"status": {"command": "C:\\tools\\status.bat"}}}) == [
        f"/games/{GAME}/lifecycle/status/command: script hooks are not run directly on Windows; "
        "set command to the interpreter (e.g. cmd.exe) and pass the script via args "
        "(e.g. /c, script path)"
    ]
    interpreter = {"command": "cmd.exe", "args": ["/c", "C:\\tools\\status.bat"]}
    assert _problems(tmp_path, {"lifecycle": {"status": interpreter}}) == []
    monkeypatch.setattr(rules, "_HOOK_RULES_OS", "posix")
    assert (
        _problems(tmp_path, {"lifecycle": {"status": {"command": "C:\\tools\\status.bat"}}}) == []
    )


# TestEnvCaseFoldCollision, TestUnsetEnvDuplicates: where names fold (Windows), two spellings
# of one name in `unsetEnv` collide, and the same spelling twice is a duplicate.
def test_unset_env_names_that_fold_together_are_named_as_a_collision(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rules, "_CASE_INSENSITIVE_ENV", True)
    assert _problems(tmp_path, {"unsetEnv": ["Foo", "FOO", "Foo"]}) == [
        f'/games/{GAME}/unsetEnv/1: unsetEnv entries "Foo" and "FOO" collide after case folding',
        f'/games/{GAME}/unsetEnv/2: duplicate unsetEnv entry "Foo"',
    ]


# EnsureGameDir (exercised by TestConfigPathsDirectoryOperations and every bridge.json test):
# the folder holds per-launch credentials, so one that others may read is made private
# before the endpoint is written, and one that cannot be made private is not written to.
@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_preparing_the_endpoint_makes_a_loose_game_folder_private(tmp_path: Path) -> None:
    folder = tmp_path / GAME
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    prepare_endpoint(folder, GAME)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


@pytest.fixture
def unchangeable_mode(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A loose game folder whose mode cannot be changed (one owned by another user)."""
    folder = tmp_path / GAME
    folder.mkdir()
    folder.chmod(0o755)

    def refuse(path: Any, mode: int, **_: Any) -> None:
        raise PermissionError(1, "Operation not permitted", str(path))

    monkeypatch.setattr(os, "chmod", refuse)
    return folder


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_a_game_folder_that_cannot_be_made_private_is_not_written_to(
    unchangeable_mode: Path,
) -> None:
    folder = unchangeable_mode
    words = (
        f"game dir {folder} has loose permissions (-rwxr-xr-x) that cannot be tightened: "
        f"chmod {folder}: operation not permitted"
    )
    with pytest.raises(LooseGameDir) as refused:
        ensure_game_dir(folder)
    assert str(refused.value) == words
    with pytest.raises(EndpointError) as endpoint:
        prepare_endpoint(folder, GAME)
    assert str(endpoint.value) == words
    state = RuntimeState(game_id=GAME)
    with pytest.raises(LooseGameDir):
        publish_claim(folder, state)
    with pytest.raises(LooseGameDir):
        save_claim(folder, state)
    assert sorted(path.name for path in folder.iterdir()) == []


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_a_start_in_a_folder_that_cannot_be_made_private_is_the_go_bridges_refusal(
    unchangeable_mode: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = unchangeable_mode
    game = {"id": GAME, "name": "G", "launchMode": "DirectPath", "target": "/bin/sleep"}
    (tmp_path / "config.json").write_text(
        json.dumps({"version": "1.0", "games": {GAME: game}}), encoding="utf-8"
    )
    with pytest.raises(SystemExit) as exited:
        main(["games", "start", GAME, "--configDir", str(tmp_path)])
    assert exited.value.code == 1
    assert capsys.readouterr().err == (
        f"blocked_unknown_state: failed to start '{GAME}': failed to create game config dir: "
        f"game dir {folder} has loose permissions (-rwxr-xr-x) that cannot be tightened: "
        f"chmod {folder}: operation not permitted\n"
    )
    assert not (folder / "runtime.json").exists()
