"""gabs.launch: resolution of profiles and inputs, environments, Steam libraries, static
checks, hooks and spawning, with real files and real processes."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import textwrap
from pathlib import Path
from typing import Any

import anyio
import pytest

from gabs.config import GabsConfig, GameConfig
from gabs.launch import (
    ResolveError,
    check_resolvable,
    classify_status,
    game_environment,
    hook_environment,
    resolve,
    run_action_hook,
    run_hook,
    run_status_hook,
    spawn,
)
from gabs.launch.resolve import ResolvedHook, profile_lifecycles
from gabs.launch.steam import SteamError, ensure_appid_file, parse_vdf, resolve_app

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes and modes")


def game(**entry: Any) -> GameConfig:
    config = GabsConfig.from_json({"games": {"g": {"name": "G", "target": "/bin/g", **entry}}})
    assert config.broken == {}, config.broken
    return config.game("g")


PROFILED = {
    "args": ["--base"],
    "env": {"BASE": "1", "SHARED": "game"},
    "unsetEnv": ["DROP_ME"],
    "defaultProfile": "dev",
    "profiles": {
        "dev": {"args": ["--dev"], "env": {"SHARED": "dev"}},
        "prod": {"args": ["--prod"], "workingDir": "/srv/prod", "unsetEnv": ["BASE"]},
    },
    "launchInputs": {
        "world": {
            "description": "w",
            "type": "string",
            "pattern": "[a-z]+",
            "maxLength": 8,
            "args": ["--world", "${value}"],
        },
        "seed": {
            "description": "s",
            "type": "integer",
            "minimum": 1,
            "maximum": 9,
            "env": {"SEED": "${value}"},
        },
        "quick": {"description": "q", "type": "boolean", "args": ["--quick"], "profiles": ["dev"]},
        "mode": {"description": "m", "type": "string", "enum": ["a", "b"], "args": ["-m${value}"]},
    },
}


def test_args_are_game_then_profile_then_inputs_by_name() -> None:
    resolved = resolve(
        game(**PROFILED),
        inputs={"world": "river", "quick": True, "mode": "b"},
        inherited={"PATH": "/bin", "GABP_TOKEN": "old", "gabs_game_id": "x", "DROP_ME": "1"},
        revision="sha256:abc",
    )
    assert resolved.profile == "dev"
    assert resolved.args == ("--base", "--dev", "-mb", "--quick", "--world", "river")
    assert resolved.applied_inputs == ("mode", "quick", "world")
    assert dict(resolved.env) == {"PATH": "/bin", "BASE": "1", "SHARED": "dev"}
    assert (resolved.context_env_keys, resolved.absent_env_names) == (
        ("BASE", "SHARED"),
        ("DROP_ME",),
    )
    assert resolved.config_revision == "sha256:abc"


def test_a_profile_replaces_the_working_dir_and_can_unset_game_env() -> None:
    resolved = resolve(game(**PROFILED), profile="prod", inputs={"seed": 4}, inherited={})
    assert (resolved.working_dir, resolved.args) == ("/srv/prod", ("--base", "--prod"))
    assert dict(resolved.env) == {"SHARED": "game", "SEED": "4"}
    assert resolved.absent_env_names == ("BASE", "DROP_ME")


@pytest.mark.parametrize(
    ("profile", "inputs", "code", "candidates"),
    [
        ("nope", {}, "profile_not_found", ["dev", "prod"]),
        ("", {"colour": "red"}, "launch_input_not_declared", ["mode", "quick", "seed", "world"]),
        ("", {"world": "River"}, "launch_input_invalid", []),
        ("", {"world": "riverbanks"}, "launch_input_invalid", []),
        ("", {"seed": 10}, "launch_input_invalid", []),
        ("", {"seed": 2.0}, "launch_input_invalid", []),
        ("", {"seed": "3"}, "launch_input_invalid", []),
        ("", {"mode": "c"}, "launch_input_invalid", ["a", "b"]),
        ("prod", {"quick": True}, "launch_input_invalid", ["dev"]),
    ],
)
def test_bad_requests_get_the_go_codes(
    profile: str, inputs: dict[str, Any], code: str, candidates: list[str]
) -> None:
    with pytest.raises(ResolveError) as caught:
        resolve(game(**PROFILED), profile=profile, inputs=inputs, inherited={})
    assert (caught.value.code, caught.value.candidates) == (code, candidates)


def test_false_is_the_same_as_leaving_a_boolean_out_even_where_it_does_not_apply() -> None:
    resolved = resolve(game(**PROFILED), profile="prod", inputs={"quick": False}, inherited={})
    assert resolved.applied_inputs == ()
    with pytest.raises(ResolveError) as caught:
        resolve(game(target="/x"), profile="dev", inherited={})
    assert caught.value.code == "profiles_not_configured"


def test_hooks_get_placeholders_defaults_and_whole_profile_overrides() -> None:
    entry = {
        **PROFILED,
        "lifecycle": {
            "status": {"command": "/bin/status", "args": ["${gameId}", "${profile}"]},
            "stop": {"command": "/bin/stop", "timeoutSeconds": 7},
        },
    }
    entry["profiles"]["prod"]["lifecycle"] = {"stop": {"command": "/bin/prod-stop"}}
    hooks = profile_lifecycles(game(**entry))
    assert hooks["dev"].status == ResolvedHook(
        command="/bin/status",
        args=("g", "dev"),
        timeout_seconds=5,
        running_exit_codes=(0,),
        stopped_exit_codes=(1,),
    )
    assert hooks["dev"].stop == ResolvedHook(
        command="/bin/stop", timeout_seconds=7, verify_timeout_seconds=15
    )
    assert hooks["prod"].stop == ResolvedHook(
        command="/bin/prod-stop", timeout_seconds=30, verify_timeout_seconds=15
    )
    assert hooks["prod"].kill is None


def test_the_game_gets_the_bridge_variables_last() -> None:
    resolved = resolve(game(**PROFILED), inputs={"seed": 3}, inherited={"PATH": "/bin"})
    env = game_environment(
        resolved,
        launch_mode="SteamManaged",
        target="294100",
        bridge_path="/c/g/bridge.json",
        port=41000,
        token="t" * 64,
    )
    assert {
        k: env[k]
        for k in (
            "GABS_GAME_ID",
            "GABS_BRIDGE_PATH",
            "GABP_SERVER_PORT",
            "GABS_PROFILE",
            "SteamAppId",
            "SteamGameId",
            "GABS_ABSENT_ENV",
            "SEED",
        )
    } == {
        "GABS_GAME_ID": "g",
        "GABS_BRIDGE_PATH": "/c/g/bridge.json",
        "GABP_SERVER_PORT": "41000",
        "GABS_PROFILE": "dev",
        "SteamAppId": "294100",
        "SteamGameId": "294100",
        "GABS_ABSENT_ENV": "DROP_ME",
        "SEED": "3",
    }
    assert env["GABS_FORWARD_ENV"].split(",") == sorted(
        [
            "BASE",
            "SHARED",
            "SEED",
            "GABS_ABSENT_ENV",
            "GABS_BRIDGE_PATH",
            "GABS_FORWARD_ENV",
            "GABS_GAME_ID",
            "GABS_PROFILE",
            "GABP_SERVER_PORT",
            "GABP_TOKEN",
            "SteamAppId",
            "SteamGameId",
        ]
    )


def test_a_hook_never_sees_the_port_or_the_token() -> None:
    hook = ResolvedHook(command="/bin/h", env={"MODE": "x"}, unset_env=("HOME",))
    env = hook_environment(
        hook,
        game_id="g",
        profile="dev",
        inherited={"HOME": "/h", "GABP_TOKEN": "secret", "PATH": "/bin"},
    )
    assert env == {"PATH": "/bin", "MODE": "x", "GABS_GAME_ID": "g", "GABS_PROFILE": "dev"}


# --- Steam -----------------------------------------------------------------------------------


def steam_library(root: Path, app_id: str = "294100") -> tuple[Path, Path]:
    """A Steam install with one library elsewhere; returns (libraryfolders.vdf, executable)."""
    steamapps = root / "steam" / "steamapps"
    library = root / "disk2" / "SteamLibrary"
    steamapps.mkdir(parents=True)
    (library / "steamapps").mkdir(parents=True)
    vdf = steamapps / "libraryfolders.vdf"
    vdf.write_text(
        textwrap.dedent(
            f'''\
            // written by Steam
            "libraryfolders"
            {{
                "0" {{ "path" "{root / "steam"}" "apps" {{ }} }}
                "1" {{ "path" "{library}" "apps" {{ "{app_id}" "1" }} }}
            }}
            '''
        ),
        encoding="utf-8",
    )
    (library / "steamapps" / f"appmanifest_{app_id}.acf").write_text(
        f'"AppState"\n{{\n "appid" "{app_id}"\n "name" "Rim World"\n "installdir" "RimWorld"\n}}\n',
        encoding="utf-8",
    )
    install = library / "steamapps" / "common" / "RimWorld"
    (install / "Data").mkdir(parents=True)
    executable = install / "RimWorldLinux"
    for path in (executable, install / "UnityCrashHandler64", install / "Data" / "tool"):
        path.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
        path.chmod(0o755)
    return vdf, executable


def test_vdf_reads_nested_keys_escapes_and_comments() -> None:
    assert parse_vdf('"a" { "b" "x\\"y" /* c */ "d" { } } // tail') == {"a": {"b": 'x"y', "d": {}}}
    with pytest.raises(SteamError, match="missing value"):
        parse_vdf('"a"')


@posix_only
def test_a_steam_app_is_found_through_the_library_folders(tmp_path: Path) -> None:
    vdf, executable = steam_library(tmp_path)
    app = resolve_app("294100", {"GABS_STEAM_LIBRARYFOLDERS": str(vdf)})
    assert (app.name, app.executable, app.working_dir) == (
        "Rim World",
        executable,
        executable.parent,
    )
    ensure_appid_file(app)
    assert app.appid_file.read_text(encoding="utf-8") == "294100\n"
    with pytest.raises(SteamError, match="Steam app 1 was not found; checked manifests"):
        resolve_app("1", {"GABS_STEAM_LIBRARYFOLDERS": str(vdf)})


# --- static checks ---------------------------------------------------------------------------


@posix_only
def test_static_checks_name_the_pointer_and_the_path(tmp_path: Path) -> None:
    script = tmp_path / "game.sh"
    script.write_text("#!/bin/sh\n", encoding="utf-8")
    entry = {
        "launchMode": "CustomCommand",
        "target": str(script),
        "workingDir": str(tmp_path / "missing"),
        "lifecycle": {"status": {"command": "no-such-hook-command"}},
    }
    found = check_resolvable(
        game(**entry), resolve(game(**entry), inherited={}), env={"PATH": "/nonexistent"}
    )
    assert [str(issue) for issue in found] == [
        f"target is not executable (/games/g/target -> {script})",
        f"working directory does not exist (/games/g/workingDir -> {tmp_path / 'missing'})",
        "status hook command is not resolvable via PATH "
        "(/games/g/lifecycle/status/command -> no-such-hook-command)",
    ]
    empty = game(target="")
    assert [i.message for i in check_resolvable(empty, resolve(empty, inherited={}))] == [
        "target is empty; set it before starting"
    ]


# --- hooks -----------------------------------------------------------------------------------


def python_hook(code: str, **changes: Any) -> ResolvedHook:
    return ResolvedHook(command=sys.executable, args=("-c", code), **changes)


async def test_a_status_hook_exit_code_means_running_stopped_or_unknown() -> None:
    hook = python_hook("import sys; sys.exit(int(sys.argv[1]))", stopped_exit_codes=(1, 3))
    verdicts = []
    for code in ("0", "3", "7"):
        one = ResolvedHook(
            command=hook.command,
            args=(*hook.args, code),
            running_exit_codes=(0,),
            stopped_exit_codes=(1, 3),
        )
        result = await run_hook(one, game_id="g", profile="")
        verdicts.append((result.exit_code, classify_status(one, result)))
    assert verdicts == [(0, "running"), (3, "stopped"), (7, "unknown")]
    missing_hook = ResolvedHook(command="/no/such/hook")
    missing = await run_hook(missing_hook, game_id="g", profile="")
    assert missing.exec_error is not None and classify_status(missing_hook, missing) == "unknown"


async def test_a_hook_sees_its_environment_and_its_output_tail_is_kept() -> None:
    hook = python_hook(
        "import os,sys; print(os.environ['GABS_GAME_ID'], os.environ.get('GABP_TOKEN')); "
        "sys.stderr.write('x' * 20000)",
        env={"EXTRA": "1"},
    )
    result = await run_hook(hook, game_id="g", profile="")
    assert (result.exit_code, result.stdout_tail) == (0, "g None\n")
    assert result.stderr_tail == "x" * 16384


@posix_only
async def test_a_hook_that_times_out_is_killed_with_its_children(tmp_path: Path) -> None:
    marker = tmp_path / "child.pid"
    code = (
        "import subprocess, sys, time; "
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
        f"open({str(marker)!r}, 'w').write(str(child.pid)); time.sleep(60)"
    )
    with anyio.fail_after(20):
        result = await run_hook(python_hook(code), game_id="g", profile="", timeout=1)
    assert (result.timed_out, result.exit_code, result.tree_kill_warning) == (True, -1, True)
    child = int(marker.read_text(encoding="utf-8"))
    with anyio.fail_after(10):
        while _alive(child):  # noqa: ASYNC110 - not our child: no exit event
            await anyio.sleep(0.05)


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


@posix_only
async def test_a_hook_that_leaves_a_child_holding_its_output_still_answers_by_its_exit_code(
    tmp_path: Path,
) -> None:
    # The Go bridge calls such a run a failure to run (its exec WaitDelay error): a status hook
    # then reads unknown and a stop hook fails. The exit code is the hook's answer; the child
    # that keeps the pipes only costs the short read grace.
    marker = tmp_path / "child.pid"
    code = (
        "import subprocess, sys; "
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)']); "
        f"open({str(marker)!r}, 'a').write(str(child.pid) + ' '); print('accepted')"
    )
    hook = python_hook(code, running_exit_codes=(0,), stopped_exit_codes=(1,))
    try:
        with anyio.fail_after(15):
            verdict, result = await run_status_hook(hook, game_id="g", profile="")
            ok, action = await run_action_hook(hook, game_id="g", profile="")
        assert (verdict, result.exit_code, result.exec_error, result.timed_out) == (
            "running",
            0,
            None,
            False,
        )
        assert result.stdout_tail == "accepted\n"
        assert result.duration < 10
        assert (ok, action.exit_code, action.exec_error) == (True, 0, None)
    finally:
        pids = marker.read_text(encoding="utf-8").split() if marker.exists() else []
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid), signal.SIGKILL)


# --- spawning --------------------------------------------------------------------------------


@posix_only
async def test_a_spawned_game_runs_in_its_own_session_with_its_output_in_the_log(
    tmp_path: Path,
) -> None:
    log = tmp_path / "g" / "launch.log"
    log.parent.mkdir()
    log.write_text("the previous launch\n", encoding="utf-8")
    spawned = spawn(
        [sys.executable, "-c", "import os; print('hello', os.environ['X']); os._exit(4)"],
        cwd=str(tmp_path),
        env={**os.environ, "X": "42"},
        log_path=log,
    )
    assert os.getsid(spawned.pid) == spawned.pid != os.getsid(0)
    with anyio.fail_after(10):
        assert await spawned.wait(10) == 4
    assert spawned.tail() == "hello 42\n"
    assert oct(log.stat().st_mode & 0o777) == "0o600"
