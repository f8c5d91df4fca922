"""The command line's process-wide flags, taken out of the arguments wherever they are.

As in the Go bridge, ``--configDir DIR``, ``--log-level L``, ``--reconnectBackoff MIN..MAX``,
``--grace D``, ``--http ADDR`` and ``--addr ADDR`` (one or two dashes, ``=VALUE`` or the next
argument) may appear before or after the command: ``gabs games list --configDir /x`` acts on
``/x``. ``--config-dir`` is our spelling of ``--configDir``. A ``--`` ends this: everything after
it is an argument, so a game id that starts with a dash stays usable.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from .go_format import go_duration_ns

__all__ = [
    "GLOBAL_FLAGS",
    "GlobalFlags",
    "UsageError",
    "go_duration_text",
    "hoist_global_flags",
    "log_level",
    "parse_backoff",
    "parse_duration",
    "parse_duration_ns",
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
#: Go's ``time.ParseDuration`` units, in nanoseconds (``µs`` and ``μs`` as UTF-8 bytes).
_UNITS: Final = {
    b"ns": 1,
    b"us": 1_000,
    "µs".encode(): 1_000,
    "μs".encode(): 1_000,
    b"ms": 1_000_000,
    b"s": 1_000_000_000,
    b"m": 60_000_000_000,
    b"h": 3_600_000_000_000,
}
_TOP: Final = 1 << 63  # one past the largest int64
_WRAP: Final = (1 << 64) - 1
_DIGITS: Final = b"0123456789"
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


def _time_quote(raw: bytes) -> str:
    """A string as Go's ``time`` package quotes it in errors: ``"..."``, with ``"`` and ``\\``
    escaped and every byte outside printable ASCII as ``\\xNN``."""
    out = []
    for byte in raw:
        if byte >= 0x80 or byte < 0x20:
            out.append(f"\\x{byte:02x}")
        else:
            out.append(("\\" if byte in b'"\\' else "") + chr(byte))
    return '"' + "".join(out) + '"'


def _leading_fraction(body: bytes, position: int) -> tuple[int, float, int]:
    """Go's ``leadingFraction``: the digits' value, its scale, the position after them."""
    value, scale, overflow = 0, 1.0, False
    while position < len(body) and body[position] in _DIGITS:
        digit = body[position] - 48
        position += 1
        if overflow:
            continue
        if value > (_TOP - 1) // 10 or value * 10 + digit > _TOP:
            overflow = True  # it stops taking precision, without an error
            continue
        value, scale = value * 10 + digit, scale * 10
    return value, scale, position


def parse_duration_ns(text: str) -> int:
    """A Go duration in nanoseconds, by Go's ``time.ParseDuration`` rules and with its errors.

    A sign, then one or more numbers (digits, a fraction, or both) each with a unit (``ns``,
    ``us``, ``µs``, ``μs``, ``ms``, ``s``, ``m``, ``h``); ``0`` alone needs none. A sum beyond
    int64 nanoseconds is invalid. No spaces. :class:`ValueError` carries Go's message.
    """
    raw = os.fsencode(text)
    invalid = f"time: invalid duration {_time_quote(raw)}"
    body, negative = raw, False
    if body[:1] in (b"-", b"+"):
        body, negative = body[1:], body[:1] == b"-"
    if body == b"0":
        return 0
    if not body:
        raise ValueError(invalid)
    total, position = 0, 0
    while position < len(body):
        if body[position] not in b".0123456789":
            raise ValueError(invalid)
        start, whole = position, 0
        while position < len(body) and body[position] in _DIGITS:
            if whole > _TOP // 10:
                raise ValueError(invalid)
            whole = whole * 10 + body[position] - 48
            if whole > _TOP:
                raise ValueError(invalid)
            position += 1
        has_whole = position != start
        fraction, scale, has_fraction = 0, 1.0, False
        if position < len(body) and body[position] == 46:  # "."
            start = position + 1
            fraction, scale, position = _leading_fraction(body, start)
            has_fraction = position != start
        if not has_whole and not has_fraction:
            raise ValueError(invalid)
        start = position
        while position < len(body) and body[position] not in b".0123456789":
            position += 1
        if position == start:
            raise ValueError(f"time: missing unit in duration {_time_quote(raw)}")
        unit = _UNITS.get(body[start:position])
        if unit is None:
            name = _time_quote(body[start:position])
            raise ValueError(f"time: unknown unit {name} in duration {_time_quote(raw)}")
        if whole > _TOP // unit:
            raise ValueError(invalid)
        whole *= unit
        if fraction > 0:  # Go's float64 step, nanosecond-exact up to hours
            whole += int(float(fraction) * (float(unit) / scale))
            if whole > _TOP:
                raise ValueError(invalid)
        total = (total + whole) & _WRAP  # Go's uint64 sum
        if total > _TOP:
            raise ValueError(invalid)
    if negative:
        return -total
    if total > _TOP - 1:
        raise ValueError(invalid)
    return total


def parse_duration(text: str) -> float:
    """A Go duration (``300ms``, ``1.5s``, ``2m30s``) in seconds (see :func:`parse_duration_ns`)."""
    return parse_duration_ns(text) / 1e9


def go_duration_text(ns: int) -> str:
    """Whole nanoseconds as Go's ``Duration.String`` prints them (``1m30s``, ``1.5µs``)."""
    return go_duration_ns(ns)


def parse_backoff(text: str | None) -> tuple[float, float]:
    """``MIN..MAX`` (``inf`` allowed as MAX) in seconds; :class:`UsageError` when invalid."""
    if not text or text == DEFAULT_BACKOFF:
        return 0.1, 1.0
    parts = text.split("..")
    if len(parts) != 2:
        raise UsageError("invalid --reconnectBackoff: invalid format, expected 'min..max'")
    # Checked in the Go bridge's order, with its words: the min first, then the max.
    try:
        low = parse_duration_ns(parts[0])
    except ValueError as exc:
        raise UsageError(f"invalid --reconnectBackoff: invalid min duration: {exc}") from None
    if low < 0:
        raise UsageError("invalid --reconnectBackoff: min duration cannot be negative")
    if parts[1] == "inf":
        high = 24 * 3_600_000_000_000
    else:
        try:
            high = parse_duration_ns(parts[1])
        except ValueError as exc:
            raise UsageError(f"invalid --reconnectBackoff: invalid max duration: {exc}") from None
        if high < 0:
            raise UsageError("invalid --reconnectBackoff: max duration cannot be negative")
    if low > high:
        raise UsageError(
            f"invalid --reconnectBackoff: min duration ({go_duration_text(low)}) cannot "
            f"be greater than max duration ({go_duration_text(high)})"
        )
    return low / 1e9, high / 1e9


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
