"""Text for fragments: placeholders, the attention item, ledger rows, tools, logs, operations.

Every limit here (characters, lines, events) is passed in from a stage's config.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Final

from gabp.messages import Attention
from gabs.context._models import ContextRequest
from gabs.game_tools import MirroredTool
from gabs.ledger import LedgerEntry

__all__ = [
    "attention_lines",
    "cut",
    "fill",
    "fill_arguments",
    "ledger_line",
    "log_entries",
    "log_line",
    "operation_text",
    "placeholder_values",
    "tool_text",
    "unwrap_result",
]

_PLACEHOLDER = re.compile(r"\{(request|attention)\.([A-Za-z]+)\}")


def cut(text: str, limit: int) -> str:
    text = " ".join(text.split()) if "\n" in text else text
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"


def placeholder_values(request: ContextRequest) -> dict[str, Any]:
    """``request.*`` and ``attention.*`` values a template may name."""
    values: dict[str, Any] = {
        "request.gameId": request.game_id,
        "request.purpose": request.purpose,
        "request.severity": request.effective_severity,
        "request.tool": request.tool,
        "request.sessionId": request.session_id,
    }
    item = request.attention
    if item is not None:
        for key, value in item.model_dump(by_alias=True).items():
            if not isinstance(value, list | dict):
                values[f"attention.{key}"] = value
    return values


def _lookup(values: Mapping[str, Any], match: re.Match[str]) -> Any:
    return values.get(f"{match.group(1)}.{match.group(2)}")


def fill(text: str, values: Mapping[str, Any]) -> Any:
    """Substitute placeholders. A string that is one placeholder keeps the value's type (and
    ``None`` when unknown); elsewhere unknown values become empty text."""
    whole = _PLACEHOLDER.fullmatch(text)
    if whole is not None:
        return _lookup(values, whole)

    def sub(match: re.Match[str]) -> str:
        value = _lookup(values, match)
        return "" if value is None else str(value)

    return _PLACEHOLDER.sub(sub, text)


def fill_arguments(arguments: Mapping[str, Any], values: Mapping[str, Any]) -> dict[str, Any]:
    """Fill placeholders in argument values; keys whose value resolves to ``None`` are dropped."""
    filled: dict[str, Any] = {}
    for key, value in arguments.items():
        if isinstance(value, str):
            value = fill(value, values)
        elif isinstance(value, Mapping):
            value = fill_arguments(value, values)
        if value is not None:
            filled[key] = value
    return filled


def attention_lines(
    item: Attention,
    *,
    game_id: str,
    summary_chars: int,
    message_chars: int,
    sample_lines: int,
) -> str:
    kind = "BLOCKING" if item.blocking else "advisory"
    count = item.total_urgent_entries
    lines = [
        f"Attention {item.attention_id} ({kind}, {item.severity}) in game {game_id}: "
        f"{cut(item.summary, summary_chars)}",
        f"  {count} urgent entr{'y' if count == 1 else 'ies'}, log sequences "
        f"{item.opened_at_sequence}..{item.latest_sequence}"
        + (
            "; game state invalidated: ids and facts read before may be stale"
            if item.state_invalidated
            else ""
        ),
    ]
    if item.causal_method or item.causal_operation_id:
        lines.append(
            f"  caused by {item.causal_method or 'an operation'}"
            + (f" (operation {item.causal_operation_id})" if item.causal_operation_id else "")
        )
    for sample in (item.sample or [])[:sample_lines]:
        repeat = f" x{sample.repeat_count}" if sample.repeat_count > 1 else ""
        lines.append(f"  - [{sample.level}]{repeat} {cut(sample.message, message_chars)}")
    if item.diagnostics_cursor is not None:
        lines.append(f"  diagnostics start after log sequence {item.diagnostics_cursor}")
    return "\n".join(lines)


def ledger_line(entry: LedgerEntry, summary_chars: int) -> str:
    parts = [f"Call ledger #{entry.seq}: {entry.kind}"]
    if entry.tool:
        parts.append(entry.tool)
    if entry.arguments_summary:
        parts.append(cut(entry.arguments_summary, summary_chars))
    ids = []
    if entry.operation_id:
        ids.append(f"operation {entry.operation_id}")
    if entry.attention_id:
        ids.append(f"attention {entry.attention_id}")
    if entry.executed is not None:
        ids.append(f"executed={str(entry.executed).lower()}")
    text = " ".join(parts)
    if ids:
        text += f" ({', '.join(ids)})"
    if entry.summary:
        text += f": {cut(entry.summary, summary_chars)}"
    return text


def tool_text(
    tool: MirroredTool,
    *,
    description_chars: int,
    include_result_description: bool,
    include_input_schema: bool,
    include_tags: bool,
) -> str:
    text = f"Tool {tool.name}: {cut(tool.description or tool.title, description_chars)}"
    if include_tags and tool.tags:
        text += f" [tags: {', '.join(tool.tags)}]"
    if include_result_description and tool.result_description:
        text += f" Returns: {cut(tool.result_description, description_chars)}"
    if include_input_schema and tool.input_schema:
        schema = json.dumps(tool.input_schema, separators=(",", ":"), ensure_ascii=False)
        text += f" Input: {cut(schema, description_chars)}"
    return text


def unwrap_result(result: Any) -> Any:
    """A tool result's payload: ``structuredContent`` or ``result`` when wrapped in one."""
    if isinstance(result, Mapping):
        for key in ("structuredContent", "result"):
            inner = result.get(key)
            if isinstance(inner, Mapping):
                return inner
    return result


