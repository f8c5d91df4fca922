"""The game's GABP endpoint: a loopback port and a per-launch token, and ``bridge.json``.

``<config-dir>/<gameId>/bridge.json`` has the Go bridge's shape, ``{"port", "token",
"gameId"}`` plus ``profile``, ``configRevision`` and ``startedAt`` once the game is spawned.
It is a diagnostic file and the endpoint cache: the next start reuses the port when it is free
(``resetEndpoint`` picks a new one), the token is new on every launch. The game takes both from
its environment, never from the file. Ports come from ``portRanges.customRanges``, else the
Go bridge's default ranges, starting at a random offset. The file holds a secret, so unlike the
Go bridge's it is written with mode 0600; otherwise it is written as the Go bridge writes it
(its keys in the Go bridge's order, two-space indentation, no final newline).

Preparing the endpoint and stamping the diagnostics each read, decide and rewrite the file while
holding ``<config-dir>/<gameId>/bridge.lock``, the Go bridge's lock for it (``flock``, waited
for at most :data:`BRIDGE_LOCK_TIMEOUT` seconds): a stamp of a superseded launch can then never
put its token back over a newer launch's, whichever bridge or process writes.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import secrets
import socket
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from gabp.handoff import generate_token, write_secret_file
from gabs.config import LooseGameDir, PortRange, ensure_game_dir
from gabs.go_format import go_html_escape, go_reason
from gabs.runtime.lock import held_flock

__all__ = [
    "BRIDGE_FILE",
    "BRIDGE_LOCK_FILE",
    "BRIDGE_LOCK_TIMEOUT",
    "DEFAULT_PORT_RANGES",
    "Endpoint",
    "EndpointError",
    "EndpointInUse",
    "port_is_free",
    "prepare_endpoint",
    "read_bridge_file",
    "stamp_bridge_file",
]

BRIDGE_FILE: Final = "bridge.json"
BRIDGE_LOCK_FILE: Final = "bridge.lock"
BRIDGE_LOCK_TIMEOUT: Final = 5.0
#: The keys of ``bridge.json`` in the order the Go bridge writes them.
_KEY_ORDER: Final = ("port", "token", "gameId", "profile", "configRevision", "startedAt")
DEFAULT_PORT_RANGES: Final = (
    PortRange(min=49152, max=65535),
    PortRange(min=32768, max=49151),
    PortRange(min=8000, max=8999),
    PortRange(min=9000, max=9999),
    PortRange(min=10000, max=19999),
    PortRange(min=20000, max=29999),
    PortRange(min=30000, max=32767),
)


class EndpointError(OSError):
    """No endpoint could be prepared (``endpoint_unavailable``)."""


class EndpointInUse(EndpointError):
    """The cached port is taken by some listener (``endpoint_cache_in_use``)."""

    def __init__(self, game_id: str, port: int) -> None:
        super().__init__(
            f"GABS endpoint cache for game {game_id!r} uses port {port}, but that port is "
            "already listening"
        )
        self.port = port


@dataclass(frozen=True)
class Endpoint:
    port: int
    token: str
    path: Path
    reused: bool


def port_is_free(port: int) -> bool:
    """Whether 127.0.0.1:``port`` can be bound right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        if os.name == "posix":
            # As a listener would: a port whose old connections linger in TIME_WAIT is free.
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _allocate(ranges: Sequence[PortRange]) -> int:
    last = "no port ranges configured"
    for span in ranges or DEFAULT_PORT_RANGES:
        if span.min <= 0 or span.max > 65535 or span.min > span.max:
            last = f"invalid port range {span.min}-{span.max}"
            continue
        size = span.max - span.min + 1
        offset = secrets.randbelow(size)
        for step in range(size):
            port = span.min + (offset + step) % size
            if port_is_free(port):
                return port
        last = f"no available ports in range {span.min}-{span.max}"
    raise EndpointError(f"failed to assign port: no available bridge port found: {last}")


def _parse(text: str) -> dict[str, Any]:
    """``bridge.json``'s object, read as the Go bridge decodes it: a known key of the wrong
    type (a string port, a numeric profile) makes the whole file unreadable (ValueError)."""
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    port = data.get("port")
    if port is not None and type(port) is not int:
        raise ValueError(f'"port" is not an integer: {json.dumps(port)}')
    for key in _KEY_ORDER[1:]:
        value = data.get(key)
        if value is not None and not isinstance(value, str):
            raise ValueError(f"{json.dumps(key)} is not a string: {json.dumps(value)}")
    return data


