"""Finished text moved out of the process's memory into a temporary file, and read back on demand.

A conversation's text is the person's: it stays whole and readable for as long as its blocks
live. It need not stay in memory: an agent streaming text at full speed for a minute sends some
200 MB of it, which held as `str` (by the blocks and again by the history of the segment) grew
the app by ~10 MB/s. So finished texts (`GrowingText.finish`) are kept in memory up to
`RESIDENT_CHARS` characters in all; past that the oldest are written to one unlinked temporary
file (in `TMPDIR`) and read back with `os.pread` when someone asks for them. The file lives as
long as the process (its space is the operating system's to reclaim at exit); reading a spilled
text costs a read from the page cache, about what joining it cost.
"""

from __future__ import annotations

import collections
import logging
import os
import tempfile
import threading
import weakref
from typing import IO, Protocol

__all__ = ["RESIDENT_CHARS", "SpilledText", "TextSpill", "shared_spill"]

log = logging.getLogger(__name__)

RESIDENT_CHARS = 8 * 1024 * 1024
"""Characters of finished text kept in memory (all texts together) before the oldest are spilled."""
SPILL_MIN_CHARS = 1024
"""A text shorter than this stays in memory: its handle would cost about as much as it."""


class SpilledText:
    """Where one text lies in a `TextSpill`'s file (UTF-8). Immutable; any thread."""

    __slots__ = ("_spill", "offset", "size", "length")

    def __init__(self, spill: TextSpill, offset: int, size: int, length: int) -> None:
        self._spill = spill
        self.offset = offset
        """Byte offset in the file."""
        self.size = size
        """Bytes (UTF-8)."""
        self.length = length
        """Characters."""

    def read(self, start: int = 0) -> str:
        """The text from its character `start` on (`text[start:]`).

        Raises:
            OSError: the file could not be read.
        """
        if start >= self.length:
            return ""
        if self.size == self.length:  # ASCII: characters are bytes, read only what is asked for
            return self._spill.read(self.offset + start, self.size - start).decode("ascii")
        return self._spill.read(self.offset, self.size).decode("utf-8", "surrogatepass")[start:]


class _Spillable(Protocol):
    def spill(self, into: TextSpill) -> int: ...


class TextSpill:
    """An unlinked temporary file holding spilled texts, and the finished texts still in memory.

    Owns the file (opened on the first spill, closed with the object), its end, and a queue of
    the finished texts in memory (weak references, oldest first) with their characters in all.
    Any thread: appends to the file and the queue take a lock; reads are positional.
    """

    def __init__(self, resident_chars: int = RESIDENT_CHARS, directory: str | None = None) -> None:
        self.resident_chars = resident_chars
        self._directory = directory
        self._file: IO[bytes] | None = None
        self._end = 0
        self._lock = threading.Lock()
        self._resident: collections.deque[tuple[weakref.ref[_Spillable], int]] = collections.deque()
        self._resident_total = 0
        self._failed = False

    @property
    def spilled_bytes(self) -> int:
        """Bytes written to the file so far."""
        return self._end

    @property
    def resident(self) -> int:
        """Characters of finished text counted as in memory."""
        return self._resident_total

    def write(self, text: str) -> SpilledText | None:
        """`text` written to the file; None when it cannot be (it then stays in memory: a full
        disk costs memory, never text)."""
        data = text.encode("utf-8", "surrogatepass")
        with self._lock:
            if self._failed:
                return None
            try:
                if self._file is None:
                    self._file = tempfile.TemporaryFile(prefix="tandem-text-", dir=self._directory)
                os.pwrite(self._file.fileno(), data, self._end)
            except OSError as exc:
                self._failed = True
                log.warning("text stays in memory: could not write the spill file: %s", exc)
                return None
            offset, self._end = self._end, self._end + len(data)
        return SpilledText(self, offset, len(data), len(text))

    def read(self, offset: int, size: int) -> bytes:
        """`size` bytes of the file from `offset`."""
        file = self._file
        if file is None:
            raise OSError("nothing was spilled")
        data = os.pread(file.fileno(), size, offset)
        while len(data) < size:  # (a short read: a regular file gives one only at its end)
            more = os.pread(file.fileno(), size - len(data), offset + len(data))
            if not more:
                raise OSError(f"the spill file ends before byte {offset + size}")
            data += more
        return data

    def finished(self, text: _Spillable, length: int) -> None:
        """`text` (`length` characters) is finished: counted as in memory, and the oldest
        finished texts are spilled while the count is past `resident_chars`."""
        if length < SPILL_MIN_CHARS:
            return
        due: list[_Spillable] = []
        with self._lock:
            self._resident.append((weakref.ref(text), length))
            self._resident_total += length
            while self._resident_total > self.resident_chars and self._resident:
                ref, size = self._resident.popleft()
                self._resident_total -= size
                if (oldest := ref()) is not None:
                    due.append(oldest)
        for oldest in due:  # (outside the lock: spilling writes through it)
            oldest.spill(self)

    def close(self) -> None:
        """Close the file (idempotent); texts spilled into it can no longer be read."""
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None


_shared: TextSpill | None = None
_shared_lock = threading.Lock()


def shared_spill() -> TextSpill:
    """The process's spill (made on first use): every conversation's finished texts share it."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = TextSpill()
        return _shared
