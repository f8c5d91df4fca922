"""The stdio host entries of ``docs/gabs/install-and-hosts.md`` start a working bridge.

Every snippet in that page that runs ``gabs server`` (the form Go-bridge users have in their
host configurations) is taken from the page as written, with the config folder and the
``gabs`` executable replaced, and started as a host would: an MCP session over stdio that
lists the tools and the configured game. The bare Go-bridge entries (``["server"]``,
``["server", "stdio"]``) are checked too, with the config in the default ``~/.gabs``.
"""

from __future__ import annotations

import json
import re
import shlex
import tomllib
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from .harness import REQUEST_TIMEOUT, ConfigDir, bridge_environment
from .results import data

PAGE = Path(__file__).resolve().parents[2] / "docs" / "gabs" / "install-and-hosts.md"
PLACEHOLDER = "/home/you/.gabs"


def _entries(node: Any) -> list[dict[str, Any]]:
    """Every object with a ``command`` and ``args``, however deeply nested."""
    found = []
    if isinstance(node, dict):
        if isinstance(node.get("command"), str) and isinstance(node.get("args"), list):
            found.append(node)
        for value in node.values():
            found += _entries(value)
    return found


def host_snippets() -> list[tuple[str, list[str]]]:
    """``(where, args)`` of each stdio snippet whose command is ``gabs`` running ``server``."""
    text = PAGE.read_text(encoding="utf-8")
    snippets: list[tuple[str, list[str]]] = []
    for number, (language, body) in enumerate(re.findall(r"```(\w+)\n(.*?)```", text, re.S)):
        commands: list[tuple[str, list[str]]] = []
        if language == "json":
            commands = [(e["command"], e["args"]) for e in _entries(json.loads(body))]
        elif language == "toml":
            commands = [(e["command"], e["args"]) for e in _entries(tomllib.loads(body))]
        elif language == "sh":
            for line in body.splitlines():
                if " -- gabs " in line:
                    words = shlex.split(line.split(" -- ", 1)[1])
                    commands.append((words[0], words[1:]))
        for command, args in commands:
            if command == "gabs" and args[:1] == ["server"]:
                snippets.append((f"{language} block {number}", [str(a) for a in args]))
    return snippets


SNIPPETS = host_snippets()


def test_the_page_has_host_snippets_in_the_go_form() -> None:
    assert len(SNIPPETS) >= 4, SNIPPETS
    assert all(PLACEHOLDER in args for _, args in SNIPPETS)


async def _serves(command: list[str], args: list[str], home: Path) -> None:
    params = StdioServerParameters(
        command=command[0], args=[*command[1:], *args], env=bridge_environment(home)
    )
    with anyio.fail_after(120):
        async with Client(params, mode="legacy", read_timeout_seconds=REQUEST_TIMEOUT) as client:
            tools = {tool.name for tool in (await client.list_tools()).tools}
            assert {"games_list", "games_start", "games_connect"} <= tools
            listed = await client.call_tool("games_list", {})
    assert [game["gameId"] for game in data(listed)["games"]] == ["snippet"]


@pytest.mark.parametrize(("where", "args"), SNIPPETS, ids=[where for where, _ in SNIPPETS])
async def test_a_host_snippet_serves_the_configured_games(
    bridge_command: list[str], config_dir: ConfigDir, tmp_path: Path, where: str, args: list[str]
) -> None:
    config_dir.game("snippet")
    directory = str(config_dir.write())
    home = tmp_path / "home"
    home.mkdir()
    await _serves(bridge_command, [directory if a == PLACEHOLDER else a for a in args], home)


@pytest.mark.parametrize("args", [["server"], ["server", "stdio"]], ids=["server", "server-stdio"])
async def test_a_bare_go_bridge_entry_serves_the_default_config_folder(
    bridge_command: list[str], tmp_path: Path, args: list[str]
) -> None:
    home = tmp_path / "home"
    config = ConfigDir(home / ".gabs")
    config.game("snippet")
    config.write()
    await _serves(bridge_command, args, home)
