"""The exec size check of a launch, with explicit limits so it does not depend on the host."""

from __future__ import annotations

import sys

import pytest

from gabs.launch.size import (
    ExecLimits,
    check_process_size,
    check_unix_size,
    check_windows_size,
    current_exec_limits,
)

LINUX_4K = ExecLimits(combined=2 << 20, per_string=32 * 4096, pointer=8, executable_path=True)
LINUX_16K = ExecLimits(combined=2 << 20, per_string=32 * 16384, pointer=8, executable_path=True)
DARWIN = ExecLimits(combined=1 << 20, pointer=8, terminators=2, align=True)
HUGE_ARGV = ["/opt/game", "y" * 200 * 1024]


def test_a_small_launch_fits_every_platform() -> None:
    argv, env = ["/opt/game", "--x"], {"A": "b"}
    for limits in (LINUX_4K, LINUX_16K, DARWIN):
        assert check_unix_size(argv, env, limits) is None
    assert check_windows_size(argv, env) is None


def test_one_argument_over_linux_per_string_cap_is_an_args_issue() -> None:
    issue = check_unix_size(HUGE_ARGV, {}, LINUX_4K)
    assert issue is not None and issue.part == "args"
    assert issue.message == (
        "argument 1 is 204801 bytes including its terminator, exceeding the per-string exec "
        "limit of 131072"
    )


def test_the_per_string_cap_follows_the_page_size_and_darwin_has_none() -> None:
    assert check_unix_size(HUGE_ARGV, {}, LINUX_16K) is None
    assert check_unix_size(HUGE_ARGV, {}, DARWIN) is None
    env_issue = check_unix_size(["/opt/game"], {"BIG": "z" * 32 * 16384}, LINUX_16K)
    assert env_issue is not None and env_issue.part == "env"
    assert env_issue.message.startswith("environment entry BIG is ")


def test_many_medium_environment_entries_exceed_the_combined_limit_as_env() -> None:
    env = {f"KKKKKKKKKK{chr(65 + i)}": "x" * 100 * 1024 for i in range(21)}
    issue = check_unix_size(["/opt/game"], env, LINUX_4K)
    assert issue is not None and issue.part == "env"
    assert "exceeding the platform limit of 2097152" in issue.message


def test_many_arguments_fit_below_the_combined_limit_and_fail_above_it() -> None:
    argv = ["/opt/game"] + ["x" * 100 * 1024] * 16
    assert check_unix_size(argv, {}, LINUX_4K) is None
    issue = check_unix_size(argv + ["x" * 100 * 1024] * 6, {}, LINUX_4K)
    assert issue is not None and issue.part == "args"


def test_darwin_charges_pointer_tables_terminators_and_alignment() -> None:
    issue = check_unix_size([""] * 120_000, {}, DARWIN)
    assert issue is not None and issue.part == "args"
    # "x\0" (2) + its pointer (8) + two NULL terminators (16) + 6 bytes of alignment = 32.
    assert check_unix_size(["x"], {}, ExecLimits(combined=32, terminators=2, align=True)) is None
    assert check_unix_size(["x"], {}, ExecLimits(combined=31, terminators=2, align=True))


def test_linux_counts_the_executable_path_a_second_time() -> None:
    argv = ["/opt/" + "g" * 90, "a"]
    exact = 96 + 2 + 2 * 8 + 96  # the strings, two pointers, the path again
    assert check_unix_size(argv, {}, ExecLimits(combined=exact, executable_path=True)) is None
    assert check_unix_size(argv, {}, ExecLimits(combined=exact - 1, executable_path=True))


def test_an_unknown_combined_limit_refuses_nothing() -> None:
    assert check_unix_size(HUGE_ARGV * 100, {}, ExecLimits(combined=0)) is None


def test_windows_measures_the_quoted_command_line_and_the_environment_block() -> None:
    quotes = check_windows_size(["C:\\game.exe", '"' * 20000], {})
    assert quotes is not None and quotes.part == "args" and "after quoting" in quotes.message
    env = check_windows_size(["C:\\game.exe"], {"BIG": "z" * 32760})
    assert env is not None and env.part == "env"
    assert check_windows_size(["C:\\game.exe", "a" * 30000], {}) is None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux limits")
def test_this_linux_host_refuses_an_argument_over_32_pages() -> None:
    limits = current_exec_limits()
    assert limits is not None and limits.per_string >= 32 * 4096
    assert limits.combined >= limits.per_string
    issue = check_process_size(["/bin/true", "y" * (limits.per_string + 1)], {})
    assert issue is not None and issue.part == "args"
    assert check_process_size(["/bin/true", "--x"], {"A": "b"}) is None
