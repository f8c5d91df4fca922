"""The lean path writes a game call's result as the SDK would for the negotiated version.

A text-only result skips the version's model when a probe showed the model would leave it as
it is; every other result goes through the model. Both ways must read the same on the wire.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
import pytest
from mcp_types.methods import SERVER_RESULTS
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from pydantic import BaseModel, ConfigDict, TypeAdapter

from gabs.call_outcome import CallOutcome
from gabs.mcp.call_results import game_call_result
from gabs.transports.stdio_calls import _keeps_text_only, _response, _text_only


def _adapter(version: str) -> TypeAdapter[Any]:
    return TypeAdapter(SERVER_RESULTS[("tools/call", version)])


def _text(text: str) -> types.TextContent:
    return types.TextContent(type="text", text=text)


TEXT_ONLY = [
    types.CallToolResult(content=[_text("done")], structured_content={"ok": True}),
    types.CallToolResult(
        content=[_text('Ärger 龍 \u2028 "quoted" \\ \x00'), _text("second")],
        structured_content={"n": 2**80, "f": 1e-7, "nested": [None, {"k": [1.5, False]}]},
        is_error=True,
    ),
    types.CallToolResult(content=[], structured_content=None),
    types.CallToolResult(content=[_text("x")], structured_content={"inf": float("inf")}),
    types.CallToolResult(content=[_text("x")], meta={"gabs/call": {"gameId": "g", "n": None}}),
]

OTHER = [
    types.CallToolResult(
        content=[types.ImageContent(type="image", data="aGk=", mime_type="image/png")]
    ),
    types.CallToolResult(
        content=[
            types.TextContent(
                type="text", text="x", annotations=types.Annotations(audience=["user"])
            )
        ]
    ),
    types.CallToolResult(
        content=[
            types.EmbeddedResource(
                type="resource", resource=types.TextResourceContents(uri="file:///x", text="x")
            )
        ]
    ),
]


@pytest.mark.parametrize("version", HANDSHAKE_PROTOCOL_VERSIONS)
def test_every_handshake_versions_model_leaves_a_text_only_result_as_it_is(version: str) -> None:
    assert _keeps_text_only(_adapter(version))


@pytest.mark.parametrize("version", HANDSHAKE_PROTOCOL_VERSIONS)
@pytest.mark.parametrize("result", TEXT_ONLY + OTHER)
def test_the_quick_way_and_the_models_way_write_the_same(
    version: str, result: types.CallToolResult
) -> None:
    results = _adapter(version)
    quick = json.loads(_response(5, result, results, text_only=True))
    shaped = json.loads(_response(5, result, results, text_only=False))
    assert quick == shaped
    assert quick["id"] == 5 and "resultType" not in quick["result"]


@pytest.mark.parametrize("result", TEXT_ONLY)
def test_a_text_only_result_takes_the_quick_way(result: types.CallToolResult) -> None:
    assert _text_only(result.model_dump(by_alias=True, mode="json", exclude_none=True))


@pytest.mark.parametrize("result", OTHER)
def test_any_other_result_goes_through_the_model(result: types.CallToolResult) -> None:
    assert _text_only(result.model_dump(by_alias=True, mode="json", exclude_none=True)) is None


def test_a_lone_surrogate_goes_through_the_model() -> None:
    data = {"content": [{"type": "text", "text": "\ud800"}], "isError": False}
    assert _text_only(data) is None


class _NoStructuredContent(BaseModel):
    """A result model that would drop ``structuredContent`` (as an older version's did)."""

    model_config = ConfigDict(extra="ignore")
    content: list[dict[str, Any]]
    isError: bool = False


def test_a_model_that_would_change_the_result_keeps_every_result_going_through_it() -> None:
    results: TypeAdapter[Any] = TypeAdapter(_NoStructuredContent)
    assert not _keeps_text_only(results)
    result = TEXT_ONLY[0]
    written = json.loads(_response(5, result, results, text_only=False))
    assert "structuredContent" not in written["result"]


@pytest.mark.parametrize(
    "outcome",
    [
        CallOutcome(executed=True, status="ok", tool="colony/draft", result={"drafted": "A"}),
        CallOutcome(executed=True, status="ok", tool="colony/count", result=3),
        CallOutcome(
            executed=True,
            status="error",
            tool="colony/draft",
            error={"code": -32000, "message": "no such pawn"},
        ),
    ],
)
def test_what_a_game_call_returns_takes_the_quick_way(outcome: CallOutcome) -> None:
    result = game_call_result("sim", outcome, {"pawn": "A"})
    assert _text_only(result.model_dump(by_alias=True, mode="json", exclude_none=True))
