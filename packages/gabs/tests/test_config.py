"""gabs.config: the Go bridge's config.json format, our keys, and errors that name their path."""

from __future__ import annotations

import copy
import json
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from gabs.config import (
    AttentionSettings,
    BridgeSettings,
    ConfigError,
    ConfigProblem,
    GabsConfig,
    GameConfig,
    GameTimeouts,
    UnknownGameError,
    config_json_schema,
    game_runtime_dir,
    resolve_config_dir,
)

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file modes")

# What the Go bridge writes: its own keys only, some of which this bridge keeps but ignores.
GO_CONFIG: dict[str, Any] = {
    "version": "1.0",
    "games": {
        "rimworld": {
            "id": "rimworld",
            "name": "RimWorld",
            "launchMode": "DirectPath",
            "target": "/games/RimWorld/RimWorldLinux",
            "args": ["-logfile", "/tmp/rw.log"],
            "workingDir": "/games/RimWorld",
            "env": {"RIMBRIDGE_DEBUG": "1"},
            "stopProcessName": "RimWorldLinux",
            "description": "RimWorld with RimBridgeServer",
        },
        "minecraft": {
            "id": "minecraft",
            "name": "Minecraft",
            "launchMode": "CustomCommand",
            "target": "java",
            "args": ["-jar", "server.jar"],
        },
        "steamgame": {
            "id": "steamgame",
            "name": "A Steam game",
            "launchMode": "SteamAppId",
            "target": "294100",
            "stopProcessName": "RimWorldWin64",
        },
    },
    "toolNormalization": {"enableOpenAINormalization": True, "maxToolNameLength": 64},
}


def write_config(directory: Path, document: object) -> Path:
    path = directory / "config.json"
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return path


def problems_of(document: object) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        GabsConfig.from_json(document)
    return [str(problem) for problem in caught.value.problems]


def game_entry(**changes: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "id": "rimworld",
        "name": "RimWorld",
        "launchMode": "DirectPath",
        "target": "/games/rw",
    }
    entry.update(changes)
    return entry


def with_game(**changes: Any) -> dict[str, Any]:
    return {"version": "1.0", "games": {"rimworld": game_entry(**changes)}}


# --- reading the Go bridge's format ----------------------------------------------------------


def test_a_go_bridge_config_round_trips_unchanged(tmp_path: Path) -> None:
    write_config(tmp_path, GO_CONFIG)
    config = GabsConfig.load(tmp_path)
    config.save()
    assert json.loads((tmp_path / "config.json").read_text(encoding="utf-8")) == GO_CONFIG


def test_a_go_bridge_game_reads_with_our_defaults(tmp_path: Path) -> None:
    write_config(tmp_path, GO_CONFIG)
    game = GabsConfig.load(tmp_path).game("rimworld")
    assert game == GameConfig(
        id="rimworld",
        name="RimWorld",
        launch_mode="DirectPath",
        target="/games/RimWorld/RimWorldLinux",
        args=["-logfile", "/tmp/rw.log"],
        working_dir="/games/RimWorld",
        env={"RIMBRIDGE_DEBUG": "1"},
        stop_process_name="RimWorldLinux",
        description="RimWorld with RimBridgeServer",
    )
    assert game.attention == AttentionSettings(mode="gate", allow=[], fail_closed=True)
    assert game.timeouts == GameTimeouts(
        start_seconds=30, call_seconds=30, stop_grace_seconds=5, connect_seconds=10
    )
    assert game.expose_game_tools is False
    assert game.gabp_port is None
    assert game.launchable


def test_store_launch_modes_are_read_but_not_launchable(tmp_path: Path) -> None:
    write_config(tmp_path, GO_CONFIG)
    game = GabsConfig.load(tmp_path).game("steamgame")
    assert (game.launch_mode, game.launchable) == ("SteamAppId", False)


def test_go_bridge_keys_this_bridge_ignores_are_reported_as_notes(tmp_path: Path) -> None:
    write_config(tmp_path, GO_CONFIG)
    assert GabsConfig.load(tmp_path).notes == [
        ConfigProblem("$.toolNormalization", "a Go-bridge setting this bridge does not use; kept"),
        ConfigProblem(
            "$.games.rimworld.stopProcessName",
            "a Go-bridge setting this bridge does not use; kept",
        ),
        ConfigProblem(
            "$.games.steamgame.stopProcessName",
            "a Go-bridge setting this bridge does not use; kept",
        ),
    ]


