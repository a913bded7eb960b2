"""A real AG-UI server on 127.0.0.1 whose one answer is hostile, written as raw SSE bytes.

`python -m tests.helpers.hostile_server` prints its base URL on the first line and serves until
killed. Every POST gets one run: a text message streamed in small deltas, each event's JSON
written by hand so that it can carry what an encoder would never produce — `\\u001b` escapes
(CSI, OSC 52 to the clipboard, OSC 8, DCS, a full reset), C1 controls, a carriage return,
bidi overrides — beside wide CJK, emoji sequences, flags, combining marks, a table wider than
the screen and a code fence never closed. The message ends with `END-OF-HOSTILE`. (A lone
surrogate escape, `\\ud800`, is not here: the client refuses that event as invalid JSON and the
turn ends on an error card, which is another test's business.)
"""

from __future__ import annotations

import asyncio
import json
import socket
import sys
import time
from collections.abc import AsyncIterator

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

PIECES = [
    "Hostile answer: ", "\\u001b[2J\\u001b[H", "cleared? ", "\\u001b]52;c;ZXZpbA==\\u0007", "clipboard? ",
    "\\u001b]8;;http://evil.example\\u001b\\\\link\\u001b]8;;\\u001b\\\\ ", "\\u001bP+q544e\\u001b\\\\", "\\u009b31m red? ",
    "\\u001bc", "\\r overwrite ", "\\u202eevil\\u202c ", "你好世界 日本語 ", "שלום עולם ", "👍🏽 ",
    "👨\\u200d👩\\u200d👧 ", "🇫🇷🇯🇵 ", "❤️ ⚠️ ", "e\\u0301 Z\\u0324\\u0354 ", "a\\u200bb ", "tab\\there ", "x" * 150,
    "\\n\\n| a | b |\\n| - | - |\\n| " + "w" * 160 + " | x |\\n\\n", "> > > quoted\\n\\n",
    "- one\\n  - two\\n    - three\\n\\n", "[@click=app.quit]quit[/] ",
] * 3 + ["\\n\\nEND-OF-HOSTILE\\n\\n```python\\nnever closed"]


def _event(body: str) -> bytes:
    return f"data: {body}\n\n".encode()


async def _run(request: Request) -> StreamingResponse:
    run_input = json.loads(await request.body())
    thread, run = json.dumps(run_input["threadId"]), json.dumps(run_input["runId"])

    async def events() -> AsyncIterator[bytes]:
        yield _event(f'{{"type":"RUN_STARTED","threadId":{thread},"runId":{run}}}')
        yield _event('{"type":"TEXT_MESSAGE_START","messageId":"hostile-1","role":"assistant"}')
        for piece in PIECES:
            # The piece is already JSON string content (escapes written as escapes).
            yield _event(f'{{"type":"TEXT_MESSAGE_CONTENT","messageId":"hostile-1","delta":"{piece}"}}')
            await asyncio.sleep(0.01)
        yield _event('{"type":"TEXT_MESSAGE_END","messageId":"hostile-1"}')
        yield _event(f'{{"type":"RUN_FINISHED","threadId":{thread},"runId":{run}}}')

    return StreamingResponse(events(), media_type="text/event-stream")


def main() -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(Starlette(routes=[Route("/", _run, methods=["POST"])]), log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    print(f"http://127.0.0.1:{sock.getsockname()[1]}/", flush=True)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    time.sleep(0)
    sys.exit(0)


if __name__ == "__main__":
    main()
