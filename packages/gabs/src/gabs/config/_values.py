"""Reading typed values out of decoded JSON, each problem recorded at its JSON pointer."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any, Final

from ._issues import ConfigIssue, escape_pointer

__all__ = ["Values", "json_kind"]


#: The range of the Go bridge's ``int``: a larger number makes it refuse the whole file.
_INT_MIN: Final = -(2**63)
_INT_MAX: Final = 2**63 - 1


def json_kind(value: Any) -> str:
    """Name a decoded JSON value's type as an error message does: ``null``, ``a number``, ..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


class Values:
    """Typed reads that never raise: a wrong value is an issue and reads as ``None``."""

    def __init__(self) -> None:
        self.errors: list[ConfigIssue] = []
        self.warnings: list[ConfigIssue] = []

    def error(self, path: str, message: str, code: str = "") -> None:
        self.errors.append(ConfigIssue(path, message, code))

    def _wrong(self, path: str, what: str, value: Any) -> None:
        self.error(path, f"must be {what}, not {json_kind(value)}")

    def obj(self, value: Any, path: str) -> dict[str, Any] | None:
        if value is None:
            return None
        if not isinstance(value, dict):
            self._wrong(path, "an object", value)
            return None
        return value

    def string(self, value: Any, path: str) -> str | None:
        if value is None:
            return None
        if not isinstance(value, str):
            self._wrong(path, "a string", value)
            return None
        return value

    def boolean(self, value: Any, path: str) -> bool | None:
        if value is None:
            return None
        if not isinstance(value, bool):
            self._wrong(path, "true or false", value)
            return None
        return value

    def _fits(self, value: int, path: str) -> bool:
        """Whether the Go bridge can hold the integer (its ``int`` has 64 bits); an error if not."""
        if _INT_MIN <= value <= _INT_MAX:
            return True
        self.error(path, f"must be an integer between {_INT_MIN} and {_INT_MAX}")
        return False

    def integer(
        self, value: Any, path: str, *, low: int | None = None, high: int | None = None
    ) -> int | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            self._wrong(path, "an integer", value)
            return None
        if not self._fits(value, path):
            return None
        if (low is not None and value < low) or (high is not None and value > high):
            bounds = f"between {low} and {high}" if low is not None and high is not None else ""
            if not bounds:
                bounds = f"at least {low}" if low is not None else f"at most {high}"
            self.error(path, f"must be {bounds}")
            return None
        return value

    def number(self, value: Any, path: str) -> float | None:
        """A finite number (its sign is the caller's to judge)."""
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float):
            self._wrong(path, "a number", value)
            return None
        if not math.isfinite(value):
            self.error(path, "must be a finite number")
            return None
        return float(value)

    def strings(self, value: Any, path: str) -> tuple[str, ...] | None:
        if value is None:
            return None
        if not isinstance(value, list):
            self._wrong(path, "an array of strings", value)
            return None
        ok = True
        for index, item in enumerate(value):
            if not isinstance(item, str):
                self._wrong(f"{path}/{index}", "a string", item)
                ok = False
        return tuple(value) if ok else None

    def integers(self, value: Any, path: str) -> tuple[int, ...] | None:
        if value is None:
            return None
        if not isinstance(value, list):
            self._wrong(path, "an array of integers", value)
            return None
        ok = True
        for index, item in enumerate(value):
            if isinstance(item, bool) or not isinstance(item, int):
                self._wrong(f"{path}/{index}", "an integer", item)
                ok = False
            elif not self._fits(item, f"{path}/{index}"):
                ok = False
        return tuple(value) if ok else None

    def string_map(self, value: Any, path: str) -> dict[str, str] | None:
        found = self.obj(value, path)
        if found is None:
            return None
        ok = True
        for key, item in found.items():
            if not isinstance(item, str):
                self._wrong(f"{path}/{escape_pointer(key)}", "a string", item)
                ok = False
        return dict(found) if ok else None

    def unknown_keys(
        self, found: dict[str, Any], known: Iterable[str], path: str, *, strict: bool
    ) -> dict[str, Any]:
        """Report keys outside ``known`` (errors when ``strict``, else warnings); return them."""
        allowed = set(known)
        extra = {key: value for key, value in found.items() if key not in allowed}
        for key in sorted(extra):
            issue = ConfigIssue(f"{path}/{escape_pointer(key)}", "unknown key")
            (self.errors if strict else self.warnings).append(issue)
        return extra
