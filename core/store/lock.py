"""One process per thread: an advisory lock file per thread, held while the thread is open.

The lock is `flock(LOCK_EX | LOCK_NB)` on `<store>.locks/<thread id>.lock`. The kernel drops it
when the holder exits, however it exits (kill -9 included), so a crash never leaves a thread
locked and no liveness check or stale-lock cleanup is needed. The holder writes its pid into the
file so the refusal can name it. `flock` locks belong to an open file description, so two opens
in one process also exclude each other. Where `fcntl` is missing (Windows), `msvcrt.locking` on
the file's first byte gives the same exclusion.
"""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path

from tandem.core.errors import LogStoreError

__all__ = ["ThreadLock", "check_thread_id", "holder"]

_ID = re.compile(r"[A-Za-z0-9_.-]{1,128}")


def check_thread_id(thread_id: str) -> str:
    """Return `thread_id` if it can name a lock file safely.

    Raises:
        LogStoreError: it is empty, too long, or holds characters other than letters, digits, `_.-`.
    """
    if not _ID.fullmatch(thread_id) or thread_id in (".", ".."):
        raise LogStoreError(f"{thread_id[:40]!r} is not a thread id")
    return thread_id


class ThreadLock:
    """An exclusive lock on one thread, for the life of an open `SqliteThread`.

    Owns the lock file's descriptor. `release()` is idempotent. Any thread may release it.
    """

    def __init__(self, directory: Path, thread_id: str) -> None:
        self.path = directory / f"{check_thread_id(thread_id)}.lock"
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock without waiting.

        Raises:
            LogStoreError: another process (or another open in this one) holds it.
        """
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            if not _try_lock(fd):
                holder = _read_pid(fd)
                who = f"process {holder}" if holder else "another process"
                raise LogStoreError(
                    f"thread {self.path.stem} is already open in {who}; close it there first "
                    "(export or list it meanwhile: those only read)"
                )
            os.ftruncate(fd, 0)
            os.lseek(fd, 0, os.SEEK_SET)
            os.write(fd, str(os.getpid()).encode())
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd

    @property
    def held(self) -> bool:
        """Whether this object holds the lock."""
        return self._fd is not None

    def release(self) -> None:
        """Drop the lock. Idempotent."""
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
            _unlock(fd)
            os.close(fd)


def holder(directory: Path, thread_id: str) -> int | None:
    """The pid of the process that holds `thread_id` open now (None: nobody does, or the lock
    file is unreadable). Takes the lock for an instant to learn whether it is free: a process
    opening that thread at this very instant is told it is open elsewhere, and can try again."""
    try:
        fd = os.open(directory / f"{check_thread_id(thread_id)}.lock", os.O_RDWR)
    except (OSError, LogStoreError):
        return None
    try:
        if _try_lock(fd):
            _unlock(fd)
            return None
        return _read_pid(fd) or -1
    finally:
        os.close(fd)


def _read_pid(fd: int) -> int | None:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        text = os.read(fd, 32).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        with contextlib.suppress(OSError):
            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)  # type: ignore[attr-defined]

else:

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(fd: int) -> None:
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_UN)
