"""gabs.config: the Go bridge's config.json, its rules and pointers, our keys, and reloading."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from gabs.config import (
    MODE_INCOMPATIBLE,
    ConfigError,
    ConfigStore,
    GabsConfig,
    GameConfig,
    UnknownGameError,
    game_runtime_dir,
    resolve_config_dir,
    resolve_config_location,
)

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file modes")

#: Every key the Go bridge reads, in a config of our own making.
EVERY_GO_KEY: dict[str, Any] = {
    "version": "1.0",
    "apiKey": "an-http-api-key-for-this-bridge",
    "toolNormalization": {
        "enableOpenAINormalization": True,
        "maxToolNameLength": 48,
        "preserveOriginalName": False,
    },
    "stripOutputSchema": True,
    "portRanges": {"customRanges": [{"min": 41000, "max": 41099}]},
    "timeouts": {
        "startup": {"processStartSeconds": 12, "gabpConnectSeconds": 90},
        "session": {"ownerLeaseSeconds": 45},
    },
    "games": {
        "colony": {
            "id": "colony",
            "name": "Colony Builder",
            "description": "A colony game with two data roots.",
            "launchMode": "DirectPath",
            "target": "/srv/colony/bin/colony",
            "workingDir": "/srv/colony",
            "args": ["--bridge"],
            "stopProcessName": "colony",
            "gabpMode": "connect",
            "env": {"COLONY_LOG": "json"},
            "unsetEnv": ["COLONY_SAVE"],
            "defaultProfile": "sandbox",
            "profiles": {
                "sandbox": {"description": "Throwaway saves.", "args": ["--data", "/tmp/colony"]},
                "campaign": {
                    "description": "The real saves.",
                    "args": ["--data", "/srv/colony/saves"],
                    "env": {"COLONY_LOG": "text"},
                    "unsetEnv": ["COLONY_DEBUG"],
                    "workingDir": "/srv/colony/saves",
                    "lifecycle": {
                        "stop": {"command": "/srv/colony/hooks/stop", "args": ["${profile}"]}
                    },
                },
            },
            "launchInputs": {
                "map": {
                    "description": "The map to open.",
                    "type": "string",
                    "enum": ["river", "desert"],
                    "maxLength": 16,
                    "pattern": "[a-z]+",
                    "args": ["--map", "${value}"],
                },
                "seed": {
                    "description": "World seed.",
                    "type": "integer",
                    "minimum": 0,
                    "maximum": 99999,
                    "profiles": ["sandbox"],
                    "env": {"COLONY_SEED": "${value}"},
                },
                "fast": {"description": "Skip the intro.", "type": "boolean", "args": ["--fast"]},
            },
            "lifecycle": {
                "status": {
                    "command": "/srv/colony/hooks/status",
                    "args": ["${gameId}"],
                    "workingDir": "/srv/colony",
                    "env": {"HOOK_MODE": "status"},
                    "unsetEnv": ["COLONY_SAVE"],
                    "timeoutSeconds": 5,
                    "runningExitCodes": [0],
                    "stoppedExitCodes": [1, 3],
                },
                "stop": {
                    "command": "/srv/colony/hooks/stop",
                    "timeoutSeconds": 30,
                    "verifyTimeoutSeconds": 40,
                },
                "kill": {"command": "/srv/colony/hooks/kill", "timeoutSeconds": 10},
            },
        },
        "store": {
            "id": "store",
            "name": "A store game",
            "launchMode": "SteamAppId",
            "target": "294100",
            "stopProcessName": "StoreGame",
        },
    },
}


def write_config(directory: Path, document: object) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "config.json"
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return path


def load(tmp_path: Path, document: object) -> GabsConfig:
    write_config(tmp_path, document)
    return GabsConfig.load(tmp_path)


def broken(document: object) -> dict[str, list[str]]:
    config = GabsConfig.from_json(document)
    return {game_id: [str(issue) for issue in issues] for game_id, issues in config.broken.items()}


def one_game(**entry: Any) -> dict[str, Any]:
    return {"version": "1.0", "games": {"g": {"id": "g", "name": "G", "target": "/x", **entry}}}


# --- the Go bridge's format ------------------------------------------------------------------


def test_a_config_with_every_go_key_loads_without_a_problem_or_warning(tmp_path: Path) -> None:
    config = load(tmp_path, EVERY_GO_KEY)
    assert (config.game_ids, config.problems, config.warnings) == (["colony", "store"], [], [])
    settings = config.settings
    assert (settings.api_key, settings.strip_output_schema, settings.owner_lease_seconds) == (
        "an-http-api-key-for-this-bridge",
        True,
        45,
    )
    assert (settings.startup.process_start_seconds, settings.startup.gabp_connect_seconds) == (
        12,
        90,
    )
    assert [(r.min, r.max) for r in settings.port_ranges] == [(41000, 41099)]
    assert settings.tool_normalization.max_tool_name_length == 48
    game = config.game("colony")
    assert (game.default_profile, sorted(game.profiles), sorted(game.launch_inputs)) == (
        "sandbox",
        ["campaign", "sandbox"],
        ["fast", "map", "seed"],
    )
    assert game.lifecycle is not None and game.lifecycle.status is not None
    assert game.lifecycle.status.stopped_exit_codes == (1, 3)


def test_a_go_config_is_written_back_unchanged(tmp_path: Path) -> None:
    load(tmp_path, EVERY_GO_KEY).save()
    written = json.loads((tmp_path / "config.json").read_text(encoding="utf-8"))
    # false and empty values are left out, as the Go bridge leaves them out; they mean the same
    expected = json.loads(json.dumps(EVERY_GO_KEY))
    del expected["toolNormalization"]["preserveOriginalName"]
    assert written == expected
    assert GabsConfig.load(tmp_path).settings == load(tmp_path / "again", EVERY_GO_KEY).settings


def test_what_the_go_bridge_accepts_loads_here_too(tmp_path: Path) -> None:
    config = load(
        tmp_path,
        {
            "games": {
                "minecraft.paper": {"launchMode": "CustomCommand", "target": "java"},
                "nameless": {"id": "nameless", "target": "/bin/game"},
                "managed": {"name": "M", "launchMode": "SteamManaged", "target": "294100"},
                "urlonly": {"name": "U", "launchMode": "EpicAppId", "target": "Fortnite"},
                "team/alpha": {"name": "Nested", "target": "/bin/alpha"},
            }
        },
    )
    assert config.broken == {}
    assert config.game("nameless").launch_mode == "DirectPath"
    assert config.game("nameless").name == ""  # shown empty, as the Go bridge shows it
    assert config.game("minecraft.paper").launch_mode == "CustomCommand"
    assert config.game_dir("team/alpha") == tmp_path / "team" / "alpha"


def test_unknown_keys_are_warnings_with_their_pointer_and_are_kept(tmp_path: Path) -> None:
    document = one_game(envv={"A": "1"})
    document["extraTop"] = True
    document["timeouts"] = {"startup": {"procesStartSeconds": 5}}
    config = load(tmp_path, document)
    assert [str(w) for w in config.warnings] == [
        "/extraTop: unknown key",
        "/timeouts/startup/procesStartSeconds: unknown key",
        "/games/g/envv: unknown key",
    ]
    assert [str(w) for w in config.game_warnings("g")] == ["/games/g/envv: unknown key"]
    config.save()
    saved = json.loads((tmp_path / "config.json").read_text(encoding="utf-8"))
    assert saved["extraTop"] is True and saved["games"]["g"]["envv"] == {"A": "1"}


def test_unknown_keys_inside_profiles_inputs_and_hooks_are_errors() -> None:
    assert broken(
        one_game(
            defaultProfile="p",
            profiles={"p": {"arg": ["x"]}},
            launchInputs={"i": {"description": "d", "type": "boolean", "args": ["-i"], "typo": 1}},
            lifecycle={"stop": {"command": "/bin/stop", "timeout": 3}},
        )
    ) == {
        "g": [
            "/games/g/profiles/p/arg: unknown key",
            "/games/g/launchInputs/i/typo: unknown key",
            "/games/g/lifecycle/stop/timeout: unknown key",
        ]
    }


def test_one_broken_game_leaves_the_others_usable(tmp_path: Path) -> None:
    config = load(
        tmp_path,
        {
            "games": {
                "good": {"name": "Good", "target": "/bin/good"},
                "bad": {"name": "Bad", "launchMode": "Teleport", "args": "--x"},
            }
        },
    )
    assert sorted(config.games) == ["good"]
    assert [str(p) for p in config.broken["bad"]] == [
        "/games/bad/launchMode: must be one of DirectPath, CustomCommand, "
        "SteamManaged, SteamAppId, EpicAppId",
        "/games/bad/args: must be an array of strings, not a string",
    ]
    assert config.game_ids == ["bad", "good"]
    with pytest.raises(ConfigError) as caught:
        config.game("bad")
    assert "launchMode" in str(caught.value)


@pytest.mark.parametrize(
    ("game_id", "why"),
    [
        ("a/../b", "is not in canonical form"),
        ("trailing/", "is not in canonical form"),
        ("/abs", "must not be an absolute path"),
        ("C:games", "must not be an absolute path"),
        ("back\\slash", "must not contain a backslash"),
    ],
)
def test_a_game_id_that_cannot_be_a_folder_is_refused(game_id: str, why: str) -> None:
    found = broken({"games": {game_id: {"target": "/x"}}})
    assert list(found) == [game_id] and why in found[game_id][0]
    assert found[game_id][0].startswith(
        f"/games/{game_id.replace('/', '~1')}: game ID is not addressable"
    )


def test_an_id_that_differs_from_its_key_and_ids_that_collide_are_refused() -> None:
    found = broken(
        {"games": {"Alpha": {"target": "/x"}, "alpha": {"target": "/y"}, "b": {"id": "c"}}}
    )
    assert found["b"] == ['/games/b/id: entry is keyed "b" but declares id "c"; they must match']
    assert 'maps to the same runtime directory as "Alpha"' in found["alpha"][0]


@pytest.mark.parametrize(
    ("first", "second", "collide"),
    [
        ("\u0130x", "ix", True),  # Go lowers the dotted capital I to a plain i
        ("I\u0307x", "ix", True),  # the same letter decomposed
        ("\u0391\u03a3", "\u03b1\u03c2", False),  # a capital sigma lowers to sigma, never final
        ("\u0391\u03a3", "\u03b1\u03c3", True),
    ],
)
def test_ids_collide_as_the_go_bridge_folds_them(first: str, second: str, collide: bool) -> None:
    found = broken({"games": {first: {"target": "/x"}, second: {"target": "/y"}}})
    clash = [why for whys in found.values() for why in whys if "same runtime directory" in why]
    assert bool(clash) is collide, found


def test_the_launch_context_rules_name_their_pointer() -> None:
    found = broken(
        one_game(
            env={"GABS_X": "1", "bad-name": "2"},
            unsetEnv=["OK", "OK"],
            profiles={"dev": {"workingDir": "relative"}},
            launchInputs={
                "level": {
                    "description": "",
                    "type": "integer",
                    "args": ["--level"],
                    "maximum": 1,
                    "minimum": 5,
                },
                "name": {
                    "description": "n",
                    "type": "string",
                    "enum": ["Ab"],
                    "pattern": "[a-z]+",
                    "args": ["${value}"],
                },
            },
            lifecycle={
                "status": {
                    "command": "/s",
                    "timeoutSeconds": 61,
                    "runningExitCodes": [0, 2],
                    "stoppedExitCodes": [2],
                },
                "kill": {"command": "/k", "args": ["${nope}", "${profile}"], "workingDir": "rel"},
            },
        )
    )["g"]
    assert found == [
        "/games/g/env/GABS_X: environment keys with the reserved "
        "prefixes GABS_/GABP_ are not allowed",
        '/games/g/env/bad-name: environment key "bad-name" must match the '
        "portable identifier grammar ^[A-Za-z_][A-Za-z0-9_]*$",
        '/games/g/unsetEnv/1: duplicate unsetEnv entry "OK"',
        "/games/g/profiles/dev/workingDir: working directory must be an absolute path",
        "/games/g/defaultProfile: defaultProfile is required when profiles are configured",
        "/games/g/launchInputs/level/description: description is required",
        "/games/g/launchInputs/level: integer inputs must use "
        "${value} at least once in their bindings",
        "/games/g/launchInputs/level: minimum must not exceed maximum",
        '/games/g/launchInputs/name/enum/0: enum value "Ab" does not match the '
        "declared pattern; every start would reject it",
        "/games/g/lifecycle/status/timeoutSeconds: timeoutSeconds must "
        "be between 1 and 60 for status hooks",
        "/games/g/lifecycle/status: runningExitCodes and "
        "stoppedExitCodes must be disjoint (both contain 2)",
        "/games/g/lifecycle/kill/workingDir: working directory must be an "
        "absolute path (after placeholder substitution)",
        "/games/g/lifecycle/kill/args/0: unknown placeholder ${nope}",
    ]
    assert broken(one_game(lifecycle={"kill": {"command": "/k", "args": ["${profile}"]}})) == {
        "g": ["/games/g/lifecycle/kill/args/0: ${profile} placeholder requires configured profiles"]
    }


def test_a_store_mode_refuses_launch_context_with_its_own_code() -> None:
    config = GabsConfig.from_json(
        one_game(launchMode="SteamAppId", target="1", env={"A": "1"}, stopProcessName="g")
    )
    (issue,) = config.broken["g"]
    assert (issue.path, issue.code) == ("/games/g/env", MODE_INCOMPATIBLE)
    assert "use SteamManaged, DirectPath, or CustomCommand" in issue.message


def test_a_store_mode_with_hooks_needs_a_status_and_a_stop_or_kill_hook() -> None:
    lifecycle = {"stop": {"command": "/stop"}}
    assert broken(one_game(launchMode="EpicAppId", lifecycle=lifecycle)) == {
        "g": [
            "/games/g: EpicAppId games must declare stopProcessName, or a "
            "game-level status hook plus a stop or kill hook"
        ]
    }
    lifecycle["status"] = {"command": "/status"}
    assert broken(one_game(launchMode="EpicAppId", lifecycle=lifecycle)) == {}


def test_our_keys_are_read_and_checked(tmp_path: Path) -> None:
    config = load(
        tmp_path,
        one_game(
            attention={"mode": "observe", "allow": ["sim/status"], "failClosed": False},
            exposeGameTools=True,
            timeouts={
                "startSeconds": 20,
                "callSeconds": 5,
                "stopGraceSeconds": 2,
                "connectSeconds": 3,
            },
            gabpPort=41001,
            requiredContext={"stages": 1},
        ),
    )
    game = config.game("g")
    assert (game.attention.mode, game.attention.allow, game.attention.fail_closed) == (
        "observe",
        ("sim/status",),
        False,
    )
    assert (game.timeouts.start_seconds, game.timeouts.stop_grace_seconds, game.gabp_port) == (
        20.0,
        2.0,
        41001,
    )
    assert broken(one_game(attention={"mode": "loud"}, gabpPort=0)) == {
        "g": [
            "/games/g/gabpPort: must be between 1 and 65535",
            "/games/g/attention/mode: must be one of off, observe, gate",
        ]
    }


@pytest.mark.parametrize("written", [0, -3])
def test_a_bridge_timeout_of_zero_or_less_is_the_default_as_in_the_go_bridge(
    tmp_path: Path, written: int
) -> None:
    document = one_game()
    document["timeouts"] = {
        "startup": {"processStartSeconds": written, "gabpConnectSeconds": written},
        "session": {"ownerLeaseSeconds": written},
    }
    config = load(tmp_path, document)
    assert (config.problems, config.broken) == ([], {})
    startup = config.settings.startup
    assert (startup.process_start_seconds, startup.gabp_connect_seconds) == (10, 60)
    assert config.settings.owner_lease_seconds == 30


@pytest.mark.parametrize(
    ("startup", "direct", "store"),
    [
        (None, 10.0, 60.0),  # no section: the per-mode waits
        ({}, 10.0, 10.0),  # a section fills in 10 s for every mode, as the Go bridge does
        ({"gabpConnectSeconds": 90}, 10.0, 10.0),
        ({"processStartSeconds": 0}, 10.0, 10.0),
        ({"processStartSeconds": 25}, 25.0, 25.0),
    ],
)
def test_the_process_start_wait_follows_the_go_bridge(
    tmp_path: Path, startup: dict[str, int] | None, direct: float, store: float
) -> None:
    document = one_game()
    if startup is not None:
        document["timeouts"] = {"startup": startup}
    settings = load(tmp_path, document).settings.startup
    assert settings.process_start_budget("DirectPath") == direct
    assert settings.process_start_budget("SteamAppId") == store
    assert settings.process_start_budget("EpicAppId") == store


def test_a_game_timeout_of_zero_or_less_is_the_default_too(tmp_path: Path) -> None:
    timeouts = {"startSeconds": 0, "callSeconds": -1, "stopGraceSeconds": -2, "connectSeconds": 0}
    config = load(tmp_path, one_game(timeouts=timeouts))
    assert config.broken == {}
    read = config.game("g").timeouts
    assert (read.start_seconds, read.call_seconds, read.connect_seconds) == (None, 30.0, 10.0)
    assert read.stop_grace_seconds is None
    kept = load(tmp_path, one_game(timeouts={"stopGraceSeconds": 0})).game("g").timeouts
    assert kept.stop_grace_seconds == 0.0
    assert broken(one_game(timeouts={"callSeconds": "5"})) == {
        "g": ["/games/g/timeouts/callSeconds: must be a number, not a string"]
    }


def test_a_game_built_in_code_writes_only_what_it_was_given() -> None:
    game = GameConfig(
        id="sim", name="Sim", launch_mode="CustomCommand", target="sim", args=("--x",)
    )
    assert game.to_json() == {
        "id": "sim",
        "name": "Sim",
        "launchMode": "CustomCommand",
        "target": "sim",
        "args": ["--x"],
    }


# --- the file as a whole ---------------------------------------------------------------------


def test_a_wrong_top_level_value_makes_the_whole_file_invalid(tmp_path: Path) -> None:
    write_config(tmp_path, {"games": {}, "apiKey": 5, "portRanges": {"customRanges": "x"}})
    with pytest.raises(ConfigError) as caught:
        GabsConfig.load(tmp_path)
    assert [str(p) for p in caught.value.problems] == [
        "/apiKey: must be a string, not a number",
        "/portRanges/customRanges: must be an array of {min, max} objects",
    ]
    assert caught.value.revision is not None and caught.value.revision.startswith("sha256:")


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (
            b'{"games": {',
            "failed to parse config file: not valid JSON: Expecting property name enclosed in "
            "double quotes (line 1, column 12)",
        ),
        (b"\xff\xfe{}", "failed to parse config file: not UTF-8 (byte 0)"),
        (b"\xef\xbb\xbf{}", "failed to parse config file: not valid JSON: a byte order mark"),
        (b"[]", "invalid configuration:\n  /: must be a JSON object"),
    ],
)
def test_a_file_that_is_not_a_json_object_is_refused(
    tmp_path: Path, raw: bytes, message: str
) -> None:
    (tmp_path / "config.json").write_bytes(raw)
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        GabsConfig.load(tmp_path)


def test_a_duplicated_member_is_refused_where_it_is(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(
        '{"games": {"a": {"target": "/x", "target": "/y"}, "b": {"target": "/z"}}}',
        encoding="utf-8",
    )
    config = GabsConfig.load(tmp_path)
    assert {k: [str(i) for i in v] for k, v in config.broken.items()} == {
        "a": ["/games/a/target: duplicate JSON member"]
    }
    assert sorted(config.games) == ["b"]
    (tmp_path / "config.json").write_text('{"games": {}, "games": {}}', encoding="utf-8")
    with pytest.raises(ConfigError, match="/games: duplicate JSON member"):
        GabsConfig.load(tmp_path)


def test_a_missing_file_is_an_empty_config(tmp_path: Path) -> None:
    config = GabsConfig.load(tmp_path / "nowhere")
    assert (config.games, config.version, config.exists) == ({}, "1.0", False)


@posix_only
def test_save_writes_atomically_with_mode_0600(tmp_path: Path) -> None:
    path = write_config(tmp_path, EVERY_GO_KEY)
    path.chmod(0o644)
    GabsConfig.load(tmp_path).save()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["config.json"]


def test_games_are_added_replaced_and_removed(tmp_path: Path) -> None:
    config = GabsConfig.load(tmp_path)
    config.add_game(GameConfig(id="a", name="A", target="/a"))
    with pytest.raises(ConfigError, match="already configured"):
        config.add_game(GameConfig(id="a", name="A2", target="/a"))
    config.add_game(GameConfig(id="a", name="A2", target="/a"), replace=True)
    with pytest.raises(ConfigError, match="same runtime directory"):
        config.add_game(GameConfig(id="A", name="other", target="/b"))
    config.save()
    assert GabsConfig.load(tmp_path).game("a").name == "A2"
    config.remove_game("a")
    with pytest.raises(UnknownGameError) as caught:
        config.game("a")
    assert caught.value.known == ()


def test_the_config_dir_is_explicit_then_the_environment_then_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert resolve_config_dir("/x", {"GABS_CONFIG_DIR": "/y"}) == Path("/x")
    assert resolve_config_dir(None, {"GABS_CONFIG_DIR": "/y"}) == Path("/y")
    assert resolve_config_dir(None, {}) == tmp_path / "home" / ".gabs"
    assert game_runtime_dir("/x", "rimworld") == Path("/x/rimworld")
    with pytest.raises(ConfigError, match="canonical"):
        game_runtime_dir("/x", "../escape")


@pytest.mark.skipif(sys.platform != "linux", reason="the XDG location")
def test_a_config_in_the_platform_folder_keeps_working_with_a_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    env = {"XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    write_config(tmp_path / "xdg" / "gabs", one_game())
    folder, note = resolve_config_location(None, env)
    assert folder == tmp_path / "xdg" / "gabs"
    assert note is not None and str(tmp_path / ".gabs" / "config.json") in note
    write_config(tmp_path / ".gabs", one_game())
    assert resolve_config_location(None, env) == (tmp_path / ".gabs", None)


# --- reloading -------------------------------------------------------------------------------


def test_the_store_reloads_games_and_keeps_the_last_good_config(tmp_path: Path) -> None:
    store = ConfigStore(load(tmp_path, one_game()))
    assert store.snapshot().error is None
    document = one_game()
    document["games"]["h"] = {"target": "/h"}
    write_config(tmp_path, document)
    assert sorted(store.snapshot().config.games) == ["g", "h"]
    (tmp_path / "config.json").write_text("{ not json", encoding="utf-8")
    snapshot = store.snapshot()
    assert sorted(snapshot.config.games) == ["g", "h"]
    assert snapshot.error is not None and "not valid JSON" in str(snapshot.error)
    assert store.snapshot().error is snapshot.error  # parsed once per content
    write_config(tmp_path, one_game())
    fixed = store.snapshot()
    assert (fixed.error, sorted(fixed.config.games)) == (None, ["g"])


def test_an_in_place_rewrite_of_the_same_size_is_seen_at_once(tmp_path: Path) -> None:
    path = write_config(tmp_path, one_game(target="/a"))
    store = ConfigStore(GabsConfig.load(tmp_path))
    assert store.snapshot().config.games["g"].target == "/a"
    before = path.stat()
    write_config(tmp_path, one_game(target="/b"))  # same size, same file, same instant
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert store.snapshot().config.games["g"].target == "/b"


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The paths ``Path.read_bytes`` reads from now on."""
    seen: list[Path] = []
    original = Path.read_bytes

    def counting(self: Path) -> bytes:
        seen.append(self)
        return original(self)

    monkeypatch.setattr(Path, "read_bytes", counting)
    return seen


