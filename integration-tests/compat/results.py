"""Reading tool results and waiting on processes, for the compatibility cases."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types

__all__ = [
    "bridge_pids",
    "data",
    "next_tools",
    "process_alive",
    "text_of",
    "wait_gone",
]


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


def data(result: types.CallToolResult) -> dict[str, Any]:
    assert isinstance(result.structured_content, dict), text_of(result)
    return result.structured_content


def next_tools(result: types.CallToolResult) -> list[str]:
    return [action["tool"] for action in data(result).get("nextActions") or []]


def process_alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8")
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


async def wait_gone(pid: int) -> None:
    """Wait for a process (not our child: no exit event) to end; the caller bounds the wait."""
    while process_alive(pid):  # noqa: ASYNC110 - not our child: no exit event to wait on
        await anyio.sleep(0.05)


def bridge_pids(config_dir: Path) -> list[int]:
    """The bridge server processes serving ``config_dir`` (Linux: from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        words = [part.decode("utf-8", "replace") for part in argv]
        if "server" in words and str(config_dir) in words:
            found.append(int(entry.name))
    return found
