"""GABP 1.x JSON Schemas, examples and conformance fixtures, with a validator.

The schema tree is package data; ``validate`` checks a message's envelope and its
method-specific part, and ``SchemaValidationError.errors`` lists every broken rule with its
JSON path.
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
from gabp_schemas._schema_tree import SCHEMA_VERSION, data_root
from gabp_schemas._validation import (
    ATTENTION_CHANNELS,
    METHODS,
    load_schema,
    schema_ids,
    schema_name_for,
    schema_names,
    validate,
    validate_document,
)

__all__ = [
    "ATTENTION_CHANNELS",
    "METHODS",
    "SCHEMA_VERSION",
    "Document",
    "Fixture",
    "SchemaValidationError",
    "UnknownSchemaError",
    "ValidationIssue",
    "data_root",
    "documents",
    "examples",
    "fixtures",
    "load_manifest",
    "load_schema",
    "schema_ids",
    "schema_name_for",
    "schema_names",
    "validate",
    "validate_document",
]
