"""A launch input's pattern is matched in time linear in the value, as Go's ``regexp`` matches it
(a Thompson NFA run over the value once), never by backtracking: a pattern from the config and a
value from the model must not stall the bridge. The verdicts are checked against the ``re``
translation of the same parse, which a differential run pinned to Go's answers
(``scripts/differential_re2.py``)."""

from __future__ import annotations

import random
import time

import pytest

from gabs.config import GabsConfig, full_match
from gabs.config._re2 import Re2Error, compile_matcher, compile_re2
from gabs.launch import ResolveError, resolve

#: Patterns of nested and neighbouring repeats over the same characters (most of them take a
#: backtracking engine time exponential in the value), with a value of about a thousand code
#: points that almost matches, or that matches.
CATASTROPHIC = [
    ("(a+)+b", "a" * 1000, False),
    ("(a|aa)*c", "a" * 1000, False),
    ("(x+x+)+y", "x" * 1000, False),
    ("(.*a){20}", "a" * 999 + "b", False),
    ("(.*a){20}", "a" * 1000, True),
    (r"(\w+\s?)+$", "word " * 199 + "word!", False),
    ("(a*)*(b*)*(a*)*c", "ab" * 500, False),
    ("(?:a|a)*(?:a|a)*(?:a|a)*d", "a" * 1000, False),
    ("(?i)(?:k|K|\u212a)+z", "k" * 1000, False),
    ("(?:(?:a{1,3}){1,3})+b", "a" * 1000, False),
    ("(?m)(^a+$\\n?)+x", "aaaa\n" * 200, False),
]


@pytest.mark.parametrize(("pattern", "value", "matches"), CATASTROPHIC)
def test_a_pattern_that_backtracks_badly_is_answered_at_once(
    pattern: str, value: str, matches: bool
) -> None:
    began = time.perf_counter()
    assert full_match(pattern, value) is matches
    assert time.perf_counter() - began < 2.0


