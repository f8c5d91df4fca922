"""Checking a tool call's arguments against the tool's model, leniently where peers need it.

* An integral number (``5.0``) is accepted where an integer is wanted: the advertised JSON
  Schema calls it an integer, and the Go bridge sends JSON numbers as floats. Only up to
  2**53: a larger float (``1e300``) holds no exact whole number, and is refused.
* With ``argument_values="convert"`` (Lib.GAB's choice), the values Lib.GAB converts
  without losing or inventing anything are taken too (``"5"`` for an integer, ``"true"`` or
  ``1`` for a boolean, ``"fast"`` for the enum value ``"Fast"``).
* An argument name the tool does not know is refused by default, with the names it does
  know (silently ignoring it is how ``{"paused": false}`` pauses a game whose parameter is
  ``pause``). A server can opt into Lib.GAB's behaviour instead: unknown names are dropped
  with a warning, and a name that differs from a parameter only in letter case is taken as it
  (a ``register_tool`` handler gets the unknown names as they came, see
  :meth:`lib_gab.tools.Tool.validate_arguments`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any, Literal, TypeAlias

from pydantic import BaseModel, ValidationError

from gabp import ErrorCode, ProtocolError
from gabp.wirejson import encode
from lib_gab._argument_conversion import ArgumentValues, converted, enum_at, is_nothing
from lib_gab._nested_members import ObjectShape, ignore_nested, unknown_nested

__all__ = [
    "ArgumentValues",
    "InvalidArguments",
    "UnknownArguments",
    "check_arguments",
    "known_names",
]

logger = logging.getLogger("lib_gab.tools")

UnknownArguments: TypeAlias = Literal["refuse", "ignore"]
_MAX_ROUNDS = 8


class InvalidArguments(ProtocolError):
    """The arguments of a tools/call do not match the tool's input schema (``-32602``)."""

    def __init__(self, tool: str, problems: list[dict[str, str]]) -> None:
        listed = "; ".join(f"{p['path']}: {p['message']}" for p in problems)
        super().__init__(
            ErrorCode.INVALID_PARAMS,
            f"invalid arguments for {tool}: {listed}",
            {"tool": tool, "errors": problems},
        )


def known_names(model: type[BaseModel]) -> list[str]:
    """The argument names a model takes (wire aliases where a field has one)."""
    return [field.alias or name for name, field in model.model_fields.items()]


def _ignore_unknown(tool: str, data: dict[str, Any], known: list[str]) -> dict[str, Any]:
    kept: dict[str, Any] = {}
    by_case = {name.lower(): name for name in known}
    for key, value in data.items():
        if key in known:
            kept[key] = value
            continue
        match = by_case.get(key.lower()) if isinstance(key, str) else None
        if match is not None and match not in data:
            logger.warning("%s: argument %r taken as %r (letter case differs)", tool, key, match)
            kept[match] = value
        else:
            logger.warning(
                "%s: unknown argument %r ignored; known: %s", tool, key, ", ".join(known) or "none"
            )
    return kept


def _replace_at(
    data: Any, loc: tuple[int | str, ...], error: Any, convert: bool, model: type[BaseModel]
) -> bool:
    """Put the converted input of ``error`` at ``loc``; True if one was put there."""
    container: Any = data
    parents: list[tuple[Any, int | str]] = []
    path: list[int | str] = []
    for part in loc:
        in_dict = isinstance(container, dict) and part in container
        in_list = isinstance(container, list) and isinstance(part, int)
        if in_dict or (in_list and 0 <= int(part) < len(container)):
            parents.append((container, part))
            path.append(part)
            container = container[part]
        # anything else is a tag pydantic adds (a union member): skip it
    if not parents or container != error["input"] or type(container) is not type(error["input"]):
        return False
    enum = enum_at(model, tuple(path)) if convert and error["type"] == "enum" else None
    value = converted(error, convert, enum)
    if is_nothing(value):
        return False
    holder, key = parents[-1]
    holder[key] = value
    return True


