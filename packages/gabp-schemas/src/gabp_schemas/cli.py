"""``gabp-validate``: check GABP messages (or bridge documents) in JSON files.

Exit status: 0 every file is valid, 1 at least one is invalid, 2 a usage error or a file
that cannot be read or parsed (that wins over 1).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gabp_schemas._errors import SchemaValidationError, UnknownSchemaError
from gabp_schemas._schema_tree import SCHEMA_SETS
from gabp_schemas._validation import loads, validate, validate_document

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_USAGE = 2
_MANIFEST = "manifest.json"
_MANIFEST_SEARCH_DEPTH = 3


class _Unusable(Exception):
    """A file that cannot be read or is not JSON."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gabp-validate",
        description="Validate GABP 1.x messages against the JSON Schemas: GABP's own set "
        "(the default) or this repository's extension set on top of it.",
        epilog=(
            "Without --method or --schema, a file listed in a manifest.json (in its directory "
            "or up to three levels above, as in the shipped examples and conformance "
            "fixtures) is checked the way its manifest entry says; any other file is routed "
            "by its own type, method and channel. Exit status: 0 all valid, 1 some invalid, "
            "2 usage error or unreadable file."
        ),
    )
    target = parser.add_mutually_exclusive_group()
    target.add_argument(
        "--method",
        metavar="METHOD",
        help="check as a message of this method or channel (needed to type-check a response)",
    )
    target.add_argument(
        "--schema",
        metavar="NAME",
        help="check each file as a plain document against this schema (short name or $id), "
        "e.g. ext/bridge/blocked-call.result",
    )
    parser.add_argument(
        "--set",
        dest="schema_set",
        choices=SCHEMA_SETS,
        default="gabp",
        help="which schema set judges messages: gabp (GABP 1.1.0's normative schemas, the "
        "default) or ext (those plus the extension set's rules)",
    )
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="list every error, not just the first"
    )
    parser.add_argument("files", nargs="+", type=Path, metavar="FILE")
    return parser


def _load(path: Path) -> Any:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise _Unusable(f"cannot read: {exc.strerror or exc}") from exc
    try:
        return loads(raw)
    except ValueError as exc:  # UnicodeDecodeError, JSONDecodeError, NaN and the infinities
        raise _Unusable(f"not JSON: {exc}") from exc


def _manifest_entry(path: Path) -> dict[str, Any] | None:
    resolved = path.resolve()
    for directory in list(resolved.parents)[:_MANIFEST_SEARCH_DEPTH]:
        manifest = directory / _MANIFEST
        if manifest.is_file():
            try:
                entries = json.loads(manifest.read_bytes())
            except (OSError, ValueError):
                return None
            entry = entries.get(resolved.relative_to(directory).as_posix())
            return entry if isinstance(entry, dict) else None
    return None


def _check(document: Any, path: Path, args: argparse.Namespace) -> None:
    if args.schema is not None:
        validate_document(document, args.schema)
        return
    if args.method is not None:
        validate(document, method=args.method, schema_set=args.schema_set)
        return
    entry = _manifest_entry(path)
    if entry is not None and "schema" in entry:
        validate_document(document, entry["schema"])
    else:
        method = entry.get("method") if entry else None
        validate(document, method=method, schema_set=args.schema_set)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    status = EXIT_OK
    for path in args.files:
        try:
            document = _load(path)
            _check(document, path, args)
        except _Unusable as exc:
            print(f"error  {path}: {exc}", file=sys.stderr)
            status = EXIT_USAGE
        except UnknownSchemaError as exc:
            print(f"gabp-validate: {exc}", file=sys.stderr)
            return EXIT_USAGE
        except SchemaValidationError as exc:
            more = len(exc.errors) - 1
            if args.verbose:
                print(f"invalid  {path}:")
                for line in exc.errors:
                    print(f"    {line}")
            else:
                suffix = f" (+{more} more)" if more else ""
                print(f"invalid  {path}: {exc.errors[0]}{suffix}")
            status = max(status, EXIT_INVALID)
        else:
            print(f"ok  {path}")
    return status


if __name__ == "__main__":
    sys.exit(main())
