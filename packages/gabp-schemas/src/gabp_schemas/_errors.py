"""The errors this package raises."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ValidationIssue:
    """One broken rule: where (a JSON path such as ``$.params.token``) and what."""

    path: str
    message: str
    keyword: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


class SchemaValidationError(ValueError):
    """A document broke one or more schema rules; ``errors`` lists every one of them."""

    def __init__(self, issues: list[ValidationIssue], *, schema: str) -> None:
        self.issues = list(issues)
        self.errors = [str(issue) for issue in self.issues]
        self.schema = schema
        count = len(self.errors)
        noun = "error" if count == 1 else "errors"
        lines = [f"{count} schema {noun} against {schema}:"]
        lines.extend(f"  {line}" for line in self.errors)
        super().__init__("\n".join(lines))


class UnknownSchemaError(KeyError):
    """No schema is known under the asked name or method."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown schema"
