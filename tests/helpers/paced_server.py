"""A loopback AG-UI server that streams realistic Markdown at a set rate of tokens per second.

Every POST gets one run: `RUN_STARTED`, one assistant message of the demo's long answer (headings,
paragraphs, lists, code fences) repeated to `tokens` tokens (a token is a word piece of at most four
characters, one `TEXT_MESSAGE_CONTENT` event each, as a model's server sends them), the tokens due
written every 5 ms, then `RUN_FINISHED`. For benches that need the agent's pace to be the same
whatever the client does (`tests/perf/bench_share.py`).

`python -m tests.helpers.paced_server --rate 2000 --tokens 10000` (from the repository root) serves
it on 127.0.0.1 (a port of the kernel's choice) until killed: its own process, so its CPU is not the
client's. It prints its base URL on the first line, then `tokens N bytes B` (the tokens of each run and
the bytes of their events on the wire).
"""

from __future__ import annotations

import argparse
import asyncio
import re
import time
from collections.abc import AsyncIterator, Callable

__all__ = ["answer_tokens", "paced_app"]

TICK_SECONDS = 0.005


def answer_tokens(tokens: int) -> list[str]:
    """`tokens` tokens of the demo's long Markdown answer (repeated as often as it takes), in order."""
    from tandem.core.agui.demo.scenarios_chat import build_long_answer

    long = build_long_answer()
    pieces: list[str] = []
    while len(pieces) < tokens:
        pieces.extend(re.findall(r"\s*\S{1,4}|\s+", ("\n\n" if pieces else "") + long))
    return pieces[:tokens]


def paced_app(rate: float, pieces: list[str], mark: Callable[[str], None] | None = None):  # type: ignore[no-untyped-def]
    """The ASGI app: each POST streams `pieces` (one token each) at `rate` tokens/s. `mark("start")`
    is called as the first token's clock starts, `mark("end")` once the last one is out."""
    from ag_ui.core import (
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

    encoder = EventEncoder()

    async def run(request: Request) -> StreamingResponse:
        body = await request.json()
        thread_id, run_id = body.get("threadId", "t"), body.get("runId", "r")
        message_id = f"m-{time.monotonic_ns()}"

        async def events() -> AsyncIterator[bytes]:
            yield encoder.encode(RunStartedEvent(thread_id=thread_id, run_id=run_id)).encode()
            yield encoder.encode(TextMessageStartEvent(message_id=message_id, role="assistant")).encode()
            started, sent = time.monotonic(), 0
            if mark is not None:
                mark("start")
            while sent < len(pieces):
                due = min(len(pieces), int((time.monotonic() - started) * rate) + 1)
                if due > sent:
                    yield "".join(encoder.encode(TextMessageContentEvent(message_id=message_id, delta=piece))
                                  for piece in pieces[sent:due]).encode()
                    sent = due
                await asyncio.sleep(TICK_SECONDS)
            if mark is not None:
                mark("end")
            yield encoder.encode(TextMessageEndEvent(message_id=message_id)).encode()
            yield encoder.encode(RunFinishedEvent(thread_id=thread_id, run_id=run_id)).encode()

        return StreamingResponse(events(), media_type="text/event-stream")

    return Starlette(routes=[Route("/", run, methods=["POST"])])


def main() -> None:
    import uvicorn
    from ag_ui.core import TextMessageContentEvent
    from ag_ui.encoder import EventEncoder

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rate", type=float, default=2000.0, help="tokens per second")
    parser.add_argument("--tokens", type=int, default=10_000, help="tokens per run")
    args = parser.parse_args()
    pieces = answer_tokens(args.tokens)
    config = uvicorn.Config(paced_app(args.rate, pieces), host="127.0.0.1", port=0, log_level="warning",
                            lifespan="off", access_log=False)
    server = uvicorn.Server(config)
    startup = server.startup

    async def announce(sockets: object = None) -> None:
        await startup(sockets)  # type: ignore[arg-type]
        port = server.servers[0].sockets[0].getsockname()[1]
        print(f"http://127.0.0.1:{port}/", flush=True)
        encoder = EventEncoder()
        sent = sum(len(encoder.encode(TextMessageContentEvent(message_id="m-0000000000000", delta=p))) for p in pieces)
        print(f"tokens {len(pieces)} bytes {sent}", flush=True)

    server.startup = announce  # type: ignore[method-assign]
    server.run()


if __name__ == "__main__":
    main()
