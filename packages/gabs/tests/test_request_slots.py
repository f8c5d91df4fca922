"""The per-game request limit (:mod:`gabs.request_slots`): fair, bounded, cancellable, and a
slot held while the game may still be working on a request its caller gave up on."""

from __future__ import annotations

import anyio
import pytest

from gabs.request_slots import QueueFull, RequestSlots, SlotHold, declared_concurrency


@pytest.mark.parametrize(
    ("extensions", "declared"),
    [
        ({"concurrency": {"maxConcurrentRequests": 8}}, 8),
        ({"concurrency": {"maxConcurrentRequests": 0}}, None),
        ({"concurrency": {"maxConcurrentRequests": True}}, None),
        ({"concurrency": {"maxConcurrentRequests": "8"}}, None),
        ({"concurrency": 8}, None),
        ({}, None),
        (None, None),
    ],
)
def test_only_a_whole_number_of_at_least_one_is_a_declaration(
    extensions: object, declared: int | None
) -> None:
    assert declared_concurrency(extensions) == declared  # type: ignore[arg-type]


async def test_waiters_get_the_slot_in_arrival_order_and_the_queue_is_bounded() -> None:
    slots = RequestSlots(1, max_waiting=2)
    assert slots.try_acquire()
    order: list[int] = []

    async def wait(index: int) -> None:
        await slots.acquire()
        order.append(index)
        slots.release()

    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            for index in range(2):
                tg.start_soon(wait, index)
                await anyio.sleep(0.01)
            with pytest.raises(QueueFull):
                await slots.acquire()
            slots.release()
    assert order == [0, 1]
    assert slots.in_flight == 0


async def test_a_hold_gives_its_slot_back_once_now_or_when_the_late_answer_comes() -> None:
    slots = RequestSlots(1)
    assert slots.try_acquire()
    hold = SlotHold(slots)
    hold.settle(False)
    hold.release()  # a second release gives nothing back twice
    assert slots.in_flight == 0

    assert slots.try_acquire()
    pending = SlotHold(slots)
    pending.settle(True, hold=60)
    assert slots.in_flight == 1 and not slots.try_acquire()
    pending.release()  # the late answer arrived
    assert slots.in_flight == 0


async def test_a_hold_without_a_late_answer_ends_after_its_bound() -> None:
    slots = RequestSlots(1)
    assert slots.try_acquire()
    SlotHold(slots).settle(True, hold=0.05)
    with anyio.fail_after(5):
        await slots.acquire()
    slots.release()
