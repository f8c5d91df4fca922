"""The GABP credentials a running game process actually received, read from its environment.

A game takes its endpoint (``GABP_SERVER_PORT``, ``GABP_TOKEN``, ``GABS_GAME_ID``) from the
environment it was started with, and keeps it for its whole life. When the claim's per-launch
endpoint has moved on (a new launch context, ``resetEndpoint``, an adopted process that never
got this launch's environment), the process still holds the old one: its bridge can never accept
the claim's credential. Reading the environment tells that apart from a bridge that is merely
still loading. Inspection is best effort: where the environment cannot be read (another user's
process, Windows), nothing is concluded.
"""

from __future__ import annotations

import contextlib
import hmac
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from .claim import RuntimeState
from .procs import find_by_name, verify_pid

__all__ = ["ProcessCredentials", "bridge_environment", "bridge_variables", "stale_credentials"]

_NAMES: Final = ("GABP_SERVER_PORT", "GABP_TOKEN", "GABS_GAME_ID")


@dataclass(frozen=True)
class ProcessCredentials:
    """The bridge variables found in one process's environment."""

    pid: int
    port: int
    token: str = field(repr=False)
    game_id: str

    @property
    def usable(self) -> bool:
        """Whether the process carries a complete endpoint (a port and a token)."""
        return self.port > 0 and bool(self.token.strip())


def _pick(entries: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for entry in entries:
        name, sep, value = entry.partition("=")
        if sep and name in _NAMES:
            found[name] = value
    return found


def bridge_variables(pid: int) -> dict[str, str] | None:
    """The bridge variables set in process ``pid``'s environment; None when unreadable."""
    proc = Path("/proc") / str(pid) / "environ"
    if Path("/proc").is_dir():
        try:
            data = proc.read_bytes()
        except OSError:
            return None
        return _pick(data.decode("utf-8", "replace").split("\0"))
    if sys.platform == "win32":
        return None
    try:
        done = subprocess.run(
            ["ps", "eww", "-o", "command=", "-p", str(pid)],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return _pick(done.stdout.split()) if done.returncode == 0 else None


def bridge_environment(pid: int) -> ProcessCredentials | None:
    """The bridge variables of process ``pid``; None when it has none or cannot be read."""
    found = bridge_variables(pid)
    if not found:
        return None
    try:
        port = int(found.get("GABP_SERVER_PORT", "0") or 0)
    except ValueError:
        port = 0
    return ProcessCredentials(pid, port, found.get("GABP_TOKEN", ""), found.get("GABS_GAME_ID", ""))


def _candidates(claim: RuntimeState, stop_process_name: str) -> list[int]:
    pids: list[int] = []
    if claim.game_pid > 0 and verify_pid(claim.game_pid, claim.pid_start_time)[0] == "running":
        pids.append(claim.game_pid)
    name = stop_process_name or claim.stop_process_name
    if name:
        with contextlib.suppress(OSError):
            pids.extend(pid for pid in find_by_name(name) if pid not in pids)
    return pids


def stale_credentials(
    claim: RuntimeState, stop_process_name: str = ""
) -> ProcessCredentials | None:
    """The game process that runs with another endpoint than ``claim``'s, if one is seen.

    The processes looked at are the claim's game pid (while its fingerprint matches) and those
    named ``stop_process_name``; the first one whose environment carries bridge variables
    decides. None when the claim has no endpoint, nothing is readable, or the endpoint agrees.
    """
    if not claim.has_endpoint:
        return None
    for pid in _candidates(claim, stop_process_name):
        found = bridge_environment(pid)
        if found is None:
            continue
        if not found.usable:
            return None
        same = found.port == claim.endpoint_port and hmac.compare_digest(
            found.token.encode(), claim.endpoint_token.encode()
        )
        return None if same else found
    return None
