"""What a new user lost in a real terminal (user trial): the real `tandem` in tmux, a real server.

- Quitting (Ctrl+Q) while the agent streams: the answer read so far was on the screen, but the
  log committed a segment's updates only when it ended (or every 1,000), and closing the thread
  dropped the rest: `tandem --resume` showed the question and "the app stopped while the agent
  was answering", without the text. Now disposing commits what streamed; the cut segment is
  still restored as a retryable error.
"""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from tests.helpers.tmux import TANDEM, Terminal

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed; the real-terminal test needs it"),
]

WORDS = ["albatross ", "bittern ", "cormorant ", "dunlin ", "egret-last "]


def _sse(event: dict[str, object]) -> bytes:
    return f"data: {json.dumps(event)}\n\n".encode()


@contextmanager
def hanging_server() -> Iterator[str]:
    """An AG-UI server on 127.0.0.1 that streams five words, then neither finishes nor closes."""
    stop = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            self.wfile.write(_sse({"type": "RUN_STARTED", "threadId": body["threadId"], "runId": body["runId"]}))
            self.wfile.write(_sse({"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"}))
            for word in WORDS:
                self.wfile.write(_sse({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": word}))
            self.wfile.flush()
            stop.wait(60)  # the client goes away first; the test's end releases it
            self.close_connection = True

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - quiet
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        stop.set()
        httpd.shutdown()
        httpd.server_close()


def test_quitting_mid_stream_keeps_the_text_read_so_far(tmp_path: Path) -> None:
    with hanging_server() as url:
        terminal = Terminal(f"env XDG_DATA_HOME={tmp_path} {TANDEM} --url {url}")
        try:
            terminal.wait_for(lambda s: "idle" in s, "the empty conversation", seconds=60)
            terminal.type("name five birds")
            terminal.keys("Enter")
            terminal.wait_for(lambda s: "egret-last" in s and "streaming" in s, "the words, still streaming")
            # The process must end, not only the pane change: the pane leaves the streaming status
            # while the app is still closing its log, and `close()` would kill it.
            terminal.quit(seconds=60)
        finally:
            terminal.close()

        again = Terminal(f"env XDG_DATA_HOME={tmp_path} {TANDEM} --url {url} --resume")
        try:
            again.wait_for(lambda s: "app stopped while the agent was answering" in s, "the reopened thread",
                           seconds=60)
            # The blocks paint after the card (a restored text view writes its text a frame later):
            # wait for it, bounded; on the old code it never comes.
            screen = again.wait_for(lambda s: "name five birds" in s.replace("thread: name five birds", "")
                                    and "albatross bittern cormorant dunlin egret-last" in s,
                                    "the question and the text streamed before quitting", seconds=60)
            assert "Traceback" not in screen
        finally:
            again.close()


async def test_disposing_mid_stream_commits_what_streamed(tmp_path: Path) -> None:
    """The same fact without a terminal (fast): the engine's dispose, a real store and server."""
    import asyncio

    from tandem.core import ErrorBlock, TextBlock
    from tandem.core.store import ThreadStore
    from tandem.tui.cli.backend import open_context

    with hanging_server() as url, ThreadStore(tmp_path / "threads.sqlite3") as store:
        context = await open_context(url, store=store)
        thread_id = context.thread.thread_id
        await context.send("name five birds")
        for _ in range(2000):  # bounded: the words come over a real socket
            if any("egret-last" in getattr(b, "text", "") for b in context.agent.pipeline.blocks):
                break
            await asyncio.sleep(0.005)
        else:
            raise AssertionError("the words never arrived")
        await context.dispose()

        again = await open_context(url, store=store, resume=thread_id)
        try:
            texts = [b.text for b in again.agent.pipeline.blocks if isinstance(b, TextBlock) and b.role == "assistant"]
            errors = [b.message for b in again.agent.pipeline.blocks if isinstance(b, ErrorBlock)]
            assert texts == ["".join(WORDS)]
            assert errors == ["the app stopped while the agent was answering"]  # still retryable
        finally:
            await again.dispose()
