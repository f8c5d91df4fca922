"""The schema files themselves, the AsyncAPI document, and where the tree is found."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema import Draft202012Validator

import gabp_schemas
from gabp_schemas import load_schema

ROOT = gabp_schemas.data_root()
TREE = ROOT / "1.0"
SCHEMA_FILES = sorted(TREE.rglob("*.json"))
REPO_SCHEMAS = Path(__file__).resolve().parents[3] / "schemas"


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return found + [r for value in node.values() for r in _refs(value)]
    if isinstance(node, list):
        return [r for value in node for r in _refs(value)]
    return []


def test_in_a_repository_checkout_the_tree_is_the_repository_schemas_directory() -> None:
    assert ROOT == REPO_SCHEMAS


@pytest.mark.parametrize("path", SCHEMA_FILES, ids=lambda p: p.relative_to(TREE).as_posix())
def test_every_schema_is_a_valid_draft_2020_12_schema_with_an_id_matching_its_path(
    path: Path,
) -> None:
    schema = json.loads(path.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == "https://gabp.dev/schema/1.0/" + path.relative_to(TREE).as_posix()


@pytest.mark.parametrize("path", SCHEMA_FILES, ids=lambda p: p.relative_to(TREE).as_posix())
def test_every_cross_file_reference_points_at_a_file_in_the_tree(path: Path) -> None:
    schema = json.loads(path.read_text(encoding="utf-8"))
    for ref in _refs(schema):
        target = ref.split("#", 1)[0]
        if target:
            assert (path.parent / target).resolve().is_file(), ref


def test_there_is_a_request_and_a_response_schema_for_every_method() -> None:
    names = set(gabp_schemas.schema_names())
    for method in gabp_schemas.METHODS:
        stem = "methods/" + method.replace("/", ".")
        assert {f"{stem}.request", f"{stem}.response"} <= names


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
