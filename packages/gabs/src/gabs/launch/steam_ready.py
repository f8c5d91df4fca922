"""Proving, before a ``SteamManaged`` game is spawned on macOS, that Steam is ready for it.

On macOS a game started while the Steam client is still starting, updating or logging in fails
in ways that look like the game's fault. So a ``SteamManaged`` start there first proves the
client ready for the configured app, within the start's connect timeout: it runs short probes
(:mod:`gabs.launch.steam_probe`, each in a child process ``gabs
__gabs_internal_steam_readiness_probe <appid>`` that prints one JSON object, at most 2 s, its
environment without the Steam app variables), every 250 ms, and opens the Steam client once
when the first probe does not find it ready. The answer names the furthest stage seen
(``client_library``, ``ipc_pipe``, ``global_user``, ``steam_api``, ``app_interface``,
``app_state``) and, when not ready, why: ``readiness_timeout`` (Steam answered but was not
ready in time: retry) or ``probe_unavailable`` (the probe itself could not run: not retryable
as it is). A start that is not proven ready answers ``store_client_not_ready`` and spawns
nothing.

Other platforms have no such gate (:func:`readiness_supported` is False), as in the Go bridge.
:func:`set_readiness_for_testing` replaces the platform check and the probe for tests.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, Final

from .steam import open_client
from .steam_probe import RANKS, Observation, probe_app

__all__ = [
    "PROBE_ARGUMENT",
    "ReadinessResult",
    "ensure_ready_within",
    "parse_app_id",
    "readiness_supported",
    "run_probe_child",
    "set_readiness_for_testing",
]

PROBE_ARGUMENT: Final = "__gabs_internal_steam_readiness_probe"
MAX_OUTPUT: Final = 8 * 1024
MAX_DETAIL: Final = 2 * 1024
PROBE_MAX_RUN: Final = 2.0
POLL_INTERVAL: Final = 0.25
_STATES: Final = frozenset({"ready", "not_ready", "unavailable"})
_SCRUBBED: Final = frozenset({"steamappid", "steamgameid", "steamoverlaygameid"})

#: ``probe(app_id, budget_seconds) -> Observation``
Probe = Callable[[str, float], Observation]


@dataclass(frozen=True)
class ReadinessResult:
    """What a readiness wait found; ``waited`` and ``timeout`` in seconds."""

    ready: bool
    stage: str
    timeout: float
    waited: float = 0.0
    reason: str = ""
    detail: str = ""
    retryable: bool = False


def parse_app_id(raw: str) -> int:
    """The app id as Steam takes it: a non-zero decimal 32-bit number; ValueError otherwise."""
    if not (raw.isascii() and raw.isdigit()) or not 0 < int(raw) < 2**32:
        raise ValueError("configured Steam app ID is not a non-zero decimal uint32")
    return int(raw)


def _clip(detail: str) -> str:
    return detail.encode("utf-8")[:MAX_DETAIL].decode("utf-8", "ignore")


def decode_observation(data: bytes) -> Observation:
    """The child's one JSON object; ValueError for anything else."""
    if not data or len(data) > MAX_OUTPUT:
        raise ValueError(f"output size {len(data)} is outside the accepted range")
    found = json.loads(data)
    if not isinstance(found, dict) or not set(found) <= {"state", "stage", "detail"}:
        raise ValueError("not a readiness observation")
    state, stage, detail = found.get("state"), found.get("stage"), found.get("detail", "")
    if state not in _STATES:
        raise ValueError(f"unknown probe state {state!r}")
    if stage not in RANKS:
        raise ValueError(f"unknown readiness stage {stage!r}")
    if not isinstance(detail, str):
        raise ValueError("detail is not a string")
    return {"state": state, "stage": stage, **({"detail": _clip(detail)} if detail else {})}


def _unavailable(detail: str) -> Observation:
    return {"state": "unavailable", "stage": "client_library", "detail": _clip(detail)}


def probe_environment(env: Mapping[str, str]) -> dict[str, str]:
    """The child's environment: the bridge's, without the Steam app variables."""
    return {k: v for k, v in env.items() if k.lower() not in _SCRUBBED}


def probe_command(app_id: str) -> list[str]:
    """This bridge, run again as the probe child."""
    return [sys.executable, "-m", "gabs.launch.steam_ready", PROBE_ARGUMENT, app_id]


