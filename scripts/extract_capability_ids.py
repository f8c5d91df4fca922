"""Derive the RimBridgeServer capability ids from the mod's C# source.

The mod registers each tool as a capability of one built-in provider. A provider wraps one
capability module; a module method whose name equals the name of a ``[Tool("...")]`` method in
``Source/RimBridgeTools.cs`` becomes a capability with

* ``id`` = ``<providerId>/<kebab-case of the method name>`` (an upper-case letter after the
  first character is preceded by ``-``, and every letter is lower-cased),
* ``providerId`` and ``category`` = the provider's, from ``Source/RimBridgeCapabilities.cs``,
* the tool name as its one alias.

This script reads those three kinds of files from a git mirror of the mod and writes
``packages/rimbridge-sim/src/rimbridge_sim/contract/capability-ids.json``. The tests read only
the JSON file, never the mirror.

    uv run --frozen python scripts/extract_capability_ids.py /path/to/RimBridgeServer.git [REV]
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONTRACT = ROOT / "packages/rimbridge-sim/src/rimbridge_sim/contract"
OUT = CONTRACT / "capability-ids.json"

_TOOL = re.compile(r'\[Tool\("([^"]+)"[^\n]*\n(?:\s*\[[^\n]*\n)*\s*public\s+\S+\s+(\w+)\s*\(')
_PROVIDER = re.compile(
    r'providerId:\s*"([^"]+)",\s*category:\s*"([^"]+)",\s*module:\s*new\s+(\w+)\s*\('
)
_METHOD = re.compile(r"^    public (?!static)[\w<>\[\], ?]+? (\w+)\(", re.MULTILINE)


def kebab(name: str) -> str:
    out: list[str] = []
    for i, ch in enumerate(name):
        if ch.isupper() and i > 0:
            out.append("-")
        out.append(ch.lower())
    return "".join(out)


def show(repo: str, rev: str, path: str) -> str:
    return subprocess.run(
        ["git", "-C", repo, "show", f"{rev}:{path}"], check=True, capture_output=True, text=True
    ).stdout


def extract(repo: str, rev: str) -> dict[str, object]:
    commit = subprocess.run(
        ["git", "-C", repo, "rev-parse", rev], check=True, capture_output=True, text=True
    ).stdout.strip()
    tools = dict(_TOOL.findall(show(repo, rev, "Source/RimBridgeTools.cs")))
    providers = _PROVIDER.findall(show(repo, rev, "Source/RimBridgeCapabilities.cs"))
    owner: dict[str, tuple[str, str]] = {}
    for provider_id, category, module in providers:
        for method in _METHOD.findall(show(repo, rev, f"Source/{module}.cs")):
            if method in tools.values():
                if method in owner:
                    raise SystemExit(f"{method} is in two modules")
                owner[method] = (provider_id, category)
    contract = json.loads((CONTRACT / "rimbridge-tools.json").read_text(encoding="utf-8"))
    rows: dict[str, dict[str, str]] = {}
    for entry in contract["tools"]:
        name = entry["name"]
        method = next((m for t, m in tools.items() if t == name), None)
        if method is None or method not in owner:
            raise SystemExit(f"no capability found for {name}")
        provider_id, category = owner[method]
        rows[name] = {
            "id": f"{provider_id}/{kebab(method)}",
            "providerId": provider_id,
            "category": category,
            "method": method,
        }
    return {
        "about": (
            "RimBridgeServer capability ids: for each tool of rimbridge-tools.json, the id, "
            "providerId and category under which the mod registers it. Derived from the mod's "
            "C# source (Source/RimBridgeCapabilities.cs for providers and categories, the "
            "Source/*CapabilityModule.cs files for the implementation method of each "
            "[Tool] method in Source/RimBridgeTools.cs); id = providerId + '/' + the method "
            "name in kebab case. Regenerate with scripts/extract_capability_ids.py."
        ),
        "source_commit": commit,
        "tool_count": len(rows),
        "tools": dict(sorted(rows.items())),
    }


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    data = extract(argv[0], argv[1] if len(argv) > 1 else "HEAD")
    OUT.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)} ({data['tool_count']} tools)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
