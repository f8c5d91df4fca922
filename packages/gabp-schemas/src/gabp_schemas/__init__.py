"""GABP 1.x JSON Schemas, examples and conformance fixtures, with a validator.

Two schema sets: ``gabp``, the normative GABP 1.0 schemas (the public GABP 1.1.0 release's
files, ``$id``s and rules), and ``ext``, this repository's extension set, which references the
normative schemas and adds the attention lifecycle refinements, the subscribe responses, the
concurrency capability and the bridge's blocked-call result. ``validate`` judges a message by
either set (GABP's by default); ``SchemaValidationError.errors`` lists every broken rule with
its JSON path.
"""

from gabp_schemas._catalog import (
    Document,
    Fixture,
    documents,
    examples,
    fixtures,
    load_manifest,
)
from gabp_schemas._errors import SchemaValidationError, UnknownSchemaError, ValidationIssue
from gabp_schemas._routing import ATTENTION_CHANNELS, METHODS, Check, checks_for, schema_name_for
from gabp_schemas._schema_tree import (
    BASE_URI,
    EXT_BASE_URI,
    SCHEMA_SETS,
    SCHEMA_VERSION,
    SchemaSet,
    data_root,
)
from gabp_schemas._validation import (
    judged_by,
    load_schema,
    schema_ids,
    schema_names,
    validate,
    validate_document,
    verdict,
)

__all__ = [
    "ATTENTION_CHANNELS",
    "BASE_URI",
    "EXT_BASE_URI",
    "METHODS",
    "SCHEMA_SETS",
    "SCHEMA_VERSION",
    "Check",
    "Document",
    "Fixture",
    "SchemaSet",
    "SchemaValidationError",
    "UnknownSchemaError",
    "ValidationIssue",
    "checks_for",
    "data_root",
    "documents",
    "examples",
    "fixtures",
    "judged_by",
    "load_manifest",
    "load_schema",
    "schema_ids",
    "schema_name_for",
    "schema_names",
    "validate",
    "validate_document",
    "verdict",
]
