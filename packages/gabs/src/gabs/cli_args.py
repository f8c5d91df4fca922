"""The command line's process-wide flags, taken out of the arguments wherever they are.

As in the Go bridge, ``--configDir DIR``, ``--log-level L``, ``--reconnectBackoff MIN..MAX``,
``--grace D``, ``--http ADDR`` and ``--addr ADDR`` (one or two dashes, ``=VALUE`` or the next
argument) may appear before or after the command: ``gabs games list --configDir /x`` acts on
``/x``. ``--config-dir`` is our spelling of ``--configDir``. A ``--`` ends this: everything after
it is an argument, so a game id that starts with a dash stays usable.
"""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from .go_format import go_duration

__all__ = [
    "GLOBAL_FLAGS",
    "GlobalFlags",
    "UsageError",
    "hoist_global_flags",
    "log_level",
    "parse_backoff",
    "parse_duration",
    "setup_logging",
]

#: Flag names (without dashes) and the attribute each sets.
GLOBAL_FLAGS: Final = {
    "configDir": "config_dir",
    "config-dir": "config_dir",
    "log-level": "log_level",
    "reconnectBackoff": "reconnect_backoff",
    "grace": "grace",
    "http": "http",
    "addr": "addr",
}
DEFAULT_BACKOFF: Final = "100ms..1s"
_UNITS: Final = {
    "ns": 1e-9,
    "us": 1e-6,
    "µs": 1e-6,
    "μs": 1e-6,
    "ms": 1e-3,
    "s": 1.0,
    "m": 60.0,
    "h": 3600.0,
}
_DURATION_PART: Final = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)")
LEVELS: Final = {
    "trace": logging.DEBUG,
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warn": logging.WARNING,
    "warning": logging.WARNING,
    "error": logging.ERROR,
}


class UsageError(ValueError):
    """The command line is wrong (exit code 2)."""


@dataclass
class GlobalFlags:
    """The process-wide flags (None: not given)."""

    config_dir: str | None = None
    log_level: str | None = None
    reconnect_backoff: str | None = None
    grace: str | None = None
    http: str | None = None
    addr: str | None = None


def _flag_name(token: str) -> tuple[str, str | None] | None:
    if len(token) < 2 or not token.startswith("-"):
        return None
    trimmed = token[2:] if token.startswith("--") else token[1:]
    name, sep, value = trimmed.partition("=")
    if name not in GLOBAL_FLAGS:
        return None
    return name, value if sep else None


def hoist_global_flags(args: Sequence[str]) -> tuple[GlobalFlags, list[str]]:
    """The global flags and the remaining arguments (``--`` and what follows kept as is)."""
    flags = GlobalFlags()
    rest: list[str] = []
    index = 0
    while index < len(args):
        token = args[index]
        if token == "--":
            rest += args[index:]
            break
        found = _flag_name(token)
        if found is None:
            rest.append(token)
            index += 1
            continue
        name, value = found
        if value is None:
            if index + 1 >= len(args):
                raise UsageError(f"flag --{name} requires a value")
            value = args[index + 1]
            index += 1
        setattr(flags, GLOBAL_FLAGS[name], value)
        index += 1
    return flags, rest


def parse_duration(text: str) -> float:
    """A Go duration (``300ms``, ``1.5s``, ``2m30s``) in seconds."""
    text = text.strip()
    sign = -1.0 if text.startswith("-") else 1.0
    body = text.lstrip("+-")
    if body == "0":
        return 0.0
    position, total = 0, 0.0
    while position < len(body):
        match = _DURATION_PART.match(body, position)
        if match is None:
            raise ValueError(f'time: invalid duration "{text}"')
        total += float(match.group(1)) * _UNITS[match.group(2)]
        position = match.end()
    if not body:
        raise ValueError(f'time: invalid duration "{text}"')
    return sign * total


def parse_backoff(text: str | None) -> tuple[float, float]:
    """``MIN..MAX`` (``inf`` allowed as MAX) in seconds; :class:`UsageError` when invalid."""
    if not text or text == DEFAULT_BACKOFF:
        return 0.1, 1.0
    parts = text.split("..")
    if len(parts) != 2:
        raise UsageError("invalid --reconnectBackoff: invalid format, expected 'min..max'")
    # Checked in the Go bridge's order, with its words: the min first, then the max.
    try:
        low = parse_duration(parts[0])
    except ValueError as exc:
        raise UsageError(f"invalid --reconnectBackoff: invalid min duration: {exc}") from None
    if low < 0:
        raise UsageError("invalid --reconnectBackoff: min duration cannot be negative")
    if parts[1] == "inf":
        high = 24 * 3600.0
    else:
        try:
            high = parse_duration(parts[1])
        except ValueError as exc:
            raise UsageError(f"invalid --reconnectBackoff: invalid max duration: {exc}") from None
        if high < 0:
            raise UsageError("invalid --reconnectBackoff: max duration cannot be negative")
    if int(low * 1e9) > int(high * 1e9):  # Go compares whole nanoseconds
        raise UsageError(
            f"invalid --reconnectBackoff: min duration ({go_duration(low, unit=1e-9)}) cannot "
            f"be greater than max duration ({go_duration(high, unit=1e-9)})"
        )
    return low, high


def log_level(name: str | None) -> tuple[int, str | None]:
    """The logging level for a ``--log-level``/``$GABS_LOG_LEVEL`` value, and a warning when
    the name is unknown (then ``info``, as the Go bridge does)."""
    if not name:
        return logging.INFO, None
    level = LEVELS.get(name.strip().lower())
    if level is None:
        return logging.INFO, (
            f"unknown log level {name!r} (use trace, debug, info, warn or error); using info"
        )
    return level, None


def setup_logging(level: int, *, trace: bool = False) -> None:
    """Log to stderr only (stdout carries the protocol on stdio)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    for existing in list(root.handlers):
        root.removeHandler(existing)
    root.addHandler(handler)
    root.setLevel(level)
    if not trace:
        for noisy in ("mcp", "httpx", "httpx2", "uvicorn.access"):
            logging.getLogger(noisy).setLevel(max(level, logging.WARNING))
