"""The real `tandem` in a pty against the flood server (`tests.helpers.flood_server`): one scenario
from the first key to the reopened thread, for the flood tests and `tests/perf/bench_flood.py`.

`FloodRun` starts the app on `<server>/<scenario>`, sends a message, samples the app's resident
memory while the agent floods it, types a key and waits for its echo, presses Esc and waits for the
turn to end (the status line back to idle or error), quits with Ctrl+Q, then reopens the thread
(`tandem --resume`) and exports it (`tandem export`). Every wait is a hang guard, not a timing.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.helpers.pty_app import PtyApp

__all__ = ["AskFlood", "FloodRun", "FloodTandem", "TANDEM", "ask_flood", "export_latest", "rss_mb", "tandem_env"]

TANDEM = Path(sys.executable).with_name("tandem")
ESC = "\x1b"
KEY = "§"
"""The key typed while the agent floods: no scenario's text holds it."""


def tandem_env(data_dir: str) -> dict[str, str]:
    """The environment of a `tandem` whose data and config live in `data_dir`."""
    env = {key: value for key, value in os.environ.items() if key not in ("COLORTERM", "TANDEM_CONFIG")}
    env.update({"TERM": "xterm-256color", "XDG_DATA_HOME": data_dir, "XDG_CONFIG_HOME": data_dir,
                "TANDEM_BELL": "0"})
    return env


class FloodTandem(PtyApp):
    """`tandem ARGS` in a 100×30 pty, its data in `data_dir` (`tandem`: which executable)."""

    def __init__(self, args: list[str], data_dir: str, tandem: Path = TANDEM) -> None:
        super().__init__([str(tandem), *args], tandem_env(data_dir), columns=100, rows=30)

    def wait_any(self, needles: list[bytes], offset: int, seconds: float) -> bytes:
        """The first of `needles` written after `offset` (a hang guard of `seconds`).

        Raises:
            TimeoutError: none within `seconds`. RuntimeError: the process exited first.
        """
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for needle in needles:
                if self.find(needle, offset) >= 0:
                    return needle
            if self.process.poll() is not None:
                raise RuntimeError(f"tandem exited ({self.process.returncode}) before writing any of {needles!r}")
            time.sleep(0.005)
        raise TimeoutError(f"none of {needles!r} written within {seconds} s")


@dataclass
class FloodRun:
    """One scenario against the real app; the figures it read."""

    url: str
    """The flood server's base URL (ends with /)."""
    scenario: str
    data_dir: str
    seconds: float = 3.0
    """How long the flood is watched before the key and Esc."""
    guard: float = 60.0
    """The hang guard of each wait."""
    args: list[str] = field(default_factory=list)
    """More arguments for `tandem` (such as `--budget response_bytes=1G`)."""
    budget: bool = False
    """Wait for a budget's error card to end the turn before the key (else Esc stops the flood)."""
    tandem: Path = TANDEM
    """The `tandem` executable (another checkout's, for a before-and-after bench)."""
    rss_mb: list[tuple[float, float]] = field(default_factory=list)
    """(seconds since the message was sent, VmRSS in MiB), sampled while flooding."""
    peak_mb: float = 0.0
    echo_seconds: float | None = None
    esc_seconds: float | None = None
    ended_by: str = ""
    """What the turn's end said after Esc: `idle` (stopped) or `error`; `budget` when a budget's
    error card had ended the turn before Esc was pressed, `finished` when the answer had ended."""
    quit_seconds: float | None = None

    def run(self) -> FloodRun:
        """Flood, key, Esc, quit (see the module); returns itself with the figures filled in."""
        app = FloodTandem(["--url", self.url + self.scenario, *self.args], self.data_dir, self.tandem)
        try:
            app.wait_for(b"idle", 0, self.guard)
            start = app.size()
            app.type("flood me\r")
            sent = time.monotonic()
            # (The status line is not enough: a turn that ends within one frame leaves it at idle,
            # and only changed cells are written; the server's last message says it finished.)
            app.wait_any([b"FLOOD-BEGIN", b"FLOOD-END", b"streaming", b"error", b"idle"], start, self.guard)
            if self.budget:
                app.wait_for(b"budget", start, self.guard)
            while time.monotonic() - sent < self.seconds:
                self.rss_mb.append((time.monotonic() - sent, app.rss_mb()))
                time.sleep(0.25)
            offset = app.size()
            typed = time.monotonic()
            app.type(KEY)
            app.wait_for(KEY.encode(), offset, self.guard)
            self.echo_seconds = time.monotonic() - typed
            # The key is taken back before Esc (Esc with text in the composer does not stop the
            # turn); an Esc that follows a Backspace at once was seen lost, so the erase is let settle.
            app.type("\x7f")
            time.sleep(0.3)
            if app.find(b"budget", start) >= 0:
                self.ended_by = "budget"  # the turn had ended on a budget's error card: no Esc to time
            elif app.find(b"FLOOD-END", start) >= 0 or app.find(b"idle", start) >= 0:
                self.ended_by = "finished"  # the agent's answer had ended: no Esc to time
            else:
                offset = app.size()
                pressed = time.monotonic()
                app.type(ESC)
                self.ended_by = app.wait_any([b"idle", b"error"], offset, self.guard).decode()
                self.esc_seconds = time.monotonic() - pressed
            self.peak_mb = app.peak_rss_mb()
            quitting = time.monotonic()
            app.type("\x11")
            app.process.wait(self.guard)
            self.quit_seconds = time.monotonic() - quitting
        finally:
            app.close()
        return self

    def reopen(self) -> bytes:
        """`tandem --resume` of the flooded thread until idle; returns what it wrote."""
        app = FloodTandem(["--resume", "--url", self.url + self.scenario], self.data_dir, self.tandem)
        try:
            app.wait_any([b"idle", b"error"], 0, self.guard)
            return app.since(0)
        finally:
            app.close()


