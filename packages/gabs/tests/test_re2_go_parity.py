"""A launch input's pattern read as the Go bridge 1.1.0 reads it: ``regexp.Compile`` of
``^(?:<pattern>)$``, then ``MatchString`` (``internal/config/profiles.go``,
``internal/launch/resolver.go``). Every expected verdict and error text below is what Go's
``regexp`` (Go 1.27.3, Unicode 17) printed for the same pattern and value in a differential
run of both engines (``scripts/differential_re2.py``, which needs a Go toolchain and is not run
by CI)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gabs.cli import main
from gabs.config import full_match
from gabs.config._re2 import Re2Error, compile_re2

#: ``(?i)`` folds case by Go's tables: a literal stands for its ``unicode.SimpleFold`` orbit, a
#: range or ``\w``/``[:upper:]`` for its fold closure, ``\p{...}`` for its table plus Go's fold
#: table of that name (``LC`` has none), and a negation is applied after folding.
GO_FOLDS = [
    (r"(?i)\p{Lu}", "a", True),
    (r"(?i)\p{Lu}", "\u0131", False),  # dotless i: no fold partner in Go's tables
    (r"(?i)\p{Lu}", "\u017f", True),  # long s, a partner of S
    (r"(?i)\p{Ll}", "\u0130", False),
    (r"(?i)\P{Lu}", "a", False),
    (r"(?i)\P{Lu}", "1", True),
    (r"(?i)\p{LC}", "\u0345", False),
    (r"(?i)\p{Greek}", "\u00b5", True),  # micro sign, in Go's FoldScript["Greek"]
    (r"(?i)\P{Greek}", "\u00b5", False),
    (r"(?i)\p{ASCII}", "\u212a", True),  # Kelvin sign
    (r"(?i)\p{ASCII}", "\u0130", False),
    (r"(?i)\P{ASCII}", "\u017f", False),
    (r"(?i)\w", "\u212a", True),
    (r"(?i)\w", "\u0130", False),
    (r"(?i)\W", "k", False),
    (r"(?i)\W", "\u017f", False),
    (r"(?i)\W", "-", True),
    (r"(?i)[^k]", "\u212a", False),
    (r"(?i)[^k]", "K", False),
    (r"(?i)[[:upper:]]", "\u017f", True),
    (r"(?i)[[:^lower:]]", "\u212a", False),
    (r"(?i)[a-z]+", "\u212a\u017f", True),
    ("(?i)k", "\u212a", True),
    (r"(?i)\Qk\E", "\u212a", True),
    (r"(?i)\x{212a}", "k", True),
    ("(?i)i", "\u0130", False),
    ("(?i)i", "\u0131", False),
    ("(?i)\u0130", "i", False),
    ("(?i)\u03c3", "\u03c2", True),
    ("(?i)\u00df", "\u1e9e", True),
    ("(?i)\u01c5", "\u01c4", True),
    ("(?i)\u1fbe", "\u0399", True),
    ("(?i)\u03a9", "\u2126", True),
]


@pytest.mark.parametrize(("pattern", "value", "matches"), GO_FOLDS)
def test_case_folding_is_go_s(pattern: str, value: str, matches: bool) -> None:
    assert full_match(pattern, value) is matches


#: Patterns Go accepts although they look odd, and what it makes of a value.
GO_ACCEPTS = [
    # a repeat after an empty \Q\E or a flag group repeats what came before, a repeat too
    (r"a*\Q\E*", "aaa", True),
    ("a*(?i)*", "aa", True),
    ("x*(?s)?", "xx", True),
    # a pattern that closes the anchoring group: Go searches `^(?:a)|(b)$`
    ("a)|(b", "axyz", True),
    ("a)|(b", "zb", True),
    ("a)|(b", "x", False),
    ("a)(?m)(b", "ab\n", True),
    # nested counts whose product stays within 1000 ({0} cuts the product)
    ("(?:a{10}){100}", "a" * 1000, True),
    ("(a{0,0}b{2}){500}", "b" * 1000, True),
    ("(?:(?:a{0}){2}){500}", "", True),
    ("((?:a{0,2}){0}){1000}", "", True),
    ("(?:a{0,}){1000}", "", True),
    # deep nesting within Go's limit of 1000 (beyond Python's default recursion for `re`)
    ("(" * 998 + "a" + ")" * 998, "a", True),
    ("(?:" * 1500 + "a" + ")" * 1500, "a", True),
    ("(?:a|" * 1200 + "b" + ")" * 1200, "b", True),
    # 3355 instructions a copy, 1000 copies: just within Go's compiled size
    ("(?:" + "a" * 3355 + "){1000}", "a", False),
]


@pytest.mark.parametrize(("pattern", "value", "matches"), GO_ACCEPTS)
def test_what_go_accepts_is_accepted_and_matches_as_in_go(
    pattern: str, value: str, matches: bool
) -> None:
    assert full_match(pattern, value) is matches


DEEP = "(" * 999 + "a" + ")" * 999
LARGE = "(?:" + "a" * 3356 + "){1000}"
#: Patterns Go refuses, with the text after ``error parsing regexp: ``.
GO_REFUSALS = [
    ("(a{100}){11}", "invalid repeat count: `{11}`"),
    ("(?:a{10}){101}", "invalid repeat count: `{101}`"),
    ("(a{600}){1,2}", "invalid repeat count: `{1,2}`"),
    ("(a{2,}){501}", "invalid repeat count: `{501}`"),
    ("((a{2}){2}){251}", "invalid repeat count: `{251}`"),
    ("${1000}(?-i){2}", "invalid repeat count: `{2}`"),
    ("a{2}(?i){501}?", "invalid repeat count: `{501}?`"),
    (DEEP, f"expression nests too deeply: `^(?:{DEEP})$`"),
    (LARGE, f"expression too large: `^(?:{LARGE})$`"),
    ("a{1000}" * 3356, f"expression too large: `^(?:{'a{1000}' * 3356})$`"),
    # a repeat of a {0} still counts its own count (only what is under the {0} does not)
    ("(?:(?:a{0}){2}){1000}", "invalid repeat count: `{1000}`"),
    ("(?:(?:a{0}){2}){501}", "invalid repeat count: `{501}`"),
    ("(?:a{0}(?s){2}){1000}", "invalid repeat count: `{1000}`"),
    ("((?:a{0}){1000}){2}", "invalid repeat count: `{2}`"),
    (r"(?:\b{0}(?U){1000}){1,3}", "invalid repeat count: `{1,3}`"),
]


@pytest.mark.parametrize(("pattern", "detail"), GO_REFUSALS)
def test_what_go_refuses_is_refused_with_go_s_words(pattern: str, detail: str) -> None:
    with pytest.raises(Re2Error) as refused:
        compile_re2(pattern)
    assert str(refused.value) == f"error parsing regexp: {detail}"


def test_a_config_with_such_patterns_reads_as_the_go_bridge_reads_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the lines the Go bridge printed for the same config (`gabs games start g`)
    inputs = {
        "seed": {"pattern": "(a{100}){11}"},
        "deep": {"pattern": "x*(?i)*"},  # accepted
        "mode": {"pattern": r"(?i)\W+", "enum": ["k", "-"]},  # k is no \W under (?i)
    }
    game = {
        "id": "g",
        "name": "G",
        "launchMode": "CustomCommand",
        "target": "sh",
        "args": ["-c", "exit 3"],
        "launchInputs": {
            name: {"description": name, "type": "string", "args": ["${value}"], **extra}
            for name, extra in inputs.items()
        },
    }
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"version": "1.0", "games": {"g": game}}), encoding="utf-8")
    config.chmod(0o600)
    try:
        code = main(["games", "start", "g", "--configDir", str(tmp_path)])
    except SystemExit as exc:
        code = exc.code
    assert code == 1
    lines = capsys.readouterr().err.splitlines()[1:]
    assert lines == [
        '  /games/g/launchInputs/mode/enum/0: enum value "k" does not match the declared '
        "pattern; every start would reject it",
        "  /games/g/launchInputs/seed/pattern: invalid pattern (RE2, matched against the entire "
        "value): error parsing regexp: invalid repeat count: `{11}`",
    ]