@pytest.mark.parametrize(("pattern", "value", "matches"), CATASTROPHIC)
def test_the_steps_grow_with_the_value_times_the_pattern_and_no_faster(
    pattern: str, value: str, matches: bool
) -> None:
    matcher = compile_matcher(pattern)
    found, steps = matcher.run(value)
    assert found is matches
    assert steps <= (len(value) + 1) * matcher.states
    # twice the value, at most about twice the steps
    doubled = value[: len(value) // 2] * 4 if matches else value[:-1] * 2 + value[-1]
    assert matcher.run(doubled)[1] <= 2.1 * steps + matcher.states


def test_a_start_with_the_longest_value_and_a_pattern_that_backtracks_is_refused_at_once() -> None:
    entry = {
        "name": "G",
        "target": "/bin/g",
        "launchInputs": {
            "world": {
                "description": "w",
                "type": "string",
                "pattern": r"(\w+\s?)+",
                "maxLength": 65536,
                "args": ["--world", "${value}"],
            }
        },
    }
    game = GabsConfig.from_json({"games": {"g": entry}}).game("g")
    began = time.perf_counter()
    with pytest.raises(ResolveError) as refused:
        resolve(game, profile="", inputs={"world": "word " * 13107 + "!"}, inherited={})
    assert time.perf_counter() - began < 2.0
    assert (refused.value.code, str(refused.value)) == (
        "launch_input_invalid",
        r'launch input "world": value does not match pattern "(\\w+\\s?)+" (full match)',
    )


def test_a_counted_repeat_is_not_copied_out_when_compiled() -> None:
    # 3355 instructions a copy, 1000 copies: Go's limit; the program stays one copy long
    matcher = compile_matcher("(?:" + "a" * 3355 + "){1000}")
    assert len(matcher.code) < 3400
    assert matcher.states > 3_355_000
    assert matcher.run("a" * 3355 * 2 + "b") == (False, 3355 * 2 + 8)


def test_a_typical_launch_input_pattern_takes_few_steps() -> None:
    matcher = compile_matcher("^[A-Za-z0-9_-]{1,64}$")
    assert matcher.anchored
    assert matcher.run("player_One-2024_abcd") == (True, 87)
    # past the first refused code point nothing is left to run
    assert matcher.run("bad value" + "x" * 1000) == (False, 17)


def test_the_steps_a_matcher_remembers_stay_bounded() -> None:
    # every window of twelve letters is a state of its own: far more than may be remembered
    rng = random.Random(7)
    value = "".join(rng.choice("ab") for _ in range(20_000))
    matcher = compile_matcher("(?:a|b)*a(?:a|b){12}c")
    assert matcher.search(value) is False
    assert 0 < matcher.steps.threads <= 50_000
    assert matcher.search(value + "c") is (value[-13] == "a")


@pytest.mark.parametrize(
    ("pattern", "value", "matches"),
    [
        # a value byte that is not UTF-8 (a lone surrogate in Python) is U+FFFD to Go's matcher
        (r"\x{fffd}", "\udcff", True),
        (r"\x{fffd}{3}", "\ud800", True),
        (".", "\udcff", True),
        (r"\x{dcff}", "\udcff", False),
        # the edges of lines and words as Go's regexp has them
        ("(?m)a$\nb", "a\nb", True),
        ("a$\nb", "a\nb", False),
        (r"\bk\b", "\u212a", False),
        (r"(?i)\bk\b", "\u212a", False),  # the Kelvin sign folds to k but is no word character
        (r"(?i)\Bk\B", "\u212a", True),
        (r"\B\x{e9}\B", "\xe9", True),
        ("a)|(b", "za", False),
    ],
)
def test_positions_and_code_points_are_read_as_go_reads_them(
    pattern: str, value: str, matches: bool
) -> None:
    assert full_match(pattern, value) is matches


def test_a_refused_pattern_is_refused_by_the_matcher_with_the_same_words() -> None:
    with pytest.raises(Re2Error) as refused:
        compile_matcher("(a{100}){11}")
    assert str(refused.value) == "error parsing regexp: invalid repeat count: `{11}`"


def _words(text: str) -> list[str]:
    return text.split()


_NOTHING = r"[^\x00-\x{10ffff}]"
_ATOMS = [
    *"aaabb.",
    *_words(r"[ab] [^a] [a-c] \w \W \d \s \n \x61 \Qa.\E (?i:A) (?i)B (?-i)"),
    *_words(r"^ $ \A \z \b \B (?m:^) (?m:$) (?m) (?s:.) (?s) (?U) ()"),
]
_REPEATS = _words("* + ? *? +? ?? {0} {1} {2} {0,2} {1,3} {2,} {0,1}? {3}")


def _pattern(rng: random.Random, depth: int) -> str:
    parts = []
    for _ in range(rng.randint(1, 4)):
        if depth < 3 and rng.random() < 0.25:
            opening = rng.choice(["(", "(?:", "(?i:", "(?m:", "(?s:", "(?P<n>"])
            parts.append(opening + _pattern(rng, depth + 1) + ")")
        elif rng.random() < 0.1:
            parts.append("|")
        else:
            parts.append(rng.choice(_ATOMS))
        if rng.random() < 0.35:
            parts.append(rng.choice(_REPEATS))
    return "".join(parts)


def test_the_matcher_answers_as_the_re_translation_on_random_patterns() -> None:
    rng = random.Random(20261128)
    compared = 0
    for _ in range(700):
        pattern = _pattern(rng, 0)
        try:
            translated = compile_re2(pattern)
        except Re2Error:
            continue
        matcher = compile_matcher(pattern)
        # ^(?:NOTHING)|(?:pattern)|(?:NOTHING)$: the pattern searched for anywhere
        unanchored = f"{_NOTHING})|(?:{pattern})|(?:{_NOTHING}"
        bare = compile_matcher(unanchored)
        bare_translated = compile_re2(unanchored)
        for _ in range(10):
            value = "".join(rng.choice("aabB_ \n\u212a") for _ in range(rng.randint(0, 6)))
            expected = translated.search(value) is not None
            assert matcher.search(value) is expected, (pattern, value)
            expected = bare_translated.search(value) is not None
            assert bare.search(value) is expected, (pattern, value)
            compared += 2
    assert compared > 10_000
