"""An ``initialize`` request completed before the SDK reads it (the Go bridge answers every
``initialize``, whatever its params)."""

from __future__ import annotations

import json

import pytest

from gabs.transports.initialize_request import complete_initialize

FULL = {
    "protocolVersion": "2025-06-18",
    "capabilities": {"roots": {}},
    "clientInfo": {"name": "c", "version": "2"},
}


def initialize(params: object = ..., **extra: object) -> bytes:
    message: dict[str, object] = {"jsonrpc": "2.0", "id": 1, "method": "initialize", **extra}
    if params is not ...:
        message["params"] = params
    return json.dumps(message).encode()


def test_a_complete_initialize_and_other_bodies_pass_unchanged() -> None:
    for body in (
        initialize(FULL),
        b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
        b'{"jsonrpc":"2.0","method":"initialize"}',  # a notification: nobody to answer
        b'[{"jsonrpc":"2.0","id":1,"method":"initialize"}]',
        b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":"x"}',
        b'{"initialize" not json',
    ):
        assert complete_initialize(body) is body


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        (..., {}),
        (None, {}),
        ({"protocolVersion": 20241105}, {}),
        ({"protocolVersion": "1999-01-01"}, {"protocolVersion": "1999-01-01"}),
        (
            {"capabilities": [], "clientInfo": {"name": 3, "title": "T"}},
            {"clientInfo": {"name": "unknown", "version": "unknown", "title": "T"}},
        ),
        ({"clientInfo": "x", "extra": 1}, {"extra": 1}),
    ],
)
def test_missing_or_mistyped_members_are_filled_in(
    params: object, expected: dict[str, object]
) -> None:
    completed = json.loads(complete_initialize(initialize(params)))
    assert completed["id"] == 1 and completed["method"] == "initialize"
    assert completed["params"] == {
        "protocolVersion": "2024-11-05",
        "capabilities": {},
        "clientInfo": {"name": "unknown", "version": "unknown"},
        **expected,
    }
