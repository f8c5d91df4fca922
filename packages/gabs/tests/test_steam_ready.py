"""gabs.launch.steam_ready and the start gate of a macOS ``SteamManaged`` launch
(``store_client_not_ready``): the probe child and its parent over real processes, and the start
pipeline with the platform check and the probe replaced."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client

from gabs.cli import run
from gabs.config import GabsConfig
from gabs.games import GameManager
from gabs.launch import resolve
from gabs.launch.steam_ready import (
    PROBE_ARGUMENT,
    ensure_ready_within,
    parse_app_id,
    run_probe_process,
    set_readiness_for_testing,
)
from gabs.lifecycle import Lifecycle, LifecycleError, start_game, stop_game
from gabs.mcp import build_server
from gabs.runtime import load_claim

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")

APP = "4242007"
GABS = Path(sys.executable).parent / "gabs"


def child(tmp_path: Path, body: str) -> list[str]:
    """A probe child that runs ``body`` (Python)."""
    script = tmp_path / "probe.py"
    script.write_text(textwrap.dedent(body), encoding="utf-8")
    return [sys.executable, str(script)]


def scripted(*observations: dict[str, str]) -> Any:
    """A probe answering ``observations`` in turn (the last one again when they run out)."""
    answers = list(observations)

    def probe(app_id: str, budget: float) -> dict[str, str]:
        assert app_id == APP and 0 < budget <= 2.0
        return dict(answers.pop(0) if len(answers) > 1 else answers[0])

    return probe


# -- the parent's wait --------------------------------------------------------------------------


def test_steam_becomes_ready_after_a_few_probes_and_the_client_is_opened_once() -> None:
    opened: list[bool] = []
    probe = scripted(
        {"state": "not_ready", "stage": "ipc_pipe", "detail": "no pipe"},
        {"state": "not_ready", "stage": "global_user"},
        {"state": "ready", "stage": "app_state"},
    )
    with set_readiness_for_testing(True, probe, opener=lambda: opened.append(True) or ""):
        result = ensure_ready_within(APP, 10, poll=0.01)
    assert (result.ready, result.stage, result.reason) == (True, "app_state", "")
    assert opened == [True] and result.waited < 10


def test_a_client_that_answers_but_never_gets_ready_is_a_retryable_timeout() -> None:
    probe = scripted(
        {"state": "not_ready", "stage": "steam_api", "detail": "logging in"},
        {"state": "unavailable", "stage": "client_library", "detail": "flaky"},
        {"state": "ready", "stage": "global_user"},  # a lower stage is never enough
    )
    with set_readiness_for_testing(True, probe, opener=lambda: ""):
        result = ensure_ready_within(APP, 0.3, poll=0.01)
    assert (result.ready, result.reason, result.retryable) == (False, "readiness_timeout", True)
    assert (result.stage, result.detail) == ("steam_api", "logging in")
    assert result.waited >= 0.3 and result.timeout == 0.3


def test_a_probe_that_cannot_run_is_not_retryable_as_it_is() -> None:
    probe = scripted({"state": "unavailable", "stage": "client_library", "detail": "no library"})
    with set_readiness_for_testing(True, probe, opener=lambda: "Steam could not be opened"):
        result = ensure_ready_within(APP, 0.2, poll=0.01)
    assert (result.reason, result.retryable, result.detail) == (
        "probe_unavailable",
        False,
        "no library",
    )


@pytest.mark.parametrize("raw", ["", "0", " 42", "42 ", "-1", "4294967296", "12a", "٣"])
def test_an_app_id_steam_would_not_take_is_refused(raw: str) -> None:
    with pytest.raises(ValueError):
        parse_app_id(raw)
    result = ensure_ready_within(raw, 5)
    assert (result.ready, result.reason, result.waited) == (False, "probe_unavailable", 0.0)


# -- one probe in a child process ---------------------------------------------------------------


def test_a_child_observation_is_read_and_its_detail_bounded(tmp_path: Path) -> None:
    command = child(
        tmp_path,
        """
        import json, os
        detail = os.environ.get("SteamAppId", "scrubbed") + "x" * 5000
        print(json.dumps({"state": "not_ready", "stage": "app_state", "detail": detail}))
        """,
    )
    found = run_probe_process(APP, 10, command)
    assert (found["state"], found["stage"]) == ("not_ready", "app_state")
    assert found["detail"].startswith("scrubbedxxx") and len(found["detail"]) == 2048


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ("print('not json')", "invalid readiness probe output"),
        ('print(\'{"state": "ready", "stage": "moon"}\')', "unknown readiness stage"),
        ('print(\'{"state": "maybe", "stage": "ipc_pipe"}\')', "unknown probe state"),
        ('print(\'{"state": "ready", "stage": "ipc_pipe", "x": 1}\')', "not a readiness"),
        ("print('x' * 9000)", "outside the accepted range"),
        ("import sys; sys.stderr.write('dlopen failed'); sys.exit(3)", "dlopen failed"),
        ("import time; time.sleep(30)", "timed out"),
    ],
)
def test_a_child_that_misbehaves_is_unavailable_with_a_reason(
    tmp_path: Path, body: str, says: str
) -> None:
    found = run_probe_process(APP, 1.0, child(tmp_path, body))
    assert (found["state"], found["stage"]) == ("unavailable", "client_library")
    assert says in found["detail"]


def test_the_hidden_probe_argument_answers_one_object_or_exit_code_2() -> None:
    good = subprocess.run(
        [str(GABS), PROBE_ARGUMENT, APP], capture_output=True, text=True, timeout=60, check=False
    )
    bad = subprocess.run(
        [str(GABS), PROBE_ARGUMENT, "0"], capture_output=True, text=True, timeout=60, check=False
    )
    extra = subprocess.run(
        [str(GABS), PROBE_ARGUMENT, APP, "more"], capture_output=True, timeout=60, check=False
    )
    assert good.returncode == 0, good.stderr
    found = json.loads(good.stdout)
    assert found["state"] in ("ready", "not_ready", "unavailable") and found["stage"]
    if sys.platform != "darwin":
        assert found == {
            "state": "unavailable",
            "stage": "client_library",
            "detail": "functional Steam readiness probing is available only on macOS",
        }
    assert (bad.returncode, bad.stdout, extra.returncode) == (2, "", 2)


# -- the start gate -------------------------------------------------------------------------------


@pytest.fixture
def steam_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Lifecycle, Any]]:
    """A ``SteamManaged`` game in a fake Steam library; its executable writes a marker file and
    sleeps."""
    library = tmp_path / "library"
    (library / "steamapps" / "common" / "Colony").mkdir(parents=True)
    vdf = tmp_path / "libraryfolders.vdf"
    vdf.write_text(f'"libraryfolders"\n{{\n "0" {{ "path" "{library}" }}\n}}\n', encoding="utf-8")
    (library / "steamapps" / f"appmanifest_{APP}.acf").write_text(
        f'"AppState"\n{{\n\t"appid"\t"{APP}"\n\t"name"\t"Colony"\n\t"installdir"\t"Colony"\n}}\n',
        encoding="utf-8",
    )
    executable = library / "steamapps" / "common" / "Colony" / "Colony"
    executable.write_text(
        f'#!/bin/sh\ntouch "{tmp_path}/spawned"\nexec sleep 120\n', encoding="utf-8"
    )
    executable.chmod(0o755)
    monkeypatch.setenv("GABS_STEAM_LIBRARYFOLDERS", str(vdf))
    document = {
        "timeouts": {"startup": {"gabpConnectSeconds": 1}},
        "games": {"g": {"name": "G", "launchMode": "SteamManaged", "target": APP}},
    }
    (tmp_path / "config.json").write_text(json.dumps(document), encoding="utf-8")
    config = GabsConfig.load(tmp_path)
    assert config.broken == {}, config.broken
    lc = Lifecycle(config.config_dir, config.settings, cli=True)
    yield lc, config
    with anyio.from_thread.start_blocking_portal() as portal:
        portal.call(lambda: stop_game(lc, "g", "kill", verify_window=5))


async def test_a_start_not_proven_ready_spawns_nothing_and_says_why(
    steam_game: tuple[Lifecycle, Any], tmp_path: Path
) -> None:
    lc, config = steam_game
    game = config.game("g")
    deadlines: list[datetime | None] = []

    def probe(app_id: str, budget: float) -> dict[str, str]:
        claim = load_claim(tmp_path / "g")
        deadlines.append(claim.process_start_deadline if claim else None)
        return {"state": "not_ready", "stage": "global_user", "detail": "no user"}

    with (
        set_readiness_for_testing(True, probe, opener=lambda: ""),
        anyio.fail_after(30),
        pytest.raises(LifecycleError) as refused,
    ):
        await start_game(lc, game, resolve(game, revision=config.revision), gabp_timeout=1)

    failure = refused.value
    assert failure.code == "store_client_not_ready"
    data = failure.data
    assert {k: data[k] for k in ("store", "reason", "readinessStage", "retryable")} == {
        "store": "steam",
        "reason": "readiness_timeout",
        "readinessStage": "global_user",
        "retryable": True,
    }
    assert (data["processStarted"], data["timeoutMs"], data["detail"]) == (False, 1000, "no user")
    assert 1000 <= data["waitedMs"] < 10_000
    assert [a["tool"] for a in failure.next_actions] == ["games_start"]
    assert failure.next_actions[0]["arguments"] == {"gameId": "g"}
    assert "no game process was started" in failure.message
    assert not (tmp_path / "spawned").exists()
    assert load_claim(tmp_path / "g") is None  # released
    assert deadlines and all(d is not None for d in deadlines)
    assert not (tmp_path / "g" / "track-record.json").exists()


@pytest.mark.skipif(sys.platform == "win32", reason="flock")
async def test_a_start_past_its_deadline_does_not_wait_for_steam(
    steam_game: tuple[Lifecycle, Any], tmp_path: Path
) -> None:
    # Go: the readiness wait extends the step only while its deadline has not passed; past it
    # the start is superseded (judged while its own claim is still there), then released.
    import fcntl  # POSIX only

    document = json.loads((tmp_path / "config.json").read_text(encoding="utf-8"))
    document["timeouts"]["startup"]["processStartSeconds"] = 1
    (tmp_path / "config.json").write_text(json.dumps(document), encoding="utf-8")
    config = GabsConfig.load(tmp_path)
    lc = Lifecycle(config.config_dir, config.settings, cli=True)
    game = config.game("g")
    probed: list[str] = []

    def probe(app_id: str, budget: float) -> dict[str, str]:
        probed.append(app_id)
        return {"state": "ready", "stage": "app_state"}

    (tmp_path / "g").mkdir()
    holder = os.open(tmp_path / "g" / "bridge.lock", os.O_CREAT | os.O_RDWR, 0o600)
    fcntl.flock(holder, fcntl.LOCK_EX)
    release = threading.Timer(2.0, lambda: fcntl.flock(holder, fcntl.LOCK_UN))
    release.start()
    try:
        with (
            set_readiness_for_testing(True, probe, opener=lambda: ""),
            anyio.fail_after(30),
            pytest.raises(LifecycleError) as refused,
        ):
            await start_game(lc, game, resolve(game, revision=config.revision), gabp_timeout=5)
    finally:
        release.join()
        os.close(holder)
    assert (refused.value.code, refused.value.message) == (
        "blocked_unknown_state",
        "the launch of 'g' was superseded during startup; a successor claim exists in phase "
        "starting — re-check games_status",
    )
    assert probed == [] and not (tmp_path / "spawned").exists()
    assert load_claim(tmp_path / "g") is None  # released after the refusal was judged


async def test_a_start_proven_ready_spawns_the_game(
    steam_game: tuple[Lifecycle, Any], tmp_path: Path
) -> None:
    lc, config = steam_game
    game = config.game("g")
    probe = scripted(
        {"state": "not_ready", "stage": "app_state"}, {"state": "ready", "stage": "app_state"}
    )
    with set_readiness_for_testing(True, probe, opener=lambda: ""):
        with anyio.fail_after(30):
            started = await start_game(
                lc, game, resolve(game, revision=config.revision), gabp_timeout=5
            )
    assert started.spawned is not None and started.spawned.pid > 0
    claim = load_claim(tmp_path / "g")
    assert claim is not None and (claim.phase, claim.game_pid) == ("active", started.spawned.pid)


async def test_without_the_gate_a_steam_managed_start_does_not_probe(
    steam_game: tuple[Lifecycle, Any], tmp_path: Path
) -> None:
    lc, config = steam_game
    game = config.game("g")

    def probe(app_id: str, budget: float) -> dict[str, str]:
        raise AssertionError("probed on a platform without the gate")

    with set_readiness_for_testing(False, probe, opener=lambda: ""):
        with anyio.fail_after(60):
            started = await start_game(
                lc, game, resolve(game, revision=config.revision), gabp_timeout=5
            )
    claim = load_claim(tmp_path / "g")
    assert started.spawned is not None and claim is not None and claim.phase == "active"


async def test_games_start_answers_store_client_not_ready_in_the_go_shape(
    steam_game: tuple[Lifecycle, Any], tmp_path: Path
) -> None:
    _lc, config = steam_game
    probe = scripted({"state": "unavailable", "stage": "client_library", "detail": "no Steam"})
    with set_readiness_for_testing(True, probe, opener=lambda: ""), anyio.fail_after(60):
        async with GameManager(config, liveness_interval=60) as manager:  # noqa: SIM117
            async with Client(build_server(manager)) as client:
                result = await client.call_tool("games_start", {"gameId": "g", "timeout": 1})
    assert result.is_error
    data = result.structured_content
    assert isinstance(data, dict)
    assert (data["code"], data["causeClass"], data["gameId"]) == (
        "store_client_not_ready",
        "environment",
        "g",
    )
    assert (data["reason"], data["retryable"], data["processStarted"]) == (
        "probe_unavailable",
        False,
        False,
    )
    assert [a["tool"] for a in data["nextActions"]] == ["games_start"]
    text = "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))
    assert "could not be proven at stage client_library (probe_unavailable)" in text
    assert not (tmp_path / "spawned").exists()


def test_the_cli_start_refuses_with_the_code_and_exit_code_1(
    steam_game: tuple[Lifecycle, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    probe = scripted({"state": "not_ready", "stage": "ipc_pipe"})
    with set_readiness_for_testing(True, probe, opener=lambda: ""):
        code = run(["games", "start", "g", "--configDir", str(tmp_path)])
    printed = capsys.readouterr()
    assert code == 1
    assert "store_client_not_ready: Steam readiness for 'g' could not be proven" in printed.err
    assert not (tmp_path / "spawned").exists() and load_claim(tmp_path / "g") is None
