"""Generate the tool reference (``docs/rimbridge/tool-reference.md``) from the annotations.

``python -m rimbridge_sim.reference`` rewrites the file; ``--check`` exits 1 when it is stale;
``--output PATH`` writes elsewhere (``-`` for stdout). The text comes from the tools as they
are registered with ``lib_gab`` (so types, defaults and required flags are the advertised
``inputSchema``) and their annotations (description, title, tags, result description). The
output is deterministic: the same code gives byte-identical Markdown.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lib_gab.tools import Tool
from rimbridge_sim.integration import BridgeConfig, RimBridge

__all__ = ["DEFAULT_OUTPUT", "main", "render_reference", "schema_type"]

DEFAULT_OUTPUT = Path(__file__).resolve().parents[4] / "docs" / "rimbridge" / "tool-reference.md"
"""Where the reference lives in the workspace checkout."""

_GROUPS = (
    ("rimbridge/", "Diagnostics and scripts (`rimbridge/*`)", ""),
    ("rimworld/", "Game (`rimworld/*`)", ""),
    (
        "sim/",
        "Test tools (`sim/*`)",
        "Registered only with `--enable-test-tools` (never by default).",
    ),
)


def _registered_tools() -> list[Tool]:
    bridge = RimBridge(
        BridgeConfig(token="0" * 64, enable_test_tools=True, start_game=False, tick_rate=0)
    )
    try:
        return list(bridge.server.tools)
    finally:
        bridge.close()


def schema_type(schema: dict[str, Any], defs: dict[str, Any]) -> str:
    """A short, readable type for a JSON Schema fragment (``integer >= 0``, ``array of ...``)."""
    if "$ref" in schema:
        name = str(schema["$ref"]).rsplit("/", 1)[-1]
        target = defs.get(name, {})
        fields = ", ".join(target.get("properties", {}))
        return f"object {{{fields}}}" if fields else "object"
    if "anyOf" in schema:
        parts = [schema_type(part, defs) for part in schema["anyOf"]]
        return " | ".join(dict.fromkeys(parts))
    if "enum" in schema:
        return "one of " + ", ".join(f"`{value}`" for value in schema["enum"])
    if "const" in schema:
        return f"`{schema['const']}`"
    kind = schema.get("type", "any")
    if kind == "array":
        text = f"array of {schema_type(schema.get('items', {}), defs)}"
    elif kind == "object" and "properties" in schema:
        text = "object {" + ", ".join(schema["properties"]) + "}"
    else:
        text = str(kind)
    bounds = []
    for key, symbol in (
        ("minimum", ">="),
        ("maximum", "<="),
        ("exclusiveMinimum", ">"),
        ("exclusiveMaximum", "<"),
    ):
        if key in schema:
            bounds.append(f"{symbol} {schema[key]}")
    for key, label in (
        ("minLength", "length >="),
        ("maxLength", "length <="),
        ("minItems", "items >="),
        ("maxItems", "items <="),
    ):
        if key in schema:
            bounds.append(f"{label} {schema[key]}")
    if "pattern" in schema:
        bounds.append(f"pattern `{schema['pattern']}`")
    return text + (f" ({', '.join(bounds)})" if bounds else "")


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _anchor(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum() or ch in "-_ ").replace(" ", "-")


def _default(value: Any) -> str:
    if value is None:
        return "`null`"
    if isinstance(value, bool):
        return "`true`" if value else "`false`"
    if isinstance(value, str):
        return f'`"{value}"`'
    return f"`{value}`"


def _render_tool(tool: Tool) -> list[str]:
    lines = [f"### `{tool.name}`", ""]
    lines.append(f"**{tool.title}**" + ("  (deprecated)" if tool.deprecated else ""))
    lines.append("")
    tags = ", ".join(f"`{tag}`" for tag in tool.tags) if tool.tags else "none"
    lines += [f"Tags: {tags}", "", tool.description, ""]
    if tool.result_description:
        lines += ["**Returns**", "", tool.result_description, ""]
    schema = tool.input_schema
    properties: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", []))
    defs: dict[str, Any] = schema.get("$defs", {})
    if not properties:
        lines += ["Parameters: none.", ""]
        return lines
    lines += [
        "| Parameter | Type | Required | Default | Description |",
        "|---|---|---|---|---|",
    ]
    for name, prop in properties.items():
        is_required = name in required
        default = "" if is_required or "default" not in prop else _default(prop["default"])
        lines.append(
            f"| `{name}` | {_cell(schema_type(prop, defs))} | "
            f"{'required' if is_required else 'optional'} | {default} | "
            f"{_cell(prop.get('description', ''))} |"
        )
    lines.append("")
    return lines


def render_reference(tools: Sequence[Tool] | None = None) -> str:
    """The reference as Markdown (from the registered tools unless ``tools`` is given)."""
    tools = list(_registered_tools() if tools is None else tools)
    lines = [
        "# RimBridge tool reference",
        "",
        "<!-- Generated by `python -m rimbridge_sim.reference` from the tool annotations in",
        "     packages/rimbridge-sim/src/rimbridge_sim/tools/. Do not edit by hand. -->",
        "",
        "The tools of the simulated RimBridge (`rimbridge-sim`), as a bridge sees them in",
        "`tools/list`. Parameter names are the wire names (`arguments` of `tools/call`); types,",
        "defaults and required flags come from each tool's `inputSchema`, which rejects unknown",
        "arguments. Every result is an object with `success`; a payload failure is",
        "`{success: false, message, code}` (see the package README for the payload failure vs",
        "exception rule).",
        "",
        f"{len(tools)} tools.",
        "",
    ]
    grouped: list[tuple[str, str, list[Tool]]] = []
    for prefix, heading, note in _GROUPS:
        members = sorted((t for t in tools if t.name.startswith(prefix)), key=lambda t: t.name)
        if members:
            grouped.append((heading, note, members))
    others = sorted(
        (t for t in tools if not any(t.name.startswith(p) for p, _, _ in _GROUPS)),
        key=lambda t: t.name,
    )
    if others:
        grouped.append(("Other tools", "", others))
    for heading, _, members in grouped:
        lines.append(f"- [{heading}](#{_anchor(heading)})")
        for tool in members:
            lines.append(f"  - [`{tool.name}`](#{_anchor(tool.name)})")
    lines.append("")
    for heading, note, members in grouped:
        lines += [f"## {heading}", ""]
        if note:
            lines += [note, ""]
        for tool in members:
            lines += _render_tool(tool)
    return "\n".join(lines).rstrip("\n") + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m rimbridge_sim.reference", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--output", default=str(DEFAULT_OUTPUT), help="file to write, or -")
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is stale")
    args = parser.parse_args(argv)
    text = render_reference()
    if args.output == "-":
        sys.stdout.write(text)
        return 0
    path = Path(args.output)
    if args.check:
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current != text:
            print(f"{path} is stale: run python -m rimbridge_sim.reference", file=sys.stderr)
            return 1
        print(f"{path} is current", file=sys.stderr)
        return 0
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
