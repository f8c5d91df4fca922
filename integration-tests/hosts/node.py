"""The npm side of the host tests: installing the pinned packages once, and the commands they
provide.

``package-lock.json`` pins the official TypeScript SDK and the MCP Inspector.
:func:`ensure_installed` runs ``npm ci`` into this folder's ``node_modules`` when the lock file
changed since the last install (a stamp in ``node_modules`` records its hash), under a file lock,
so that parallel test workers install once and then share the result.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Final

__all__ = [
    "HERE",
    "INSPECTOR",
    "MCPDO",
    "NodeSetupError",
    "ensure_installed",
    "node_environment",
]

HERE: Final = Path(__file__).resolve().parent
MODULES: Final = HERE / "node_modules"
#: The Inspector's launcher, what ``npx @modelcontextprotocol/inspector`` runs.
INSPECTOR: Final = MODULES / ".bin" / "mcp-inspector"
#: The Inspector's connection CLI (one connection, many commands).
MCPDO: Final = MODULES / ".bin" / "mcpdo"
LOCK_FILE: Final = HERE / "package-lock.json"
STAMP: Final = MODULES / ".gabs-installed"
INSTALL_LOCK: Final = HERE / ".npm-install.lock"
#: Seconds ``npm ci`` may take, and a worker may wait for another worker's install.
INSTALL_TIMEOUT: Final = 600.0
LOCK_WAIT: Final = INSTALL_TIMEOUT + 120.0


class NodeSetupError(Exception):
    """Node.js or the pinned npm packages are not available (the message says what to do)."""


def node_environment(home: Path) -> dict[str, str]:
    """The environment of a Node process in the tests: a private ``HOME`` (the Inspector keeps
    its state there), file-based secrets (no desktop keychain), no update checks, and none of the
    bridge's variables."""
    keep = {
        name: value for name, value in os.environ.items() if not name.startswith(("GABS_", "GABP_"))
    }
    return {
        **keep,
        "HOME": str(home),
        "MCP_INSPECTOR_SECRET_STORE": "file",
        "npm_config_update_notifier": "false",
        "NO_COLOR": "1",
    }


def _lock_digest() -> str:
    return hashlib.sha256(LOCK_FILE.read_bytes()).hexdigest()


def _installed() -> bool:
    try:
        return STAMP.read_text(encoding="utf-8").strip() == _lock_digest()
    except FileNotFoundError:
        return False


@contextlib.contextmanager
def _install_lock(timeout: float) -> Iterator[None]:
    fd = os.open(INSTALL_LOCK, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise NodeSetupError(
                        f"another test worker held {INSTALL_LOCK} for more than {timeout:g} s "
                        "(its npm install did not finish)"
                    ) from None
                time.sleep(0.2)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def ensure_installed() -> None:
    """Install the pinned packages unless they already are; :class:`NodeSetupError` when Node.js
    or npm is missing or ``npm ci`` fails or times out."""
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        raise NodeSetupError(
            f"{' and '.join(missing)} not found on PATH: the host tests run the official "
            "TypeScript MCP SDK and the MCP Inspector, which need Node.js 20 or newer with npm"
        )
    if _installed():
        return
    with _install_lock(LOCK_WAIT):
        if _installed():
            return
        command = ["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"]
        env = {
            **os.environ,
            "npm_config_fetch_retries": "2",
            "npm_config_fetch_timeout": "60000",
            "npm_config_update_notifier": "false",
        }
        try:
            done = subprocess.run(
                command,
                cwd=HERE,
                env=env,
                capture_output=True,
                text=True,
                timeout=INSTALL_TIMEOUT,
                check=False,
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            raise NodeSetupError(
                f"`npm ci` in {HERE} did not finish within {INSTALL_TIMEOUT:g} s: is the npm "
                "registry (https://registry.npmjs.org) reachable from this machine?"
            ) from None
        if done.returncode != 0:
            tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-15:])
            raise NodeSetupError(
                f"`npm ci` in {HERE} failed (exit {done.returncode}); if it could not reach the "
                f"npm registry (https://registry.npmjs.org), check the network or npm's proxy "
                f"settings. npm said:\n{tail}"
            )
        STAMP.write_text(_lock_digest() + "\n", encoding="utf-8")
