"""Ending a command whose stdout or stderr was closed by the reader (``gabs games list | head``).

A Go program that writes to a closed stdout or stderr is killed by SIGPIPE: no message, shell
status 141. Python ignores SIGPIPE and raises :class:`BrokenPipeError` instead, which would end
in a traceback. :func:`end_by_sigpipe` ends the process the Go way.
"""

from __future__ import annotations

import contextlib
import os
import signal
from typing import NoReturn

__all__ = ["SIGPIPE_STATUS", "end_by_sigpipe"]

#: The shell's status of a process killed by SIGPIPE (128 + 13).
SIGPIPE_STATUS = 141


def end_by_sigpipe() -> NoReturn:
    """Die by SIGPIPE, writing nothing more (where there is no SIGPIPE: exit 141)."""
    # Whatever is still buffered for the closed pipe goes nowhere, should anything flush it.
    with contextlib.suppress(OSError):
        null = os.open(os.devnull, os.O_WRONLY)
        for fd in (1, 2):
            with contextlib.suppress(OSError):
                os.dup2(null, fd)
    sigpipe = getattr(signal, "SIGPIPE", None)
    if sigpipe is not None:
        signal.signal(sigpipe, signal.SIG_DFL)
        os.kill(os.getpid(), sigpipe)
    raise SystemExit(SIGPIPE_STATUS)  # the standard streams now lead to the null device
