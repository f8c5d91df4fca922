"""The schema files themselves: the normative GABP set, the extension set, AsyncAPI, the tree."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema import Draft7Validator

import gabp_schemas
from gabp_schemas import BASE_URI, EXT_BASE_URI, load_schema

ROOT = gabp_schemas.data_root()
TREE = ROOT / "1.0"
EXT_TREE = ROOT / "ext" / "1.0"
NORMATIVE_FILES = sorted(TREE.rglob("*.json"))
EXTENSION_FILES = sorted(EXT_TREE.rglob("*.json"))
REPO_SCHEMAS = Path(__file__).resolve().parents[3] / "schemas"
DRAFT_07 = "https://json-schema.org/draft-07/schema#"

GABP_1_1_0_FILES = {
    "envelope.schema.json",
    "common/attention.schema.json",
    "common/capabilities.schema.json",
    "common/error.schema.json",
    "common/tool.schema.json",
    "events/attention.payload.schema.json",
    "events/event.message.json",
    *(
        f"methods/{stem}.json"
        for stem in (
            "attention.ack.request",
            "attention.ack.response",
            "attention.current.request",
            "attention.current.response",
            "events.subscribe.request",
            "events.unsubscribe.request",
            "resources.list.request",
            "resources.list.response",
            "resources.read.request",
            "resources.read.response",
            "session.hello.request",
            "session.welcome.response",
            "state.get.request",
            "state.get.response",
            "state.set.request",
            "state.set.response",
            "tools.call.request",
            "tools.call.response",
            "tools.list.request",
            "tools.list.response",
        )
    ),
}
"""The files of GABP 1.1.0's SCHEMA/1.0, by path: the normative set has exactly these."""


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return found + [r for value in node.values() for r in _refs(value)]
    if isinstance(node, list):
        return [r for value in node for r in _refs(value)]
    return []


def _read(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return document


def test_in_a_repository_checkout_the_tree_is_the_repository_schemas_directory() -> None:
    assert ROOT == REPO_SCHEMAS


def test_the_normative_set_has_exactly_the_files_of_gabp_1_1_0() -> None:
    assert {p.relative_to(TREE).as_posix() for p in NORMATIVE_FILES} == GABP_1_1_0_FILES


@pytest.mark.parametrize("path", NORMATIVE_FILES, ids=lambda p: p.relative_to(TREE).as_posix())
def test_every_normative_schema_is_draft_07_with_gabps_id_for_its_path(path: Path) -> None:
    schema = _read(path)
    Draft7Validator.check_schema(schema)
    assert schema["$schema"] == DRAFT_07
    assert schema["$id"] == BASE_URI + path.relative_to(TREE).as_posix()


@pytest.mark.parametrize("path", EXTENSION_FILES, ids=lambda p: p.relative_to(EXT_TREE).as_posix())
def test_every_extension_schema_is_draft_07_with_an_id_outside_gabps_tree(path: Path) -> None:
    schema = _read(path)
    Draft7Validator.check_schema(schema)
    assert schema["$schema"] == DRAFT_07
    assert schema["$id"] == EXT_BASE_URI + path.relative_to(EXT_TREE).as_posix()
    assert not schema["$id"].startswith(BASE_URI)


@pytest.mark.parametrize(
    "path", NORMATIVE_FILES + EXTENSION_FILES, ids=lambda p: p.relative_to(ROOT).as_posix()
)
def test_every_reference_points_at_a_schema_in_the_tree(path: Path) -> None:
    known_ids = set(gabp_schemas.schema_ids())
    for ref in _refs(_read(path)):
        target = ref.split("#", 1)[0]
        if target.startswith("https://"):
            assert target in known_ids, ref
        elif target:
            assert (path.parent / target).resolve().is_file(), ref


def test_normative_schemas_reference_nothing_outside_the_normative_set() -> None:
    for path in NORMATIVE_FILES:
        for ref in _refs(_read(path)):
            assert not ref.startswith("https://"), (path.name, ref)
            target = ref.split("#", 1)[0]
            if target:
                assert TREE in (path.parent / target).resolve().parents


def test_the_extension_set_builds_on_the_normative_schemas() -> None:
    referencing = {
        path.relative_to(EXT_TREE).as_posix()
        for path in EXTENSION_FILES
        if any(ref.startswith(BASE_URI) for ref in _refs(_read(path)))
    }
    assert referencing == {
        "bridge/blocked-call.result.json",
        "events/attention.event.json",
        "methods/attention.ack.response.json",
        "methods/attention.current.response.json",
        "methods/session.welcome.response.json",
    }


def test_gabp_has_a_request_schema_for_every_method_and_the_extension_fills_in_responses() -> None:
    names = set(gabp_schemas.schema_names())
    for method in gabp_schemas.METHODS:
        stem = "methods/" + method.replace("/", ".")
        assert f"{stem}.request" in names
        response = "methods/session.welcome.response" if method == "session/hello" else None
        assert (response or f"{stem}.response") in names or f"ext/{stem}.response" in names


def test_capabilities_forbid_a_tools_key() -> None:
    capabilities = load_schema("common/capabilities")
    assert capabilities["additionalProperties"] is False
    assert "tools" not in capabilities["properties"]


def test_the_attention_object_has_exactly_the_frozen_keys() -> None:
    attention = load_schema("common/attention")
    assert attention["additionalProperties"] is False
    assert set(attention["properties"]) == {
        "attentionId",
        "state",
        "severity",
        "blocking",
        "stateInvalidated",
        "summary",
        "causalOperationId",
        "causalMethod",
        "openedAtSequence",
        "latestSequence",
        "diagnosticsCursor",
        "totalUrgentEntries",
        "sample",
    }
    assert set(attention["required"]) == set(attention["properties"]) - {
        "causalOperationId",
        "causalMethod",
        "diagnosticsCursor",
        "sample",
    }


def test_the_concurrency_capability_is_an_extension_object_gabp_admits() -> None:
    key = "concurrency"
    pattern = next(
        iter(load_schema("common/capabilities")["properties"]["extensions"]["patternProperties"])
    )
    import re

    assert re.fullmatch(pattern, key)
    schema = load_schema("ext/common/concurrency.capability")
    assert schema["required"] == ["maxConcurrentRequests"]
    assert schema["properties"]["maxConcurrentRequests"] == {
        "type": "integer",
        "minimum": 1,
        "description": schema["properties"]["maxConcurrentRequests"]["description"],
    }


def test_asyncapi_is_an_asyncapi_3_document_with_the_four_channels() -> None:
    document = yaml.safe_load((ROOT / "asyncapi.yaml").read_text(encoding="utf-8"))
    assert document["asyncapi"] == "3.0.0"
    assert {"info", "channels", "operations", "components"} <= set(document)
    assert {"title", "version"} <= set(document["info"])
    addresses = sorted(channel["address"] for channel in document["channels"].values())
    assert addresses == ["attention/cleared", "attention/opened", "attention/updated", "{channel}"]


def test_asyncapi_operations_and_messages_point_at_things_that_exist() -> None:
    document = yaml.safe_load((ROOT / "asyncapi.yaml").read_text(encoding="utf-8"))
    for operation in document["operations"].values():
        assert operation["action"] == "receive"
        channel = operation["channel"]["$ref"].removeprefix("#/channels/")
        assert channel in document["channels"]
    for message in document["components"]["messages"].values():
        assert (ROOT / message["payload"]["schema"]["$ref"]).resolve().is_file()
