"""A server that says `text/event-stream` but sends no events says what it sent (user trial).

Found in tmux: a URL behind a login proxy answered 200, `Content-Type: text/event-stream`, with
an HTML page. The card said "the event stream was cut in the middle of an event" (the page as
one unterminated SSE field), or, when the page ended in a blank line, "the stream ended before
RUN_FINISHED after 0 events": neither tells a person that the server sent a web page. Now the
message quotes the answer's start. A real server on 127.0.0.1 writes the raw bytes.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from tandem.core.agui import AGUIChatClient
from tandem.core.agui.sse import SSEDecoder
from tandem.core.chat_client import stream_updates
from tandem.core.errors import ProtocolError
from tandem.core.messages import ChatMessage, ChatOptions

PAGE = b"<!doctype html><html><body><h1>Sign in</h1>\x1b[2J</body></html>"


@asynccontextmanager
async def serve(body: bytes) -> AsyncIterator[str]:
    """Answers every request 200 `text/event-stream` with `body`, then closes."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
        length = next((int(line.split(":", 1)[1]) for line in head.split("\r\n")
                       if line.lower().startswith("content-length:")), 0)
        await reader.readexactly(length)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n" + body)
        await writer.drain()
        writer.close()

    listener = await asyncio.start_server(handle, "127.0.0.1", 0)
    try:
        yield f"http://127.0.0.1:{listener.sockets[0].getsockname()[1]}/"
    finally:
        listener.close()


async def failure(body: bytes) -> str:
    async with serve(body) as url, AGUIChatClient(url) as client:
        with pytest.raises(ProtocolError) as caught:
            async for _ in stream_updates(client, [ChatMessage.user("hi")], ChatOptions(conversation_id="t")):
                pass
    return str(caught.value)


@pytest.mark.parametrize("ending", [b"\n", b"", b"\n\n"], ids=["line", "no-newline", "blank-line"])
async def test_a_web_page_sent_as_an_event_stream_is_quoted(ending: bytes) -> None:
    message = await failure(PAGE + ending)
    assert "<!doctype html><html><body><h1>Sign in</h1>" in message
    assert "\x1b" not in message  # the quote is shown on a terminal: printable characters only
    assert "cut in the middle" not in message and "0 events" not in message


async def test_a_stream_cut_mid_event_still_says_so() -> None:
    event = b'data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\n\ndata: {"type":"TEXT_MESS'
    assert "cut in the middle of an event" in await failure(event)


def test_the_decoder_keeps_its_opening_only() -> None:
    decoder = SSEDecoder()
    for piece in (b"data: 1\n\n", b"x" * 200):
        decoder.feed(piece)
    assert decoder.opening == (b"data: 1\n\n" + b"x" * 200)[:64]
