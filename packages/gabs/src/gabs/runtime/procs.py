"""Processes by pid and by name, without trusting a pid that may have been reused.

A pid is identified together with its start time (a fingerprint, the Go bridge's value: clock
ticks since boot on Linux, microseconds since the epoch from ``sysctl`` on macOS; ``ps``'s
start time elsewhere), recorded when the game is started; a later process that
got the same number has a different start time and is never taken for the game. An
inspection that fails is ``unknown``, never ``stopped``.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import Final, Literal

__all__ = [
    "Verdict",
    "find_by_name",
    "process_start_time",
    "signal_process",
    "verify_pid",
]

Verdict = Literal["running", "stopped", "unknown"]
_PROC: Final = Path("/proc")
_P_STAT: Final = 36  # offset of extern_proc.p_stat in a 64-bit kinfo_proc
_SZOMB: Final = 5


class ProcessGone(LookupError):
    """The lookup worked and there is no such process."""


def _linux_stat(pid: int) -> list[str]:
    try:
        data = (_PROC / str(pid) / "stat").read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        raise ProcessGone(pid) from None
    fields = data.rsplit(")", 1)[-1].split()
    if len(fields) < 20:
        raise OSError(f"malformed /proc/{pid}/stat")
    return fields


def process_start_time(pid: int) -> int:
    """An opaque start-time value for ``pid``: :class:`ProcessGone` when there is none,
    :class:`OSError` when it cannot be read."""
    if pid <= 0:
        raise ProcessGone(pid)
    if _PROC.is_dir():
        fields = _linux_stat(pid)
        if fields[0] in ("Z", "X"):
            raise ProcessGone(pid)  # ended, not yet reaped by its parent
        return int(fields[19])
    if sys.platform == "win32":
        import ctypes

        kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
        handle = kernel32.OpenProcess(0x1000, False, pid)
        if not handle:
            raise ProcessGone(pid)
        try:
            code = ctypes.c_ulong()
            if not kernel32.GetExitCodeProcess(handle, ctypes.byref(code)) or code.value != 259:
                raise ProcessGone(pid)
            times = [ctypes.c_ulonglong() for _ in range(4)]
            if not kernel32.GetProcessTimes(handle, *(ctypes.byref(t) for t in times)):
                raise OSError("GetProcessTimes failed")
            return int(times[0].value)
        finally:
            kernel32.CloseHandle(handle)
    if sys.platform == "darwin":
        return _darwin_start_time(pid, _kinfo_proc(pid))
    try:
        done = subprocess.run(
            ["ps", "-o", "lstart=,stat=", "-p", str(pid)],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise OSError(f"ps failed: {exc}") from None
    line = done.stdout.strip()
    if done.returncode != 0 or not line:
        raise ProcessGone(pid)
    if line.split()[-1].startswith("Z"):
        raise ProcessGone(pid)
    # ps's start time, to the second, as microseconds since the epoch: the same value in
    # every process that reads it (unlike a salted str hash)
    started = time.strptime(" ".join(line.split()[:-1]), "%a %b %d %H:%M:%S %Y")
    return int(time.mktime(started)) * 1_000_000


def _kinfo_proc(pid: int) -> bytes:
    """The ``kinfo_proc`` of ``pid`` from ``sysctl kern.proc.pid`` (macOS); empty when there
    is no such process."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    mib = (ctypes.c_int * 4)(1, 14, 1, pid)  # CTL_KERN, KERN_PROC, KERN_PROC_PID
    buffer = ctypes.create_string_buffer(1024)
    size = ctypes.c_size_t(len(buffer))
    if libc.sysctl(mib, 4, buffer, ctypes.byref(size), None, ctypes.c_size_t(0)) != 0:
        code = ctypes.get_errno()
        if code in (errno.ESRCH, errno.ENOENT):
            return b""
        raise OSError(code, f"sysctl kern.proc.pid.{pid}: {os.strerror(code)}")
    return buffer.raw[: size.value]


