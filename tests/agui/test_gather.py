"""A trickling body is read in gathers (`core/agui/gather.py`): fewer hand-overs, nothing lost or late.

The first tests drive `gathered` with in-process bodies (order, errors, closing, cancel); the
last ones run `AGUIChatClient` against a byte-level HTTP server on 127.0.0.1 that writes one
event per HTTP chunk, as token streams do.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest
from tests.helpers.sse import RUN_FINISHED, RUN_STARTED, event, serve

from tandem.core.agui import AGUIChatClient
from tandem.core.agui.gather import gathered
from tandem.core.content import TextContent
from tandem.core.errors import TransportTimeout
from tandem.core.messages import ChatMessage, ChatOptions


async def trickle(pieces: list[bytes], gap: float) -> AsyncIterator[bytes]:
    """`pieces` sent every `gap` seconds whether or not they are read yet, as a socket's buffer fills."""
    arrived: asyncio.Queue[bytes | None] = asyncio.Queue()

    async def send() -> None:
        for piece in pieces:
            await asyncio.sleep(gap)
            arrived.put_nowait(piece)
        arrived.put_nowait(None)

    sender = asyncio.create_task(send())
    try:
        while (piece := await arrived.get()) is not None:
            yield piece
    finally:
        sender.cancel()


class TestGathered:
    async def test_every_byte_comes_in_order_and_a_trickle_in_fewer_pieces(self) -> None:
        pieces = [f"piece {n};".encode() for n in range(60)]
        async with gathered(trickle(pieces, 0.002), seconds=0.02) as chunks:
            handed = [chunk async for chunk in chunks]
        assert b"".join(handed) == b"".join(pieces)
        assert len(handed) < len(pieces) / 2, len(handed)

    async def test_a_lone_chunk_is_handed_on_at_once(self) -> None:
        arrived: list[float] = []

        async def slow() -> AsyncIterator[bytes]:
            yield b"first"
            await asyncio.sleep(0.5)
            yield b"second"

        async with gathered(slow(), seconds=0.3) as chunks:
            started = time.monotonic()
            async for _chunk in chunks:
                arrived.append(time.monotonic() - started)
        # The pause follows a hand-over; it never holds back the chunk that came first.
        assert arrived[0] < 0.25 and len(arrived) == 2

    async def test_an_error_comes_after_the_chunks_before_it(self) -> None:
        async def failing() -> AsyncIterator[bytes]:
            yield b"one "
            yield b"two"
            raise TransportTimeout("went silent")

        received = b""
        with pytest.raises(TransportTimeout, match="went silent"):
            async with gathered(failing()) as chunks:
                async for chunk in chunks:
                    received += chunk
        assert received == b"one two"

    async def test_leaving_early_stops_the_reader_and_closes_the_body(self) -> None:
        closed = asyncio.Event()

        async def endless() -> AsyncIterator[bytes]:
            try:
                while True:
                    yield b"x" * 100
                    await asyncio.sleep(0.001)
            finally:
                closed.set()

        async with gathered(endless()) as chunks:
            async for _chunk in chunks:
                break
        assert closed.is_set()
        assert not [t for t in asyncio.all_tasks() if t.get_name() == "tandem-body-reader"]

    async def test_a_cancelled_consumer_stays_cancelled(self) -> None:
        closed = asyncio.Event()

        async def silent() -> AsyncIterator[bytes]:
            try:
                yield b"hello"
                await asyncio.sleep(3600)
                yield b"never"
            finally:
                closed.set()

        async def consume() -> None:
            async with gathered(silent()) as chunks:
                async for _chunk in chunks:
                    pass

        task = asyncio.create_task(consume())
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert closed.is_set()

    async def test_a_fast_body_is_never_paused(self) -> None:
        pieces = [b"y" * 1000] * 2000

        async def burst() -> AsyncIterator[bytes]:
            for piece in pieces:
                yield piece

        started = time.monotonic()
        async with gathered(burst(), seconds=0.2) as chunks:
            total = sum([len(chunk) async for chunk in chunks])
        assert total == 2_000_000
        # Paused after every piece it would take 400 s; a hiccup of the machine may cost a pause or two.
        assert time.monotonic() - started < 10

    async def test_large_chunks_off_the_network_are_not_a_trickle(self) -> None:
        # A server faster than the reader, behind a socket buffer of 8 pieces: each read that
        # empties the buffer waits a little for the network but comes full. Paused after each,
        # a 13.7 MB firehose took 2-3 times as long as it needed.
        pieces = [b"z" * 16_384] * 200
        buffered: asyncio.Queue[bytes | None] = asyncio.Queue(maxsize=8)

        async def send() -> None:
            for piece in pieces:
                await asyncio.sleep(0.002)
                await buffered.put(piece)  # the sender blocks while the buffer is full
            await buffered.put(None)

        async def firehose() -> AsyncIterator[bytes]:
            while (piece := await buffered.get()) is not None:
                yield piece

        sender = asyncio.create_task(send())
        started = time.monotonic()
        async with gathered(firehose(), seconds=0.5) as chunks:
            total = sum([len(chunk) async for chunk in chunks])
        await sender
        assert total == 200 * 16_384
        # Paused each time the buffer ran dry (~22 times) it takes over 10 s; unpaused ~0.5 s.
        assert time.monotonic() - started < 5

