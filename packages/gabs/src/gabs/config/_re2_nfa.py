"""Launch-input patterns matched in time linear in the value, as Go's ``regexp`` matches them.

The parse of ``_re2`` yields a tree (:data:`Regex`: character sets with case folding already
resolved, empty-width assertions, concatenations, alternations, counted repeats). It is
compiled to a Thompson NFA, which a state-set simulation runs over the value's code points
once, adding the start state at every position (``MatchString`` asks whether any part of the
value matches). Nothing ever backtracks: each position costs at most the number of NFA states,
so ``(a+)+b`` on ``"a" * 1000`` takes a few thousand small steps, where a backtracking engine
takes a number that doubles with each further ``a``.

Each step (the threads before it, the position's conditions, the code point read) is
remembered, a DFA built lazily as Go's and RE2's engines build theirs, so a value that repeats
itself, or a second value alike, mostly looks its steps up; what is remembered is bounded and
forgotten whole when full, which leaves the cost of a step what it was.

A counted repeat is not copied out as Go copies it: its body is compiled once, and a thread
carries, for each counted repeat it is inside, how many times the body has run (a counter
that stops growing at the minimum when there is no maximum). A thread with its counters stands
for exactly one state of the copied-out NFA, so the bound is the same, and a pattern Go allows
at its size limit (``(?:a...a){1000}``) compiles at once.

Positions are read as Go reads them: ``^``/``$`` are the ends of the value unless ``(?m)``,
``\\b`` is between an ASCII word character and anything else, and a lone surrogate (a value
byte that is not UTF-8, kept by Python as a surrogate) is what Go decodes such bytes to, one
U+FFFD a byte.
"""

from __future__ import annotations

import re
import sys
from bisect import bisect_right
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Final

__all__ = [
    "BEGIN_LINE",
    "BEGIN_TEXT",
    "EMPTY",
    "END_LINE",
    "END_TEXT",
    "NO_WORD_BOUNDARY",
    "WORD_BOUNDARY",
    "Alternate",
    "Assertion",
    "CharSet",
    "Concat",
    "Matcher",
    "Regex",
    "Repeat",
    "alternate",
    "concat",
    "go_points",
    "recursion_room",
]

Ranges = tuple[tuple[int, int], ...]

#: The empty-width conditions, as bits (Go's ``syntax.EmptyOp``).
BEGIN_LINE: Final = 1
END_LINE: Final = 2
BEGIN_TEXT: Final = 4
END_TEXT: Final = 8
WORD_BOUNDARY: Final = 16
NO_WORD_BOUNDARY: Final = 32


@dataclass(frozen=True, slots=True, eq=False)
class CharSet:
    """One code point in ``ranges`` (a literal, a class, ``.``; folding already applied)."""

    ranges: Ranges


@dataclass(frozen=True, slots=True, eq=False)
class Assertion:
    """An empty-width condition: one of the bits above."""

    condition: int


@dataclass(frozen=True, slots=True, eq=False)
class Concat:
    parts: tuple[Regex, ...]


@dataclass(frozen=True, slots=True, eq=False)
class Alternate:
    parts: tuple[Regex, ...]


@dataclass(frozen=True, slots=True, eq=False)
class Repeat:
    """``body`` ``low`` to ``high`` times (``high`` is -1 when there is no maximum)."""

    body: Regex
    low: int
    high: int


Regex = CharSet | Assertion | Concat | Alternate | Repeat

#: The empty pattern.
EMPTY: Final = Concat(())


def concat(parts: list[Regex]) -> Regex:
    """``parts`` in sequence, nested sequences flattened (so nesting does not deepen it)."""
    flat: list[Regex] = []
    for part in parts:
        flat.extend(part.parts if isinstance(part, Concat) else (part,))
    return flat[0] if len(flat) == 1 else Concat(tuple(flat))


def alternate(parts: list[Regex]) -> Regex:
    """Any one of ``parts``, nested alternations flattened."""
    flat: list[Regex] = []
    for part in parts:
        flat.extend(part.parts if isinstance(part, Alternate) else (part,))
    return flat[0] if len(flat) == 1 else Alternate(tuple(flat))


@contextmanager
def recursion_room(depth: int) -> Iterator[None]:
    """Room for a recursion ``depth`` levels deep, a few Python frames a level (``re`` parses
    groups recursively, and so does :class:`Matcher` compile a tree)."""
    limit = sys.getrecursionlimit()
    needed = 8 * depth + 200
    if needed > limit:
        sys.setrecursionlimit(needed)
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)


