"""Running lifecycle hooks: an executable and its arguments (never a shell), bounded.

A hook runs in a process group of its own; when its timeout passes the whole group is killed
and the result says so. Output is captured up to 16 KiB per stream (the end is kept: that is
where the evidence is). A status hook's exit code means running (``runningExitCodes``, default
0), stopped (``stoppedExitCodes``, default 1) or, for anything else, a timeout or a failure to
run, unknown; a stop or kill hook succeeded only with exit code 0.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from dataclasses import dataclass
from typing import Final, Literal

import anyio
from anyio.abc import ByteReceiveStream

from gabs.go_format import go_duration

from .environment import hook_environment
from .resolve import ResolvedHook

__all__ = [
    "HookResult",
    "Verdict",
    "classify_status",
    "run_action_hook",
    "run_hook",
    "run_status_hook",
]

OUTPUT_CAP: Final = 16 * 1024
_PIPE_GRACE: Final = 2.0
_REAP_WAIT: Final = 5.0
Verdict = Literal["running", "stopped", "unknown"]


@dataclass(frozen=True)
class HookResult:
    """What one hook run did. ``exit_code`` is -1 when it did not exit on its own."""

    exit_code: int
    timed_out: bool = False
    exec_error: str | None = None
    stdout_tail: str = ""
    stderr_tail: str = ""
    tree_kill_warning: bool = False
    duration: float = 0.0

    def describe(self) -> str:
        if self.timed_out:
            return f"timed out after {go_duration(self.duration)}"
        if self.exec_error is not None:
            return f"failed to run: {self.exec_error}"
        return f"exit code {self.exit_code}"

    def verification_detail(self, verdict: str) -> str:
        """This status-hook run in a stop's verification evidence, in the Go bridge's words."""
        if verdict in ("running", "stopped"):
            return f"status hook reports {verdict} (exit {self.exit_code})"
        if self.timed_out:
            return "status hook timed out"
        if self.exec_error is not None:
            return f"status hook failed to run: {self.exec_error}"
        return f"status hook exit {self.exit_code} is unclassified"


class _Tail:
    def __init__(self) -> None:
        self.data = bytearray()

    async def drain(self, stream: ByteReceiveStream) -> None:
        with contextlib.suppress(
            anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError
        ):
            while True:
                chunk = await stream.receive()
                self.data += chunk
                if len(self.data) > OUTPUT_CAP:
                    del self.data[: len(self.data) - OUTPUT_CAP]

    def text(self) -> str:
        return bytes(self.data).decode("utf-8", "replace")


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
        if hasattr(os, "killpg"):
            os.killpg(pid, signal.SIGKILL)
        else:
            os.kill(pid, signal.SIGTERM)


async def run_hook(
    hook: ResolvedHook, *, game_id: str, profile: str, timeout: float | None = None
) -> HookResult:
    """Run ``hook`` once, within ``timeout`` seconds (default: its own)."""
    limit = timeout if timeout is not None else float(hook.timeout_seconds or 5)
    env = hook_environment(hook, game_id=game_id, profile=profile)
    started = time.monotonic()
    try:
        process = await anyio.open_process(
            [hook.command, *hook.args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=hook.working_dir or None,
            env=env,
            start_new_session=os.name == "posix",
            creationflags=getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)
            if os.name == "nt"
            else 0,
        )
    except OSError as exc:
        return HookResult(exit_code=-1, exec_error=exc.strerror or str(exc), duration=0.0)
    stdout, stderr = _Tail(), _Tail()
    timed_out = False
    async with process, anyio.create_task_group() as tg:
        assert process.stdout is not None and process.stderr is not None
        tg.start_soon(stdout.drain, process.stdout)
        tg.start_soon(stderr.drain, process.stderr)
        with anyio.move_on_after(max(limit, 0.0)):
            await process.wait()
        if process.returncode is None:
            timed_out = True
            if os.name == "posix":
                _kill_group(process.pid)
            else:
                process.kill()
            with anyio.CancelScope(shield=True), anyio.move_on_after(_REAP_WAIT):
                await process.wait()
        # A grandchild that outlived the hook may hold its pipes: read on only briefly.
        tg.cancel_scope.deadline = anyio.current_time() + _PIPE_GRACE
    code = process.returncode
    return HookResult(
        exit_code=-1 if timed_out or code is None or code < 0 else code,
        timed_out=timed_out,
        stdout_tail=stdout.text(),
        stderr_tail=stderr.text(),
        tree_kill_warning=timed_out,
        duration=time.monotonic() - started,
    )


def classify_status(hook: ResolvedHook, result: HookResult) -> Verdict:
    """What a status hook's result says about the game."""
    if result.exec_error is not None or result.timed_out or result.exit_code < 0:
        return "unknown"
    if result.exit_code in (hook.running_exit_codes or (0,)):
        return "running"
    if result.exit_code in (hook.stopped_exit_codes or (1,)):
        return "stopped"
    return "unknown"


async def run_status_hook(
    hook: ResolvedHook, *, game_id: str, profile: str, max_wait: float | None = None
) -> tuple[Verdict, HookResult]:
    """Run a status hook (its timeout, or less when ``max_wait`` is shorter)."""
    limit = float(hook.timeout_seconds or 5)
    if max_wait is not None:
        limit = min(limit, max(max_wait, 0.0))
    result = await run_hook(hook, game_id=game_id, profile=profile, timeout=limit)
    return classify_status(hook, result), result


async def run_action_hook(
    hook: ResolvedHook, *, game_id: str, profile: str
) -> tuple[bool, HookResult]:
    """Run a stop or kill hook; True when it exited with 0 in time."""
    result = await run_hook(hook, game_id=game_id, profile=profile)
    ok = result.exec_error is None and not result.timed_out and result.exit_code == 0
    return ok, result
