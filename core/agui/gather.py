"""Reading a response body ahead of its consumer, so that a trickling stream is taken in gathers.

A server streaming an event per token writes each in its own HTTP chunk, often every few
milliseconds, and reading each as it comes wakes the engine thread for every one: a wake-up,
a socket read and the work downstream (the SSE split, mapping, the log, notifications), each
also taking the GIL back from the UI thread. `gathered` reads the body in a task of its own;
when a chunk came off the network while the consumer keeps up (a trickle), the task hands it
on at once and then waits `GATHER_SECONDS` before reading again, so that the next chunks
gather in the socket's buffer and come in one read and one hand-over. A lone event is never
delayed; one that follows within the pause waits at most `GATHER_SECONDS`, about one frame (the
UI paints at most 30 a second, a stream far less often: every 0.1-0.5 s); a server that sends
faster than Tandem reads never meets a pause (its reads are large: `_TRICKLE_BYTES`).

Measured with `tests/perf/bench_stream_pty.py` (2,000 tokens/s, sent every 5 ms, interleaved
runs): the engine's CPU per 1,000 tokens (the process's less the UI thread's) 71-92 ms without
the pause, 51-62 ms with a pause of 20 ms, 41-48 ms (against 58-60 in the same runs) with 40 ms.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import asynccontextmanager

__all__ = ["GATHER_SECONDS", "gathered"]

GATHER_SECONDS = 0.04
"""How long the reading task waits after a small chunk that came off the network (see the module)."""
_WAITED_SECONDS = 0.001
"""A read that took longer than this waited for the network (a buffered chunk comes at once)."""
_TRICKLE_BYTES = 8_192
"""A chunk that waited for the network is a trickle's only below this size. A server sending
faster than Tandem reads fills each read (16-64 KB off a local socket): pausing after such a read
throttled the firehose of `tests/perf/bench_client_path.py` (13.7 MB) to the socket buffer's
size per pause, `tandem ask` taking 3.1-3.3 s of wall time for 1.3 s of CPU."""
_AHEAD_BYTES = 1 << 20
"""Bytes read ahead of the consumer at most: a server faster than Tandem still meets back-pressure
(a decompressed piece is smaller still, `decoding.PIECE_BYTES`)."""


class _Ahead:
    """What the reading task has read and the consumer has not taken yet, and how the body ended.

    A list and two events rather than a queue: a firehose hands over ~100,000 small chunks a
    run, and a queue's put and get cost each of them a microsecond more.
    """

    __slots__ = ("pieces", "size", "ended", "error", "arrived", "room")

    def __init__(self) -> None:
        self.pieces: list[bytes] = []
        self.size = 0
        self.ended = False
        self.error: BaseException | None = None
        self.arrived = asyncio.Event()
        """Set when pieces or the end came while the consumer may be waiting."""
        self.room = asyncio.Event()
        """Set when the consumer took the pieces (the reader waits for it past `_AHEAD_BYTES`)."""

    def take(self) -> list[bytes]:
        pieces, self.pieces, self.size = self.pieces, [], 0
        self.room.set()
        return pieces


@asynccontextmanager
async def gathered(body: AsyncIterator[bytes], seconds: float = GATHER_SECONDS) -> AsyncIterator[AsyncIterator[bytes]]:
    """`body`'s bytes, read ahead by a task and handed on in gathers (see the module).

    The body's errors reach the consumer after every chunk that came before them. Leaving the
    context stops the reading task and closes `body` before the caller closes the response.
    """
    ahead = _Ahead()

    async def read() -> None:
        try:
            source = aiter(body)
            while True:
                asked = time.monotonic()
                try:
                    chunk = await anext(source)
                except StopAsyncIteration:
                    break
                caught_up = not ahead.pieces
                ahead.pieces.append(chunk)
                ahead.size += len(chunk)
                if caught_up:
                    ahead.arrived.set()
                if ahead.size >= _AHEAD_BYTES:
                    ahead.room.clear()
                    await ahead.room.wait()  # the consumer is behind
                elif caught_up and len(chunk) < _TRICKLE_BYTES and time.monotonic() - asked > _WAITED_SECONDS:
                    # A small chunk came off the network and the consumer keeps up: a trickle.
                    # Let the next chunks gather in the socket's buffer (they come in one read).
                    await asyncio.sleep(seconds)
        except Exception as exc:  # noqa: BLE001 - handed to the consumer, which raises it
            ahead.error = exc
        finally:
            ahead.ended = True
            ahead.arrived.set()
            close = getattr(body, "aclose", None)
            if close is not None:
                await close()

    async def chunks() -> AsyncGenerator[bytes, None]:
        while True:
            if not ahead.pieces and not ahead.ended:
                ahead.arrived.clear()
                await ahead.arrived.wait()
            if ahead.pieces:
                pieces = ahead.take()
                yield pieces[0] if len(pieces) == 1 else b"".join(pieces)
            elif ahead.ended:
                if ahead.error is not None:
                    raise ahead.error
                return

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
