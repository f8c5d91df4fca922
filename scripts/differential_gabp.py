"""Differential check of gabp-schemas against a checkout of the public GABP repository.

Side check, not a test (CI has no copy of GABP). Give it the root of a GABP 1.1.0 checkout
(the directory holding ``SCHEMA/1.0``, ``CONFORMANCE/1.0`` and ``EXAMPLES/1.0``)::

    uv run python scripts/differential_gabp.py /path/to/GABP

It judges, with the same routing and the same format checks on both sides:

A. every GABP fixture and example by our normative schemas and by GABP's own, and against the
   verdict its directory implies (``invalid/`` rejected, the rest accepted);
B. every message of our corpus by GABP's own schemas, against the ``gabp`` verdict recorded
   in our manifests;
C. every document of both against every normative schema, ours and GABP's side by side.

Exit status 0 when nothing disagrees.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from jsonschema import Draft7Validator
from referencing import Registry
from referencing.jsonschema import DRAFT7

from gabp_schemas import checks_for, data_root, load_manifest, verdict
from gabp_schemas._formats import format_checker
from gabp_schemas._schema_tree import schema_documents
from gabp_schemas._validation import issues_for


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    upstream_root = Path(argv[0])
    schema_root = upstream_root / "SCHEMA" / "1.0"
    theirs: dict[str, dict[str, Any]] = {
        p.relative_to(schema_root).as_posix().removesuffix(".json").removesuffix(".schema"): (
            json.loads(p.read_text(encoding="utf-8"))
        )
        for p in sorted(schema_root.rglob("*.json"))
    }
    registry: Registry[Any] = (
        Registry()
        .with_resources([(d["$id"], DRAFT7.create_resource(d)) for d in theirs.values()])
        .crawl()
    )
    checker = format_checker()
    validators: dict[str, Draft7Validator] = {}

    def their_ok(name: str, instance: Any) -> bool:
        if name not in validators:
            validators[name] = Draft7Validator(
                {"$ref": theirs[name]["$id"]}, registry=registry, format_checker=checker
            )
        return bool(validators[name].is_valid(instance))

    def their_verdict(document: Any, method: str | None) -> bool:
        checks = checks_for(document, method=method, schema_set="gabp")
        return all(their_ok(c.schema, document[c.at] if c.at else document) for c in checks)

    ours = sorted(name for name in schema_documents() if not name.startswith("ext/"))
    if ours != sorted(theirs):
        print(f"the schema sets differ: {sorted(set(ours) ^ set(theirs))}")
        return 1

    method_of: dict[str, str | None] = {}
    for entry in load_manifest("conformance").values():
        for case in entry.get("covers", []):
            method_of[case] = entry.get("method")
    cases = sorted(
        p.relative_to(upstream_root).as_posix()
        for folder in ("CONFORMANCE/1.0", "EXAMPLES/1.0")
        for p in (upstream_root / folder).rglob("*.json")
    )
    a_schemas = a_expected = 0
    for case in cases:
        document = json.loads((upstream_root / case).read_text(encoding="utf-8"))
        method = method_of.get(case)
        mine = verdict(document, method=method)
        if mine != their_verdict(document, method):
            a_schemas += 1
            print(f"A: {case}: ours {mine}, GABP's schemas {not mine}")
        if mine != ("/invalid/" not in case):
            a_expected += 1
            print(f"A: {case}: ours {mine}, its directory says {not mine}")
    covered = sum(case in method_of for case in cases)
    print(
        f"A. {len(cases)} GABP fixtures and examples ({covered} re-created in our corpus): "
        f"{a_schemas} disagreements with GABP's schemas, {a_expected} with their directories"
    )

    corpus: list[Any] = []
    b_disagree = extension_only = 0
    for kind in ("conformance", "examples"):
        for rel, entry in sorted(load_manifest(kind).items()):
            if "schema" in entry:
                continue
            document = json.loads((data_root() / kind / "1.0" / rel).read_text(encoding="utf-8"))
            corpus.append(document)
            if their_verdict(document, entry.get("method")) != entry["verdicts"]["gabp"]:
                b_disagree += 1
                print(f"B: {kind}/{rel}: GABP's schemas disagree with the recorded verdict")
            extension_only += entry["verdicts"]["gabp"] != entry["verdicts"]["ext"]
    print(
        f"B. {len(corpus)} messages of our corpus: {b_disagree} disagreements with GABP's "
        f"schemas ({extension_only} more are refused only by the extension set, by design)"
    )

    documents = corpus + [json.loads((upstream_root / c).read_text("utf-8")) for c in cases]
    pairs = c_disagree = 0
    for name in ours:
        for document in documents:
            parts = [document]
            if isinstance(document, dict) and isinstance(document.get("payload"), dict):
                parts.append(document["payload"])
            for part in parts:
                pairs += 1
                if (not issues_for(name, part)) != their_ok(name, part):
                    c_disagree += 1
                    print(f"C: {name} disagrees on {json.dumps(part)[:100]}")
    print(
        f"C. {len(ours)} normative schemas x {len(documents)} documents and their payloads: "
        f"{pairs} verdicts, {c_disagree} disagreements"
    )
    return 1 if a_schemas or a_expected or b_disagree or c_disagree else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
