"""Launch-input patterns in the Go bridge's syntax (RE2, Go's ``regexp``) run by Python's ``re``.

The Go bridge compiles ``^(?:<pattern>)$``, so the same text is read here, the way Go's
parser reads it, and rewritten in ``re`` terms: RE2's meaning of each construct is spelled out
(``\\d``, ``\\w``, ``\\s`` and ``\\b`` are ASCII; ``$`` is the end of the text unless
``(?m)``; ``(?i)`` may stand anywhere; ``\\z``, ``\\Q...\\E``, ``\\x{...}``, octal escapes,
``\\p{...}`` with every name Go knows (categories, scripts, long names; see
``_unicode_classes``), ``[[:alpha:]]``, group names of ASCII letters, digits and ``_``), and what
RE2 refuses is refused with Go's words and the text Go quotes (lookarounds, backreferences,
possessive repeats, an unclosed group or class, a repeat of nothing, a count above 1000).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Final

from gabs.config._unicode_classes import Ranges, complement, named_class

__all__ = ["Re2Error", "compile_re2"]

_WORD: Final = ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A))
_PERL: Final = {
    "d": ((0x30, 0x39),),
    "s": ((0x09, 0x0A), (0x0C, 0x0D), (0x20, 0x20)),
    "w": _WORD,
}
_POSIX: Final = {
    "alnum": ((0x30, 0x39), (0x41, 0x5A), (0x61, 0x7A)),
    "alpha": ((0x41, 0x5A), (0x61, 0x7A)),
    "ascii": ((0x00, 0x7F),),
    "blank": ((0x09, 0x09), (0x20, 0x20)),
    "cntrl": ((0x00, 0x1F), (0x7F, 0x7F)),
    "digit": ((0x30, 0x39),),
    "graph": ((0x21, 0x7E),),
    "lower": ((0x61, 0x7A),),
    "print": ((0x20, 0x7E),),
    "punct": ((0x21, 0x2F), (0x3A, 0x40), (0x5B, 0x60), (0x7B, 0x7E)),
    "space": ((0x09, 0x0D), (0x20, 0x20)),
    "upper": ((0x41, 0x5A),),
    "word": _WORD,
    "xdigit": ((0x30, 0x39), (0x41, 0x46), (0x61, 0x66)),
}
_WORD_CLASS: Final = "[0-9A-Za-z_]"
_BOUNDARY: Final = f"(?:(?<={_WORD_CLASS})(?!{_WORD_CLASS})|(?<!{_WORD_CLASS})(?={_WORD_CLASS}))"
_NOT_BOUNDARY: Final = (
    f"(?:(?<={_WORD_CLASS})(?={_WORD_CLASS})|(?<!{_WORD_CLASS})(?!{_WORD_CLASS}))"
)
_REPEAT_LIMIT: Final = 1000
_SIMPLE_ESCAPES: Final = {"a": 7, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11}
#: Escapes outside a class that stand for a position, and their ``re`` spelling.
_ASSERTIONS: Final = {"A": r"\A", "b": _BOUNDARY, "B": _NOT_BOUNDARY, "z": r"\Z"}


class Re2Error(ValueError):
    """A pattern RE2 refuses (Go's words after ``error parsing regexp: ``), or one ``re``
    cannot express."""


def _perl_error(kind: str, text: str) -> Re2Error:
    return Re2Error(f"error parsing regexp: {kind}: `{text}`")


@functools.lru_cache(maxsize=64)
def compile_re2(pattern: str) -> re.Pattern[str]:
    """``pattern`` compiled as the Go bridge compiles it, anchored to the whole value
    (``^(?:pattern)$``) with RE2's meaning; :class:`Re2Error` with Go's words, or (for what
    ``re`` cannot express) :class:`re.error`."""
    return re.compile(_Translator("^(?:" + pattern + ")$").run())


def _set_text(ranges: Ranges) -> str:
    def one(point: int) -> str:
        return f"\\U{point:08x}"

    return "".join(one(a) if a == b else f"{one(a)}-{one(b)}" for a, b in ranges)


_COUNTED: Final = re.compile(r"\{(0|[1-9][0-9]*)(?:(,)(0|[1-9][0-9]*)?)?\}")
_HEX: Final = frozenset("0123456789abcdefABCDEF")
_OCTAL: Final = frozenset("01234567")


@dataclass
class _Group:
    """An open group: where it starts in the output, and the flags in force before it."""

    start: int
    flags: frozenset[str]


class _Translator:
    """Reads the text as Go's ``regexp/syntax`` parser does (Perl flags on) and writes ``re``."""

    def __init__(self, src: str) -> None:
        self.src = src
        self.pos = 0
        self.out: list[str] = []
        self.groups = [_Group(0, frozenset())]
        # RE2's flags in force (``i``, ``m``, ``s``, ``U``); each operand is written with
        # its own, so a repeat or an alternation never crosses a flag scope in ``re``
        self.flags: frozenset[str] = frozenset()
        # What a repeat would apply to: where the last operand starts in the output (None
        # at the start of a group or an alternative), whether it is an assertion (``re``
        # repeats those only inside a group), and where the repeat before it started in the
        # text while the operand is that repeat (RE2 refuses a repeat of a repeat).
        self.operand: int | None = None
        self.assertion = False
        self.repeat_at: int | None = None

    def run(self) -> str:
        while self.pos < len(self.src):
            self._step()
        if len(self.groups) > 1:
            raise _perl_error("missing closing )", self.src)
        return "".join(self.out)

    def _operand(self, text: str, *, assertion: bool = False) -> None:
        flags = "".join(flag for flag in "is" if flag in self.flags and not assertion)
        self.operand, self.assertion, self.repeat_at = len(self.out), assertion, None
        self.out.append(f"(?{flags}:{text})" if flags else text)

    def _step(self) -> None:
        src, char = self.src, self.src[self.pos]
        if char == "\\":
            self._escape()
        elif char == "[":
            self._operand(self._class())
        elif char == "(":
            self._open()
        elif char == ")":
            self._close()
        elif char in "*+?":
            self._repeat(char, self.pos + 1)
        elif char == "{" and (found := _COUNTED.match(src, self.pos)) is not None:
            low = int(found.group(1))
            high = low if not found.group(2) else int(found.group(3) or -1)
            if low > _REPEAT_LIMIT or high > _REPEAT_LIMIT or 0 <= high < low:
                raise _perl_error("invalid repeat count", found.group())
            self._repeat(found.group(), found.end())
        else:
            self.pos += 1
            if char == "|":
                self.out.append("|")
                self.operand = self.repeat_at = None
            elif char == "^":
                self._operand("(?m:^)" if "m" in self.flags else "^", assertion=True)
            elif char == "$":
                self._operand("(?m:$)" if "m" in self.flags else r"\Z", assertion=True)
            else:
                self._operand("." if char == "." else re.escape(char))

    def _repeat(self, token: str, end: int) -> None:
        src, start = self.src, self.pos
        lazy = src.startswith("?", end)
        end += lazy
        if self.repeat_at is not None:
            raise _perl_error("invalid nested repetition operator", src[self.repeat_at : end])
        if self.operand is None:
            raise _perl_error("missing argument to repetition operator", src[start:end])
        if self.assertion:
            self.out[self.operand] = f"(?:{self.out[self.operand]})"
        self.out.append(token + ("?" if lazy != ("U" in self.flags) else ""))
        self.pos, self.repeat_at = end, start

    def _push(self, text: str) -> None:
        self.groups.append(_Group(len(self.out), self.flags))
        self.out.append(text)
        self.operand = self.repeat_at = None

    def _close(self) -> None:
        if len(self.groups) == 1:
            raise _perl_error("unexpected )", self.src)
        group = self.groups.pop()
        self.out.append(")")
        self.flags = group.flags
        self.pos += 1
        self.operand, self.assertion, self.repeat_at = group.start, False, None

    def _open(self) -> None:
        src, start = self.src, self.pos
        rest = src[start:]
        if not rest.startswith("(?"):
            self.pos += 1
            return self._push("(")
        named = rest.startswith("(?P<") and len(rest) > 4
        if named or (rest.startswith("(?<") and len(rest) > 3):
            close = rest.find(">")
            if close < 0:
                raise _perl_error("invalid named capture", rest)
            name = rest[4 if rest[2] == "P" else 3 : close]
            if not name or not all(c == "_" or (c.isascii() and c.isalnum()) for c in name):
                raise _perl_error("invalid named capture", rest[: close + 1])
            self.pos = start + close + 1
            return self._push("(")  # a name changes nothing a match is tested for
        on, off, negative, flagged = "", "", False, False
        index = start + 2
        while True:
            if index >= len(src):
                raise _perl_error("invalid or unsupported Perl syntax", rest)
            char = src[index]
            index += 1
            if char in "imsU":
                on, off = (on, off + char) if negative else (on + char, off)
                flagged = True
            elif char == "-" and not negative:
                negative, flagged = True, False
            elif char in ":)" and (flagged or not negative):
                break
            else:
                raise _perl_error("invalid or unsupported Perl syntax", src[start:index])
        self.pos = index
        flags = (self.flags | set(on)) - set(off)
        if char == ":":
            self._push("(?:")
        self.flags = flags  # a bare (?i) holds to the end of the enclosing group
        self.repeat_at = None

    def _escape(self) -> None:
        src, start = self.src, self.pos
        char = src[start + 1 : start + 2]
        if char and char in _ASSERTIONS:
            self.pos = start + 2
            return self._operand(_ASSERTIONS[char], assertion=True)
        if char == "C":
            raise _perl_error("invalid escape sequence", src[start : start + 2])
        if char == "Q":
            close = src.find("\\E", start + 2)
            literal = src[start + 2 :] if close < 0 else src[start + 2 : close]
            self.pos = len(src) if close < 0 else close + 2
            self.repeat_at = None
            for letter in literal:
                self._operand(re.escape(letter))
            return
        ranges = self._class_escape()
        if ranges is not None:
            return self._operand(f"[{_set_text(ranges)}]")
        self._operand(f"\\U{self._char_escape():08x}")

    def _class_escape(self) -> Ranges | None:
        """``\\d``, ``\\s``, ``\\w``, ``\\p{...}`` and their negations, or None."""
        src, start = self.src, self.pos
        char = src[start + 1 : start + 2]
        if char and char.lower() in _PERL:
            self.pos = start + 2
            ranges = _PERL[char.lower()]
            return complement(ranges) if char.isupper() else ranges
        if char in ("p", "P"):
            self.pos = start + 2
            return self._unicode_class(char == "P")
        return None

    def _char_escape(self) -> int:
        """The character an escape stands for (Go's ``parseEscape``)."""
        src, start = self.src, self.pos
        if start + 1 >= len(src):
            raise Re2Error("error parsing regexp: trailing backslash at end of expression: ``")
        char, index = src[start + 1], start + 2

        def refused() -> Re2Error:
            return _perl_error("invalid escape sequence", src[start:index])

        if char.isascii() and not char.isalnum():
            value = ord(char)
        elif char == "0" or (char in "1234567" and src[index : index + 1] in _OCTAL):
            value = int(char)
            for _ in range(2):
                if index < len(src) and src[index] in _OCTAL:
                    value, index = value * 8 + int(src[index]), index + 1
        elif char == "x":
            if index >= len(src):
                raise refused()
            first, index = src[index], index + 1
            if first == "{":
                value = digits = 0
                while True:
                    if index >= len(src):
                        raise refused()
                    digit, index = src[index], index + 1
                    if digit == "}":
                        break
                    if digit not in _HEX or (value := value * 16 + int(digit, 16)) > 0x10FFFF:
                        raise refused()
                    digits += 1
                if not digits:
                    raise refused()
            else:
                second = src[index : index + 1]
                index += 1
                if first not in _HEX or second not in _HEX or not second:
                    raise refused()
                value = int(first + second, 16)
        elif char in _SIMPLE_ESCAPES:
            value = _SIMPLE_ESCAPES[char]
        else:
            raise refused()
        self.pos = index
        return value

    def _unicode_class(self, negated: bool) -> Ranges:
        src, start = self.src, self.pos
        if src.startswith("{", start):
            close = src.find("}", start)
            if close < 0:
                raise _perl_error("invalid character class range", src[start - 2 :])
            name, self.pos = src[start + 1 : close], close + 1
        else:
            name, self.pos = src[start : start + 1], start + 1
        if name.startswith("^"):
            name, negated = name[1:], not negated
        ranges = named_class(name)
        if ranges is None:
            raise _perl_error("invalid character class range", src[start - 2 : self.pos])
        return complement(ranges) if negated else ranges

    def _class(self) -> str:
        """A bracketed class (Go's ``parseClass``), as an ``re`` class of code point ranges."""
        src, start = self.src, self.pos
        whole = src[start:]
        self.pos += 1
        negated = src.startswith("^", self.pos)
        self.pos += negated
        parts = ["[^" if negated else "["]
        first = True
        while first or not src.startswith("]", self.pos):
            first = False
            ranges = self._posix_class() if src.startswith("[:", self.pos) else None
            if ranges is None and src.startswith("\\", self.pos):
                ranges = self._class_escape()
            if ranges is None:
                atom = self.pos
                low = high = self._class_char(whole)
                after = src[self.pos + 1 : self.pos + 2]
                if src.startswith("-", self.pos) and after not in ("", "]"):
                    self.pos += 1
                    high = self._class_char(whole)
                    if high < low:
                        raise _perl_error("invalid character class range", src[atom : self.pos])
                ranges = ((low, high),)
            parts.append(_set_text(ranges))
        self.pos += 1
        return "".join(parts) + "]"

    def _class_char(self, whole: str) -> int:
        if self.pos >= len(self.src):
            raise _perl_error("missing closing ]", whole)
        if self.src[self.pos] == "\\":
            return self._char_escape()
        self.pos += 1
        return ord(self.src[self.pos - 1])

    def _posix_class(self) -> Ranges | None:
        """``[:alpha:]`` and the like, or None when the text is no such name."""
        src = self.src
        close = src.find(":]", self.pos + 2)
        if close < 0:
            return None
        name = src[self.pos : close + 2]
        inner = name[2:-2]
        ranges = _POSIX.get(inner.removeprefix("^"))
        if ranges is None:
            raise _perl_error("invalid character class range", name)
        self.pos = close + 2
        return complement(ranges) if inner.startswith("^") else ranges