def read_bridge_file(game_dir: Path) -> dict[str, Any] | None:
    """The parsed ``bridge.json``, or None when there is no usable one."""
    try:
        return _parse((game_dir / BRIDGE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


@contextlib.contextmanager
def _bridge_lock(game_dir: Path, game_id: str) -> Iterator[None]:
    """Hold the game's ``bridge.lock``; :class:`EndpointError` after the timeout."""
    try:
        ensure_game_dir(game_dir)
    except LooseGameDir as exc:
        raise EndpointError(str(exc)) from None
    busy = EndpointError(f"bridge lock for {game_id} held past 5s")
    with held_flock(game_dir / BRIDGE_LOCK_FILE, BRIDGE_LOCK_TIMEOUT, lambda: busy):
        yield


def _write(game_dir: Path, data: dict[str, Any]) -> Path:
    """Write ``bridge.json``: the Go bridge's keys in its order, empty optional ones left out,
    then any others; indented as the Go bridge indents it, without a final newline."""
    ordered: dict[str, Any] = {key: data[key] for key in _KEY_ORDER[:3] if key in data}
    ordered |= {key: data[key] for key in _KEY_ORDER[3:] if data.get(key)}
    ordered |= {key: value for key, value in data.items() if key not in _KEY_ORDER}
    text = go_html_escape(json.dumps(ordered, indent=2, ensure_ascii=False))
    path = game_dir / BRIDGE_FILE
    write_secret_file(path, text.encode("utf-8"))
    return path


def prepare_endpoint(
    game_dir: Path,
    game_id: str,
    *,
    ranges: Sequence[PortRange] = (),
    fixed_port: int | None = None,
    reset: bool = False,
) -> Endpoint:
    """The port and a new token for the next launch, written to ``bridge.json``."""
    try:
        with _bridge_lock(game_dir, game_id):
            return _prepare(game_dir, game_id, ranges, fixed_port, reset)
    except EndpointError:
        raise
    except OSError as exc:
        raise EndpointError(f"bridge lock for {game_id}: {exc.strerror or exc}") from None


def _prepare(
    game_dir: Path,
    game_id: str,
    ranges: Sequence[PortRange],
    fixed_port: int | None,
    reset: bool,
) -> Endpoint:
    cached = None if reset else read_bridge_file(game_dir)
    token = generate_token()
    reused = False
    if fixed_port is not None:
        if not port_is_free(fixed_port):
            raise EndpointInUse(game_id, fixed_port)
        port = fixed_port
    elif (
        cached is not None
        and type(cached.get("port")) is int
        and 0 < cached["port"] <= 65535
        and isinstance(cached.get("token"), str)
        and cached["token"]
        and cached.get("gameId") in (None, "", game_id)
    ):
        port = cached["port"]
        if not port_is_free(port):
            raise EndpointInUse(game_id, port)
        reused = True
    else:
        port = _allocate(ranges)
    try:
        path = _write(game_dir, {"port": port, "token": token, "gameId": game_id})
    except OSError as exc:
        raise EndpointError(
            f"cannot write {game_dir / BRIDGE_FILE}: {exc.strerror or exc}"
        ) from None
    return Endpoint(port=port, token=token, path=path, reused=reused)


def stamp_bridge_file(
    game_dir: Path, *, port: int, token: str, profile: str, revision: str, started_at: str
) -> str | None:
    """Add the launch's diagnostics, only while the file still holds this launch's endpoint.

    Returns why they could not be written (the file gone or unreadable, the lock or the write
    failing), which the Go bridge reports as a start warning; None when they were written or
    the file holds another launch's endpoint now (nothing to say, as in Go)."""
    path = game_dir / BRIDGE_FILE
    try:
        with _bridge_lock(game_dir, game_dir.name):
            try:
                text = path.read_text(encoding="utf-8")
            except OSError as exc:  # as Go's os.ReadFile words it (a folder opens, then fails)
                step = "read" if exc.errno == errno.EISDIR else "open"
                return f"{step} {exc.filename or path}: {go_reason(exc)}"
            current = _parse(text)
            if current.get("port") != port or current.get("token") != token:
                return None
            current.update(profile=profile, configRevision=revision, startedAt=started_at)
            _write(game_dir, current)
    except OSError as exc:
        return f"{exc.filename or path}: {go_reason(exc)}" if exc.strerror else str(exc)
    except ValueError as exc:
        return f"{path}: {exc}"
    return None