# --- our keys --------------------------------------------------------------------------------


def test_our_optional_keys_are_read_and_written_back(tmp_path: Path) -> None:
    document = with_game(
        attention={"mode": "observe", "allow": ["rimbridge/list_logs"], "failClosed": False},
        exposeGameTools=True,
        timeouts={"startSeconds": 60, "callSeconds": 5.5, "stopGraceSeconds": 0},
        gabpPort=38917,
        requiredContext={"sources": ["ledger", {"tool": "rimbridge/list_logs"}]},
        unsetEnv=["DISPLAY"],
    )
    document["bridge"] = {
        "host": "127.0.0.1",
        "port": 8765,
        "tokenFile": "~/.gabs/http-token",
        "allowedOrigins": ["http://localhost:3000"],
    }
    write_config(tmp_path, document)
    config = GabsConfig.load(tmp_path)
    game = config.game("rimworld")
    assert game.attention == AttentionSettings(
        mode="observe", allow=["rimbridge/list_logs"], fail_closed=False
    )
    assert game.expose_game_tools is True
    assert game.timeouts == GameTimeouts(
        start_seconds=60, call_seconds=5.5, stop_grace_seconds=0, connect_seconds=10
    )
    assert game.gabp_port == 38917
    assert game.required_context == {"sources": ["ledger", {"tool": "rimbridge/list_logs"}]}
    assert game.unset_env == ["DISPLAY"]
    assert config.bridge == BridgeSettings(
        host="127.0.0.1",
        port=8765,
        token_file="~/.gabs/http-token",
        allowed_origins=["http://localhost:3000"],
    )
    assert config.notes == []
    config.save()
    assert json.loads((tmp_path / "config.json").read_text(encoding="utf-8")) == document


def test_bridge_settings_default_to_nothing_configured() -> None:
    assert GabsConfig.from_json({"games": {}}).bridge == BridgeSettings()


def test_a_game_built_in_code_writes_only_the_keys_it_was_given() -> None:
    game = GameConfig(
        id="sim",
        name="Sim",
        launch_mode="CustomCommand",
        target="rimbridge-sim",
        attention=AttentionSettings(mode="off"),
    )
    assert game.to_json() == {
        "id": "sim",
        "name": "Sim",
        "launchMode": "CustomCommand",
        "target": "rimbridge-sim",
        "attention": {"mode": "off"},
    }


# --- validation errors name their path and rule ----------------------------------------------


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        (
            with_game(launchMode="Shell"),
            "$.games.rimworld.launchMode: must be one of DirectPath, CustomCommand, "
            "SteamAppId, EpicAppId",
        ),
        (with_game(id="other"), '$.games.rimworld.id: must equal the key "rimworld"'),
        (with_game(name=""), "$.games.rimworld.name: must not be empty"),
        (with_game(target=None), "$.games.rimworld.target: must be a string"),
        (with_game(args="-x"), "$.games.rimworld.args: must be an array"),
        (with_game(args=["-x", 3]), "$.games.rimworld.args[1]: must be a string"),
        (with_game(env={"PORT": 1}), "$.games.rimworld.env.PORT: must be a string"),
        (
            with_game(env={"A=B": "x"}),
            "$.games.rimworld.env: environment variable name 'A=B' must not contain '=' or NUL",
        ),
        (with_game(colour="red"), "$.games.rimworld.colour: is not a known key"),
        (
            with_game(attention={"mode": "block"}),
            "$.games.rimworld.attention.mode: must be one of off, observe, gate",
        ),
        (
            with_game(attention={"failClosed": "yes"}),
            "$.games.rimworld.attention.failClosed: must be true or false",
        ),
        (
            with_game(attention={"allow": [""]}),
            "$.games.rimworld.attention.allow: tool names must not be empty",
        ),
        (with_game(exposeGameTools=1), "$.games.rimworld.exposeGameTools: must be true or false"),
        (
            with_game(timeouts={"startSeconds": 0}),
            "$.games.rimworld.timeouts.startSeconds: must be greater than 0",
        ),
        (
            with_game(timeouts={"callSeconds": "30"}),
            "$.games.rimworld.timeouts.callSeconds: must be a number",
        ),
        (with_game(gabpPort=70000), "$.games.rimworld.gabpPort: must be at most 65535"),
        (with_game(gabpPort=True), "$.games.rimworld.gabpPort: must be an integer"),
        (with_game(requiredContext=[1]), "$.games.rimworld.requiredContext: must be an object"),
        (
            {"games": {"rimworld": game_entry(launchMode=None)}, "bridge": {"port": -1}},
            "$.bridge.port: must be at least 0",
        ),
        ({"version": "2.0", "games": {}}, "$.version: must be one of 1.0"),
        ({"games": []}, "$.games: must be an object"),
        ({"games": {"rimworld": "x"}}, "$.games.rimworld: must be an object"),
        ({"games": {}, "extra": 1}, "$.extra: is not a known key"),
        ([], "$: must be an object"),
    ],
)
def test_each_validation_error_names_its_json_path_and_rule(
    document: object, expected: str
) -> None:
    assert expected in problems_of(document)


