"""A real AG-UI server on 127.0.0.1 that streams many messages, for the pty benches of issue 18.

Served by uvicorn from a background thread (`serve_blocks()`), or as a process:
`python -m tests.helpers.blocks_server` (from the repository root) prints its URL on the first line and serves until killed.
What a run streams depends on the last user message:

| message | stream |
| --- | --- |
| `blocks N` | N assistant messages (each its own message id, in 3 deltas) of realistic Markdown: headings, lists, code fences, tables, in turn; the last one ends with `last-block-N` |
| `long N` | one assistant message of about N tokens (paragraphs, lists, a fence every so often), ending with `long-done-N` |
| `short K` | one short message, `Short answer k.`, K with its letters' case swapped (`short_marker`) |

Every request's size in bytes and its number of messages are kept in `BlocksServer.requests`.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import (
    BaseEvent,
    RunAgentInput,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
)
from ag_ui.encoder import EventEncoder
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

from tests.helpers.servers import served_in_thread

__all__ = ["BlocksServer", "markdown_block", "serve_blocks", "last_marker", "long_marker", "short_marker"]


def markdown_block(n: int) -> str:
    """The `n`-th message of a `blocks` run: realistic Markdown, one of four shapes in turn."""
    shape = n % 4
    if shape == 0:
        return (f"### Step {n}: reading the configuration\n\n"
                f"The loader found **{n % 17 + 2} files** under `conf/` and merged them in order; "
                f"the last one wins for every key it sets.\n\n"
                f"- `timeout` is {n % 30 + 5} seconds\n- `retries` is {n % 4}\n- `mode` is *strict*\n")
    if shape == 1:
        return (f"Here is the function that item {n} needs:\n\n"
                f"```python\ndef scale_{n}(values: list[float]) -> list[float]:\n"
                f"    factor = {n % 9 + 1}.5\n    return [v * factor for v in values]\n```\n\n"
                f"It keeps the input untouched and returns a new list.\n")
    if shape == 2:
        return (f"| metric | before | after |\n| --- | ---: | ---: |\n"
                f"| p50 latency | {n % 90 + 10} ms | {n % 40 + 5} ms |\n"
                f"| p99 latency | {n % 300 + 100} ms | {n % 120 + 50} ms |\n"
                f"| errors | {n % 7} | 0 |\n\n"
                f"> The run {n} used the same data set as the one before it.\n")
    return (f"1. Open the file `report-{n}.md` and read the summary.\n"
            f"2. Check that the totals add up (they should be {n * 3} in all).\n"
            f"3. Send it on, with a note saying what changed since run {n - 1}.\n\n"
            f"That is all for part {n}: the next part covers the *edge cases*.\n")


def last_marker(n: int) -> str:
    """The text that ends the last message of `blocks N` (one word: it is never split on screen)."""
    return f"last-block-{n}"


def long_marker(n: int) -> str:
    """The text that ends the answer of `long N`."""
    return f"long-done-{n}"


def short_marker(tag: str) -> str:
    """The tag as the answer of `short TAG` writes it: its letters' case swapped, so that a bench
    waiting for the answer is not satisfied by the keys it typed, echoed in the composer."""
    return tag.swapcase()


def long_answer(tokens: int) -> Iterator[str]:
    """About `tokens` tokens of Markdown, as ~4-character deltas."""
    sent = 0
    paragraph = 0
    while sent < tokens:
        paragraph += 1
        if paragraph % 6 == 0:
            text = f"```text\nlog line {paragraph}: ok\nlog line {paragraph + 1}: ok\n```\n\n"
        elif paragraph % 3 == 0:
            text = f"- point {paragraph} about the design\n- and another, *emphasised*\n\n"
        else:
            text = (f"Paragraph {paragraph} explains one more detail of the system, with enough words to "
                    f"wrap over a couple of lines in a terminal of ordinary width, and a `code` span.\n\n")
        for start in range(0, len(text), 4):
            yield text[start:start + 4]
            sent += 1
    yield long_marker(tokens) + "\n"


@dataclass
class BlocksServer:
    """The served URL and what reached it (bytes and message count of each request, in order)."""

    url: str
    requests: list[tuple[int, int]] = field(default_factory=list)
    keep_bodies: bool = False
    """Whether to keep each request's body (`bodies`), for tests that compare what was sent."""
    bodies: list[bytes] = field(default_factory=list)


def _events(text: str) -> Iterator[BaseEvent]:
    words = text.split()
    if words and words[0] == "blocks":
        count = int(words[1])
        for n in range(count):
            message_id = f"b{time.monotonic_ns()}-{n}"
            body = markdown_block(n) + (f"\n{last_marker(count)}\n" if n == count - 1 else "")
            third = max(1, len(body) // 3)
            yield TextMessageStartEvent(message_id=message_id, role="assistant")
            for start in range(0, len(body), third):
                yield TextMessageContentEvent(message_id=message_id, delta=body[start:start + third])
            yield TextMessageEndEvent(message_id=message_id)
    elif words and words[0] == "long":
        message_id = f"l{time.monotonic_ns()}"
        yield TextMessageStartEvent(message_id=message_id, role="assistant")
        for delta in long_answer(int(words[1])):
            yield TextMessageContentEvent(message_id=message_id, delta=delta)
        yield TextMessageEndEvent(message_id=message_id)
    else:
        message_id = f"s{time.monotonic_ns()}"
        tag = words[1] if len(words) > 1 else "0"
        yield TextMessageStartEvent(message_id=message_id, role="assistant")
        yield TextMessageContentEvent(message_id=message_id, delta=f"Short answer {short_marker(tag)}.")
        yield TextMessageEndEvent(message_id=message_id)


def build_app(server: BlocksServer) -> Starlette:
    async def run(request: Request) -> StreamingResponse:
        raw = await request.body()
        run_input = RunAgentInput.model_validate_json(raw)
        server.requests.append((len(raw), len(run_input.messages)))
        if server.keep_bodies:
            server.bodies.append(raw)
        last = next((m for m in reversed(run_input.messages) if m.role == "user"), None)
        text = last.content if last is not None and isinstance(last.content, str) else ""
        encoder = EventEncoder(accept=request.headers.get("accept", ""))

        async def frames() -> Iterator[str]:  # type: ignore[misc]
            yield encoder.encode(RunStartedEvent(thread_id=run_input.thread_id, run_id=run_input.run_id))
            batch: list[str] = []
            for event in _events(text):
                batch.append(encoder.encode(event))
                if len(batch) >= 64:  # fewer, larger writes: the server is not what is measured
                    yield "".join(batch)
                    batch = []
            batch.append(encoder.encode(RunFinishedEvent(thread_id=run_input.thread_id, run_id=run_input.run_id)))
            yield "".join(batch)

        return StreamingResponse(frames(), media_type=encoder.get_content_type())  # type: ignore[arg-type]

    return Starlette(routes=[Route("/", run, methods=["POST"])])


@contextmanager
def serve_blocks(wrap: Callable[[Any], Any] | None = None) -> Iterator[BlocksServer]:
    """Serve on an ephemeral port of 127.0.0.1 from a daemon thread, for the `with` block.

    `wrap`, if given, wraps the ASGI app (a bench's timing middleware).
    """
    server = BlocksServer(url="")
    app = build_app(server)
    with served_in_thread(app if wrap is None else wrap(app), "the AG-UI bench server") as (host, port):
        server.url = f"http://{host}:{port}/"
        yield server


if __name__ == "__main__":
    with serve_blocks() as served:
        print(served.url, flush=True)
        try:
            while True:
                time.sleep(1)
        except KeyboardInterrupt:
            sys.exit(0)
