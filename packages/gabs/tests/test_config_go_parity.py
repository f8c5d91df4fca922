"""Config files and command lines the Go bridge reads, run through the installed ``gabs``.

Found by running both bridges side by side on mutated config files and argument lists; each
test pins a case where ``gabs`` crashed, rewrote a file the Go bridge leaves alone, or worded
a refusal differently from the Go bridge.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gabs.runtime.claim import RuntimeState
from gabs.runtime.claim_fields import claim_type_problem

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX executable layout")

GABS = Path(sys.executable).parent / "gabs"


def gabs(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GABS_", "GABP_"))}
    env["HOME"] = str(tmp_path / "home")
    return subprocess.run(
        [str(GABS), *argv, "--configDir", str(tmp_path)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="backslashreplace",
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=60,
        check=False,
    )


def write_config(tmp_path: Path, raw: bytes) -> Path:
    path = tmp_path / "config.json"
    path.write_bytes(raw)
    os.chmod(path, 0o600)
    return path


LONE_SURROGATE = (
    b'{"version": "1.0", "games": {"a": {"id": "a", "name": "\\ud800", '
    b'"launchMode": "DirectPath", "target": "/bin/true"}}}'
)


@pytest.mark.parametrize("argv", [("games", "show", "a"), ("games", "add", "b")])
def test_a_lone_surrogate_escape_refuses_the_file_instead_of_crashing(
    tmp_path: Path, argv: tuple[str, ...]
) -> None:
    # The Go decoder reads "\ud800" alone as U+FFFD; gabs refuses the file as it refuses bytes
    # that are not UTF-8 (a value silently changed is not what the file says). It used to
    # print a traceback when the name was shown or the file written back.
    path = write_config(tmp_path, LONE_SURROGATE)

    done = gabs(tmp_path, *argv)

    assert (done.returncode, done.stdout, done.stderr) == (
        1,
        "",
        "failed to load games config: failed to parse config file: not valid Unicode: a lone "
        "surrogate escape in the string at /games/a/name\n",
    )
    assert path.read_bytes() == LONE_SURROGATE


def test_a_lone_surrogate_in_a_game_id_is_named_by_its_pointer(tmp_path: Path) -> None:
    write_config(tmp_path, b'{"version": "1.0", "games": {"x\\udc00": {}}}')

    done = gabs(tmp_path, "games", "list")

    assert done.returncode == 1
    assert done.stderr.endswith("a lone surrogate escape in the string at /games/x\\udc00\n")


def test_a_surrogate_pair_is_one_character_and_reads_fine(tmp_path: Path) -> None:
    write_config(
        tmp_path,
        b'{"version": "1.0", "games": {"a": {"id": "a", "name": "\\ud83d\\ude00 \\\\ud800", '
        b'"launchMode": "DirectPath", "target": "/bin/true"}}}',
    )

    done = gabs(tmp_path, "games", "show", "a")

    assert done.returncode == 0
    assert "  Name: \U0001f600 \\ud800\n" in done.stdout


def test_a_document_nested_too_deeply_is_refused_instead_of_crashing(tmp_path: Path) -> None:
    # The Go bridge: `failed to parse config file: exceeded max depth` (past 10000 levels).
    path = write_config(
        tmp_path, b'{"version": "1.0", "games": {}, "x": ' + b"[" * 20000 + b"]" * 20000 + b"}"
    )
    before = path.read_bytes()

    for argv in (("games", "list"), ("games", "add", "b")):
        done = gabs(tmp_path, *argv)
        assert (done.returncode, done.stdout, done.stderr) == (
            1,
            "",
            "failed to load games config: failed to parse config file: not valid JSON: nested "
            "20001 levels deep (at most 500)\n",
        )
    assert path.read_bytes() == before


def test_a_deep_but_allowed_document_still_loads(tmp_path: Path) -> None:
    write_config(
        tmp_path, b'{"version": "1.0", "games": {}, "x": ' + b"[" * 499 + b"]" * 499 + b"}"
    )

    done = gabs(tmp_path, "games", "list")

    assert (done.returncode, done.stderr) == (0, "")


@pytest.mark.parametrize(
    "raw",
    [
        b'{"version": "1.0", "games": {"a": {"id": "a", "name": "x", "name": "y"}}}',
        b'{"version": "1.0", "games": {"a": {"id": "a", "name": "x"}, "a": {"id": "a"}}}',
    ],
    ids=["member-of-an-entry", "entry-twice"],
)
def test_adding_a_game_never_rewrites_an_entry_with_a_duplicated_member(
    tmp_path: Path, raw: bytes
) -> None:
    # The Go bridge refuses the whole file (exit 1, nothing written). gabs keeps the other
    # games usable, but writing the file back would keep only the last of the two members
    # and quietly turn the broken entry into a working one.
    path = write_config(tmp_path, raw)

    done = gabs(tmp_path, "games", "add", "b")

    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.startswith(
        "failed to save games config: the file cannot be rewritten without losing a "
        "duplicated member; remove the duplicate first:\n  /games/a"
    )
    assert path.read_bytes() == raw


def test_removing_the_entry_with_the_duplicate_is_allowed(tmp_path: Path) -> None:
    write_config(
        tmp_path,
        b'{"version": "1.0", "games": {"a": {"id": "a", "name": "x", "name": "y"}, '
        b'"b": {"id": "b", "name": "b", "launchMode": "DirectPath", "target": ""}}}',
    )

    done = gabs(tmp_path, "games", "remove", "a")

    assert (done.returncode, done.stdout) == (0, "Game 'a' removed successfully.\n")
    assert gabs(tmp_path, "games", "list").stdout == "b\n"


@pytest.mark.parametrize(
    ("window", "error"),
    [
        ("-1s..1s", "min duration cannot be negative"),
        ("-1s..bad", "min duration cannot be negative"),
        ("5s..-1s", "max duration cannot be negative"),
        ("2000ms..1s", "min duration (2s) cannot be greater than max duration (1s)"),
        ("90s..1m", "min duration (1m30s) cannot be greater than max duration (1m0s)"),
        ("3us..1ns", "min duration (3\u00b5s) cannot be greater than max duration (1ns)"),
    ],
)
def test_a_bad_reconnect_backoff_is_refused_in_the_go_bridge_s_words(
    tmp_path: Path, window: str, error: str
) -> None:
    done = gabs(tmp_path, "games", "list", "--reconnectBackoff", window)

    assert (done.returncode, done.stdout, done.stderr) == (
        2,
        "",
        f"invalid --reconnectBackoff: {error}\n",
    )


def test_a_backoff_whose_ends_differ_below_a_nanosecond_is_accepted(tmp_path: Path) -> None:
    # Go's durations are whole nanoseconds: 1.0000000001s is 1s.
    done = gabs(tmp_path, "games", "list", "--reconnectBackoff", "1.0000000001s..1s")

    assert (done.returncode, done.stderr) == (0, "")


def test_a_refused_max_length_of_zero_still_bounds_the_enum_as_in_go(tmp_path: Path) -> None:
    # Go checks each enum member against the declared maxLength even when that maxLength is
    # itself refused; a maxLength of 0 used to be read as "not declared" (1024) here.
    write_config(
        tmp_path,
        b'{"version": "1.0", "games": {"a": {"id": "a", "name": "a", "launchMode": '
        b'"DirectPath", "target": "/bin/true", "launchInputs": {"s": {"type": "string", '
        b'"description": "d", "enum": ["x"], "maxLength": 0, "env": {"S": "${value}"}}}}}}',
    )

    done = gabs(tmp_path, "games", "show", "a")

    assert (done.returncode, done.stdout) == (
        1,
        "Game Configuration: a\n"
        "  Invalid entry:\n"
        "    /games/a/launchInputs/s/maxLength: maxLength must be between 1 and 65536\n"
        '    /games/a/launchInputs/s/enum/0: enum value "x" exceeds maxLength 0; every start '
        "would reject it\n",
    )


def _claimed_game(tmp_path: Path, claim: str) -> Path:
    write_config(
        tmp_path,
        b'{"version": "1.0", "games": {"a": {"id": "a", "name": "a", "launchMode": '
        b'"DirectPath", "target": "/bin/sleep", "args": ["30"]}}}',
    )
    game_dir = tmp_path / "a"
    game_dir.mkdir(mode=0o700)
    path = game_dir / "runtime.json"
    path.write_text(claim, encoding="utf-8")
    os.chmod(path, 0o600)
    return path


DEAD_CLAIM = (
    '{"schemaVersion": %s, "gameId": "a", "launchId": "L1", "status": "running", '
    '"phase": "active", "gamePid": %s, "launchMode": "DirectPath"}'
)


def _extra(members: str) -> str:
    """The dead claim with more members at its end."""
    return (DEAD_CLAIM % ("2", "999999"))[:-1] + members + "}"


@pytest.mark.parametrize(
    ("claim", "problem"),
    [
        (DEAD_CLAIM % ('"2"', "999999"), "schemaVersion: must be a 64-bit integer"),
        (DEAD_CLAIM % ("2", '"999999"'), "gamePid: must be a 64-bit integer"),
        (DEAD_CLAIM % ("2", "1.5"), "gamePid: must be a 64-bit integer"),
        (
            DEAD_CLAIM.replace('"L1"', "7") % ("2", "999999"),
            "launchId: must be a string, not a number",
        ),
        (
            DEAD_CLAIM.replace('"status"', '"updatedAt": "yesterday", "status"') % ("2", "1"),
            "updatedAt: must be an RFC 3339 time",
        ),
        # nested structs decode as strictly, and a name matches in any letter case; each of
        # these is what the Go bridge 1.1.0 refuses (run side by side)
        (_extra(', "endpoint": {"port": "5174"}'), "endpoint.port: must be a 64-bit integer"),
        (_extra(', "EndPoint": {"Port": "x"}'), "EndPoint.Port: must be a 64-bit integer"),
        (_extra(', "gamepid": "x"'), "gamepid: must be a 64-bit integer"),
        (
            _extra(', "lifecycle": {"stop": {"command": "a", "args": [1]}}'),
            "lifecycle.stop.args[0]: must be a string, not a number",
        ),
        (
            _extra(', "contextDelivery": {"channels": {"env": 1}}'),
            "contextDelivery.channels.env: must be a string, not a number",
        ),
        (
            _extra(', "pendingCleanStops": [{"id": "c", "at": "soon"}]'),
            "pendingCleanStops[0].at: must be an RFC 3339 time",
        ),
        (
            _extra(', "historySuccess": {"bucket": {"inputnames": [true]}}'),
            "historySuccess.bucket.inputnames[0]: must be a string, not a boolean",
        ),
        (
            _extra(', "lastActionResult": {"action": "stop", "exitCode": "1"}'),
            "lastActionResult.exitCode: must be a 64-bit integer",
        ),
        (_extra(', "operation": []'), "operation: must be an object, not an array"),
        # this one crashed with a traceback: the exit code was read with int()
        (
            _extra(', "lifecycle": {"status": {"command": "a", "runningExitCodes": ["x"]}}'),
            "lifecycle.status.runningExitCodes[0]: must be a 64-bit integer",
        ),
    ],
)
def test_a_claim_member_of_the_wrong_type_makes_the_claim_unreadable_as_in_go(
    tmp_path: Path, claim: str, problem: str
) -> None:
    # The Go bridge decodes runtime.json into a struct: a member of the wrong type fails the
    # decode, and the unreadable claim blocks the game. gabs read it as the zero value: a
    # status then cleaned the claim away by the pid it could read, and a stop stopped.
    path = _claimed_game(tmp_path, claim)

    status = gabs(tmp_path, "games", "status", "a")
    stop = gabs(tmp_path, "games", "stop", "a")

    why = f"{path} is corrupt: {problem}"
    assert (status.returncode, status.stdout, status.stderr) == (
        1,
        "",
        f"a: cannot read runtime claim: {why}\n",
    )
    assert (stop.returncode, stop.stdout, stop.stderr) == (
        1,
        "",
        f"blocked_unknown_state: the runtime claim for 'a' is unreadable: {why}. Use 'gabs "
        "games repair a --forget-runtime' if the game is provably gone.\n",
    )
    assert path.read_text(encoding="utf-8") == claim


FULL_CLAIM = {
    "schemaVersion": 2, "gameId": "a", "status": "running", "ownerPid": 10,
    "ownerInstanceId": "i", "ownerLeaseUntil": "2026-11-28T10:00:00Z",
    "ownerLastActive": "2026-11-28T10:00:00.5+01:00", "gamePid": 11, "stopProcessName": "a",
    "updatedAt": "2026-11-28T10:00:00Z", "launchId": "L1", "generation": 2**64 - 1,
    "phase": "active", "spawnState": "spawned", "source": "gabs", "launchMode": "DirectPath",
    "pidRole": "workload", "pidStartTime": 123, "adopted": False, "normalizedFromLegacy": True,
    "historyContextHash": "h", "profile": "p", "appliedInputNames": ["x", None],
    "appliedLaunchInputsState": "applied", "configRevision": "r",
    "historySuccess": {
        "snapshot": {"target": "/bin/a", "mode": "DirectPath", "args": ["1"],
                     "configEnv": {"A": "1"}, "absentEnvNames": ["B"], "workingDir": "/",
                     "lifecycle": {"status": {"command": "s", "timeoutSeconds": 5}}},
        "bucket": {"InputNames": ["x"], "PerInputDecl": {"x": "d"}, "DeclHash": "d",
                   "ValueDigest": "v"},
    },
    "lifecycle": {"stop": {"command": "s", "args": ["1"], "workingDir": "/", "env": {"A": "1"},
                           "unsetEnv": ["B"], "timeoutSeconds": 5, "verifyTimeoutSeconds": 2,
                           "runningExitCodes": [0], "stoppedExitCodes": [3]}},
    "builtinFallback": {"gracefulStrategy": "sigterm", "forceStrategy": "sigkill"},
    "endpoint": {"port": 5174, "token": "t"},
    "operation": {"operationId": "o", "action": "stop", "executorInstanceId": "i",
                  "executorPid": 10, "executorPidStartTime": 5,
                  "attemptStartedAt": "2026-11-28T10:00:00Z", "deadline": "2026-11-28T10:01:00Z"},
    "attachment": {"connectionId": "c", "ownerInstanceId": "i", "ownerPid": 10,
                   "ownerPidStartTime": 5, "observedAt": "2026-11-28T10:00:00Z",
                   "leaseDeadline": "2026-11-28T10:01:00Z"},
    "lastActionResult": {"action": "stop", "outcome": "stopped", "exitCode": -1,
                         "stderrTail": "", "detail": "d", "treeKillWarning": True,
                         "timestamp": "2026-11-28T10:00:00Z"},
    "contextDigests": {"salt": "s", "argvSha256": "a", "cwdSha256": "c",
                       "managedEnvSha256": {"A": "h"}, "contextEnvSha256": {"B": "h"},
                       "absentEnvNames": ["C"], "cwdUnverifiable": False},
    "contextDelivery": {"overall": "verified", "channels": {"env": "verified"},
                        "reasons": {"cwd": "r"}},
    "processStartDeadline": "2026-11-28T10:00:00Z", "observedProfile": "p",
    "pendingCleanStops": [{"id": "c", "profile": "p", "contextHash": "h",
                           "at": "2026-11-28T10:00:00Z"}],
    "pendingDeliveries": [],
    "someFutureMember": {"port": "not ours to judge"},
}  # fmt: skip


def test_every_member_of_a_go_claim_and_of_our_own_rewrite_has_its_type() -> None:
    # A claim with every member the Go bridge 1.1.0 writes, each of its type; and what gabs
    # writes back after reading it: a claim gabs wrote must never read as corrupt.
    assert claim_type_problem(FULL_CLAIM) is None
    assert claim_type_problem(RuntimeState.from_json(FULL_CLAIM).to_json()) is None


def test_null_members_of_a_claim_are_their_zero_values_as_in_go(tmp_path: Path) -> None:
    _claimed_game(
        tmp_path,
        '{"schemaVersion": 2, "gameId": "a", "launchId": "L1", "status": "running", '
        '"phase": "active", "gamePid": null, "updatedAt": null, "operation": null}',
    )

    done = gabs(tmp_path, "games", "status", "a")

    assert (done.returncode, done.stdout) == (
        0,
        "a: unknown — phase active (no workload PID recorded)\n",
    )


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_forget_runtime_removes_a_claim_that_is_no_regular_file_as_go_does(
    tmp_path: Path, kind: str
) -> None:
    # status and stop answer "not a regular file ... Use 'gabs games repair a
    # --forget-runtime'"; that command used to wait forever on a FIFO (it read it) and to
    # fail with a raw OS error on a folder. The Go bridge shows it as unreadable and removes it.
    path = _claimed_game(tmp_path, "{}")
    path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.mkdir()

    done = gabs(tmp_path, "games", "repair", "a", "--forget-runtime", "--yes")

    assert done.returncode == 0
    assert done.stdout.startswith(
        f"Runtime claim for 'a':\n  (unreadable/corrupt claim: {path} is not a regular file)\n"
    )
    assert done.stdout.endswith("Removed the runtime claim for 'a' (pending credits discarded).\n")
    assert not os.path.lexists(path)


def test_forget_runtime_names_a_folder_it_cannot_remove(tmp_path: Path) -> None:
    path = _claimed_game(tmp_path, "{}")
    path.unlink()
    path.mkdir()
    (path / "x").write_text("", encoding="utf-8")

    done = gabs(tmp_path, "games", "repair", "a", "--forget-runtime", "--yes")

    assert done.returncode == 1
    assert done.stdout.endswith("Failed to remove the runtime claim for 'a': Directory not empty\n")
    assert path.is_dir()
