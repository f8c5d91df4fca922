"""The core tools' advertised input schemas against what the bridge serves: a call both the Go
bridge and ours answer must pass the schema ``tools/list`` shows, or a host that checks
arguments against it refuses the call before it is sent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from mcp import Client

from gabs.config import GabsConfig
from gabs.games import GameManager
from gabs.mcp import ToolListNotifier, build_server
from gabs_test_support import text as _text

#: The tools that read a blank ``gameId`` as not given (as the Go bridge does), with the other
#: arguments each needs.
BLANK_GAME_ID_IS_ABSENT: dict[str, dict[str, Any]] = {
    "games_tool_names": {},
    "games_tools": {},
    "games_tool_detail": {"tool": "x"},
    "games_call_tool": {"tool": "x"},
    "games_get_attention": {},
    "games_ack_attention": {"attentionId": "x"},
}


def _config(tmp_path: Path) -> GabsConfig:
    return GabsConfig.from_json({"version": "1.0", "games": {}}, config_dir=tmp_path)


async def test_a_blank_game_id_passes_the_listed_schema_where_it_means_not_given(
    tmp_path: Path,
) -> None:
    notifier = ToolListNotifier()
    async with GameManager(_config(tmp_path), on_tools_changed=notifier) as manager:
        server = build_server(manager, notifier=notifier)
        async with Client(server) as client:
            listed = {tool.name: tool for tool in (await client.list_tools()).tools}
            for name, others in BLANK_GAME_ID_IS_ABSENT.items():
                blank = {"gameId": "", **others}
                errors = list(Draft202012Validator(listed[name].input_schema).iter_errors(blank))
                assert errors == [], (name, [e.message for e in errors])
                # and the bridge serves it as the call without gameId
                served = await client.call_tool(name, blank)
                without = await client.call_tool(name, others)
                assert _text(served) == _text(without), name
                assert served.is_error == without.is_error, name