def export_latest(data_dir: str, seconds: float = 120) -> subprocess.CompletedProcess[str]:
    """`tandem export` (Markdown) of the most recent thread in `data_dir`."""
    env = tandem_env(data_dir)
    listed = subprocess.run([str(TANDEM), "threads"], capture_output=True, text=True, env=env, timeout=seconds,
                            stdin=subprocess.DEVNULL)
    thread_id = next(word for line in listed.stdout.splitlines() for word in line.split()[:1]
                     if len(word) >= 6 and all(c in "0123456789abcdef" for c in word))
    return subprocess.run([str(TANDEM), "export", thread_id], capture_output=True, text=True, env=env,
                          timeout=seconds, stdin=subprocess.DEVNULL)


def rss_mb(pid: int) -> float:
    """The process's resident memory (VmRSS) in MiB; 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


@dataclass
class AskFlood:
    """One `tandem ask` under a flood: its RSS over time, how long SIGINT took, what it printed."""

    samples: list[tuple[float, float]]
    """(seconds since start, RSS MiB), every 0.25 s."""
    stop_seconds: float | None
    """SIGINT → exit (None: it ended by itself first)."""
    returncode: int
    printed_mb: float

    @property
    def peak_mb(self) -> float:
        return max((mb for _, mb in self.samples), default=0.0)


def ask_flood(tandem: Path, url: str, extra: list[str], seconds: float, data_dir: str) -> AskFlood:
    """Run `tandem ask --url URL EXTRA... "flood me"` for at most `seconds`, then SIGINT it."""
    import signal

    with open(os.path.join(data_dir, "out"), "wb") as out:
        process = subprocess.Popen([str(tandem), "ask", "--url", url, *extra, "flood me"], stdout=out,
                                   stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=tandem_env(data_dir))
        started, samples = time.monotonic(), []
        while process.poll() is None and time.monotonic() - started < seconds:
            samples.append((time.monotonic() - started, rss_mb(process.pid)))
            time.sleep(0.25)
        stop = None
        if process.poll() is None:
            interrupted = time.monotonic()
            process.send_signal(signal.SIGINT)
            process.wait(120)
            stop = time.monotonic() - interrupted
    return AskFlood(samples, stop, process.returncode, os.path.getsize(os.path.join(data_dir, "out")) / 1e6)
