"""Values in the JSON form they take on the wire: pydantic's, with moments and durations in the
forms Lib.GAB's serializer (Newtonsoft.Json with its default settings) gives their .NET
counterparts.

A tool's result, with or without a declared type, and an event's payload may hold values JSON
has no type for: a ``datetime`` (Lib.GAB's README samples put ``DateTime.UtcNow`` in both), a
``UUID``, an ``Enum``, a tuple, a dataclass or a pydantic model. pydantic writes them (a UUID as
its text, an enum as its value, a tuple as an array, a model by its aliases), except that the
time values are written as a game built on Lib.GAB writes ``DateTime``, ``TimeOnly`` and
``TimeSpan``:

* a ``datetime`` as ISO 8601 with the fraction of a second cut after its last non-zero digit
  (``2026-11-28T17:46:58.166Z``; none for a whole second), ``Z`` for a zero UTC offset
  (``DateTimeKind.Utc``), ``+05:30`` for another offset (``DateTimeKind.Local``,
  ``DateTimeOffset``) and nothing for a naive one (``DateTimeKind.Unspecified``);
* a ``time`` the same way (``17:46:58.5``), a ``date`` as ``2026-11-28`` (pydantic's form);
* a ``timedelta`` as ``TimeSpan`` writes itself: ``[-][d.]hh:mm:ss[.fffffff]``
  (``1.02:03:04.5000000``).

pydantic writes everything else as it always has, and a time value that a serializer of its
own writes otherwise (a model's ``ser_json_timedelta="float"``, a ``PlainSerializer``) keeps
that form. pydantic's own text for a moment differs from Newtonsoft's only in a fraction ending
in zero, and for a duration always, so its output is looked at first and written again only
when it holds one of those: a result without them costs one scan of its bytes more, none at all
when its declared type cannot hold one. A value no serializer can write (a lone surrogate, an
arbitrary object) still fails the call.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from typing import Any

from pydantic import TypeAdapter

__all__ = ["ANY_VALUE", "may_hold_time_values", "time_value_text", "wire_json"]

ANY_VALUE: TypeAdapter[Any] = TypeAdapter(Any)
"""The serializer of a value whose type is known only when it is written."""

# pydantic's text for what is written again: a fraction of six digits ending in zero (a moment
# or a time of day), and an ISO 8601 duration ("P1DT3S", "-PT1.5S", "P2Y70D")
_DOT, _P = ord("."), ord("P")
_FRACTION = re.compile(rb"\.[0-9]{5}0")
_DURATION = re.compile(rb'"-?PT?[0-9]')
_DURATION_LETTER = re.compile(rb"P[0-9T]")
_TIME_TYPES = frozenset({"datetime", "time", "timedelta", "any", "is-instance"})
"""Core schema types whose values may be written again (``any`` and an instance of an arbitrary
class are written by the value's own type, which may be one of them)."""
_ITEMS = frozenset({"list", "set", "frozenset", "generator"})


def wire_json(adapter: TypeAdapter[Any], value: Any, scan: bool) -> bytes:
    """``value`` as compact JSON bytes, written by ``adapter``; the time values in .NET's forms
    (see the module's text). ``scan``: whether ``adapter`` may write a time value at all
    (:func:`may_hold_time_values`)."""
    data = adapter.serializer.to_json(value, by_alias=True)
    # a fraction needs a ".", a duration a "P": a byte is looked for faster than a pattern
    if not scan or not (
        (_DOT in data and _FRACTION.search(data)) or (_P in data and _holds_duration(data))
    ):
        return data
    # pydantic's Python form keeps the time values as objects, its JSON form has everything
    # else as it was written; both have the same shape (the first pass gave the warnings)
    shape = adapter.serializer.to_python(value, by_alias=True, warnings=False)
    form = adapter.serializer.to_python(value, by_alias=True, mode="json", warnings=False)
    try:
        merged = _with_dotnet_times(shape, form)
    except _Unaligned:
        return data  # an iterator the first pass used up, or keys that fell together
    return ANY_VALUE.serializer.to_json(merged)


def _holds_duration(data: bytes) -> bool:
    # "P" and a digit are rarer than the '"' the whole pattern starts with
    return _DURATION_LETTER.search(data) is not None and _DURATION.search(data) is not None


def may_hold_time_values(adapter: TypeAdapter[Any] | None) -> bool:
    """Whether a value written by ``adapter`` (``None``: any value) may hold a ``datetime``,
    ``time`` or ``timedelta``. Only a ``False`` is certain: every part of the type whose values
    pydantic writes by their own type (``Any``, a bare ``list``, a model's extra members, a
    serializer function without a declared return type) counts as holding one."""
    return adapter is None or _holds_time_schema(adapter.core_schema)


def _holds_time_schema(schema: Any) -> bool:
    if isinstance(schema, list | tuple):  # a union's choice may be a (schema, label) pair
        return any(_holds_time_schema(item) for item in schema)
    if not isinstance(schema, dict):
        return False
    kind = schema.get("type")
    if kind in _TIME_TYPES:
        return True
    if kind in ("function-plain", "function-wrap") and "return_schema" not in schema:
        return True  # a serializer function whose result is written by its own type
    if kind in _ITEMS and "items_schema" not in schema:
        return True
    if kind == "dict" and not ("keys_schema" in schema and "values_schema" in schema):
        return True
    if "allow" in (schema.get("extra_behavior"), schema.get("extra_fields_behavior")):
        return True  # extra members, written by their own types
    return any(
        _holds_time_schema(item)
        for key, item in schema.items()
        if isinstance(item, dict | list | tuple) and key != "metadata"
    )


class _Unaligned(Exception):
    """The two forms of a value differ in shape (see :func:`_with_dotnet_times`)."""


_TIME_VALUE = (dt.date, dt.time, dt.timedelta)
_PLAIN = frozenset({str, int, float, bool, type(None)})


def _with_dotnet_times(shape: Any, form: Any) -> Any:
    """``form`` (pydantic's JSON form of a value, changed in place) with the text of each time
    value that ``shape`` (its Python form) holds in the same place replaced by Newtonsoft's
    text for it.

    A time value that a serializer of its own wrote otherwise (a number, other text) keeps
    that form. Raises :class:`_Unaligned` where the forms differ in shape: an iterator (read
    once, by the first pass) or two keys written as one."""
    plain = _PLAIN
    if isinstance(shape, dict):
        if not isinstance(form, dict) or len(form) != len(shape):
            raise _Unaligned
        renamed = False
        for (key, item), (written, form_item) in zip(shape.items(), form.items(), strict=True):
            if type(item) not in plain:
                form[written] = _with_dotnet_times(item, form_item)
            renamed = renamed or (type(key) is not str and isinstance(key, _TIME_VALUE))
        if not renamed:
            return form
        return {
            _dotnet_text(key, written) if isinstance(key, _TIME_VALUE) else written: item
            for key, (written, item) in zip(shape, form.items(), strict=True)
        }
    if isinstance(shape, list | tuple):
        if not isinstance(form, list) or len(form) != len(shape):
            raise _Unaligned
        for index, item in enumerate(shape):
            if type(item) not in plain:
                form[index] = _with_dotnet_times(item, form[index])
        return form
    if isinstance(shape, _TIME_VALUE):
        return _dotnet_text(shape, form)
    if isinstance(shape, set | frozenset) and isinstance(form, list):
        # a copied set need not iterate in the original's order: match the texts instead
        texts = {
            _pydantic_text(item): time_value_text(item)
            for item in shape
            if isinstance(item, _TIME_VALUE)
        }
        return [texts.get(text, text) if isinstance(text, str) else text for text in form]
    if isinstance(shape, Iterator):
        raise _Unaligned
    return form


def _pydantic_text(value: Any) -> Any:
    return ANY_VALUE.serializer.to_python(value, mode="json")


def _dotnet_text(value: dt.date | dt.time | dt.timedelta, written: Any) -> Any:
    """Newtonsoft's text for ``value`` where pydantic wrote its own text for it, else
    ``written`` (what a serializer of the value's own made of it)."""
    return time_value_text(value) if written == _pydantic_text(value) else written


def time_value_text(value: dt.date | dt.time | dt.timedelta) -> str:
    """The text Newtonsoft.Json writes for the .NET counterpart of ``value`` (see the module)."""
    if isinstance(value, dt.timedelta):
        return _timespan_text(value)
    if isinstance(value, dt.datetime):
        clock = _clock_text(value.hour, value.minute, value.second, value.microsecond)
        return f"{value.year:04d}-{value.month:02d}-{value.day:02d}T{clock}{_offset_text(value)}"
    if isinstance(value, dt.time):
        clock = _clock_text(value.hour, value.minute, value.second, value.microsecond)
        return clock + _offset_text(value)
    return f"{value.year:04d}-{value.month:02d}-{value.day:02d}"


def _clock_text(hour: int, minute: int, second: int, microsecond: int) -> str:
    text = f"{hour:02d}:{minute:02d}:{second:02d}"
    return f"{text}.{microsecond:06d}".rstrip("0") if microsecond else text


def _offset_text(value: dt.datetime | dt.time) -> str:
    """``Z``, ``+hh:mm`` or nothing; seconds of an offset are dropped (hours and minutes are
    what both Newtonsoft and pydantic write)."""
    offset = value.utcoffset()
    if offset is None:
        return ""
    seconds = int(offset.total_seconds())
    if seconds == 0:
        return "Z"
    minutes = abs(seconds) // 60
    return f"{'-' if seconds < 0 else '+'}{minutes // 60:02d}:{minutes % 60:02d}"


def _timespan_text(value: dt.timedelta) -> str:
    """``TimeSpan``'s constant form: ``[-][d.]hh:mm:ss[.fffffff]`` (ticks of 100 ns)."""
    micros = (value.days * 86_400 + value.seconds) * 1_000_000 + value.microseconds
    sign = "-" if micros < 0 else ""
    seconds, micros = divmod(abs(micros), 1_000_000)
    minutes, second = divmod(seconds, 60)
    hours, minute = divmod(minutes, 60)
    days, hour = divmod(hours, 24)
    text = f"{sign}{f'{days}.' if days else ''}{hour:02d}:{minute:02d}:{second:02d}"
    return f"{text}.{micros * 10:07d}" if micros else text
