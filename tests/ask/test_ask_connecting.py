"""While `tandem ask` tries again a connection the agent refused (a server still starting: about
4 s of retries), a person at a terminal is told so at once instead of watching silence; a script
reading stderr from a pipe gets only the failure line it is promised.

The real `tandem ask` process, its stderr on a pseudo-terminal, and a real socket on 127.0.0.1
that refuses (bound, not listening) until the test has seen the notice, then answers.
"""

from __future__ import annotations

import os
import pty
import select
import socket
import subprocess
import threading
import time

from tests.helpers.ask_harness import REPO, TIMEOUT, ask, ask_command, clean_env
from tests.helpers.short_run import SHORT_RUN_TEXT, short_run_response



def _serve_once(sock: socket.socket) -> None:
    """Listen on `sock` and answer one AG-UI request with the short run (its own thread)."""
    sock.listen(8)
    connection, _ = sock.accept()
    with connection:
        received = b""
        while b"\r\n\r\n" not in received:
            received += connection.recv(65536)
        head, _, body = received.partition(b"\r\n\r\n")
        length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:"))
        while len(body) < length:
            body += connection.recv(65536)
        connection.sendall(short_run_response())


def _read_until(fd: int, needle: bytes, deadline: float) -> bytes:
    seen = b""
    while needle not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                seen += os.read(fd, 4096)
            except OSError:  # the child closed the terminal
                break
    return seen


class TestConnecting:
    def test_a_terminal_is_told_while_a_refused_connection_is_retried(self) -> None:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/"
        controller, terminal = pty.openpty()
        process = subprocess.Popen(ask_command("--no-save", "--url", url, "hello"), cwd=REPO, env=clean_env(),
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=terminal)
        os.close(terminal)
        server = threading.Thread(target=_serve_once, args=(sock,), daemon=True)
        try:
            notice = _read_until(controller, b"trying again", time.monotonic() + TIMEOUT)
            assert f"connecting to {url}: refused, trying again".encode() in notice
            server.start()  # the next attempt connects
            stdout, _ = process.communicate(timeout=TIMEOUT)
            assert process.returncode == 0
            assert SHORT_RUN_TEXT in stdout.decode()
            assert b"tandem:" not in notice + _read_until(controller, b"\0", time.monotonic() + 0.3)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            os.close(controller)
            sock.close()

    def test_a_pipe_gets_only_the_failure_line(self, closed_port: int) -> None:
        result = ask("--url", f"http://127.0.0.1:{closed_port}/", "hello")
        assert result.returncode == 1
        assert result.stderr.startswith("tandem: cannot connect") and result.stderr.count("\n") == 1
