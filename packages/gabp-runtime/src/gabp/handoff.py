"""How a game-side runtime learns where and how to accept its bridge.

Two handoffs exist:

* **Environment (GABS).** The GABS bridge launches the game with ``GABP_SERVER_PORT`` (the
  loopback port the game listens on), ``GABP_TOKEN`` (a fresh 64-hex-char secret per launch),
  ``GABS_GAME_ID`` and ``GABS_BRIDGE_PATH`` (the path of the launch's ``bridge.json``, a file
  the bridge keeps for diagnostics; never a source of port or token).
  :func:`read_gabs_environment` reads and checks them.
* **bridge.json (the spec's file for other bridges).** ``{"token", "transport": {"type",
  "address"}, "metadata"?}`` in a per-user config directory, written atomically with mode 0600:
  :func:`default_bridge_config_path`, :func:`read_bridge_config`, :func:`write_bridge_config`.

Tokens are secrets: they never appear in a ``repr``, ``str`` or error message of this module.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import os
import re
import secrets
import stat
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal, get_args

__all__ = [
    "MIN_TOKEN_LENGTH",
    "BridgeConfig",
    "GabsEnvironment",
    "HandoffError",
    "TransportType",
    "default_bridge_config_path",
    "generate_token",
    "read_bridge_config",
    "read_gabs_environment",
    "tokens_equal",
    "write_bridge_config",
    "write_secret_file",
]

#: The shortest token accepted anywhere: 32 characters (128 bits when hex).
MIN_TOKEN_LENGTH: Final = 32

TransportType = Literal["tcp", "stdio", "pipe"]
_TRANSPORT_TYPES: Final[tuple[str, ...]] = get_args(TransportType)

_PORT: Final = re.compile(r"[0-9]{1,5}")
# A token from the environment: visible ASCII, no whitespace (the bridge sends 64 hex chars).
_VISIBLE_ASCII: Final = re.compile(r"[\x21-\x7e]+")
_HEX: Final = re.compile(r"[0-9a-fA-F]+")


class HandoffError(ValueError):
    """The environment or a config file does not describe a usable handoff."""


def _show(value: str, limit: int = 40) -> str:
    """A short rendering of a (non-secret) value for an error message."""
    if len(value) <= limit:
        return repr(value)
    return f"{value[:limit]!r}... ({len(value)} characters)"


@dataclass(frozen=True)
class GabsEnvironment:
    """What the GABS bridge put in a launched game's environment."""

    port: int
    token: str = field(repr=False)
    game_id: str | None = None
    bridge_path: str | None = None
    """``GABS_BRIDGE_PATH``: the path of this launch's ``bridge.json`` (diagnostics only)."""


def _check_env_token(token: str, name: str) -> None:
    if len(token) < MIN_TOKEN_LENGTH:
        raise HandoffError(
            f"{name} must be at least {MIN_TOKEN_LENGTH} characters (got {len(token)})"
        )
    if _VISIBLE_ASCII.fullmatch(token) is None:
        raise HandoffError(
            f"{name} must contain only visible ASCII characters (no spaces or control characters)"
        )


def read_gabs_environment(
    env: Mapping[str, str] | None = None, *, require_game_id: bool = False
) -> GabsEnvironment:
    """Read the handoff that GABS gives a game it launches.

    ``env`` defaults to ``os.environ``. ``GABP_SERVER_PORT`` (decimal, 1..65535) and
    ``GABP_TOKEN`` (at least 32 visible ASCII characters; GABS sends 64 hex) are required;
    ``GABS_GAME_ID`` must not be empty when set (and must be set if ``require_game_id``);
    an empty ``GABS_BRIDGE_PATH`` counts as unset. Raises :class:`HandoffError`.
    """
    if env is None:
        env = os.environ

    raw_port = env.get("GABP_SERVER_PORT")
    if raw_port is None:
        raise HandoffError("GABP_SERVER_PORT is not set")
    if _PORT.fullmatch(raw_port) is None or not 1 <= int(raw_port) <= 65535:
        raise HandoffError(
            f"GABP_SERVER_PORT must be a decimal port number from 1 to 65535, got {_show(raw_port)}"
        )

    token = env.get("GABP_TOKEN")
    if token is None:
        raise HandoffError("GABP_TOKEN is not set")
    _check_env_token(token, "GABP_TOKEN")

    game_id = env.get("GABS_GAME_ID")
    if game_id is None:
        if require_game_id:
            raise HandoffError("GABS_GAME_ID is not set")
    elif not game_id.strip():
        raise HandoffError("GABS_GAME_ID must not be empty when it is set")

    bridge_path = env.get("GABS_BRIDGE_PATH") or None
    return GabsEnvironment(
        port=int(raw_port), token=token, game_id=game_id, bridge_path=bridge_path
    )


