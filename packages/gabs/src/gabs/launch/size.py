"""The size of a launch against the operating system's exec limits (``spec_too_large``).

A command line or environment too large for the OS fails in the kernel with an opaque error
(``E2BIG``, a refused ``CreateProcess``). The complete argv (executable first) and the complete
environment are measured before spawning, the way the platform charges them, so the start is
refused with the part at fault instead:

- Linux: every argv and environment string with its NUL terminator, one pointer per string and
  a second copy of the executable path, against ``min(RLIMIT_STACK / 4, 6 MiB)`` (at least 32
  pages); each single string is also capped at 32 pages.
- macOS: strings, one pointer per string, both vectors' NULL terminators and the alignment of
  the strings' tail, against ``ARG_MAX`` (``kern.argmax``); no per-string cap.
- Windows: the environment block and the quoted command line, in UTF-16 units, each against
  32760 (the 32767 hard limit less a small margin).

Elsewhere the limits are not known exactly and nothing is refused in advance.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal

__all__ = [
    "WINDOWS_LIMIT",
    "ExecLimits",
    "SizeIssue",
    "check_process_size",
    "check_unix_size",
    "check_windows_size",
    "current_exec_limits",
]

#: Windows: the environment block and the command line, in UTF-16 units, with a margin.
WINDOWS_LIMIT: Final = 32760
_LINUX_STACK_DEFAULT: Final = 8 << 20
_POINTER: Final = 8 if sys.maxsize > 2**32 else 4


@dataclass(frozen=True)
class SizeIssue:
    """A launch over a platform limit: ``part`` is ``"args"`` or ``"env"``."""

    part: Literal["args", "env"]
    message: str


@dataclass(frozen=True)
class ExecLimits:
    """How a Unix kernel charges an exec against its argument space.

    ``combined`` 0 means no exact limit is known (nothing is refused); ``per_string`` 0 means
    no cap on a single string.
    """

    combined: int
    per_string: int = 0
    pointer: int = _POINTER
    terminators: int = 0
    align: bool = False
    executable_path: bool = False


def _linux_limits() -> ExecLimits | None:
    try:
        import resource

        stack = resource.getrlimit(resource.RLIMIT_STACK)[0]
        page = os.sysconf("SC_PAGE_SIZE")
    except (ImportError, OSError, ValueError):
        return None
    floor = 32 * page
    if stack == resource.RLIM_INFINITY or stack < 0:
        stack = 1 << 62
    combined = max(min(stack // 4, _LINUX_STACK_DEFAULT // 4 * 3), floor)
    return ExecLimits(combined=combined, per_string=floor, executable_path=True)


def _darwin_limits() -> ExecLimits | None:
    try:
        arg_max = os.sysconf("SC_ARG_MAX")
    except (OSError, ValueError):
        return None
    if arg_max <= 0:
        return None
    return ExecLimits(combined=arg_max, terminators=2, align=True)


def current_exec_limits() -> ExecLimits | None:
    """This machine's Unix exec limits; None where they are not known exactly."""
    if sys.platform.startswith("linux"):
        return _linux_limits()
    if sys.platform == "darwin":
        return _darwin_limits()
    return None


def check_process_size(argv: Sequence[str], env: Mapping[str, str]) -> SizeIssue | None:
    """The issue of a complete launch (argv with the executable first, the whole environment)
    on this platform, or None when it fits or no exact limit is known."""
    if sys.platform == "win32":
        return check_windows_size(argv, env)
    limits = current_exec_limits()
    if limits is None:
        return None
    return check_unix_size(argv, env, limits)


def _nbytes(text: str) -> int:
    return len(os.fsencode(text))


def check_unix_size(
    argv: Sequence[str], env: Mapping[str, str], limits: ExecLimits
) -> SizeIssue | None:
    """The issue of a launch under explicit Unix ``limits``, or None."""
    if limits.combined <= 0:
        return None
    env_sizes = [
        (f"environment entry {key}", _nbytes(key) + _nbytes(value) + 2)  # "=" and the NUL
        for key, value in env.items()
    ]
    arg_sizes = [(f"argument {index}", _nbytes(arg) + 1) for index, arg in enumerate(argv)]
    part: Literal["args", "env"]
    for part, sizes in (("env", env_sizes), ("args", arg_sizes)):
        for what, size in sizes:
            if limits.per_string and size > limits.per_string:
                return SizeIssue(
                    part,
                    f"{what} is {size} bytes including its terminator, exceeding the "
                    f"per-string exec limit of {limits.per_string}",
                )
    env_strings = sum(size for _, size in env_sizes)
    arg_strings = sum(size for _, size in arg_sizes)
    env_charge = env_strings + len(env) * limits.pointer
    arg_charge = arg_strings + len(argv) * limits.pointer
    if limits.terminators > 0:
        arg_charge += limits.pointer + max(limits.terminators - 2, 0) * limits.pointer
        env_charge += limits.pointer
    if limits.executable_path and argv:
        arg_charge += _nbytes(argv[0]) + 1
    if limits.align and limits.pointer > 1:
        arg_charge += -(env_strings + arg_strings) % limits.pointer
    total = env_charge + arg_charge
    if total <= limits.combined:
        return None
    return SizeIssue(
        "env" if env_charge > arg_charge else "args",
        f"materialized argv+environment requires {total} bytes including pointer tables and "
        f"platform overhead, exceeding the platform limit of {limits.combined}",
    )


def _utf16(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def check_windows_size(argv: Sequence[str], env: Mapping[str, str]) -> SizeIssue | None:
    """The issue of a launch under the Windows limits, or None. The command line is measured
    as :mod:`subprocess` quotes it, which is what the process receives."""
    block = sum(_utf16(key) + _utf16(value) + 2 for key, value in env.items())
    if block > WINDOWS_LIMIT:
        return SizeIssue(
            "env",
            f"materialized environment block is {block} UTF-16 units, exceeding the Windows "
            f"limit of {WINDOWS_LIMIT}",
        )
    line = _utf16(subprocess.list2cmdline(list(argv)))
    if line > WINDOWS_LIMIT:
        return SizeIssue(
            "args",
            f"materialized command line is {line} UTF-16 units after quoting, exceeding the "
            f"Windows limit of {WINDOWS_LIMIT}",
        )
    return None