def test_a_missing_required_key_is_named() -> None:
    entry = game_entry()
    del entry["launchMode"]
    assert problems_of({"games": {"rimworld": entry}}) == [
        "$.games.rimworld.launchMode: is required"
    ]


def test_a_game_key_that_is_not_a_valid_id_is_named_in_brackets() -> None:
    document = {"games": {"my game": game_entry(id="my game")}}
    assert problems_of(document) == [
        '$.games["my game"]: game ids must match ^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$',
        '$.games["my game"].id: must match ^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$',
    ]


def test_every_problem_of_every_game_is_listed_in_path_order() -> None:
    document = copy.deepcopy(GO_CONFIG)
    document["games"]["rimworld"]["launchMode"] = "Shell"
    document["games"]["minecraft"]["id"] = "mc"
    document["games"]["steamgame"]["args"] = [1]
    assert problems_of(document) == [
        '$.games.minecraft.id: must equal the key "minecraft"',
        "$.games.rimworld.launchMode: must be one of DirectPath, CustomCommand, "
        "SteamAppId, EpicAppId",
        "$.games.steamgame.args[0]: must be a string",
    ]


def test_an_invalid_file_names_the_file_and_each_problem(tmp_path: Path) -> None:
    path = write_config(tmp_path, with_game(launchMode="Shell", colour="red"))
    with pytest.raises(ConfigError) as caught:
        GabsConfig.load(tmp_path)
    assert str(caught.value) == (
        f"invalid config {path}\n"
        "  $.games.rimworld.colour: is not a known key\n"
        "  $.games.rimworld.launchMode: must be one of DirectPath, CustomCommand, "
        "SteamAppId, EpicAppId"
    )
    assert caught.value.source == path


