"""Gift sources as tasks (gifts/tasks.py): a failure logged, never raised; a source
cancelled before it ever ran closed, not left behind as never awaited."""

from __future__ import annotations

import asyncio
import gc
import inspect
import warnings

import pytest

from gifts.tasks import cancel_firmly, start_logged


async def test_a_source_cancelled_before_its_first_step_is_closed_quietly() -> None:
    ran: list[str] = []

    async def audience() -> None:
        ran.append("ran")

    source = audience()
    task = start_logged(source)
    task.cancel()  # a table over before its audience ever ran
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.sleep(0)  # the done callbacks
    assert inspect.getcoroutinestate(source) == inspect.CORO_CLOSED
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "coroutine ... was never awaited" would raise
        del source
        gc.collect()
    assert ran == []


async def test_a_failing_source_is_logged_and_the_rest_go_on() -> None:
    async def broken() -> None:
        raise OSError("the broker went away")

    async def fine() -> str:
        return "done"

    tasks = [start_logged(broken()), start_logged(fine())]
    await asyncio.wait(tasks)
    assert [task.exception() for task in tasks] == [None, None]
    await cancel_firmly(tasks)  # all over already: returns at once