def log_entries(result: Any) -> list[Mapping[str, Any]] | None:
    payload = unwrap_result(result)
    if not isinstance(payload, Mapping):
        return None
    for key in ("logs", "entries"):  # RimBridge's list_logs answers ``logs``
        if isinstance(payload.get(key), list):
            return [e for e in payload[key] if isinstance(e, Mapping)]
    return None


_STATUS_NAMES: Final = ("pending", "running", "completed", "failed", "timed_out", "cancelled")
"""RimBridge's ``OperationStatus`` by its integer on the wire."""


def _field(entry: Mapping[str, Any], name: str) -> Any:
    """``entry[name]``, or under its PascalCase spelling: RimBridge writes its C# records
    (log entries, operation envelopes) with Newtonsoft's default casing."""
    value = entry.get(name)
    if value is None:
        value = entry.get(name[:1].upper() + name[1:])
    return value


def _status(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(_STATUS_NAMES):
        return _STATUS_NAMES[value]
    return value


def log_line(entry: Mapping[str, Any], item_chars: int) -> str:
    sequence = _field(entry, "sequence")
    level = _field(entry, "level") or "?"
    text = f"Log #{sequence} [{level}]"
    repeat = _field(entry, "repeatCount")
    if isinstance(repeat, int) and repeat > 1:
        text += f" x{repeat}"
    source = _field(entry, "source")
    where = [str(source)] if source else []
    if entry.get("tick") is not None:
        where.append(f"tick {entry['tick']}")
    operation_id = _field(entry, "operationId")
    if operation_id:
        where.append(f"operation {operation_id}")
    if where:
        text += f" ({', '.join(where)})"
    return f"{text}: {cut(str(_field(entry, 'message') or ''), item_chars)}"


def operation_text(result: Any, *, item_chars: int, max_events: int) -> str | None:
    payload = unwrap_result(result)
    if isinstance(payload, Mapping):
        # RimBridge's get_operation answers ``trackedOperation``; ``operation`` is then the
        # envelope of the get_operation call itself
        for key in ("trackedOperation", "operation"):
            if isinstance(payload.get(key), Mapping):
                payload = payload[key]
                break
    if not isinstance(payload, Mapping):
        return None
    op_id = _field(payload, "operationId") or payload.get("id")
    if not op_id:
        return None
    metadata = _field(payload, "metadata")
    method = payload.get("method") or (
        metadata.get("requestedId") if isinstance(metadata, Mapping) else None
    )
    text = f"Operation {op_id}: {method or '?'} {_status(_field(payload, 'status')) or '?'}"
    if payload.get("argumentsSummary"):
        text += f", arguments {cut(str(payload['argumentsSummary']), item_chars)}"
    error = _field(payload, "error")
    if isinstance(error, Mapping) and _field(error, "message"):
        error = _field(error, "message")
    if error:
        text += f", error: {cut(str(error), item_chars)}"
    if payload.get("resultSummary"):
        text += f", result: {cut(str(payload['resultSummary']), item_chars)}"
    if payload.get("parentId"):
        text += f", parent {payload['parentId']}"
    children = payload.get("children")
    if isinstance(children, list) and children:
        text += f", {len(children)} child operation(s)"
    events = payload.get("events")
    if isinstance(events, list) and max_events:
        shown = [e for e in events if isinstance(e, Mapping)][-max_events:]
        for event in shown:
            message = event.get("message")
            kind = event.get("kind") or _field(event, "eventType") or "?"
            text += f"\n  - {kind}" + (f": {cut(str(message), item_chars)}" if message else "")
    return text


def json_text(result: Any, item_chars: int) -> str:
    try:
        text = json.dumps(unwrap_result(result), ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        text = repr(result)
    return cut(text, item_chars)
