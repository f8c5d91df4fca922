"""Command lines and steps of the Go bridge's own user guides, as a user who switches runs them.

The Go bridge 1.1.0's README, ADVANCED_USAGE, AI_CLIENT_SETUP, DEPLOYMENT and TROUBLESHOOTING
pages show these command lines; each must work with ``gabs`` as it does with the Go bridge. The
expected values were taken from the Go binary run side by side with ``gabs``.
"""

from __future__ import annotations

import signal
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from gabs.config import GabsConfig
from gabs.serving import serve
from gabs.transports.http import TOKEN_ENV, resolve_token


def test_http_token_of_a_relative_config_dir_is_written_inside_that_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`gabs server --http localhost:8080 --configDir gabs-test` (ADVANCED_USAGE: "Multiple
    Config Directories") keeps everything in `gabs-test`, as the Go bridge keeps its files
    there; the generated token file was written to `gabs-test/gabs-test/http-token`."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    (tmp_path / "gabs-test").mkdir()
    config = GabsConfig.load("gabs-test")

    token, configured, path = resolve_token(config)

    assert not configured
    assert path is not None
    assert path.resolve() == (tmp_path / "gabs-test" / "http-token").resolve()
    assert (tmp_path / "gabs-test" / "http-token").read_text(encoding="utf-8").strip() == token
    assert not (tmp_path / "gabs-test" / "gabs-test").exists()
    # The next start reads the same token back.
    assert resolve_token(config)[:2] == (token, True)


def test_relative_token_file_setting_is_relative_to_the_config_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    (tmp_path / "cfg").mkdir()
    (tmp_path / "cfg" / "config.json").write_text(
        '{"version": "1.0", "games": {}, "bridge": {"tokenFile": "secrets/token"}}',
        encoding="utf-8",
    )
    config = GabsConfig.load("cfg")

    _, _, path = resolve_token(config)

    assert path is not None
    assert path.resolve() == (tmp_path / "cfg" / "secrets" / "token").resolve()


@pytest.fixture
def keep_sigterm() -> Iterator[None]:
    """``serve`` installs its own SIGTERM handler; put pytest's back afterwards."""
    before = signal.getsignal(signal.SIGTERM)
    yield
    signal.signal(signal.SIGTERM, before)


def test_http_port_in_use_is_a_failure_exit_1_as_go(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    keep_sigterm: None,
) -> None:
    """ADVANCED_USAGE, "Port Conflicts": `gabs server --http :8080` on a port another program
    holds. The Go bridge logs `listen tcp ...: bind: address already in use` and exits 1 (a
    failure); a usage error (exit 2) is reserved for a refused command line."""
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen()
    try:
        port = holder.getsockname()[1]
        status = serve(str(tmp_path), "http", host="127.0.0.1", port=port)
    finally:
        holder.close()
    assert status == 1
    assert f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err


def test_refused_remote_address_stays_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keep_sigterm: None
) -> None:
    """A non-loopback address without `--allow-remote` is refused before anything listens: the
    command line is what is wrong (a documented difference: docs/migration.md, section 1)."""
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    assert serve(str(tmp_path), "http", host="192.0.2.1", port=8080) == 2
