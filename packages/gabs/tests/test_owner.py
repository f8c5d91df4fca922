"""gabs.games_owner: the owner lease of a runtime claim, checked before every game-bound request,
over real claim files and real processes."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import anyio
import pytest

from gabs.config import Settings
from gabs.games_owner import OwnerMixin
from gabs.lifecycle import Lifecycle
from gabs.lifecycle.core import now
from gabs.runtime import RuntimeState, load_claim, save_claim

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")

GAME = "g"


class Owners(OwnerMixin):
    def __init__(self, config_dir: Path) -> None:
        self.lc = Lifecycle(config_dir, Settings(owner_lease_seconds=30))
        self._claim_views = {}
        self._lease_holds = {}


@pytest.fixture
def other_bridge() -> Iterator[int]:
    """A live process that is not this one (standing in for another bridge)."""
    with subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE
    ) as process:
        yield process.pid
        assert process.stdin is not None
        process.stdin.close()


def write_claim(
    config_dir: Path, owner_pid: int, lease: timedelta, instance: str = "other"
) -> None:
    moment = now()
    save_claim(
        config_dir / GAME,
        RuntimeState(
            GAME,
            status="running",
            phase="active",
            launch_id="launch-1",
            owner_pid=owner_pid,
            owner_instance_id=instance,
            owner_last_active=moment,
            owner_lease_until=moment + lease,
        ),
    )


def claim(config_dir: Path) -> RuntimeState:
    found = load_claim(config_dir / GAME)
    assert found is not None
    return found


async def test_a_live_owner_with_a_running_lease_blocks_the_call(
    tmp_path: Path, other_bridge: int
) -> None:
    owners = Owners(tmp_path)
    write_claim(tmp_path, other_bridge, timedelta(seconds=60))
    before = claim(tmp_path)

    blocked = await owners.ensure_owner(GAME, "tool 'x/y'", 10)

    assert blocked is not None
    assert {
        k: blocked[k] for k in ("executed", "status", "gameId", "ownerPID", "ownerInstance")
    } == {
        "executed": False,
        "status": "blocked_by_active_runtime_owner",
        "gameId": GAME,
        "ownerPID": other_bridge,
        "ownerInstance": "other",
    }
    assert 0 < blocked["ownerLeaseRemainingMs"] <= 60_000
    assert [a["tool"] for a in blocked["nextActions"]] == ["games_status", "games_connect"]
    assert "did not execute tool 'x/y'" in blocked["message"]
    assert claim(tmp_path).generation == before.generation, "a refused call changes nothing"


async def test_an_expired_lease_or_a_dead_owner_hands_the_game_to_this_bridge(
    tmp_path: Path, other_bridge: int
) -> None:
    owners = Owners(tmp_path)
    write_claim(tmp_path, other_bridge, timedelta(seconds=-1))
    assert await owners.ensure_owner(GAME, "games_get_attention") is None
    taken = claim(tmp_path)
    assert (taken.owner_pid, taken.owner_instance_id) == (os.getpid(), owners.lc.instance_id)
    assert taken.owner_lease_until is not None
    assert taken.owner_lease_until > now() + timedelta(seconds=25)

    done = await anyio.run_process([sys.executable, "-c", "import os; print(os.getpid())"])
    write_claim(tmp_path, int(done.stdout), timedelta(seconds=60))
    assert await owners.ensure_owner(GAME, "games_get_attention") is None
    assert claim(tmp_path).owner_pid == os.getpid()


async def test_the_lease_is_renewed_when_it_runs_down_not_on_every_call(tmp_path: Path) -> None:
    owners = Owners(tmp_path)
    write_claim(tmp_path, os.getpid(), timedelta(seconds=30), instance=owners.lc.instance_id)
    generation = claim(tmp_path).generation
    for _ in range(5):
        assert await owners.ensure_owner(GAME, "tool 'x/y'", 10) is None
    assert claim(tmp_path).generation == generation, "a fresh lease is not rewritten"

    # a call that may take 10 minutes needs a lease that outlasts it
    assert await owners.ensure_owner(GAME, "tool 'x/y'", 600) is None
    renewed = claim(tmp_path)
    assert renewed.generation == generation + 1
    assert renewed.owner_lease_until is not None
    assert renewed.owner_lease_until > now() + timedelta(seconds=600)

    # a lease that ran down by more than a sixth is renewed
    write_claim(tmp_path, os.getpid(), timedelta(seconds=20), instance=owners.lc.instance_id)
    generation = claim(tmp_path).generation
    assert await owners.ensure_owner(GAME, "tool 'x/y'", 10) is None
    assert claim(tmp_path).generation == generation + 1


async def test_a_long_lease_is_cut_back_by_the_next_request_as_the_go_bridge_rewrites_it(
    tmp_path: Path,
) -> None:
    """Go writes the lease on every request (the lease, or the request's timeout + 5 s): after
    a call that could take 10 minutes, the next short request leaves a 30 s lease, so other
    bridges are not kept out for 10 minutes after it. The lease used to stay as long."""
    owners = Owners(tmp_path)
    write_claim(tmp_path, os.getpid(), timedelta(seconds=30), instance=owners.lc.instance_id)
    assert await owners.ensure_owner(GAME, "tool 'x/y'", 600) is None
    long_lease = claim(tmp_path).owner_lease_until
    assert long_lease is not None and long_lease > now() + timedelta(seconds=600)

    assert await owners.ensure_owner(GAME, "tool 'x/y'", 10) is None
    cut = claim(tmp_path).owner_lease_until
    assert cut is not None
    assert now() + timedelta(seconds=20) < cut <= now() + timedelta(seconds=31)
    generation = claim(tmp_path).generation
    assert await owners.ensure_owner(GAME, "tool 'x/y'", 10) is None
    assert claim(tmp_path).generation == generation, "a fitting lease is not rewritten"


async def test_a_call_still_running_keeps_the_lease_that_covers_it(tmp_path: Path) -> None:
    """Calls run side by side here (Go serves one request at a time): a short request while a
    long call runs keeps the long call's lease, and cuts it back once that call is done."""
    owners = Owners(tmp_path)
    write_claim(tmp_path, os.getpid(), timedelta(seconds=30), instance=owners.lc.instance_id)
    assert await owners.ensure_owner(GAME, "tool 'x/slow'", 600) is None
    with owners.lease_held(GAME, 600):
        assert await owners.ensure_owner(GAME, "tool 'x/y'", 10) is None
        held = claim(tmp_path).owner_lease_until
        assert held is not None and held > now() + timedelta(seconds=590)
    assert await owners.ensure_owner(GAME, "tool 'x/y'", 10) is None
    after = claim(tmp_path).owner_lease_until
    assert after is not None and after <= now() + timedelta(seconds=31)


async def test_a_takeover_by_another_bridge_is_seen_on_the_next_call(
    tmp_path: Path, other_bridge: int
) -> None:
    owners = Owners(tmp_path)
    write_claim(tmp_path, os.getpid(), timedelta(seconds=30), instance=owners.lc.instance_id)
    assert await owners.ensure_owner(GAME, "tool 'x/y'", 10) is None
    write_claim(tmp_path, other_bridge, timedelta(seconds=30))
    blocked = await owners.ensure_owner(GAME, "tool 'x/y'", 10)
    assert blocked is not None and blocked["ownerPID"] == other_bridge


async def test_a_claim_that_appears_or_goes_is_seen_on_the_next_call(
    tmp_path: Path, other_bridge: int
) -> None:
    owners = Owners(tmp_path)
    for _ in range(3):
        assert await owners.ensure_owner(GAME, "tool 'x/y'") is None  # no claim yet
    write_claim(tmp_path, other_bridge, timedelta(seconds=30))
    blocked = await owners.ensure_owner(GAME, "tool 'x/y'")
    assert blocked is not None and blocked["ownerPID"] == other_bridge
    (tmp_path / GAME / "runtime.json").unlink()
    assert await owners.ensure_owner(GAME, "tool 'x/y'") is None
    write_claim(tmp_path, other_bridge, timedelta(seconds=30))
    assert await owners.ensure_owner(GAME, "tool 'x/y'") is not None


async def test_no_claim_or_an_unreadable_one_lets_the_call_go_on(tmp_path: Path) -> None:
    owners = Owners(tmp_path)
    assert await owners.ensure_owner(GAME, "tool 'x/y'") is None
    (tmp_path / GAME).mkdir()
    (tmp_path / GAME / "runtime.json").write_text("{not json", encoding="utf-8")
    assert await owners.ensure_owner(GAME, "tool 'x/y'") is None