# Instruction kinds. An instruction is ``(kind, x, y, extra)``:
#: consume one code point inside the edges ``extra`` (see ``_bounds``), then go to ``x``
_CHAR: Final = 0
#: go to ``x`` and to ``y``
_SPLIT: Final = 1
#: go to ``x`` when the position meets every condition in ``y``
_ASSERT: Final = 2
#: the pattern has matched
_MATCH: Final = 3
#: enter a counted repeat: push a counter of 0, go to ``x`` (its ``_HEAD``)
_PUSH: Final = 4
#: a counted repeat's check, ``extra`` = (low, high): run the body ``x`` again while the counter
#: is below ``high`` (or always, for -1), leave to ``y`` (dropping the counter) once it has
#: reached ``low``
_HEAD: Final = 5
#: the body has run once more: count it, up to ``y``, and go to ``x``
_COUNT: Final = 6

Instruction = tuple[int, int, int, tuple[int, ...]]
Thread = tuple[int, tuple[int, ...]]
_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def _bounds(ranges: Ranges) -> tuple[int, ...]:
    """``ranges`` as sorted edges: a code point is inside when ``bisect_right`` of it is odd."""
    edges: list[int] = []
    for low, high in ranges:
        edges += (low, high + 1)
    return tuple(edges)


def _is_word(point: int) -> bool:
    return point == 0x5F or 0x30 <= point <= 0x39 or 0x41 <= point <= 0x5A or 0x61 <= point <= 0x7A


def _context(before: int, after: int) -> int:
    """The conditions a position meets between code points ``before`` and ``after`` (-1 for
    the edge of the value), as Go's ``EmptyOpContext``."""
    met = 0
    if before < 0:
        met |= BEGIN_TEXT | BEGIN_LINE
    elif before == 0x0A:
        met |= BEGIN_LINE
    if after < 0:
        met |= END_TEXT | END_LINE
    elif after == 0x0A:
        met |= END_LINE
    if _is_word(before) != _is_word(after):
        return met | WORD_BOUNDARY
    return met | NO_WORD_BOUNDARY


def go_points(value: str) -> list[int]:
    """The code points Go's matcher reads from ``value`` made a Go string: each lone
    surrogate stands for bytes that are not UTF-8, each of which Go reads as U+FFFD (one byte
    for U+DC80..U+DCFF, a byte Python's ``surrogateescape`` kept; three otherwise)."""
    if _SURROGATE.search(value) is None:
        return [ord(char) for char in value]
    points: list[int] = []
    for char in value:
        point = ord(char)
        if 0xD800 <= point <= 0xDFFF:
            points += [0xFFFD] * (1 if point >= 0xDC80 else 3)
        else:
            points.append(point)
    return points


class _Compiler:
    """Thompson's construction, from the end of the pattern backwards: each piece is compiled
    knowing where to go after it, so only a loop's way back is filled in later."""

    def __init__(self) -> None:
        self.code: list[Instruction] = []
        # the counter values a thread at the instruction being added can carry, and the sum of
        # that over the program: the states of the NFA with every counted repeat copied out
        self.copies = 1
        self.states = 0

    def add(self, kind: int, x: int = -1, y: int = -1, extra: tuple[int, ...] = ()) -> int:
        self.code.append((kind, x, y, extra))
        self.states += self.copies
        return len(self.code) - 1

    def emit(self, node: Regex, after: int) -> int:
        """The instructions for ``node`` followed by ``after``; the entry point."""
        if isinstance(node, CharSet):
            return self.add(_CHAR, after, extra=_bounds(node.ranges))
        if isinstance(node, Assertion):
            return self.add(_ASSERT, after, node.condition)
        if isinstance(node, Concat):
            for part in reversed(node.parts):
                after = self.emit(part, after)
            return after
        if isinstance(node, Alternate):
            entries = [self.emit(part, after) for part in node.parts]
            entry = entries.pop()
            for other in reversed(entries):
                entry = self.add(_SPLIT, other, entry)
            return entry
        return self.repeat(node, after)

    def repeat(self, node: Repeat, after: int) -> int:
        low, high = node.low, node.high
        if high == 0:
            return after
        if high == 1:
            body = self.emit(node.body, after)
            return body if low == 1 else self.add(_SPLIT, body, after)
        if high == -1 and low <= 1:
            loop = self.add(_SPLIT, -1, after)
            body = self.emit(node.body, loop)
            self.code[loop] = (_SPLIT, body, after, ())
            return loop if low == 0 else body
        cap = low if high < 0 else high
        outside, self.copies = self.copies, self.copies * (cap + 1)
        head = self.add(_HEAD, -1, after, (low, high))
        body = self.emit(node.body, self.add(_COUNT, head, cap))
        self.code[head] = (_HEAD, body, after, (low, high))
        self.copies = outside
        return self.add(_PUSH, head)


#: A step: whether the pattern matched at the position, the threads that go on to the next
#: one, and how many thread states the step passed through.
Step = tuple[bool, frozenset[Thread], int]
#: How many threads the steps a matcher remembers may hold in all (memory stays bounded).
_REMEMBERED_THREADS: Final = 50_000


