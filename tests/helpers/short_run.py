"""The shortest whole AG-UI run (one assistant message, "Up at last."), for tests that only need a
server to answer something once it is up (the connecting tests of the app and of `tandem ask`).
"""

from __future__ import annotations

import json

__all__ = ["SHORT_RUN", "SHORT_RUN_TEXT", "short_run_response"]

SHORT_RUN_TEXT = "Up at last."
SHORT_RUN = [
    {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
    {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": SHORT_RUN_TEXT},
    {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
    {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
]


def short_run_response() -> bytes:
    """The whole HTTP response: headers, then the run's events as SSE, then the connection closes."""
    return (b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
            + b"".join(f"data: {json.dumps(event)}\n\n".encode() for event in SHORT_RUN))
