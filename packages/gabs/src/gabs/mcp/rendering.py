"""How core tool results are rendered: text for the model, ``structuredContent`` for programs.

Every core tool answers with one text block and a structured object; :func:`text_result` builds
that pair. :func:`refused` turns a :class:`~gabs.games.GameError` into a refusal,
:func:`status_line` words one game's status, :func:`compact` is bounded JSON text and
:func:`attention_from_wire` reads an attention item back from its wire form.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import mcp_types as types

from gabp.messages import Attention
from gabs.games import GameError

__all__ = ["attention_from_wire", "compact", "refused", "status_line", "text_result"]


def text_result(text: str, data: dict[str, Any], *, error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content=data,
        is_error=error,
    )


def compact(value: Any, limit: int = 6000) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def refused(error: GameError, *, call: bool = False) -> types.CallToolResult:
    data: dict[str, Any] = {"status": "refused", **error.to_json()}
    if call:
        data = {"executed": False, **data}
    text = f"Refused ({error.code}): {error.message}"
    if call:
        text = "NOT EXECUTED. " + text
    return text_result(text, data, error=True)


def attention_from_wire(raw: Any) -> Attention | None:
    if not isinstance(raw, dict):
        return None
    try:
        return Attention.model_validate(raw)
    except ValueError:
        return None


def status_line(status: Mapping[str, Any]) -> str:
    parts = [f"{status['gameId']}: {status.get('gameStatus') or status['status']}"]
    connection = status.get("connection")
    if connection:
        parts.append(f"port {connection.get('port')}, {connection.get('tools')} tools")
    process = status.get("process")
    if process and process.get("pid"):
        alive = "running" if process.get("running") else f"exited {process.get('exitCode')}"
        parts.append(f"pid {process['pid']} {alive}")
    attention = status.get("attention") or {}
    if not attention.get("supported"):
        parts.append("attention: not supported" if connection else "")
    elif attention.get("open"):
        kind = "BLOCKING" if attention.get("blocking") else "advisory"
        parts.append(
            f"attention {attention.get('attentionId')} open ({kind}, mode "
            f"{attention.get('mode')}): {attention.get('summary')}"
        )
    else:
        parts.append(f"attention: none open (mode {attention.get('mode')})")
    if status.get("lastError"):
        parts.append(f"last error: {status['lastError']}")
    return "; ".join(p for p in parts if p)