def _ended(returncode: int) -> str:
    """How a child ended, in the Go bridge's words (``exit status 7``, ``signal: killed``)."""
    if returncode >= 0:
        return f"exit status {returncode}"
    try:
        name = signal.strsignal(-returncode) or f"signal {-returncode}"
    except ValueError:
        name = f"signal {-returncode}"
    return f"signal: {name.lower()}"


def run_probe_process(
    app_id: str, budget: float, command: Sequence[str] | None = None
) -> Observation:
    """One probe in a child process, within ``budget`` seconds."""
    if budget <= 0:
        return _unavailable("probe deadline elapsed")
    try:
        done = subprocess.run(
            list(command or probe_command(app_id)),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=budget,
            env=probe_environment(os.environ),
            check=False,
        )
    except subprocess.TimeoutExpired:
        return _unavailable("readiness probe helper timed out")
    except OSError as exc:
        return _unavailable(f"readiness probe helper failed: {exc}")
    if done.returncode != 0:
        detail = done.stderr[:MAX_OUTPUT].decode("utf-8", "replace").strip()
        return _unavailable(f"readiness probe helper failed: {detail or _ended(done.returncode)}")
    try:
        return decode_observation(done.stdout)
    except ValueError as exc:
        return _unavailable(f"invalid readiness probe output: {exc}")


def _open_client() -> str:
    return open_client() or ""


_supported: Callable[[], bool] = lambda: sys.platform == "darwin"  # noqa: E731
_probe: Probe = run_probe_process
_opener: Callable[[], str] = _open_client


def readiness_supported() -> bool:
    """Whether this platform has the readiness gate (macOS)."""
    return _supported()


@contextmanager
def set_readiness_for_testing(
    supported: bool, probe: Probe | None = None, opener: Callable[[], str] | None = None
) -> Iterator[None]:
    """Replace the platform check (and the probe, and the client opener) while in the block."""
    global _supported, _probe, _opener
    saved = (_supported, _probe, _opener)
    _supported = lambda: supported  # noqa: E731
    _probe, _opener = probe or _probe, opener or _opener
    try:
        yield
    finally:
        _supported, _probe, _opener = saved


def ensure_ready_within(
    app_id: str, timeout: float, *, poll: float = POLL_INTERVAL
) -> ReadinessResult:
    """Probe until Steam is ready for ``app_id`` or ``timeout`` seconds pass (blocking)."""
    started = time.monotonic()
    stage, detail = "client_library", ""
    try:
        parse_app_id(app_id)
    except ValueError as exc:
        return ReadinessResult(False, stage, timeout, reason="probe_unavailable", detail=str(exc))
    deadline = started + timeout
    answered, opened = False, False
    while (remaining := deadline - time.monotonic()) > 0:
        found = _probe(app_id, min(PROBE_MAX_RUN, remaining))
        in_time = time.monotonic() < deadline
        if RANKS.get(found.get("stage", ""), 0) >= RANKS[stage]:
            stage = found["stage"]
            detail = _clip(found.get("detail") or detail)
        if found.get("state") == "ready" and found.get("stage") == "app_state" and in_time:
            return ReadinessResult(True, "app_state", timeout, time.monotonic() - started)
        answered |= found.get("state") in ("ready", "not_ready")
        if not opened:
            opened = True
            problem = _opener()
            if problem and not detail:
                detail = _clip(f"Steam could not be opened: {problem}")
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        time.sleep(min(poll, remaining))
    return ReadinessResult(
        False,
        stage,
        timeout,
        time.monotonic() - started,
        reason="readiness_timeout" if answered else "probe_unavailable",
        detail=detail,
        retryable=answered,
    )


def run_probe_child(args: Sequence[str], out: IO[str]) -> int:
    """The child: ``PROBE_ARGUMENT <appid>``; prints one observation; exit code 0, or 2 for
    bad arguments."""
    if len(args) != 2 or args[0] != PROBE_ARGUMENT:
        return 2
    try:
        app_id = parse_app_id(args[1])
    except ValueError:
        return 2
    found = probe_app(app_id)
    if "detail" in found:
        found["detail"] = _clip(found["detail"])
    line = json.dumps(found, separators=(",", ":")) + "\n"
    if len(line.encode()) > MAX_OUTPUT:
        return 1
    out.write(line)
    out.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(run_probe_child(sys.argv[1:], sys.stdout))
