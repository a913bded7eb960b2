"""A cancel is never lost because it landed as the awaited batch was ready.

`asyncio.wait_for` on Python 3.11 returns the inner result and swallows the cancel in that race;
a turn stopped by Esc while a fast answer streamed (with the turn timeout on, as by default)
then streamed to its end about half the time (seen by hand against the LangGraph adapter).
The race is run at every interleaving a few loop steps allow.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

from tandem.core.agui import AGUIChatClient


async def _ready_batches() -> AsyncIterator[list[str | bytes]]:
    while True:
        yield ["data"]  # always ready: a server ahead of the client


async def test_a_cancel_while_the_next_batch_is_ready_stops_the_stream() -> None:
    client = AGUIChatClient("http://127.0.0.1:9", turn_timeout=1800.0)
    cancelled = 0
    for steps in range(8):
        batches = _ready_batches()
        task = asyncio.create_task(client._next_batch(batches, False, time.monotonic() + 1800.0))
        for _ in range(steps):
            await asyncio.sleep(0)
        if task.cancel():  # (False: it had returned already, before the cancel: no race)
            await asyncio.gather(task, return_exceptions=True)
            assert task.cancelled(), f"the cancel was lost {steps} loop steps in: it returned {task.result()!r}"
            cancelled += 1
        await batches.aclose()
    assert cancelled >= 1