class _Steps:
    """The steps a matcher has taken, by the threads before them, whether the start state was
    added, the conditions the position met (those the pattern asks about) and the code point
    read: a value read again, or one alike, takes them from here (a lazily built DFA). When
    they would hold too many threads they are all forgotten and built again as needed."""

    def __init__(self) -> None:
        self.known: dict[tuple[frozenset[Thread], bool, int, int], Step] = {}
        self.threads = 0

    def remember(self, key: tuple[frozenset[Thread], bool, int, int], step: Step) -> None:
        self.threads += len(step[1]) + 1
        if self.threads > _REMEMBERED_THREADS:
            self.known.clear()
            self.threads = len(step[1]) + 1
        self.known[key] = step


@dataclass(frozen=True)
class Matcher:
    """A compiled pattern; :meth:`search` is Go's ``MatchString``."""

    code: tuple[Instruction, ...]
    start: int
    #: every way through the pattern starts at the beginning of the value (``^`` first)
    anchored: bool
    #: how many distinct thread states there can be at one position (the size of the NFA
    #: with every counted repeat copied out)
    states: int
    #: the conditions the pattern's assertions ask about
    conditions: int
    steps: _Steps = field(default_factory=_Steps, compare=False, repr=False)

    @classmethod
    def compile(cls, tree: Regex, depth: int) -> Matcher:
        """``tree``, at most ``depth`` levels deep, as a program."""
        compiler = _Compiler()
        with recursion_room(depth):
            start = compiler.emit(tree, compiler.add(_MATCH))
        code = tuple(compiler.code)
        first = code[start]
        anchored = first[0] == _ASSERT and first[2] == BEGIN_TEXT
        conditions = 0
        for kind, _, y, _ in code:
            if kind == _ASSERT:
                conditions |= y
        return cls(code, start, anchored, compiler.states, conditions)

    def search(self, value: str) -> bool:
        """Whether any part of ``value`` matches."""
        return self.run(value)[0]

    def run(self, value: str) -> tuple[bool, int]:
        """Whether any part of ``value`` matches, and the number of thread states the
        simulation passed through (a remembered step counting as if taken again): at most
        :attr:`states` at each position, :attr:`states` times one more than the number of code
        points in all."""
        anchored, conditions, known = self.anchored, self.conditions, self.steps.known
        points = go_points(value)
        size = len(points)
        threads: frozenset[Thread] = frozenset()
        visited = 0
        before = -1
        for index in range(size + 1):
            after = points[index] if index < size else -1
            fresh = index == 0 or not anchored
            if not fresh and not threads:
                return False, visited
            met = _context(before, after) & conditions if conditions else 0
            key = (threads, fresh, met, after)
            step = known.get(key)
            if step is None:
                step = self._step(threads, fresh, met, after)
                self.steps.remember(key, step)
            matched, threads, seen = step
            visited += seen
            if matched:
                return True, visited
            before = after
        return False, visited

    def _step(self, threads: frozenset[Thread], fresh: bool, met: int, after: int) -> Step:
        """From ``threads`` (and the start state when ``fresh``), follow every empty move the
        position allows (it meets the conditions ``met``), then read ``after``."""
        code = self.code
        seen: set[Thread] = set()
        ready: list[tuple[tuple[int, ...], int, tuple[int, ...]]] = []
        stack = list(threads)
        if fresh:
            stack.append((self.start, ()))
        while stack:
            thread = stack.pop()
            if thread in seen:
                continue
            seen.add(thread)
            pc, counters = thread
            kind, x, y, extra = code[pc]
            if kind == _CHAR:
                ready.append((extra, x, counters))
            elif kind == _SPLIT:
                stack += ((y, counters), (x, counters))
            elif kind == _ASSERT:
                if y & met == y:
                    stack.append((x, counters))
            elif kind == _MATCH:
                return True, frozenset(), len(seen)
            else:
                stack += _counted(kind, x, y, extra, counters)
        going = frozenset(
            (to, counters) for edges, to, counters in ready if bisect_right(edges, after) & 1
        )
        return False, going, len(seen)


def _counted(
    kind: int, x: int, y: int, extra: tuple[int, ...], counters: tuple[int, ...]
) -> list[Thread]:
    """Where a counted repeat's instruction leads a thread."""
    if kind == _PUSH:
        return [(x, (*counters, 0))]
    if kind == _COUNT:
        return [(x, (*counters[:-1], min(counters[-1] + 1, y)))]
    low, high = extra
    done = counters[-1]
    leads: list[Thread] = []
    if done >= low:
        leads.append((y, counters[:-1]))
    if high < 0 or done < high:
        leads.append((x, counters))
    return leads
