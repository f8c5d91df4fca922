"""Reading the GABP credentials a running process was started with (``gabs.runtime.procenv``)."""

from __future__ import annotations

import os
import select
import subprocess
import sys
from collections.abc import Iterator

import pytest

from gabs.runtime import RuntimeState
from gabs.runtime.procenv import bridge_environment, stale_credentials
from gabs.runtime.procs import process_start_time

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="no process environments")

TOKEN = "a" * 64


def child(env: dict[str, str]) -> Iterator[int]:
    """A process with ``env``, yielded once it runs its own program.

    Popen may return while the child is still inside ``exec`` (Python 3.13 spawns with vfork
    more often): its ``/proc`` environment then reads empty for a moment. The child says when
    it is ready, and the test waits for that (at most 30 s).
    """
    base = {k: v for k, v in os.environ.items() if not k.startswith(("GABP_", "GABS_"))}
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; print('ready', flush=True); sys.stdin.read()"],
        env={**base, **env},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    try:
        assert proc.stdout is not None
        assert select.select([proc.stdout], [], [], 30)[0], "the child did not start in 30 s"
        assert proc.stdout.readline() == b"ready\n"
        yield proc.pid
    finally:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.close()
        proc.wait(timeout=30)
        proc.stdout.close()


@pytest.fixture
def game() -> Iterator[int]:
    yield from child({"GABP_SERVER_PORT": "40123", "GABP_TOKEN": TOKEN, "GABS_GAME_ID": "g"})


@pytest.fixture
def bare() -> Iterator[int]:
    yield from child({})


def claim_for(pid: int, port: int, token: str) -> RuntimeState:
    return RuntimeState(
        "g",
        game_pid=pid,
        pid_start_time=process_start_time(pid),
        endpoint_port=port,
        endpoint_token=token,
    )


def test_the_bridge_variables_of_a_running_process_are_read(game: int) -> None:
    found = bridge_environment(game)
    assert found is not None
    assert (found.pid, found.port, found.token, found.game_id) == (game, 40123, TOKEN, "g")
    assert TOKEN not in repr(found)


def test_a_process_without_bridge_variables_has_none(bare: int) -> None:
    assert bridge_environment(bare) is None


def test_a_process_on_the_claims_endpoint_is_not_stale(game: int) -> None:
    assert stale_credentials(claim_for(game, 40123, TOKEN)) is None


def test_a_process_with_another_token_or_port_is_stale(game: int) -> None:
    other = stale_credentials(claim_for(game, 40123, "b" * 64))
    assert other is not None and other.pid == game
    assert stale_credentials(claim_for(game, 40124, TOKEN)) is not None


def test_a_claim_whose_pid_was_reused_concludes_nothing(game: int) -> None:
    claim = claim_for(game, 40123, "b" * 64)
    claim.pid_start_time += 1
    assert stale_credentials(claim) is None


def test_a_process_without_bridge_variables_is_not_called_stale(bare: int) -> None:
    assert stale_credentials(claim_for(bare, 40123, TOKEN)) is None
