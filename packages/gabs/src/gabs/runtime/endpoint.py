"""The game's GABP endpoint: a loopback port and a per-launch token, and ``bridge.json``.

``<config-dir>/<gameId>/bridge.json`` has the Go bridge's shape, ``{"port", "token",
"gameId"}`` plus ``profile``, ``configRevision`` and ``startedAt`` once the game is spawned.
It is a diagnostic file and the endpoint cache: the next start reuses the port when it is free
(``resetEndpoint`` picks a new one), the token is new on every launch. The game takes both from
its environment, never from the file. Ports come from ``portRanges.customRanges``, else the
Go bridge's default ranges, starting at a random offset. The file holds a secret, so unlike the
Go bridge's it is written with mode 0600.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from gabp.handoff import generate_token, write_secret_file
from gabs.config import PortRange

__all__ = [
    "BRIDGE_FILE",
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


def read_bridge_file(game_dir: Path) -> dict[str, Any] | None:
    """The parsed ``bridge.json``, or None when there is no usable one."""
    try:
        data = json.loads((game_dir / BRIDGE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _write(game_dir: Path, data: dict[str, Any]) -> Path:
    path = game_dir / BRIDGE_FILE
    write_secret_file(path, (json.dumps(data, indent=2) + "\n").encode("utf-8"))
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
    game_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    cached = None if reset else read_bridge_file(game_dir)
    token = generate_token()
    reused = False
    if fixed_port is not None:
        if not port_is_free(fixed_port):
            raise EndpointInUse(game_id, fixed_port)
        port = fixed_port
    elif (
        cached is not None
        and isinstance(cached.get("port"), int)
        and 0 < cached["port"] <= 65535
        and cached.get("token")
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
) -> None:
    """Add the launch's diagnostics, only while the file still holds this launch's endpoint."""
    current = read_bridge_file(game_dir)
    if current is None or current.get("port") != port or current.get("token") != token:
        return
    current.update(configRevision=revision, startedAt=started_at)
    if profile:
        current["profile"] = profile
    with contextlib.suppress(OSError):
        _write(game_dir, current)