def content(delta: str) -> bytes:
    return event({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": delta})


def http_chunk(payload: bytes) -> bytes:
    return f"{len(payload):x}\r\n".encode() + payload + b"\r\n"


class TestOverHttp:
    async def test_a_token_per_chunk_stream_arrives_whole_in_fewer_batches(self) -> None:
        tokens = [f"t{n} " for n in range(150)]

        async def script(writer: asyncio.StreamWriter) -> None:
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
            writer.write(http_chunk(event(RUN_STARTED)))
            writer.write(http_chunk(event({"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"})))
            for token in tokens:
                writer.write(http_chunk(content(token)))
                await writer.drain()
                await asyncio.sleep(0.002)
            writer.write(http_chunk(event({"type": "TEXT_MESSAGE_END", "messageId": "m1"}) + event(RUN_FINISHED)))
            writer.write(b"0\r\n\r\n")

        async with serve(script) as server, AGUIChatClient(server.url) as client:
            batches = [batch async for batch in client.stream([ChatMessage.user("hi")],
                                                                      ChatOptions(conversation_id="t"))]
        shown = "".join(p.text for batch in batches for u in batch for p in u.contents if isinstance(p, TextContent))
        assert shown == "".join(tokens)
        assert len(batches) < len(tokens) / 2, len(batches)

    async def test_an_event_after_a_silence_is_not_held_back(self) -> None:
        """An interrupt or a slow model's token shows as it comes: the pause only follows one."""
        second_sent = asyncio.Event()
        first_seen_before_second: list[bool] = []

        async def script(writer: asyncio.StreamWriter) -> None:
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
            writer.write(http_chunk(event(RUN_STARTED)))
            writer.write(http_chunk(event({"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"})
                                    + content("first ")))
            await writer.drain()
            await asyncio.sleep(0.4)
            second_sent.set()
            writer.write(http_chunk(content("second") + event({"type": "TEXT_MESSAGE_END", "messageId": "m1"})
                                    + event(RUN_FINISHED)))
            writer.write(b"0\r\n\r\n")

        async with serve(script) as server, AGUIChatClient(server.url) as client:
            async for batch in client.stream([ChatMessage.user("hi")], ChatOptions(conversation_id="t")):
                if any(isinstance(p, TextContent) and p.text == "first " for u in batch for p in u.contents):
                    first_seen_before_second.append(not second_sent.is_set())
        assert first_seen_before_second == [True]

