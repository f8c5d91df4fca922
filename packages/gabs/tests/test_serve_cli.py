"""`gabs serve` and the Go bridge's spelling of it: `server [stdio|http]`, `--configDir`,
`--log-level trace|debug|info|warn|error` (also from `$GABS_LOG_LEVEL`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gabs.cli import build_parser, run
from gabs.serve_cli import log_level


def test_server_stdio_with_the_go_flags_parses_as_serve(tmp_path: Path) -> None:
    args = build_parser().parse_args(
        ["server", "stdio", "--configDir", str(tmp_path), "--log-level", "warn"]
    )
    serve = build_parser().parse_args(["serve", "--config-dir", str(tmp_path)])
    assert args.handler is serve.handler
    assert (args.transport, args.config_dir, args.log_level) == ("stdio", tmp_path, "WARNING")


def test_server_alone_is_stdio_and_server_http_is_http() -> None:
    assert build_parser().parse_args(["server"]).transport == "stdio"
    assert build_parser().parse_args(["server", "http"]).transport == "http"
    assert build_parser().parse_args(["serve", "--transport", "http"]).transport == "http"


def test_the_config_dir_flag_has_the_go_spelling_before_the_command_too(tmp_path: Path) -> None:
    args = build_parser().parse_args(["--configDir", str(tmp_path), "server"])
    assert args.config_dir == tmp_path


@pytest.mark.parametrize(
    ("name", "level"),
    [
        ("trace", "DEBUG"),
        ("debug", "DEBUG"),
        ("info", "INFO"),
        ("warn", "WARNING"),
        ("error", "ERROR"),
        ("WARNING", "WARNING"),
        ("Info", "INFO"),
    ],
)
def test_log_levels_take_the_go_names_and_the_python_ones(name: str, level: str) -> None:
    assert log_level(name) == level
    assert build_parser().parse_args(["serve", "--log-level", name]).log_level == level


def test_the_log_level_default_comes_from_gabs_log_level(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GABS_LOG_LEVEL", "warn")
    assert build_parser().parse_args(["server", "stdio"]).log_level == "WARNING"
    monkeypatch.delenv("GABS_LOG_LEVEL")
    assert build_parser().parse_args(["server", "stdio"]).log_level == "INFO"


def test_an_unknown_log_level_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["serve", "--log-level", "loud"]) == 2
    assert "unknown log level 'loud' (use trace, debug, info, warn or error)" in (
        capsys.readouterr().err
    )
    monkeypatch.setenv("GABS_LOG_LEVEL", "verbose")
    assert run(["server", "stdio"]) == 2
    assert "unknown log level 'verbose'" in capsys.readouterr().err
