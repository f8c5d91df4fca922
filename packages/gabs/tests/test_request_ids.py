"""Ids the SDK cannot carry (a fraction, an exponent, ``-0``) swapped for an alias and back."""

from __future__ import annotations

import json

from gabs.transports.request_ids import MAX_ALIASES, IdAliases


def test_an_alias_stands_in_for_the_id_and_a_cancel_naming_it() -> None:
    aliases = IdAliases()
    sent = b'{"jsonrpc":"2.0","id":1.50,"method":"tools/call","params":{"x":2.5}}'
    read = json.loads(aliases.alias(sent))
    alias = read["id"]
    assert isinstance(alias, str) and read["params"] == {"x": 2.5}
    cancel = b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1.50}}'
    assert json.loads(aliases.alias(cancel))["params"]["requestId"] == alias
    answer = json.dumps({"jsonrpc": "2.0", "id": alias, "result": {}}).encode()
    assert aliases.restore(alias, answer) == b'{"jsonrpc": "2.0", "id": 1.50, "result": {}}'
    assert len(aliases) == 0


def test_integer_and_string_ids_pass_unchanged() -> None:
    aliases = IdAliases()
    for body in (
        b'{"jsonrpc":"2.0","id":7,"method":"ping"}',
        b'{"jsonrpc":"2.0","id":"1.5","method":"ping"}',
        b'{"jsonrpc":"2.0","id":18446744073709551616,"method":"ping","params":{"v":1.5}}',
    ):
        assert aliases.alias(body) is body
    assert len(aliases) == 0


def test_aliases_of_requests_never_answered_are_bounded() -> None:
    aliases = IdAliases()
    for number in range(MAX_ALIASES + 10):  # each cancelled by its client: never answered
        aliases.alias(f'{{"jsonrpc":"2.0","id":{number}.5,"method":"ping"}}'.encode())
    assert len(aliases) == MAX_ALIASES
    newest = json.loads(aliases.alias(b'{"jsonrpc":"2.0","id":0.25,"method":"ping"}'))["id"]
    answer = json.dumps({"jsonrpc": "2.0", "id": newest, "result": {}}).encode()
    assert b'"id": 0.25' in aliases.restore(newest, answer)
