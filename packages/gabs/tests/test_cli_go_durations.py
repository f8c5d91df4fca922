"""``--reconnectBackoff`` and ``--grace`` read durations by Go's ``time.ParseDuration`` rules.

Every expected value and line below was printed by the Go bridge 1.1.0 (Go 1.27) for the same
input, run side by side.
"""

from __future__ import annotations

import pytest

from gabs.cli import run
from gabs.cli_args import go_duration_text, parse_duration_ns

HOUR = 3_600_000_000_000
MAX = (1 << 63) - 1


@pytest.mark.parametrize(
    ("text", "ns"),
    [
        ("0", 0),
        ("-0", 0),
        ("+0", 0),
        ("1s", 1_000_000_000),
        ("+5s", 5_000_000_000),
        ("-1.5h", -HOUR * 3 // 2),
        (".5s", 500_000_000),
        ("5m1.s", 301_000_000_000),
        ("1µs", 1_000),  # U+00B5
        ("1μs", 1_000),  # U+03BC
        ("1us2ns", 1_002),
        ("0.000000001s", 1),
        ("1.0000000000000000000001h", HOUR),  # digits past int64 precision are dropped
        ("9223372036854775807ns", MAX),
        ("2562047h47m16.854775807s", MAX),
        ("-9223372036854775808ns", -MAX - 1),
        ("-9223372036854775808ns9223372036854775808ns", 0),  # Go's uint64 sum wraps to 0
    ],
)
def test_values_go_accepts(text: str, ns: int) -> None:
    assert parse_duration_ns(text) == ns


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", 'time: invalid duration ""'),
        ("1", 'time: missing unit in duration "1"'),
        ("1.", 'time: missing unit in duration "1."'),
        ("1x", 'time: unknown unit "x" in duration "1x"'),
        ("1e3s", 'time: unknown unit "e" in duration "1e3s"'),
        ("1h-1m", 'time: unknown unit "h-" in duration "1h-1m"'),
        ("1s ", 'time: unknown unit "s " in duration "1s "'),
        (" 1s", 'time: invalid duration " 1s"'),
        (".s", 'time: invalid duration ".s"'),
        ("-", 'time: invalid duration "-"'),
        ("99999999999h", 'time: invalid duration "99999999999h"'),
        ("9223372036854775808ns", 'time: invalid duration "9223372036854775808ns"'),
        ("2562047h47m16.854775808s", 'time: invalid duration "2562047h47m16.854775808s"'),
        ('1"x', 'time: unknown unit "\\"x" in duration "1\\"x"'),
        ("1\u00e9", 'time: unknown unit "\\xc3\\xa9" in duration "1\\xc3\\xa9"'),
        ("1\x01s", 'time: unknown unit "\\x01s" in duration "1\\x01s"'),
    ],
)
def test_go_refusals_and_their_words(text: str, message: str) -> None:
    with pytest.raises(ValueError) as refused:
        parse_duration_ns(text)
    assert str(refused.value) == message


@pytest.mark.parametrize(
    ("ns", "text"),
    [
        (0, "0s"),
        (1_000, "1µs"),
        (1_500, "1.5µs"),
        (90_000_000_000, "1m30s"),
        (HOUR, "1h0m0s"),
        (MAX, "2562047h47m16.854775807s"),
        (-MAX - 1, "-2562047h47m16.854775808s"),
    ],
)
def test_durations_print_as_go_prints_them(ns: int, text: str) -> None:
    assert go_duration_text(ns) == text


@pytest.mark.parametrize(
    ("flags", "line"),
    [
        (
            ["--reconnectBackoff", "1..1s"],
            'invalid --reconnectBackoff: invalid min duration: time: missing unit in duration "1"',
        ),
        (
            ["--reconnectBackoff", "1ms..1x"],
            'invalid --reconnectBackoff: invalid max duration: time: unknown unit "x" in '
            'duration "1x"',
        ),
        (
            ["--reconnectBackoff", "99999999999h..1s"],
            "invalid --reconnectBackoff: invalid min duration: time: invalid duration "
            '"99999999999h"',
        ),
        (
            ["--reconnectBackoff", "2562047h47m16.854775807s..1s"],
            "invalid --reconnectBackoff: min duration (2562047h47m16.854775807s) cannot be "
            "greater than max duration (1s)",
        ),
        (
            ["--reconnectBackoff", "1ms..1μs"],
            "invalid --reconnectBackoff: min duration (1ms) cannot be greater than max "
            "duration (1µs)",
        ),
        (["--grace", "99999999999h"], 'invalid value "99999999999h" for flag -grace: parse error'),
        (["--grace", '1"x'], 'invalid value "1\\"x" for flag -grace: parse error'),
        # Both wrong: the Go bridge parses --grace first.
        (
            ["--reconnectBackoff", "y", "--grace", "x"],
            'invalid value "x" for flag -grace: parse error',
        ),
    ],
)
def test_the_command_line_prints_gos_line_and_exits_2(
    flags: list[str], line: str, capsys: pytest.CaptureFixture[str], tmp_path: object
) -> None:
    assert run(["games", "list", "--configDir", str(tmp_path), *flags]) == 2
    out, err = capsys.readouterr()
    assert (out, err) == ("", line + "\n")


def test_flags_are_checked_before_the_command_name(capsys: pytest.CaptureFixture[str]) -> None:
    # The Go bridge parses its flags before it looks at the command.
    assert run(["bogus", "--grace", "x"]) == 2
    assert capsys.readouterr().err == 'invalid value "x" for flag -grace: parse error\n'


def test_the_largest_values_go_accepts_are_accepted(
    capsys: pytest.CaptureFixture[str], tmp_path: object
) -> None:
    flags = ["--grace", "2562047h47m16.854775807s", "--reconnectBackoff", "1ms..+5s"]
    assert run(["games", "list", "--configDir", str(tmp_path), *flags]) == 0
    assert capsys.readouterr().err == ""