def generate_token() -> str:
    """A new token: 64 lowercase hex characters (256 bits) from the OS's secure RNG."""
    return secrets.token_hex(32)


def tokens_equal(a: str, b: str) -> bool:
    """Compare two tokens in time that does not depend on where they differ."""
    return hmac.compare_digest(a.encode("utf-8"), b.encode("utf-8"))


# ---------------------------------------------------------------------------------------------
# bridge.json


def default_bridge_config_path(
    platform: str | None = None,
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
) -> Path:
    """Where the spec puts ``bridge.json`` on this (or the given) platform.

    ``platform`` is a ``sys.platform`` value (``linux``, ``darwin``, ``win32``) or a GABP
    platform name (``linux``, ``macos``, ``windows``); other Unix-likes use the Linux rule.

    * Linux: ``$XDG_CONFIG_HOME/gabp/bridge.json`` if that variable is an absolute path,
      else ``~/.config/gabp/bridge.json``.
    * macOS: ``~/Library/Application Support/gabp/bridge.json``.
    * Windows: ``%APPDATA%\\gabp\\bridge.json`` (an error if ``APPDATA`` is not set).
    """
    if platform is None:
        platform = sys.platform
    if env is None:
        env = os.environ
    if platform in ("win32", "cygwin", "windows"):
        appdata = env.get("APPDATA")
        if not appdata:
            raise HandoffError("APPDATA is not set, so bridge.json has no location on Windows")
        return Path(appdata, "gabp", "bridge.json")
    if home is None:
        home = Path.home()
    if platform in ("darwin", "macos"):
        return home / "Library" / "Application Support" / "gabp" / "bridge.json"
    xdg = env.get("XDG_CONFIG_HOME")
    # The XDG spec says a relative value is invalid and must be ignored.
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else home / ".config"
    return base / "gabp" / "bridge.json"


@dataclass(frozen=True)
class BridgeConfig:
    """The contents of ``bridge.json``: the token and how to reach the game-side server.

    Checked on construction: the token is hex with at least 128 bits (32 hex characters),
    ``transport_type`` one of ``tcp``, ``stdio``, ``pipe``, ``address`` a non-empty string
    (for ``tcp`` usually the port, e.g. ``"38917"``), ``metadata`` a JSON object or None.
    """

    token: str = field(repr=False)
    transport_type: TransportType
    address: str
    metadata: dict[str, Any] | None = field(default=None, hash=False)

    def __post_init__(self) -> None:
        if not isinstance(self.token, str):
            raise HandoffError("bridge config token must be a string")
        if len(self.token) < MIN_TOKEN_LENGTH:
            raise HandoffError(
                f"bridge config token must be at least {MIN_TOKEN_LENGTH} hex characters "
                f"(128 bits), got {len(self.token)} characters"
            )
        if _HEX.fullmatch(self.token) is None:
            raise HandoffError("bridge config token must contain only hex digits 0-9, a-f")
        if self.transport_type not in _TRANSPORT_TYPES:
            raise HandoffError(
                f"bridge config transport.type must be one of {', '.join(_TRANSPORT_TYPES)}, "
                f"got {_show(str(self.transport_type))}"
            )
        if not isinstance(self.address, str) or not self.address:
            raise HandoffError("bridge config transport.address must be a non-empty string")
        if self.metadata is not None and not isinstance(self.metadata, dict):
            raise HandoffError("bridge config metadata must be a JSON object when present")

    def to_json(self) -> dict[str, Any]:
        """The ``bridge.json`` document (``metadata`` left out when None)."""
        document: dict[str, Any] = {
            "token": self.token,
            "transport": {"type": self.transport_type, "address": self.address},
        }
        if self.metadata is not None:
            document["metadata"] = self.metadata
        return document

    @classmethod
    def from_json(cls, document: object) -> BridgeConfig:
        """Check and convert a parsed ``bridge.json`` document."""
        if not isinstance(document, dict):
            raise HandoffError("bridge config must be a JSON object")
        if "token" not in document:
            raise HandoffError("bridge config has no token")
        transport = document.get("transport")
        if transport is None:
            raise HandoffError("bridge config has no transport")
        if not isinstance(transport, dict):
            raise HandoffError("bridge config transport must be a JSON object")
        if "type" not in transport:
            raise HandoffError("bridge config transport has no type")
        if "address" not in transport:
            raise HandoffError("bridge config transport has no address")
        return cls(
            token=document["token"],
            transport_type=transport["type"],
            address=transport["address"],
            metadata=document.get("metadata"),
        )


