"""The formats the schemas use, checked the same way everywhere: ``uuid``, ``uri``, ``date-time``.

Draft-07 leaves format assertion to the validator. GABP's schemas rely on it (message ids are
``format: uuid``), so this package asserts these three formats with rules of its own, stated
here, rather than with whatever optional libraries happen to be installed:

* ``uuid``: the textual 8-4-4-4-12 form, hex digits of either case, any version.
* ``uri``: an absolute URI (RFC 3986): a scheme, ``:``, then no spaces, controls, non-ASCII
  characters (those are IRIs, RFC 3987) or other characters RFC 3986 excludes, and ``%`` only
  as a well-formed escape.
* ``date-time``: RFC 3339 ``date-time`` (``T``, ``t`` or a space between date and time), with
  ASCII digits, real calendar dates and times (a leap second ``:60`` allowed) and an offset
  (``Z`` or ``+hh:mm``).
"""

from __future__ import annotations

import re
from datetime import date
from typing import Final

from jsonschema import FormatChecker

__all__ = ["format_checker"]

_UUID: Final = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
)
_URI: Final = re.compile(
    r"[A-Za-z][A-Za-z0-9+.\-]*:(?:[^\s<>\"{}|\\^`%\x00-\x1f\x7f-\U0010ffff]|%[0-9A-Fa-f]{2})*"
)
_DATE_TIME: Final = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))",
    re.ASCII,  # RFC 3339 digits are ASCII; without this, \d takes any Unicode digit
)


def _is_uuid(instance: object) -> bool:
    return not isinstance(instance, str) or _UUID.fullmatch(instance) is not None


def _is_uri(instance: object) -> bool:
    return not isinstance(instance, str) or _URI.fullmatch(instance) is not None


def _is_date_time(instance: object) -> bool:
    if not isinstance(instance, str):
        return True
    match = _DATE_TIME.fullmatch(instance)
    if match is None:
        return False
    year, month, day, hour, minute, second = (int(match.group(i)) for i in range(1, 7))
    try:
        date(year, month, day)
    except ValueError:
        return False
    if hour > 23 or minute > 59 or second > 60:
        return False
    offset = match.group(7) is not None
    return not (offset and (int(match.group(8)) > 23 or int(match.group(9)) > 59))


def format_checker() -> FormatChecker:
    """A checker that asserts ``uuid``, ``uri`` and ``date-time`` and nothing else."""
    checker = FormatChecker(formats=())
    checker.checks("uuid")(_is_uuid)
    checker.checks("uri")(_is_uri)
    checker.checks("date-time")(_is_date_time)
    return checker
