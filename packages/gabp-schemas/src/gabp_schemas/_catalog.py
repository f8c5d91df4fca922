"""The shipped examples and conformance fixtures, read through their manifests.

Every entry records the verdict each schema set gives the file (``"verdicts": {"gabp": true,
"ext": false}``); ``covers`` names the public GABP 1.1.0 fixture or example a file re-creates.
Conformance files live in ``valid/`` (both sets accept them), ``invalid/`` (GABP's schemas
reject them, and so does the extension set) and ``ext-invalid/`` (GABP's schemas accept them,
the extension set's rules reject them).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
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
    """The verdict of GABP's own schemas (the default set)."""
    verdicts: Mapping[str, bool] = {}
    """The verdict of each schema set: ``{"gabp": ..., "ext": ...}``."""
    covers: tuple[str, ...] = ()
    """The public GABP 1.1.0 fixtures or examples this file re-creates (their paths there)."""


class Document(NamedTuple):
    """One non-message example and the schema to check it with ``validate_document``."""

    path: Path
    document: Any
    schema: str


def manifest_dir(kind: ManifestKind) -> Path:
    return data_root() / kind / SCHEMA_VERSION


def load_manifest(kind: ManifestKind) -> dict[str, dict[str, Any]]:
    """The manifest of ``examples`` or ``conformance``: relative file path -> entry.

    Entries carry ``method`` (a method, a channel, or null to route by the message itself) and
    ``verdicts``, or for non-message documents ``schema``; rejected conformance entries carry
    ``rule`` and ``path``, ``lenientAccept: true`` marks a rule a lenient receiver waives for
    real peers, and ``covers`` lists the public GABP cases a file re-creates.
    """
    manifest: dict[str, dict[str, Any]] = read_json(manifest_dir(kind) / "manifest.json")
    return manifest


def _fixture(root: Path, rel: str, entry: Mapping[str, Any], default_valid: bool) -> Fixture:
    path = root / rel
    verdicts = dict(entry.get("verdicts") or {})
    return Fixture(
        path,
        read_json(path),
        entry.get("method"),
        bool(verdicts.get("gabp", default_valid)),
        verdicts,
        tuple(entry.get("covers", ())),
    )


def examples() -> Iterator[Fixture]:
    """Every example GABP message, in path order."""
    root = manifest_dir("examples")
    for rel, entry in sorted(load_manifest("examples").items()):
        if "schema" not in entry:
            yield _fixture(root, rel, entry, True)


def documents() -> Iterator[Document]:
    """Example documents that are not GABP messages (bridge-level results), in path order."""
    root = manifest_dir("examples")
    for rel, entry in sorted(load_manifest("examples").items()):
        if "schema" in entry:
            path = root / rel
            yield Document(path, read_json(path), entry["schema"])


def fixtures() -> Iterator[Fixture]:
    """Every conformance fixture; ``expected_valid`` is GABP's verdict (False in ``invalid/``)."""
    root = manifest_dir("conformance")
    for rel, entry in sorted(load_manifest("conformance").items()):
        yield _fixture(root, rel, entry, not rel.startswith("invalid/"))
