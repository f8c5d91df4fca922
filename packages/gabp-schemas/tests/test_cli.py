"""gabp-validate, run in-process: output lines and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import gabp_schemas
from gabp_schemas.cli import main

EXAMPLES = gabp_schemas.data_root() / "examples" / "1.0"
CONFORMANCE = gabp_schemas.data_root() / "conformance" / "1.0"
HELLO = {
    "v": "gabp/1",
    "id": "0f8fad5b-d9cb-469f-a165-70867728950e",
    "type": "request",
    "method": "session/hello",
    "params": {
        "token": "f" * 64,
        "bridgeVersion": "1",
        "platform": "linux",
        "launchId": "0f8fad5b-d9cb-469f-a165-70867728950f",
    },
}


def write(tmp_path: Path, name: str, document: object) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_valid_files_print_ok_and_exit_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "hello.json", HELLO)
    assert main([str(path)]) == 0
    assert capsys.readouterr().out == f"ok  {path}\n"


def test_an_invalid_file_prints_its_first_error_and_a_count_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = dict(HELLO, params=dict(HELLO["params"], token="x", platform="darwin"))
    good = write(tmp_path, "good.json", HELLO)
    path = write(tmp_path, "bad.json", bad)
    assert main([str(good), str(path)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"ok  {good}",
        f"invalid  {path}: $.params.platform: 'darwin' is not one of "
        "['windows', 'macos', 'linux'] (+1 more)",
    ]


def test_verbose_lists_every_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = dict(HELLO, params=dict(HELLO["params"], token="x", platform="darwin"))
    path = write(tmp_path, "bad.json", bad)
    assert main(["-v", str(path)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"invalid  {path}:",
        "    $.params.platform: 'darwin' is not one of ['windows', 'macos', 'linux']",
        "    $.params.token: 'x' is too short (minLength 32)",
    ]


def test_method_option_type_checks_a_response(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(
        tmp_path,
        "res.json",
        {"v": "gabp/1", "id": HELLO["id"], "type": "response", "result": {"attention": 3}},
    )
    assert main([str(path)]) == 0
    assert main(["--method", "attention/current", str(path)]) == 1
    assert "$.result.attention" in capsys.readouterr().out


def test_manifest_entries_choose_the_method_for_shipped_files(
    capsys: pytest.CaptureFixture[str],
) -> None:
    stale = CONFORMANCE / "invalid" / "attention-ack-result-missing-current-attention.json"
    assert main([str(stale)]) == 1
    assert "$.result: 'currentAttention' is a required property" in capsys.readouterr().out


def test_manifest_schema_entries_route_bridge_documents(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = EXAMPLES / "bridge" / "070_blocked-call.result.json"
    assert main([str(path)]) == 0
    assert capsys.readouterr().out == f"ok  {path}\n"


def test_schema_option_validates_plain_documents(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "blocked.json", {"executed": False})
    assert main(["--schema", "ext/bridge/blocked-call.result", str(path)]) == 1
    assert capsys.readouterr().out.startswith(f"invalid  {path}: $: 'attention' is a required")


def test_schema_option_refuses_a_gabp_name_for_an_extension_schema(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "blocked.json", {"executed": False})
    assert main(["--schema", "bridge/blocked-call.result", str(path)]) == 2
    err = capsys.readouterr().err
    assert "GABP 1.1.0 defines none" in err
    assert "'ext/bridge/blocked-call.result'" in err


def test_nan_in_a_file_is_not_json_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "nan.json"
    text = json.dumps({**HELLO, "type": "event"}).replace('"event"', "NaN")
    path.write_text(text, encoding="utf-8")
    assert main([str(path)]) == 2
    assert capsys.readouterr().err == f"error  {path}: not JSON: NaN is not a JSON value\n"


def test_unreadable_or_unparseable_files_exit_2_with_a_message_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    missing = tmp_path / "missing.json"
    good = write(tmp_path, "good.json", HELLO)
    assert main([str(broken), str(missing), str(good)]) == 2
    captured = capsys.readouterr()
    assert captured.out == f"ok  {good}\n"
    errors = captured.err.splitlines()
    assert errors[0].startswith(f"error  {broken}: not JSON:")
    assert errors[1].startswith(f"error  {missing}: cannot read:")


@pytest.mark.parametrize(
    "argv",
    [[], ["--method", "tools/list", "--schema", "envelope", "x.json"], ["--bogus", "x.json"]],
)
def test_usage_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(argv)
    assert caught.value.code == 2
    assert "usage: gabp-validate" in capsys.readouterr().err


def test_an_unknown_method_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "hello.json", HELLO)
    assert main(["--method", "tools/lst", str(path)]) == 2
    assert "no schema for method 'tools/lst'" in capsys.readouterr().err


def test_the_set_option_judges_by_the_extension_set_and_gabps_is_the_default(
    capsys: pytest.CaptureFixture[str],
) -> None:
    cleared = CONFORMANCE / "ext-invalid" / "attention-cleared-event-still-blocking.json"
    assert main([str(cleared)]) == 0
    assert main(["--set", "gabp", str(cleared)]) == 0
    assert main(["--set", "ext", str(cleared)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == [f"ok  {cleared}", f"ok  {cleared}"]
    assert lines[2] == f"invalid  {cleared}: $.payload.blocking: False was expected"


def test_an_unknown_set_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["--set", "strict", "x.json"])
    assert caught.value.code == 2
    assert "invalid choice: 'strict'" in capsys.readouterr().err
