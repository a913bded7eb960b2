"""Reading a response body ahead of its consumer, so that a trickling stream is taken in gathers.

A server streaming an event per token writes each in its own HTTP chunk, often every few
milliseconds, and reading each as it comes wakes the engine thread for every one: a wake-up,
a socket read and the work downstream (the SSE split, mapping, the log, notifications), each
also taking the GIL back from the UI thread. `gathered` reads the body in a task of its own;
when a chunk came off the network while the consumer keeps up (a trickle), the task hands it
on at once and then waits `GATHER_SECONDS` before reading again, so that the next chunks
gather in the socket's buffer and come in one read and one hand-over. A lone event is never
delayed; one that follows within the pause waits at most `GATHER_SECONDS`, a fraction of a
frame (the UI paints at most 30 a second, a stream far less often); a server that sends faster
than Tandem reads never meets a pause.

Measured with `tests/perf/bench_stream_pty.py` (2,000 tokens/s, sent every 5 ms, four
interleaved pairs): the engine's CPU per 1,000 tokens (the process's less the UI thread's)
71-92 ms without the pause, 51-62 ms with it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import asynccontextmanager
from typing import Final

__all__ = ["GATHER_SECONDS", "gathered"]

GATHER_SECONDS = 0.02
"""How long the reading task waits after a chunk that came off the network (see the module)."""
_WAITED_SECONDS = 0.001
"""A read that took longer than this waited for the network (a buffered chunk comes at once)."""
_AHEAD_CHUNKS = 64
"""Chunks read ahead of the consumer at most: a server faster than Tandem still meets back-pressure."""
_GATHER_BYTES = 1 << 20
"""Bytes handed on at most at once (the same bound as a decompressed piece, `transport._decoded`)."""
_END: Final = object()


class _Failed:
    """The error that ended the reading task, handed to the consumer after the chunks before it."""

    __slots__ = ("error",)

    def __init__(self, error: BaseException) -> None:
        self.error = error


@asynccontextmanager
async def gathered(body: AsyncIterator[bytes], seconds: float = GATHER_SECONDS) -> AsyncIterator[AsyncIterator[bytes]]:
    """`body`'s bytes, read ahead by a task and handed on in gathers (see the module).

    The body's errors reach the consumer after every chunk that came before them. Leaving the
    context stops the reading task and closes `body` before the caller closes the response.
    """
    queue: asyncio.Queue[bytes | _Failed | object] = asyncio.Queue(_AHEAD_CHUNKS)

    async def read() -> None:
        try:
            chunks = aiter(body)
            while True:
                asked = time.monotonic()
                try:
                    chunk = await anext(chunks)
                except StopAsyncIteration:
                    break
                caught_up = queue.empty()
                await queue.put(chunk)
                if caught_up and time.monotonic() - asked > _WAITED_SECONDS:
                    # The chunk came off the network and the consumer keeps up: a trickle. Let
                    # the next chunks gather in the socket's buffer (they come in one read).
                    await asyncio.sleep(seconds)
        except Exception as exc:  # noqa: BLE001 - handed to the consumer, which raises it
            await queue.put(_Failed(exc))
        else:
            await queue.put(_END)
        finally:
            close = getattr(body, "aclose", None)
            if close is not None:
                await close()

    async def chunks() -> AsyncGenerator[bytes, None]:
        while True:
            item = await queue.get()
            pieces: list[bytes] = []
            size = 0
            while isinstance(item, bytes):
                pieces.append(item)
                size += len(item)
                if size >= _GATHER_BYTES or queue.empty():
                    item = None
                    break
                item = queue.get_nowait()
            if pieces:
                yield pieces[0] if len(pieces) == 1 else b"".join(pieces)
            if item is _END:
                return
            if isinstance(item, _Failed):
                raise item.error

    reader = asyncio.create_task(read(), name="tandem-body-reader")
    handed = chunks()
    try:
        yield handed
    finally:
        await handed.aclose()
        reader.cancel()
        try:
            await reader
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # this task is being cancelled too, not only the reader