def test_bad_json_is_reported_with_line_and_column(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text('{\n  "games": {,\n}', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"is not valid JSON: .* \(line 2, column 13\)"):
        GabsConfig.load(tmp_path)


def test_a_duplicated_key_is_refused(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(
        '{"games": {}, "version": "1.0", "games": {}}', encoding="utf-8"
    )
    with pytest.raises(ConfigError, match='the key "games" appears twice in one object'):
        GabsConfig.load(tmp_path)


def test_a_file_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_bytes(b'{"games": {"\xff": {}}}')
    with pytest.raises(ConfigError, match="is not UTF-8"):
        GabsConfig.load(tmp_path)


def test_an_unreadable_config_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "config.json").mkdir()
    with pytest.raises(ConfigError, match="cannot read"):
        GabsConfig.load(tmp_path)


# --- the file --------------------------------------------------------------------------------


def test_a_missing_file_is_an_empty_config(tmp_path: Path) -> None:
    config = GabsConfig.load(tmp_path / "nowhere")
    assert (config.games, config.version, config.notes) == ({}, "1.0", [])
    assert not (tmp_path / "nowhere").exists()


@posix_only
def test_save_writes_atomically_with_mode_0600(tmp_path: Path) -> None:
    directory = tmp_path / "fresh"
    config = GabsConfig.load(directory)
    config.add_game(GameConfig(id="sim", name="Sim", launch_mode="DirectPath", target="/x"))
    path = config.save()
    assert path == directory / "config.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    assert sorted(p.name for p in directory.iterdir()) == ["config.json"]
    assert json.loads(path.read_text(encoding="utf-8")) == {
        "version": "1.0",
        "games": {"sim": {"id": "sim", "name": "Sim", "launchMode": "DirectPath", "target": "/x"}},
    }


@posix_only
def test_saving_over_a_readable_file_makes_it_private(tmp_path: Path) -> None:
    path = write_config(tmp_path, GO_CONFIG)
    path.chmod(0o644)
    GabsConfig.load(tmp_path).save()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


# --- games -----------------------------------------------------------------------------------


def sim(game_id: str = "sim", **changes: Any) -> GameConfig:
    return GameConfig(
        id=game_id, name="Sim", launch_mode="CustomCommand", target="rimbridge-sim", **changes
    )


def test_adding_an_existing_game_is_refused_unless_replacing(tmp_path: Path) -> None:
    config = GabsConfig.load(tmp_path)
    config.add_game(sim())
    with pytest.raises(ConfigError, match="a game with id 'sim' is already configured"):
        config.add_game(sim(description="second"))
    assert config.game("sim").description is None
    config.add_game(sim(description="second"), replace=True)
    assert config.game("sim").description == "second"


def test_removing_a_game_returns_it_and_saves_without_it(tmp_path: Path) -> None:
    config = GabsConfig.load(tmp_path)
    config.add_game(sim("a"))
    config.add_game(sim("b"))
    assert config.remove_game("a") == sim("a")
    config.save()
    assert sorted(GabsConfig.load(tmp_path).games) == ["b"]


def test_an_unknown_game_names_the_configured_ones(tmp_path: Path) -> None:
    config = GabsConfig.load(tmp_path)
    config.add_game(sim("b"))
    config.add_game(sim("a"))
    with pytest.raises(UnknownGameError) as caught:
        config.game("c")
    assert str(caught.value) == "no game 'c' is configured (configured games: a, b)"
    assert (caught.value.game_id, caught.value.known) == ("c", ("a", "b"))
    with pytest.raises(UnknownGameError):
        config.remove_game("c")


def test_the_games_view_cannot_change_the_config(tmp_path: Path) -> None:
    config = GabsConfig.load(tmp_path)
    config.add_game(sim())
    view = config.games
    assert isinstance(view, dict)
    view.clear()
    assert list(config.games) == ["sim"]


def test_each_game_has_a_runtime_directory_under_the_config_dir(tmp_path: Path) -> None:
    assert GabsConfig.load(tmp_path).game_dir("sim") == tmp_path / "sim"
    assert game_runtime_dir(tmp_path, "rimworld") == tmp_path / "rimworld"
    with pytest.raises(ConfigError, match=r"invalid game id '\.\./x'"):
        game_runtime_dir(tmp_path, "../x")


# --- where the config lives ------------------------------------------------------------------


def test_the_config_dir_is_explicit_then_the_environment_then_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    env = {"GABS_CONFIG_DIR": str(tmp_path / "from-env")}
    assert resolve_config_dir(tmp_path / "explicit", env) == tmp_path / "explicit"
    assert resolve_config_dir(None, env) == tmp_path / "from-env"
    assert resolve_config_dir(None, {"GABS_CONFIG_DIR": ""}) == tmp_path / "home" / ".gabs"
    assert resolve_config_dir(None, {}) == tmp_path / "home" / ".gabs"


def test_load_uses_gabs_config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GABS_CONFIG_DIR", str(tmp_path))
    write_config(tmp_path, GO_CONFIG)
    config = GabsConfig.load()
    assert (config.path, sorted(config.games)) == (
        tmp_path / "config.json",
        ["minecraft", "rimworld", "steamgame"],
    )


def test_the_json_schema_describes_our_keys() -> None:
    schema = config_json_schema()
    game = schema["$defs"]["GameConfig"]
    assert schema["title"] == "GABS bridge configuration"
    assert set(game["required"]) == {"id", "name", "launchMode", "target"}
    assert game["additionalProperties"] is False
    assert {"attention", "exposeGameTools", "timeouts", "gabpPort"} <= set(game["properties"])
