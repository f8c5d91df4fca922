"""The shipped examples and conformance fixtures, read through their manifests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal, NamedTuple

from gabp_schemas._schema_tree import SCHEMA_VERSION, data_root, read_json

ManifestKind = Literal["examples", "conformance"]


class Fixture(NamedTuple):
    """One GABP message file and how it should fare under ``validate(document, method=...)``."""

    path: Path
    document: Any
    method: str | None
    expected_valid: bool


class Document(NamedTuple):
    """One non-message example and the schema to check it with ``validate_document``."""

    path: Path
    document: Any
    schema: str


def manifest_dir(kind: ManifestKind) -> Path:
    return data_root() / kind / SCHEMA_VERSION


def load_manifest(kind: ManifestKind) -> dict[str, dict[str, Any]]:
    """The manifest of ``examples`` or ``conformance``: relative file path -> entry.

    Entries carry ``method`` (a method, a channel, or null to route by the message itself),
    or for non-message documents ``schema``; conformance entries under ``invalid/`` carry
    ``rule``, and ``lenientAccept: true`` marks a rule a lenient receiver waives for real peers.
    """
    manifest: dict[str, dict[str, Any]] = read_json(manifest_dir(kind) / "manifest.json")
    return manifest


def examples() -> Iterator[Fixture]:
    """Every example GABP message (all expected valid), in path order."""
    root = manifest_dir("examples")
    for rel, entry in sorted(load_manifest("examples").items()):
        if "schema" in entry:
            continue
        path = root / rel
        yield Fixture(path, read_json(path), entry.get("method"), True)


def documents() -> Iterator[Document]:
    """Example documents that are not GABP messages (bridge-level results), in path order."""
    root = manifest_dir("examples")
    for rel, entry in sorted(load_manifest("examples").items()):
        if "schema" in entry:
            path = root / rel
            yield Document(path, read_json(path), entry["schema"])


def fixtures() -> Iterator[Fixture]:
    """Every conformance fixture; ``expected_valid`` is False for files under ``invalid/``."""
    root = manifest_dir("conformance")
    for rel, entry in sorted(load_manifest("conformance").items()):
        path = root / rel
        yield Fixture(path, read_json(path), entry.get("method"), rel.startswith("valid/"))
