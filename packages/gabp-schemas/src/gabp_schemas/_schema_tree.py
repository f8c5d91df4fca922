"""Where the schema tree lives, and its two schema sets loaded into one ``referencing`` registry.

The tree holds two sets:

* ``gabp``: the normative GABP 1.0 schemas (``1.0/``), the files, ``$id``s and rules of the public
  GABP 1.1.0 release, JSON Schema draft-07.
* ``ext``: this repository's extension set (``ext/1.0/``), which refines the normative schemas
  for the attention lifecycle and adds what GABP leaves without a schema (the subscribe
  responses, the concurrency capability, the bridge's blocked-call result). Every extension
  schema references the normative ones, so judging by it includes judging by GABP's.

An installed wheel carries the tree as ``gabp_schemas/data``. An editable install from the
repository has no such directory; then the repository's own ``schemas/`` is used, so there is
never a second copy to drift.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any, Final, Literal

from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7

SCHEMA_VERSION: Final = "1.0"
BASE_URI: Final = f"https://gabp.dev/schema/{SCHEMA_VERSION}/"
"""``$id`` prefix of the normative set (GABP's own)."""
EXT_BASE_URI: Final = f"https://gabp.dev/schema/ext/{SCHEMA_VERSION}/"
"""``$id`` prefix of the extension set."""
EXT_PREFIX: Final = "ext/"
"""Short names of extension schemas start with this, e.g. ``ext/events/attention.event``."""

SchemaSet = Literal["gabp", "ext"]
SCHEMA_SETS: Final[tuple[SchemaSet, ...]] = ("gabp", "ext")

_MARKER = Path(SCHEMA_VERSION) / "envelope.schema.json"

ALIASES: Final[dict[str, str]] = {
    # names and ids this package used before the normative set became GABP's own
    "methods/session.hello.response": "methods/session.welcome.response",
    "https://gabp.dev/schema/1.0/methods/session.hello.response.json": (
        "methods/session.welcome.response"
    ),
}
"""Earlier short names and ``$id``s of GABP's own schemas, kept working: -> current short name.

A name or ``$id`` of a schema GABP has resolves to that schema first, so an alias can never
hide one of GABP's."""

MOVED_TO_EXT: Final[dict[str, str]] = {
    "bridge/blocked-call.result": "ext/bridge/blocked-call.result",
    "https://gabp.dev/schema/1.0/bridge/blocked-call.result.json": "ext/bridge/blocked-call.result",
    "methods/events.subscribe.response": "ext/methods/events.subscribe.response",
    "https://gabp.dev/schema/1.0/methods/events.subscribe.response.json": (
        "ext/methods/events.subscribe.response"
    ),
    "methods/events.unsubscribe.response": "ext/methods/events.unsubscribe.response",
    "https://gabp.dev/schema/1.0/methods/events.unsubscribe.response.json": (
        "ext/methods/events.unsubscribe.response"
    ),
    "https://gabp.dev/schema/1.0/events/attention.payload.json": "ext/events/attention.event",
}
"""Earlier GABP-looking names of extension schemas: they no longer resolve (GABP 1.1.0 has no
schema there, and a later GABP release may add one), but the error names the extension
schema to ask for instead."""


@cache
def data_root() -> Path:
    """The directory holding ``1.0/``, ``ext/``, ``examples/``, ``conformance/`` and AsyncAPI."""
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


def schema_dir(schema_set: SchemaSet = "gabp") -> Path:
    """The directory of one set: ``1.0/`` (normative) or ``ext/1.0/`` (extension)."""
    root = data_root()
    return root / SCHEMA_VERSION if schema_set == "gabp" else root / "ext" / SCHEMA_VERSION


def read_json(path: Path) -> Any:
    with path.open("rb") as handle:
        return json.load(handle)


def _short_name(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix().removesuffix(".json").removesuffix(".schema")


@cache
def schema_documents() -> dict[str, dict[str, Any]]:
    """Every schema by short name.

    Normative: ``envelope``, ``common/tool``, ``methods/tools.list.request``,
    ``methods/session.welcome.response``, ``events/attention.payload``. Extension:
    ``ext/events/attention.event``, ``ext/bridge/blocked-call.result``.
    """
    documents: dict[str, dict[str, Any]] = {}
    for schema_set in SCHEMA_SETS:
        root = schema_dir(schema_set)
        prefix = "" if schema_set == "gabp" else EXT_PREFIX
        for path in sorted(root.rglob("*.json")):
            documents[prefix + _short_name(path, root)] = read_json(path)
    return documents


def set_of(name: str) -> SchemaSet:
    """Which set a short name belongs to."""
    return "ext" if name.startswith(EXT_PREFIX) else "gabp"


@cache
def registry() -> Registry[Any]:
    """All schemas of both sets, keyed by ``$id``; refs resolve here, never over the network."""
    resources: list[tuple[str, Resource[Any]]] = [
        (doc["$id"], DRAFT7.create_resource(doc)) for doc in schema_documents().values()
    ]
    return Registry().with_resources(resources).crawl()
