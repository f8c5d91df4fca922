"""gabp.Inbox: received bytes for one reader, bounded, with what arrives while it waits offered
to a callback first."""

from __future__ import annotations

import anyio
import pytest

from gabp import Inbox


class Flow:
    """Records the pause and resume calls an inbox makes."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def inbox(self, limit: int) -> Inbox:
        return Inbox(limit, lambda: self.calls.append("pause"), lambda: self.calls.append("resume"))


def test_reading_pauses_above_the_limit_and_resumes_at_half_of_it() -> None:
    flow = Flow()
    inbox = flow.inbox(10)
    inbox.arrived(b"x" * 6)
    inbox.arrived(b"y" * 6)  # 12 held: over the limit
    assert flow.calls == ["pause"] and inbox.held == 12
    inbox.arrived(b"z" * 3)  # already paused: no second call
    assert flow.calls == ["pause"]
    assert inbox.read_now(6) == b"x" * 6  # 9 left: over half
    assert flow.calls == ["pause"]
    assert inbox.read_now(100) == b"y" * 6 + b"z" * 3  # joined, oldest first
    assert flow.calls == ["pause", "resume"] and inbox.held == 0 and inbox.empty


def test_a_read_takes_at_most_what_is_asked_and_keeps_the_rest_in_order() -> None:
    inbox = Flow().inbox(1000)
    inbox.arrived(b"abcdef")
    inbox.arrived(b"gh")
    assert inbox.read_now(4) == b"abcd"
    assert inbox.read_now(3) == b"ef"  # a chunk that would not fit whole is not joined
    assert inbox.read_now(3) == b"gh"
    assert inbox.read_now(3) == b""


def test_a_limit_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="limit"):
        Inbox(0, lambda: None, lambda: None)


async def test_what_arrives_while_the_reader_waits_is_offered_first() -> None:
    inbox = Flow().inbox(1000)
    offered: list[bytes] = []

    def take(data: bytes) -> bool:
        offered.append(data)
        return data.startswith(b"take")

    inbox.take = take
    inbox.arrived(b"held")  # nobody waits: kept, not offered
    assert offered == [] and inbox.read_now(100) == b"held"
    async with anyio.create_task_group() as tg:
        woken = anyio.Event()

        async def reader() -> None:
            await inbox.wait()
            woken.set()

        tg.start_soon(reader)
        await anyio.sleep(0.01)
        inbox.arrived(b"take me")  # handled by the callback: the reader sleeps on
        await anyio.sleep(0.01)
        assert not woken.is_set() and inbox.empty
        inbox.arrived(b"leave me")  # refused by the callback: kept, and the reader wakes
        with anyio.fail_after(5):
            await woken.wait()
    assert offered == [b"take me", b"leave me"]
    assert inbox.read_now(100) == b"leave me"


async def test_the_end_wakes_the_reader_and_leaves_what_is_held_to_read() -> None:
    inbox = Flow().inbox(1000)
    inbox.arrived(b"last")
    assert inbox.read_now(100) == b"last"
    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            tg.start_soon(inbox.wait)
            await anyio.sleep(0.01)
            inbox.arrived(b"tail")
            inbox.end()  # the reader wakes, reads what is held, then sees the end
    assert inbox.ended and inbox.read_now(100) == b"tail" and inbox.empty
