"""Loopback servers: an ASGI app served by uvicorn on 127.0.0.1 from a daemon thread, and a free port.

`served_in_thread` is the one start-up and teardown of every in-process test and bench server
(the demo agent, the pydantic-ai and LangGraph servers, the shaped, blocks and history servers);
`free_port` is a port of 127.0.0.1 nothing listens on, for a server another process starts.
"""

from __future__ import annotations

import socket
import sys
import threading
import time
import traceback
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

__all__ = ["free_port", "served_in_thread"]

_START_SECONDS = 10.0
_STOP_SECONDS = 10.0


def free_port() -> int:
    """A port of 127.0.0.1 that was free a moment ago (the kernel's choice, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def served_in_thread(app: Any, what: str, start_seconds: float = _START_SECONDS) -> Iterator[tuple[str, int]]:
    """Serve `app` on a free port of 127.0.0.1 for the `with` block; yields ("127.0.0.1", port).

    The socket is bound and listening before uvicorn starts, so the port is known (and connections
    wait in its backlog) at once. Raises RuntimeError if the server (`what`, also its thread's
    name) has not started within `start_seconds`. On the way out the server stops accepting and gives open
    streams one second; if its thread still runs after 10 s it is forced to stop, and one that
    still does not is warned of (with where it hangs), not raised: the test has passed by then.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    config = uvicorn.Config(app, lifespan="off", log_level="warning", access_log=False, timeout_graceful_shutdown=1)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name=what, daemon=True)
    thread.start()
    try:
        # Polled: uvicorn says it is ready only through its `started` flag, set in its own thread.
        deadline = time.monotonic() + start_seconds
        while not server.started:
            if time.monotonic() > deadline or not thread.is_alive():
                raise RuntimeError(f"{what} did not start")
            time.sleep(0.01)
        yield "127.0.0.1", sock.getsockname()[1]
    finally:
        server.should_exit = True
        thread.join(_STOP_SECONDS)
        if thread.is_alive():  # seen at the end of a long session on a loaded machine
            server.force_exit = True
            thread.join(_STOP_SECONDS)
        sock.close()
        if thread.is_alive():
            warnings.warn(f"{what} did not stop:\n{_stack_of(thread)}", ResourceWarning, stacklevel=1)


def _stack_of(thread: threading.Thread) -> str:
    """Where `thread` is now (for the warning of a server that did not stop)."""
    frame = sys._current_frames().get(thread.ident or -1)
    return "".join(traceback.format_stack(frame)) if frame is not None else "(no frame)"
