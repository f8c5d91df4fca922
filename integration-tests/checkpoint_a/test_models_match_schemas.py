"""Checkpoint A: the runtime's pydantic models and the JSON Schemas agree on every file.

Each example and conformance fixture goes through the schemas and the models
(``gabp.messages``), in both of the models' modes:

* strict (what this repository sends) accepts exactly what the extension set accepts, which
  is GABP's normative schemas plus the extension's rules;
* peer (what a live connection uses to receive) accepts everything GABP's own schemas accept,
  and the files marked ``lenientAccept`` (what real peers send although the schemas refuse it).
  GABP has no result schema for ``events/subscribe`` and ``events/unsubscribe``: there the
  models read the result the extension set describes, in both modes.
"""

from __future__ import annotations

from typing import Any

import pytest

from gabp import MessageError
from gabp.messages import (
    PARAMS_MODELS,
    Request,
    Response,
    parse_message,
    parse_params,
    parse_payload,
    parse_result,
)
from gabp_schemas import Fixture, examples, fixtures, load_manifest

CONFORMANCE = load_manifest("conformance")
ITEMS = [*examples(), *fixtures()]


EXTENSION_ONLY_RESULTS = {"events/subscribe", "events/unsubscribe"}


def parse_fully(document: Any, method: str | None, *, strict: bool) -> None:
    """Parse the envelope and the method-specific part, as a receiver would."""
    message = parse_message(document, strict=strict)
    if isinstance(message, Request):
        if message.method in PARAMS_MODELS:  # custom methods have no fixed params shape
            parse_params(message.method, message.params, strict=strict)
    elif isinstance(message, Response):
        typed = strict or method not in EXTENSION_ONLY_RESULTS
        if method is not None and message.error is None and typed:
            parse_result(method, message.result, strict=strict)
    else:
        parse_payload(message.channel, message.payload, strict=strict)


def _name(item: Fixture) -> str:
    return f"{item.path.parent.name}/{item.path.name}"


def _accepts(item: Fixture, *, strict: bool) -> bool:
    try:
        parse_fully(item.document, item.method, strict=strict)
    except MessageError:
        return False
    return True


@pytest.mark.parametrize("item", ITEMS, ids=_name)
def test_strict_models_accept_exactly_what_the_extension_set_accepts(item: Fixture) -> None:
    assert _accepts(item, strict=True) is item.verdicts["ext"]


@pytest.mark.parametrize("item", [i for i in ITEMS if i.verdicts["gabp"]], ids=_name)
def test_peer_models_accept_everything_gabps_schemas_accept(item: Fixture) -> None:
    assert _accepts(item, strict=False)


@pytest.mark.parametrize(
    "item", [i for i in ITEMS if CONFORMANCE.get(_name(i), {}).get("lenientAccept")], ids=_name
)
def test_peer_models_accept_what_real_peers_send_against_the_schemas(item: Fixture) -> None:
    assert not item.verdicts["gabp"]
    assert _accepts(item, strict=False)
