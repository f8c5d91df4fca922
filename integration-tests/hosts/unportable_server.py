"""A minimal MCP stdio server with one tool whose output schema uses a ``["string", "null"]``
type union, the pattern some model providers reject. The host tests run the MCP Inspector's
portability check against it to show the check finds what it looks for, before trusting its
silence about ``gabs``.

It speaks newline-delimited JSON-RPC: ``initialize``, ``tools/list`` and ``ping`` are answered,
notifications ignored, anything else is ``-32601``.
"""

from __future__ import annotations

import json
import sys
from typing import Any

TOOL = {
    "name": "maybe_name",
    "description": "Return a name, or null when there is none.",
    "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False},
    "outputSchema": {
        "type": "object",
        "properties": {"name": {"type": ["string", "null"]}},
    },
}


def answer(request: dict[str, Any]) -> dict[str, Any] | None:
    if "id" not in request:
        return None
    method = request.get("method")
    if method == "initialize":
        asked = request.get("params", {}).get("protocolVersion", "2025-06-18")
        result: dict[str, Any] = {
            "protocolVersion": asked,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "unportable", "version": "1.0.0"},
        }
    elif method == "tools/list":
        result = {"tools": [TOOL]}
    elif method == "ping":
        result = {}
    else:
        return {
            "jsonrpc": "2.0",
            "id": request["id"],
            "error": {"code": -32601, "message": f"method not found: {method}"},
        }
    return {"jsonrpc": "2.0", "id": request["id"], "result": result}


def main() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        reply = answer(json.loads(line))
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
