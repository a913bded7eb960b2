"""Loopback servers: an ASGI app served by uvicorn on 127.0.0.1 from a daemon thread, and a free port.

`served_in_thread` is the one start-up and teardown of the test and bench servers
(`tests.helpers.blocks_server`, `tests.helpers.shaped_server`); `free_port` is a port of 127.0.0.1
nothing listens on, for a server that another process starts.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

__all__ = ["free_port", "served_in_thread"]

_START_SECONDS = 10.0
_STOP_SECONDS = 5.0


def free_port() -> int:
    """A port of 127.0.0.1 that was free a moment ago (the kernel's choice, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def served_in_thread(app: Any, what: str) -> Iterator[tuple[str, int]]:
    """Serve `app` on a free port of 127.0.0.1 for the `with` block; yields ("127.0.0.1", port).

    The port is bound before uvicorn starts, so it is known at once. Raises RuntimeError if the
    server (`what`, for the message) has not started within 10 s. On the way out the server is
    asked to stop and, if a response still streams after 5 s, forced to.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name=what, daemon=True)
    thread.start()
    deadline = time.monotonic() + _START_SECONDS
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            sock.close()
            raise RuntimeError(f"{what} did not start")
        time.sleep(0.01)
    try:
        yield "127.0.0.1", sock.getsockname()[1]
    finally:
        server.should_exit = True
        thread.join(_STOP_SECONDS)
        if thread.is_alive():
            server.force_exit = True
            thread.join(_STOP_SECONDS)
        sock.close()