def test_a_settled_file_is_not_read_again_until_it_changes(
    tmp_path: Path, reads: list[Path]
) -> None:
    path = write_config(tmp_path, one_game(target="/a"))
    old = path.stat().st_mtime_ns - 5_000_000_000
    os.utime(path, ns=(old, old))  # written long ago: settled
    store = ConfigStore(GabsConfig.load(tmp_path))
    reads.clear()  # the load's own read
    for _ in range(5):
        assert store.snapshot().config.games["g"].target == "/a"
    assert len(reads) <= 1
    write_config(tmp_path, one_game(target="/c"))
    assert store.snapshot().config.games["g"].target == "/c"


def test_a_missing_file_is_looked_for_on_every_call_but_not_opened(
    tmp_path: Path, reads: list[Path]
) -> None:
    store = ConfigStore(GabsConfig.load(tmp_path))
    reads.clear()  # the load's own read
    for _ in range(5):
        assert (store.snapshot().error, store.snapshot().config.games) == (None, {})
    assert len(reads) <= 1
    write_config(tmp_path, one_game(target="/a"))
    assert store.snapshot().config.games["g"].target == "/a"  # seen on the next call
    (tmp_path / "config.json").unlink()
    assert store.snapshot().config.games == {}
    reads.clear()
    for _ in range(3):
        assert store.snapshot().config.games == {}
    assert reads == []