def _darwin_start_time(pid: int, info: bytes) -> int:
    """The Go bridge's macOS fingerprint: ``p_starttime`` of ``kinfo_proc`` (its first
    ``timeval``) as seconds * 10^6 + microseconds, so either bridge verifies the other's
    claims. A zombie (``p_stat`` ``SZOMB``) is gone."""
    if not info:
        raise ProcessGone(pid)
    if len(info) < 12:
        raise OSError(f"sysctl kern.proc.pid.{pid}: short kinfo_proc ({len(info)} bytes)")
    seconds, micros = struct.unpack_from("<qi", info, 0)
    if len(info) > _P_STAT and info[_P_STAT] == _SZOMB:
        raise ProcessGone(pid)
    return int(seconds) * 1_000_000 + int(micros)


def fingerprint(pid: int) -> int:
    """``pid``'s start time, or 0 when it cannot be read (existence-only evidence then)."""
    try:
        return process_start_time(pid)
    except (ProcessGone, OSError, ValueError):
        return 0


def verify_pid(pid: int, recorded: int) -> tuple[Verdict, str]:
    """Whether the process recorded as (``pid``, ``recorded`` start time) still runs."""
    try:
        start = process_start_time(pid)
    except ProcessGone:
        return "stopped", f"pid {pid} not found"
    except (OSError, ValueError) as exc:
        return "unknown", f"pid {pid} inspection failed: {exc}"
    if recorded == 0:
        return "running", f"pid {pid} alive (no start-time fingerprint recorded)"
    if start != recorded:
        return (
            "stopped",
            f"pid {pid} was reused (start time {start}, recorded {recorded}); the tracked "
            "process is gone",
        )
    return "running", f"pid {pid} alive, start-time fingerprint matches"


def _linux_matches(pid: int, name: str) -> bool:
    """Whether ``pid`` is named ``name``. A process gone meanwhile is no match; a ``comm``
    that cannot be read leaves ``cmdline`` to decide, and is the error when that does not
    match either (as Go: a match is evidence whatever else could not be read)."""
    folder = _PROC / str(pid)
    problem: OSError | None = None
    try:
        if (folder / "comm").read_text(errors="replace").strip() == name:
            return True
    except (FileNotFoundError, ProcessLookupError):
        pass
    except OSError as exc:
        problem = exc
    try:
        cmdline = (folder / "cmdline").read_bytes()
    except (FileNotFoundError, ProcessLookupError):
        return False
    argv0 = cmdline.split(b"\0", 1)[0].decode("utf-8", "replace")
    if argv0 and (argv0 == name or os.path.basename(argv0) == name):
        return True
    if problem is not None:
        raise problem
    return False


def find_by_name(name: str) -> list[int]:
    """The pids of processes named ``name`` (comm, argv[0] or its basename on Linux);
    :class:`OSError` when the process table cannot be read."""
    if _PROC.is_dir():
        found = []
        failure: OSError | None = None
        for entry in _PROC.iterdir():
            if not entry.name.isdigit():
                continue
            try:
                if _linux_matches(int(entry.name), name):
                    found.append(int(entry.name))
            except OSError as exc:
                failure = exc
        if not found and failure is not None:
            raise OSError(f"process table not fully inspectable: {failure}")
        return sorted(found, key=str)  # the Go bridge's order: /proc's names, sorted as text
    if sys.platform == "win32":
        command = ["tasklist", "/FI", f"IMAGENAME eq {name}", "/FO", "CSV", "/NH"]
    else:
        command = ["pgrep", "-x", name]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise OSError(f"process scan failed: {exc}") from None
    if sys.platform == "win32":
        pids = []
        for line in done.stdout.splitlines():
            parts = [part.strip('"') for part in line.split(",")]
            if len(parts) >= 2 and parts[0].lower() == name.lower() and parts[1].isdigit():
                pids.append(int(parts[1]))
        return pids
    if done.returncode == 1:
        return []
    if done.returncode != 0:
        raise OSError(f"pgrep failed: {done.stderr.strip()}")
    return sorted(int(line) for line in done.stdout.split() if line.isdigit())


def signal_process(pid: int, *, force: bool) -> None:
    """SIGTERM (or SIGKILL with ``force``) to ``pid``, and to its group when it leads one."""
    if sys.platform == "win32":
        flags = ["/F"] if force else []
        subprocess.run(
            ["taskkill", *flags, "/PID", str(pid)], capture_output=True, timeout=10, check=False
        )
        return
    signum = signal.SIGKILL if force else signal.SIGTERM
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if os.getpgid(pid) == pid:
            os.killpg(pid, signum)
            return
    os.kill(pid, signum)
