"""Where the schema tree lives, and its files loaded into a ``referencing`` registry.

An installed wheel carries the tree as ``gabp_schemas/data``. An editable install from the
repository has no such directory; then the repository's own ``schemas/`` is used, so there is
never a second copy to drift.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

SCHEMA_VERSION = "1.0"
BASE_URI = f"https://gabp.dev/schema/{SCHEMA_VERSION}/"
_MARKER = Path(SCHEMA_VERSION) / "envelope.schema.json"


@cache
def data_root() -> Path:
    """The directory holding ``1.0/``, ``examples/``, ``conformance/`` and ``asyncapi.yaml``."""
    packaged = Path(__file__).parent / "data"
    if (packaged / _MARKER).is_file():
        return packaged
    for parent in Path(__file__).resolve().parents:
        candidate = parent / "schemas"
        if (candidate / _MARKER).is_file():
            return candidate
    raise FileNotFoundError(
        "the GABP schema tree was found neither in the installed package (gabp_schemas/data) "
        "nor in a repository checkout above it (schemas/)"
    )


def schema_dir() -> Path:
    return data_root() / SCHEMA_VERSION


def read_json(path: Path) -> Any:
    with path.open("rb") as handle:
        return json.load(handle)


@cache
def schema_documents() -> dict[str, dict[str, Any]]:
    """Every schema by short name: ``envelope``, ``common/tool``, ``methods/tools.list.request``."""
    root = schema_dir()
    documents: dict[str, dict[str, Any]] = {}
    for path in sorted(root.rglob("*.json")):
        name = path.relative_to(root).as_posix().removesuffix(".json").removesuffix(".schema")
        documents[name] = read_json(path)
    return documents


@cache
def registry() -> Registry[Any]:
    """All schemas, keyed by their ``$id``; refs resolve here, never over the network."""
    resources = [
        (doc["$id"], Resource.from_contents(doc, default_specification=DRAFT202012))
        for doc in schema_documents().values()
    ]
    return Registry().with_resources(resources).crawl()
