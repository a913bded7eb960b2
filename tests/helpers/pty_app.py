"""A command in a pseudo-terminal, for the benches that read what a real terminal would receive.

`bench_wire`, `bench_stream_pty` and `bench_memory_pty` each run the real `tandem` in a pty and
watch its output; this is the part they share: the pty of a given size, the process, a thread that
drains (and keeps) everything written, optionally at a slow link's rate, and the probes they read
(needles on the wire, CPU and resident memory from /proc).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import select
import signal
import struct
import subprocess
import termios
import threading
import time
from pathlib import Path

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
CURSOR_QUERY = b"\x1b[6n"
"""A cursor position query (DSR 6): a terminal answers `ESC [ row ; column R`."""
CURSOR_REPORT = b"\x1b[1;1R"
SYNC_QUERY = b"\x1b[?2026$p"
SYNC_REPORT = b"\x1b[?2026;2$y"
QUIT = "\x11"
"""Ctrl+Q: Tandem's quit key (a normal exit, so whatever the app writes at exit is written)."""


def process_cpu_clock(pid: int) -> int:
    """The clock id of process `pid`'s CPU time (Linux's `MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED)`,
    which glibc's `clock_getcpuclockid` returns; Python does not expose that call)."""
    return ((~pid) << 3) | 2


class PtyApp:
    """A command in a pseudo-terminal of `columns`×`rows`.

    Owns the pty, the process (its own session) and `output`, every byte it wrote. A thread drains
    the pty: at full speed, or at `bytes_per_second` (then the app's writes block as they would on a
    slow SSH link). With `answers`, it answers a cursor position query (`ESC [ 6 n`) and the query
    for synchronized output (DEC 2026) when it reads them, as a terminal does once it has shown
    what came before. Subclasses may override `on_output` to react to what is written as it arrives.
    """

    def __init__(self, argv: list[str], env: dict[str, str], *, columns: int, rows: int,
                 bytes_per_second: float | None = None, answers: bool = False) -> None:
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        self.started = time.monotonic()
        self.process = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env,
                                        start_new_session=True)
        os.close(slave)
        self.output = bytearray()
        self.lock = threading.Lock()
        self.rate = bytes_per_second
        self.answers = answers
        self.queries = 0
        """Cursor position queries read (and answered, with `answers`)."""
        self.running = True
        self.reader = threading.Thread(target=self._drain, daemon=True)
        self.reader.start()

    def on_output(self, data: bytes, now: float) -> None:
        """Called on the reader thread after `data` (read at monotonic time `now`) was kept."""

    def _drain(self) -> None:
        # Small reads on a throttled link: each read is followed by the time the link takes to carry it.
        chunk = 65536 if self.rate is None else max(256, int(self.rate / 50))
        while self.running:
            ready, _, _ = select.select([self.master], [], [], 0.1)
            if not ready:
                continue
            try:
                data = os.read(self.master, chunk)
            except OSError:  # EIO: the process closed the pty
                return
            if not data:
                return
            now = time.monotonic()
            with self.lock:
                tail = bytes(self.output[-8:])
                self.output += data
            # (a query split across two reads is counted once: those wholly in the tail were counted before)
            queries = (tail + data).count(CURSOR_QUERY) - tail.count(CURSOR_QUERY)
            self.queries += queries
            if self.answers:
                syncs = (tail + data).count(SYNC_QUERY) - tail.count(SYNC_QUERY)
                answer = CURSOR_REPORT * queries + SYNC_REPORT * syncs
                if answer:
                    with contextlib.suppress(OSError):
                        os.write(self.master, answer)
            self.on_output(data, now)
            if self.rate is not None:
                time.sleep(len(data) / self.rate)

    def size(self) -> int:
        """Bytes written so far."""
        with self.lock:
            return len(self.output)

    def since(self, offset: int) -> bytes:
        """What was written after `offset`."""
        with self.lock:
            return bytes(self.output[offset:])

    def find(self, needle: bytes, offset: int = 0) -> int:
        """Where `needle` was first written after `offset` (-1: not yet)."""
        with self.lock:
            return self.output.find(needle, offset)

    def wait_for(self, needle: bytes, offset: int = 0, seconds: float = 120) -> float:
        """The monotonic time `needle` was seen written after `offset` (polling every ~2 ms).

        Raises:
            RuntimeError: the process exited first. TimeoutError: not within `seconds`.
        """
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.find(needle, offset) >= 0:
                return time.monotonic()
            if self.process.poll() is not None:
                raise RuntimeError(f"the process exited ({self.process.returncode}) before writing {needle!r}")
            time.sleep(0.002)
        raise TimeoutError(f"{needle!r} not written within {seconds} s")

    def type(self, text: str) -> None:
        """Send `text` as typed keys."""
        os.write(self.master, text.encode())

    def cpu_seconds(self) -> float:
        """CPU the process has used so far (all its threads, those that ended included), to the
        nanosecond: the kernel's scheduler clock of the process, read through its CPU-time clock id
        (what `clock_getcpuclockid(pid)` returns on Linux). /proc's utime + stime count 10 ms ticks,
        too coarse for a short turn; they are the fallback where that clock cannot be read."""
        try:
            return time.clock_gettime_ns(process_cpu_clock(self.process.pid)) / 1e9
        except OSError:
            fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime

    def main_thread_cpu_seconds(self) -> float:
        """CPU of the process's main thread so far (for the Textual app: its UI loop), to the
        nanosecond (the first field of /proc/PID/task/PID/schedstat)."""
        pid = self.process.pid
        return int(Path(f"/proc/{pid}/task/{pid}/schedstat").read_text().split()[0]) / 1e9

    def rss_mb(self) -> float:
        """The process's resident memory (VmRSS), in MiB."""
        return self._status_mb("VmRSS")

    def peak_rss_mb(self) -> float:
        """The most resident memory the process has had so far (VmHWM), in MiB."""
        return self._status_mb("VmHWM")

    def _status_mb(self, field: str) -> float:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
        raise RuntimeError(f"no {field} in /proc status")

    def close(self, seconds: float = 15) -> None:
        """Quit with Ctrl+Q; kill the process group if it has not exited within `seconds`."""
        try:
            self.type(QUIT)
        except OSError:
            pass
        try:
            self.process.wait(seconds)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        self.running = False
        self.reader.join(2)
        os.close(self.master)