def read_bridge_config(path: Path | str | None = None) -> BridgeConfig:
    """Read and check ``bridge.json`` (by default at :func:`default_bridge_config_path`)."""
    path = default_bridge_config_path() if path is None else Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise HandoffError(f"bridge config {path} does not exist") from None
    except OSError as exc:
        raise HandoffError(f"bridge config {path} cannot be read: {exc.strerror}") from None
    try:
        document = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise HandoffError(f"bridge config {path} is not UTF-8") from None
    except json.JSONDecodeError as exc:
        # The message, line and column only: never echo the document, it holds the token.
        raise HandoffError(
            f"bridge config {path} is not valid JSON: {exc.msg} "
            f"(line {exc.lineno}, column {exc.colno})"
        ) from None
    try:
        config = BridgeConfig.from_json(document)
    except HandoffError as exc:
        raise HandoffError(f"{exc} (in {path})") from None
    if os.name == "posix":
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            # the file holds the token: one that others can read is not to be trusted
            raise HandoffError(
                f"bridge config {path} is accessible to other users (mode {mode:o}); it holds "
                "the token, so it must be mode 600 (chmod 600 it or write it again)"
            )
    return config


def write_bridge_config(config: BridgeConfig, path: Path | str | None = None) -> Path:
    """Write ``bridge.json`` atomically with mode 0600 and return where it was written."""
    path = default_bridge_config_path() if path is None else Path(path)
    try:
        data = json.dumps(config.to_json(), indent=2, allow_nan=False).encode("utf-8") + b"\n"
    except (TypeError, ValueError) as exc:
        raise HandoffError(f"bridge config metadata is not JSON-serialisable: {exc}") from None
    write_secret_file(path, data)
    return path


def write_secret_file(path: Path | str, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically; the file is mode 0600 from its creation.

    A missing parent directory is created with mode 0700. The data goes to a temporary file
    in the same directory (created exclusively with mode 0600), is flushed and fsynced, and
    the temporary file is renamed over ``path``; on any failure it is removed, and ``path``
    keeps its old contents.
    """
    path = Path(path)
    directory = path.parent
    if not directory.exists():
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        directory.chmod(0o700)  # mkdir's mode is narrowed by the umask; make it exact
    temporary = directory / f".{path.name}.{secrets.token_hex(8)}.tmp"
    flags = os.O_CREAT | os.O_EXCL | os.O_WRONLY | getattr(os, "O_BINARY", 0)
    fd = os.open(temporary, flags, 0o600)
    try:
        try:
            if hasattr(os, "fchmod"):
                os.fchmod(fd, 0o600)  # exact, whatever the umask
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _sync_directory(directory)


def _sync_directory(directory: Path) -> None:
    """Make the rename durable where the platform allows fsync on a directory."""
    if not hasattr(os, "O_DIRECTORY"):
        return
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)
