"""Launch-input patterns in the Go bridge's syntax (RE2, Go's ``regexp``), read as Go reads them.

The Go bridge compiles ``^(?:<pattern>)$`` and asks ``MatchString``, so the same text is read
here, the way Go's parser reads it, into a tree that ``_re2_nfa`` matches in time linear in the
value (:func:`compile_matcher`), and into the same pattern in ``re`` terms (:func:`compile_re2`,
a second opinion for tests and the differential script; never compiled to match): the parse
decides what is refused. RE2's meaning of each
construct is spelled out (``\\d``, ``\\w``, ``\\s`` and ``\\b`` are ASCII; ``$`` is the end of
the text unless ``(?m)``; ``(?i)`` may stand anywhere and folds case by Go's tables, see
``_re2_atoms``; ``\\z``, ``\\Q...\\E``, ``\\x{...}``, octal escapes, ``\\p{...}`` with every
name Go knows, ``[[:alpha:]]``, group names of ASCII letters, digits and ``_``; a repeat after a
flag group or an empty ``\\Q\\E`` repeats what came before), and what RE2 refuses is refused with
Go's words and the text Go quotes (lookarounds, backreferences, possessive repeats, an unclosed
group or class, a repeat of nothing, a count above 1000, nested counts whose product is above
1000, a tree nested more than 1000 deep or too large to compile).

The parse tree Go would build is followed as far as its limits need (height, compiled size,
the product of nested counts); ``re`` gets groups only where it needs them, so deep nesting
that Go accepts stays within ``re``'s own recursion. ``re`` is never asked to match a value: it
backtracks, and ``(a+)+b`` would take it time exponential in the length of ``"a" * 40``.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import sys
from dataclasses import dataclass, field
from typing import Final

from gabs.config._re2_atoms import (
    AtomReader,
    Re2Error,
    literal_ranges,
    literal_text,
    perl_error,
    set_text,
)
from gabs.config._re2_nfa import (
    BEGIN_LINE,
    BEGIN_TEXT,
    EMPTY,
    END_LINE,
    END_TEXT,
    NO_WORD_BOUNDARY,
    WORD_BOUNDARY,
    Assertion,
    CharSet,
    Matcher,
    Regex,
    Repeat,
    alternate,
    concat,
    recursion_room,
)

__all__ = ["Re2Error", "compile_matcher", "compile_re2"]

_WORD_CLASS: Final = "[0-9A-Za-z_]"
_BOUNDARY: Final = f"(?:(?<={_WORD_CLASS})(?!{_WORD_CLASS})|(?<!{_WORD_CLASS})(?={_WORD_CLASS}))"
_NOT_BOUNDARY: Final = (
    f"(?:(?<={_WORD_CLASS})(?={_WORD_CLASS})|(?<!{_WORD_CLASS})(?!{_WORD_CLASS}))"
)
_REPEAT_LIMIT: Final = 1000
#: Go's ``maxHeight`` and ``maxSize`` (``128 << 20`` bytes of 40-byte instructions).
_MAX_HEIGHT: Final = 1000
_MAX_SIZE: Final = (128 << 20) // 40
#: Escapes outside a class that stand for a position, their ``re`` spelling and condition.
_ASSERTIONS: Final = {
    "A": (r"\A", BEGIN_TEXT),
    "b": (_BOUNDARY, WORD_BOUNDARY),
    "B": (_NOT_BOUNDARY, NO_WORD_BOUNDARY),
    "z": (r"\Z", END_TEXT),
}
#: ``.`` without and with ``(?s)``.
_ANY_BUT_NEWLINE: Final = CharSet(((0, 0x09), (0x0B, sys.maxunicode)))
_ANY: Final = CharSet(((0, sys.maxunicode),))
_COUNTED: Final = re.compile(r"\{(0|[1-9][0-9]*)(?:(,)(0|[1-9][0-9]*)?)?\}")


@functools.lru_cache(maxsize=64)
def compile_matcher(pattern: str) -> Matcher:
    """``pattern`` compiled as the Go bridge compiles it, ``^(?:pattern)$`` with RE2's meaning,
    for a linear-time ``search`` (Go's ``MatchString``); :class:`Re2Error` with Go's words
    when Go refuses it. No ``re`` pattern is compiled: the translation is for tests and the
    differential script (:func:`compile_re2`)."""
    _, tree, height = _parse(pattern)
    return Matcher.compile(tree, height)


@functools.lru_cache(maxsize=64)
def compile_re2(pattern: str) -> re.Pattern[str]:
    """``pattern`` as an ``re`` pattern with RE2's meaning, ``^(?:pattern)$`` as the Go bridge
    compiles it (its ``search`` is Go's ``MatchString``, in time that can grow exponentially
    with the value); :class:`Re2Error` with Go's words, or (for what ``re`` cannot express)
    :class:`re.error`."""
    text = _parse(pattern)[0]
    with recursion_room(text.count("(")):
        return re.compile(text)


@functools.lru_cache(maxsize=64)
def _parse(pattern: str) -> tuple[str, Regex, int]:
    """The ``re`` text, the tree and Go's height of the tree of ``^(?:pattern)$``."""
    translator = _Translator("^(?:" + pattern + ")$")
    text = translator.run()
    return text, translator.tree, translator.height


@dataclass
class _Node:
    """A piece of the parse tree Go builds, as far as its limits need it: where its text starts
    in the output, its height and compiled size, the largest product of counts down any path
    in it (``repeatIsValid``), and what it is."""

    start: int
    height: int = 1
    size: int = 1
    product: int = 1
    #: ``literal`` (merges with a neighbouring literal in Go), ``char`` (one character class),
    #: ``assertion``, ``concat`` or ``alternate`` (Go flattens one into an enclosing one of the
    #: same kind) or ``other``
    kind: str = "other"
    fold: bool = False
    #: whether its output is one ``re`` item a repeat may follow directly
    atomic: bool = False
    #: what it matches
    tree: Regex = EMPTY


@dataclass
class _Group:
    """An open group: where it starts in the output, the flags in force before it, and the
    pieces read so far (finished alternatives and the current one)."""

    start: int
    flags: frozenset[str]
    capture: bool
    branches: list[_Node] = field(default_factory=list)
    items: list[_Node] = field(default_factory=list)


def _concat(items: list[_Node], start: int) -> _Node:
    """A sequence as Go concatenates it (a run of plain literals is one node)."""
    merged: list[_Node] = []
    for item in items:
        last = merged[-1] if merged else None
        if last and item.kind == last.kind == "literal" and item.fold == last.fold:
            merged[-1] = _Node(last.start, 1, last.size + item.size, 1, "literal", item.fold)
        else:
            merged.append(item)
    tree = concat([item.tree for item in items])
    if not merged:
        return _Node(start)
    if len(merged) == 1:
        return dataclasses.replace(merged[0], tree=tree)
    return _Node(
        start,
        _flat_height(merged, "concat"),
        sum(item.size for item in merged),
        max(item.product for item in merged),
        "concat",
        tree=tree,
    )


def _flat_height(parts: list[_Node], kind: str) -> int:
    return 1 + max(part.height - (part.kind == kind) for part in parts)


def _alternate(branches: list[_Node], start: int) -> _Node:
    """Alternatives as Go joins them (neighbouring one-character ones merge into a class)."""
    merged: list[_Node] = []
    for branch in branches:
        single = branch.kind == "char" or (branch.kind == "literal" and branch.size == 1)
        if single and merged and merged[-1].kind == "char":
            continue
        merged.append(_Node(branch.start, 1, 1, 1, "char") if single else branch)
    tree = alternate([branch.tree for branch in branches])
    if len(merged) == 1:
        return dataclasses.replace(merged[0], tree=tree)
    return _Node(
        start,
        _flat_height(merged, "alternate"),
        sum(branch.size for branch in merged) + len(merged) - 1,
        max(branch.product for branch in merged),
        "alternate",
        tree=tree,
    )


class _Translator(AtomReader):
    """Reads the text as Go's ``regexp/syntax`` parser does (Perl flags on) and writes ``re``
    (:meth:`run`) and the tree (``tree``, ``height`` after :meth:`run`)."""

    def __init__(self, src: str) -> None:
        super().__init__(src)
        self.out: list[str] = []
        self.groups = [_Group(0, frozenset(), capture=False)]
        # RE2's flags in force (``i``, ``m``, ``s``, ``U``)
        self.flags: frozenset[str] = frozenset()
        # where the repeat just read started in the text (RE2 refuses a repeat of a repeat)
        self.repeat_at: int | None = None
        self.tree: Regex = EMPTY
        self.height = 1

    def run(self) -> str:
        while self.pos < len(self.src):
            repeat_at, self.repeat_at = self.repeat_at, None
            self._step(repeat_at)
        if len(self.groups) > 1:
            raise perl_error("missing closing )", self.src)
        root = self._check(self._finish(self.groups[0]))
        self.tree, self.height = root.tree, root.height
        return "".join(self.out)

    def _check(self, node: _Node) -> _Node:
        """Go's limits on every piece it pushes (``checkLimits``)."""
        if node.size > _MAX_SIZE:
            raise perl_error("expression too large", self.src)
        if node.height > _MAX_HEIGHT:
            raise perl_error("expression nests too deeply", self.src)
        return node

    def _push(self, text: str, kind: str, tree: Regex, *, atomic: bool = True) -> None:
        node = _Node(len(self.out), kind=kind, fold="i" in self.flags, atomic=atomic, tree=tree)
        self.out.append(text)
        self.groups[-1].items.append(node)

    def _step(self, repeat_at: int | None) -> None:
        src, char = self.src, self.src[self.pos]
        if char == "\\":
            self._escape()
        elif char == "[":
            ranges = self.bracket("i" in self.flags)
            self._push(set_text(ranges), "char", CharSet(ranges))
        elif char == "(":
            self._open()
        elif char == ")":
            self._close()
        elif char in "*+?":
            self._repeat(char, self.pos + 1, repeat_at)
        elif char == "{" and (found := _COUNTED.match(src, self.pos)) is not None:
            low = int(found.group(1))
            high = low if not found.group(2) else int(found.group(3) or -1)
            if low > _REPEAT_LIMIT or high > _REPEAT_LIMIT or 0 <= high < low:
                raise perl_error("invalid repeat count", found.group())
            self._repeat(found.group(), found.end(), repeat_at, (low, high))
        else:
            self.pos += 1
            if char == "|":
                group = self.groups[-1]
                group.branches.append(self._check(_concat(group.items, len(self.out))))
                group.items = []
                self.out.append("|")
            elif char in "^$":
                self._anchor(char)
            elif char == ".":
                dotall = "s" in self.flags
                self._push(
                    "(?s:.)" if dotall else ".", "char", _ANY if dotall else _ANY_BUT_NEWLINE
                )
            else:
                self._literal(ord(char))

    def _anchor(self, char: str) -> None:
        """``^`` or ``$``: the edges of the text, or of a line under ``(?m)``."""
        if "m" in self.flags:
            condition = BEGIN_LINE if char == "^" else END_LINE
            text = f"(?m:{char})"
        else:
            condition = BEGIN_TEXT if char == "^" else END_TEXT
            text = "^" if char == "^" else r"\Z"
        self._push(text, "assertion", Assertion(condition), atomic=False)

    def _literal(self, point: int) -> None:
        fold = "i" in self.flags
        self._push(literal_text(point, fold), "literal", CharSet(literal_ranges(point, fold)))

    def _repeat(
        self, token: str, end: int, repeat_at: int | None, count: tuple[int, int] | None = None
    ) -> None:
        src, start = self.src, self.pos
        lazy = src.startswith("?", end)
        end += lazy
        if repeat_at is not None:
            raise perl_error("invalid nested repetition operator", src[repeat_at:end])
        items = self.groups[-1].items
        if not items:
            raise perl_error("missing argument to repetition operator", src[start:end])
        node = items[-1]
        if not node.atomic:  # ``re`` repeats a group, an assertion or a repeat only in (?:...)
            self.out[node.start :] = ["(?:", *self.out[node.start :], ")"]
        self.out.append(token + ("?" if lazy != ("U" in self.flags) else ""))
        low, high = count or {"*": (0, -1), "+": (1, -1), "?": (0, 1)}[token]
        tree = Repeat(node.tree, low, high)
        items[-1] = repeated = _Node(
            node.start, node.height + 1, 1 + node.size, node.product, tree=tree
        )
        if token == "*":
            repeated.size += 1
        if count is not None:
            times = high if high >= 0 else low
            if high == -1:
                repeated.size = 2 + node.size if low == 0 else 1 + low * node.size
            else:
                repeated.size = max(1, high * node.size + high - low)
            # Go does not look under a {0} (``repeatIsValid``), but counts the repeats above it
            repeated.product = 1 if high == 0 else max(times, 1) * node.product
        self._check(repeated)
        if count is not None and max(count) >= 2 and repeated.product > _REPEAT_LIMIT:
            raise perl_error("invalid repeat count", src[start:end])
        self.pos, self.repeat_at = end, start

    def _close(self) -> None:
        if len(self.groups) == 1:
            raise perl_error("unexpected )", self.src)
        group = self.groups.pop()
        node = self._finish(group)
        if group.branches:  # an alternation stays a group for ``re``
            self.out.append(")")
        else:
            self.out[group.start] = ""
        if group.capture:
            node = _Node(group.start, node.height + 1, node.size + 2, node.product, tree=node.tree)
        node.start, node.atomic = group.start, bool(group.branches)
        self.groups[-1].items.append(self._check(node))
        self.flags = group.flags
        self.pos += 1

    def _finish(self, group: _Group) -> _Node:
        """The pieces of a group as the one node Go makes of them."""
        last = self._check(_concat(group.items, len(self.out)))
        if not group.branches:
            return last
        return self._check(_alternate([*group.branches, last], group.start))

    def _open(self) -> None:
        src, start = self.src, self.pos
        rest = src[start:]
        if not rest.startswith("(?"):
            self.pos += 1
            return self._open_group(capture=True)
        named = rest.startswith("(?P<") and len(rest) > 4
        if named or (rest.startswith("(?<") and len(rest) > 3):
            close = rest.find(">")
            if close < 0:
                raise perl_error("invalid named capture", rest)
            name = rest[4 if rest[2] == "P" else 3 : close]
            if not name or not all(c == "_" or (c.isascii() and c.isalnum()) for c in name):
                raise perl_error("invalid named capture", rest[: close + 1])
            self.pos = start + close + 1
            return self._open_group(capture=True)  # a name changes nothing a match is tested for
        on, off, negative, flagged = "", "", False, False
        index = start + 2
        while True:
            if index >= len(src):
                raise perl_error("invalid or unsupported Perl syntax", rest)
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
                raise perl_error("invalid or unsupported Perl syntax", src[start:index])
        self.pos = index
        flags = (self.flags | set(on)) - set(off)
        if char == ":":
            self._open_group(capture=False)
        self.flags = flags  # a bare (?i) holds to the end of the enclosing group

    def _open_group(self, *, capture: bool) -> None:
        self.groups.append(_Group(len(self.out), self.flags, capture))
        self.out.append("(?:")

    def _escape(self) -> None:
        src, start = self.src, self.pos
        char = src[start + 1 : start + 2]
        fold = "i" in self.flags
        if char and char in _ASSERTIONS:
            self.pos = start + 2
            text, condition = _ASSERTIONS[char]
            return self._push(text, "assertion", Assertion(condition), atomic=False)
        if char == "C":
            raise perl_error("invalid escape sequence", src[start : start + 2])
        if char == "Q":
            close = src.find("\\E", start + 2)
            literal = src[start + 2 :] if close < 0 else src[start + 2 : close]
            self.pos = len(src) if close < 0 else close + 2
            for letter in literal:
                self._literal(ord(letter))
            return None
        ranges = self.class_escape(fold)
        if ranges is not None:
            return self._push(set_text(ranges), "char", CharSet(ranges))
        self._literal(self.char_escape())
        return None
