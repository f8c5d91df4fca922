"""Checkpoint A: the runtime's pydantic models and the JSON Schemas agree on every file.

Each example and conformance fixture goes through both: ``gabp_schemas.validate`` and the
strict models (``gabp.messages``). A valid file must pass both; an invalid file must be
refused by both, except that the rules real peers break on purpose (``lenientAccept``) are
waived by the models in peer mode, which is what a live connection uses.
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
from gabp_schemas import SchemaValidationError, examples, fixtures, load_manifest, validate

CONFORMANCE = load_manifest("conformance")


def parse_fully(document: Any, method: str | None, *, strict: bool) -> None:
    """Parse the envelope and the method-specific part, as a receiver would."""
    message = parse_message(document, strict=strict)
    if isinstance(message, Request):
        if message.method in PARAMS_MODELS:  # custom methods have no fixed params shape
            parse_params(message.method, message.params, strict=strict)
    elif isinstance(message, Response):
        if method is not None and message.error is None:
            parse_result(method, message.result, strict=strict)
    else:
        parse_payload(message.channel, message.payload, strict=strict)


def _name(item: Any) -> str:
    return item.path.name


@pytest.mark.parametrize("item", [*examples(), *fixtures()], ids=_name)
def test_the_models_and_the_schemas_agree(item: Any) -> None:
    entry = CONFORMANCE.get(f"{item.path.parent.name}/{item.path.name}", {})
    if item.expected_valid:
        validate(item.document, method=item.method)
        parse_fully(item.document, item.method, strict=True)
        return
    with pytest.raises(SchemaValidationError):
        validate(item.document, method=item.method)
    with pytest.raises(MessageError):
        parse_fully(item.document, item.method, strict=True)
    if entry.get("lenientAccept"):
        parse_fully(item.document, item.method, strict=False)
