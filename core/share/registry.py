"""The conversations shared on this machine, for `tandem join --list` and a bare `tandem join`.

A sharing host answers on a Unix socket of its own in a folder only its user can enter; a socket
gives its share's join address to whoever connects (the same user) and closes. The token is thus
never written to a file: it lives in the host's memory and is handed out only through the socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["ShareListing", "SharedHere", "list_shares"]

SUFFIX = ".share.sock"
MAX_SOCKET_PATH = 100
"""Bytes a Unix socket's path may take everywhere (104 on macOS, 108 on Linux, with the final NUL)."""


@dataclass(frozen=True)
class SharedHere:
    """One conversation shared on this machine."""

    address: str
    title: str
    pid: int
    guests: int


class ShareListing:
    """A host's entry in the folder of shares: its socket, listening while the share lasts.

    Owns the socket file (made 0600 in a 0700 folder) and its server. Engine loop only.
    Lifecycle: `start()` → `close()` (idempotent; removes the file).
    """

    def __init__(self, folder: Path, name: str, describe: Any) -> None:
        self._folder = folder
        self.path = folder / f"{os.getpid()}-{name}{SUFFIX}"
        self._describe = describe
        """Returns what to hand out: `{address, title, guests}` (the address with its token)."""
        self._server: asyncio.AbstractServer | None = None

    async def start(self) -> None:
        """Listen on the socket (OSError: the folder cannot be made or entered, or its path is too long for a socket)."""
        if len(os.fsencode(self.path)) > MAX_SOCKET_PATH:
            raise OSError(f"the folder of shares {self._folder} is too deep for a socket (set $TANDEM_RUNTIME_DIR)")
        self._folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(self._folder, 0o700)
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        old = os.umask(0o177)
        try:
            self._server = await asyncio.start_unix_server(self._answer, path=str(self.path))
        finally:
            os.umask(old)

    async def _answer(self, _reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            writer.write(json.dumps({**self._describe(), "pid": os.getpid()}).encode())
            await writer.drain()
        finally:
            writer.close()

    async def close(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.close()
            with contextlib.suppress(Exception):
                await server.wait_closed()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()


def list_shares(folder: Path, *, timeout: float = 1.0) -> list[SharedHere]:
    """Ask every share's socket in `folder` for its address; a socket nobody answers is removed."""
    found: list[SharedHere] = []
    if not folder.is_dir():
        return found
    for path in sorted(folder.glob(f"*{SUFFIX}")):
        data = b""
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
                client.settimeout(timeout)
                client.connect(str(path))
                while chunk := client.recv(65536):
                    data += chunk
        except (ConnectionRefusedError, FileNotFoundError):
            with contextlib.suppress(OSError):
                path.unlink()  # its host is gone
            continue
        except OSError:
            continue
        try:
            value = json.loads(data)
            found.append(SharedHere(str(value["address"]), str(value.get("title") or ""), int(value.get("pid") or 0),
                                    int(value.get("guests") or 0)))
        except (ValueError, KeyError, TypeError):
            continue
    return found