def _problems(exc: ValidationError, known: list[str]) -> list[dict[str, str]]:
    problems = []
    for error in exc.errors(include_url=False):
        loc = [str(part) for part in error["loc"]]
        path = "$" + "".join(f"[{p}]" if p.isdigit() else f".{p}" for p in loc)
        message = error["msg"]
        if error["type"] == "extra_forbidden" and len(loc) > 1:
            message = "unknown member"
        elif error["type"] == "extra_forbidden":
            takes = ", ".join(known) if known else "no arguments"
            message = f"unknown argument (this tool takes: {takes})"
        elif error["type"] == "missing":
            message = "required argument is missing"
        problems.append({"path": path, "message": message, "rule": error["type"]})
    return problems


def _json_text(data: dict[str, Any]) -> bytes | str:
    """``data`` as JSON text to validate in JSON mode: what ``json.dumps`` accepts, faster."""
    try:
        return encode(data)
    except ValueError:  # NaN or a lone surrogate: json.dumps writes them, let it
        return json.dumps(data)


def check_arguments(
    tool: str,
    model: type[BaseModel],
    arguments: Mapping[str, Any] | None,
    *,
    unknown: UnknownArguments = "refuse",
    argument_values: ArgumentValues = "exact",
    shape: ObjectShape | None = None,
) -> BaseModel:
    """The arguments as an instance of ``model``, or :class:`InvalidArguments` naming each
    problem with its JSON path.

    ``argument_values="convert"`` also takes the values Lib.GAB converts without loss (a numeric
    string for a number, ``1``/``0`` or ``"true"`` for a boolean, an enum value in another
    letter case; see :mod:`lib_gab._argument_conversion`). ``shape`` (from
    :func:`lib_gab._nested_members.arguments_shape`) has the members of objects below the top
    level refused or ignored as ``unknown`` says for the arguments themselves."""
    if arguments is not None and type(arguments) is not dict and not isinstance(arguments, Mapping):
        raise InvalidArguments(
            tool,
            [{"path": "$", "message": "arguments must be an object", "rule": "object_type"}],
        )
    # not modified below (a corrected copy is made when needed), so a dict is used as it is
    data = arguments if type(arguments) is dict else dict(arguments or {})
    if unknown == "ignore":
        data = _ignore_unknown(tool, data, known_names(model))
        if shape is not None:
            data = ignore_nested(tool, shape, data)
    elif shape is not None and (nested := unknown_nested(shape, data)):
        try:
            _validated(tool, model, data, argument_values)
        except InvalidArguments as exc:
            paths = {problem["path"] for problem in nested}
            nested += [p for p in exc.data["errors"] if p["path"] not in paths]
        raise InvalidArguments(tool, nested)
    return _validated(tool, model, data, argument_values)


def _validated(
    tool: str, model: type[BaseModel], data: dict[str, Any], argument_values: ArgumentValues
) -> BaseModel:
    try:
        text = _json_text(data)
    except (TypeError, ValueError) as exc:
        raise InvalidArguments(
            tool, [{"path": "$", "message": f"arguments are not JSON: {exc}", "rule": "json"}]
        ) from None
    document: Any = None
    for _ in range(_MAX_ROUNDS):
        try:
            return model.model_validate_json(text, strict=True)
        except ValidationError as exc:
            if document is None:
                document = json.loads(text)  # a copy to correct, only when needed
            patched = False
            convert = argument_values == "convert"
            for error in exc.errors(include_url=False):
                patched |= _replace_at(document, tuple(error["loc"]), error, convert, model)
            if not patched:
                raise InvalidArguments(tool, _problems(exc, known_names(model))) from None
            text = json.dumps(document)
    raise InvalidArguments(
        tool, [{"path": "$", "message": "arguments could not be read", "rule": "rounds"}]
    )
