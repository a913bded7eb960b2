"""A typed key and Esc behind a saturated slow link: they pass ahead of the queued stream (issue 38).

The real `tandem` streams `/demo long` into a pty read at 32 kbit/s (`tests.helpers.slow_link`),
so its output queues (the kernel's pty buffer holds ~20 KB, five seconds of this link). The
terminal answers the app's cursor position queries, as real terminals do. A key typed while the
link is busy must be echoed behind at most the piece of a frame already on its way, not behind
every frame queued (before the fix: 8-16 frames, 6-7 KB, 1.5-1.8 s at 80×24); Esc's "stopped"
likewise.
Checked by order on the wire (frames read between the press and the echo), not by time; the
waits are hang guards only.
"""

from __future__ import annotations

import fcntl
import struct
import termios
import time

import pytest
from tests.helpers.slow_link import SlowLinkApp, echo_of

pytestmark = [pytest.mark.e2e]

KBIT = 32.0


def queued_on_the_link(app: SlowLinkApp) -> int:
    """Bytes the app wrote that the slow reader has not read yet (what the pty's master side holds, up to 4 KB)."""
    return int(struct.unpack("i", fcntl.ioctl(app.master, termios.FIONREAD, b"\0\0\0\0"))[0])


def press_while_busy(app: SlowLinkApp, key: str, needle: bytes) -> tuple[int, int]:
    """Type `key` once output is queued on the link; (frames read before its echo, bytes queued at the press)."""
    deadline = time.monotonic() + 60
    while (queued := queued_on_the_link(app)) == 0 and time.monotonic() < deadline:
        time.sleep(0.005)
    return echo_of(app, key, needle).frames, queued


def test_keys_and_esc_pass_ahead_of_the_stream_queued_on_a_slow_link() -> None:
    app = SlowLinkApp(80, 24, KBIT)
    try:
        app.stream()
        app.wait_for(b"streaming", app.size(), 60)  # (the stream is being painted)
        time.sleep(2)  # (not a timing assumption: the link is saturated long before, the press waits for a queue)
        for key in "жщ":
            frames, queued = press_while_busy(app, key, key.encode())
            assert queued > 0
            # The echo's own frame, the piece already on the link when the key came, and one the
            # answer to that piece let go before the key was handled.
            assert frames <= 3, f"{key!r} was echoed behind {frames} frames queued before it"
        frames, queued = press_while_busy(app, "\x1b", b"stopped")
        # Esc's frame may follow the one in flight, and one the stream sent while the turn was being stopped.
        assert frames <= 4, f"'stopped' came behind {frames} frames queued before it"
        assert app.queries > 0  # the app asked; the terminal answered
    finally:
        app.close()
