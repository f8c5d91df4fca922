"""gabp.handoff: the GABS environment, tokens and bridge.json."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

from gabp import handoff
from gabp.handoff import (
    BridgeConfig,
    GabsEnvironment,
    HandoffError,
    default_bridge_config_path,
    generate_token,
    read_bridge_config,
    read_gabs_environment,
    tokens_equal,
    write_bridge_config,
    write_secret_file,
)

TOKEN = "0123456789abcdef" * 4
posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file modes")


def gabs_env(**overrides: str | None) -> dict[str, str]:
    env = {
        "GABP_SERVER_PORT": "38917",
        "GABP_TOKEN": TOKEN,
        "GABS_GAME_ID": "rimworld",
        "GABS_BRIDGE_PATH": "/home/a/.gabs/rimworld/bridge.json",
    }
    for key, value in overrides.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# --- environment -----------------------------------------------------------------------------


def test_the_gabs_environment_is_read_whole() -> None:
    assert read_gabs_environment(gabs_env()) == GabsEnvironment(
        port=38917,
        token=TOKEN,
        game_id="rimworld",
        bridge_path="/home/a/.gabs/rimworld/bridge.json",
    )


def test_game_id_and_bridge_path_are_optional() -> None:
    env = gabs_env(GABS_GAME_ID=None, GABS_BRIDGE_PATH="")
    assert read_gabs_environment(env) == GabsEnvironment(port=38917, token=TOKEN)


def test_os_environ_is_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in gabs_env().items():
        monkeypatch.setenv(key, value)
    assert read_gabs_environment().port == 38917


@pytest.mark.parametrize(
    ("overrides", "kwargs", "message"),
    [
        ({"GABP_SERVER_PORT": None}, {}, "GABP_SERVER_PORT is not set"),
        (
            {"GABP_SERVER_PORT": "abc"},
            {},
            "GABP_SERVER_PORT must be a decimal port number from 1 to 65535, got 'abc'",
        ),
        (
            {"GABP_SERVER_PORT": "0"},
            {},
            "GABP_SERVER_PORT must be a decimal port number from 1 to 65535, got '0'",
        ),
        (
            {"GABP_SERVER_PORT": "65536"},
            {},
            "GABP_SERVER_PORT must be a decimal port number from 1 to 65535, got '65536'",
        ),
        (
            {"GABP_SERVER_PORT": " 80"},
            {},
            "GABP_SERVER_PORT must be a decimal port number from 1 to 65535, got ' 80'",
        ),
        (
            {"GABP_SERVER_PORT": "-1"},
            {},
            "GABP_SERVER_PORT must be a decimal port number from 1 to 65535, got '-1'",
        ),
        ({"GABP_TOKEN": None}, {}, "GABP_TOKEN is not set"),
        ({"GABP_TOKEN": "abcde"}, {}, "GABP_TOKEN must be at least 32 characters (got 5)"),
        (
            {"GABP_TOKEN": "a" * 31 + " b"},
            {},
            "GABP_TOKEN must contain only visible ASCII characters "
            "(no spaces or control characters)",
        ),
        ({"GABS_GAME_ID": ""}, {}, "GABS_GAME_ID must not be empty when it is set"),
        ({"GABS_GAME_ID": None}, {"require_game_id": True}, "GABS_GAME_ID is not set"),
    ],
)
def test_a_bad_environment_is_refused_with_the_variable_and_rule(
    overrides: dict[str, str | None], kwargs: dict[str, bool], message: str
) -> None:
    with pytest.raises(HandoffError) as caught:
        read_gabs_environment(gabs_env(**overrides), **kwargs)
    assert str(caught.value) == message


def test_a_short_token_is_never_echoed_in_the_error() -> None:
    secret = "s3cr3t-but-short"
    with pytest.raises(HandoffError) as caught:
        read_gabs_environment(gabs_env(GABP_TOKEN=secret))
    assert secret not in str(caught.value)
    assert secret not in repr(caught.value)


def test_the_token_is_not_in_the_repr_of_the_environment() -> None:
    environment = read_gabs_environment(gabs_env())
    assert TOKEN not in repr(environment)
    assert TOKEN not in str(environment)
    assert repr(environment) == (
        "GabsEnvironment(port=38917, game_id='rimworld', "
        "bridge_path='/home/a/.gabs/rimworld/bridge.json')"
    )


# --- tokens ----------------------------------------------------------------------------------


def test_generated_tokens_are_64_lowercase_hex_characters_and_unique() -> None:
    tokens = {generate_token() for _ in range(100)}
    assert len(tokens) == 100
    for token in tokens:
        assert len(token) == 64
        assert set(token) <= set("0123456789abcdef")


def test_tokens_equal_compares_whole_tokens() -> None:
    assert tokens_equal(TOKEN, str(TOKEN))
    assert not tokens_equal(TOKEN, TOKEN[:-1] + "0")
    assert not tokens_equal(TOKEN, TOKEN[:-1])
    assert tokens_equal("Ärger🐛", "Ärger🐛")


# --- bridge.json location --------------------------------------------------------------------


def test_bridge_json_on_linux_honours_xdg_config_home(tmp_path: Path) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    assert default_bridge_config_path("linux", env, tmp_path) == (
        tmp_path / "xdg" / "gabp" / "bridge.json"
    )


@pytest.mark.parametrize("xdg", [None, "", "relative/dir"])
def test_bridge_json_on_linux_falls_back_to_dot_config(tmp_path: Path, xdg: str | None) -> None:
    env = {} if xdg is None else {"XDG_CONFIG_HOME": xdg}
    assert default_bridge_config_path("linux", env, tmp_path) == (
        tmp_path / ".config" / "gabp" / "bridge.json"
    )


@pytest.mark.parametrize("platform", ["darwin", "macos"])
def test_bridge_json_on_macos_is_in_application_support(tmp_path: Path, platform: str) -> None:
    assert default_bridge_config_path(platform, {}, tmp_path) == (
        tmp_path / "Library" / "Application Support" / "gabp" / "bridge.json"
    )


@pytest.mark.parametrize("platform", ["win32", "windows"])
def test_bridge_json_on_windows_is_in_appdata(platform: str) -> None:
    appdata = r"C:\Users\a\AppData\Roaming"
    assert default_bridge_config_path(platform, {"APPDATA": appdata}) == Path(
        appdata, "gabp", "bridge.json"
    )


def test_bridge_json_on_windows_needs_appdata() -> None:
    with pytest.raises(HandoffError, match="APPDATA is not set"):
        default_bridge_config_path("win32", {})


# --- bridge.json contents --------------------------------------------------------------------


def config(**overrides: object) -> BridgeConfig:
    fields: dict[str, object] = {
        "token": TOKEN,
        "transport_type": "tcp",
        "address": "38917",
        "metadata": {"game": "rimworld", "pid": 4242},
    }
    fields.update(overrides)
    return BridgeConfig(**fields)  # type: ignore[arg-type]


def test_bridge_config_round_trips_through_the_file(tmp_path: Path) -> None:
    path = tmp_path / "gabp" / "bridge.json"
    assert write_bridge_config(config(), path) == path
    assert read_bridge_config(path) == config()
    assert json.loads(path.read_text(encoding="utf-8")) == {
        "token": TOKEN,
        "transport": {"type": "tcp", "address": "38917"},
        "metadata": {"game": "rimworld", "pid": 4242},
    }


def test_metadata_is_left_out_when_none(tmp_path: Path) -> None:
    path = write_bridge_config(config(metadata=None), tmp_path / "bridge.json")
    assert json.loads(path.read_text(encoding="utf-8")) == {
        "token": TOKEN,
        "transport": {"type": "tcp", "address": "38917"},
    }
    assert read_bridge_config(path) == config(metadata=None)


def test_write_bridge_config_defaults_to_the_platform_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "default" / "bridge.json"
    monkeypatch.setattr(handoff, "default_bridge_config_path", lambda: target)
    assert write_bridge_config(config()) == target
    assert read_bridge_config() == config()


def test_the_token_is_not_in_the_repr_of_the_config() -> None:
    assert TOKEN not in repr(config())
    assert TOKEN not in str(config())


@posix_only
def test_the_file_is_mode_0600_and_a_new_directory_0700_even_with_a_loose_umask(
    tmp_path: Path,
) -> None:
    path = tmp_path / "new" / "gabp" / "bridge.json"
    old = os.umask(0)
    try:
        write_bridge_config(config(), path)
    finally:
        os.umask(old)
    assert mode(path) == 0o600
    assert mode(path.parent) == 0o700


@posix_only
def test_an_existing_file_is_replaced_and_ends_up_0600(tmp_path: Path) -> None:
    path = tmp_path / "bridge.json"
    path.write_text("old", encoding="utf-8")
    path.chmod(0o644)
    write_secret_file(path, b"new")
    assert (path.read_bytes(), mode(path)) == (b"new", 0o600)


def test_a_failed_serialisation_leaves_no_file_behind(tmp_path: Path) -> None:
    path = tmp_path / "bridge.json"
    with pytest.raises(HandoffError, match="metadata is not JSON-serialisable"):
        write_bridge_config(config(metadata={"bad": {1, 2}}), path)
    assert list(tmp_path.iterdir()) == []


def test_a_failed_write_removes_the_temporary_file_and_keeps_the_old_contents(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "bridge.json"
    path.write_bytes(b"old")

    def broken_fsync(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OSError, match="Input/output error"):
        write_secret_file(path, b"new")
    assert list(tmp_path.iterdir()) == [path]
    assert path.read_bytes() == b"old"


def test_a_failed_rename_removes_the_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "bridge.json"
    target.mkdir()
    (target / "keep").write_text("x", encoding="utf-8")
    with pytest.raises(OSError):
        write_secret_file(target, b"new")
    assert list(tmp_path.iterdir()) == [target]


@posix_only
@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root ignores modes")
def test_an_unwritable_directory_fails_without_leaving_files(tmp_path: Path) -> None:
    directory = tmp_path / "locked"
    directory.mkdir()
    directory.chmod(0o500)
    try:
        with pytest.raises(PermissionError):
            write_secret_file(directory / "bridge.json", b"new")
        assert list(directory.iterdir()) == []
    finally:
        directory.chmod(0o700)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"{", "is not valid JSON: Expecting property name enclosed in double quotes"),
        (b"\xff", "is not UTF-8"),
        (b"[]", "bridge config must be a JSON object"),
        (b'{"transport": {"type": "tcp", "address": "1"}}', "bridge config has no token"),
        (b'{"token": "%s"}' % TOKEN.encode(), "bridge config has no transport"),
        (
            b'{"token": "%s", "transport": "tcp"}' % TOKEN.encode(),
            "bridge config transport must be a JSON object",
        ),
        (
            b'{"token": "%s", "transport": {"address": "1"}}' % TOKEN.encode(),
            "bridge config transport has no type",
        ),
        (
            b'{"token": "%s", "transport": {"type": "tcp"}}' % TOKEN.encode(),
            "bridge config transport has no address",
        ),
        (
            b'{"token": "%s", "transport": {"type": "udp", "address": "1"}}' % TOKEN.encode(),
            "bridge config transport.type must be one of tcp, stdio, pipe, got 'udp'",
        ),
        (
            b'{"token": "%s", "transport": {"type": "tcp", "address": ""}}' % TOKEN.encode(),
            "bridge config transport.address must be a non-empty string",
        ),
        (
            b'{"token": "%s", "transport": {"type": "tcp", "address": 1}, "metadata": []}'
            % TOKEN.encode(),
            "bridge config transport.address must be a non-empty string",
        ),
        (
            b'{"token": "%s", "transport": {"type": "tcp", "address": "1"}, "metadata": []}'
            % TOKEN.encode(),
            "bridge config metadata must be a JSON object when present",
        ),
        (
            b'{"token": "abc123", "transport": {"type": "tcp", "address": "1"}}',
            "bridge config token must be at least 32 hex characters (128 bits), got 6 characters",
        ),
        (
            b'{"token": "%s", "transport": {"type": "tcp", "address": "1"}}' % (b"z" * 32),
            "bridge config token must contain only hex digits 0-9, a-f",
        ),
        (
            b'{"token": 12345, "transport": {"type": "tcp", "address": "1"}}',
            "bridge config token must be a string",
        ),
    ],
)
def test_a_bad_bridge_config_is_refused_clearly(
    tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "bridge.json"
    path.write_bytes(content)
    with pytest.raises(HandoffError) as caught:
        read_bridge_config(path)
    assert message in str(caught.value)
    assert str(path) in str(caught.value)
    assert TOKEN not in str(caught.value)


def test_a_bridge_config_others_can_read_is_refused(tmp_path: Path) -> None:
    path = write_bridge_config(config(), tmp_path / "bridge.json")
    path.chmod(0o644)
    with pytest.raises(HandoffError) as caught:
        read_bridge_config(path)
    assert str(caught.value) == (
        f"bridge config {path} is accessible to other users (mode 644); it holds the token, "
        "so it must be mode 600 (chmod 600 it or write it again)"
    )
    path.chmod(0o600)
    assert read_bridge_config(path) == config()


def test_a_missing_bridge_config_names_the_path(tmp_path: Path) -> None:
    path = tmp_path / "absent.json"
    with pytest.raises(HandoffError) as caught:
        read_bridge_config(path)
    assert str(caught.value) == f"bridge config {path} does not exist"


def test_bridge_config_accepts_uppercase_hex_and_every_transport() -> None:
    for transport in ("tcp", "stdio", "pipe"):
        assert config(token=TOKEN.upper(), transport_type=transport).transport_type == transport
