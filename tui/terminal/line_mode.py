"""Keys typed before the app took the terminal out of its line mode, read as they were meant.

Until Textual's driver switches the terminal to raw mode, its line mode turns a typed carriage
return into a line feed (ICRNL), which the composer would take as a new line. So the driver takes,
just before the switch, every byte typed so far (`take_typed_in_line_mode`) and hands it to the
app first, the last of those keys, if a line feed, given back as the Enter it was (line feeds
inside a text pasted that early stay its lines). Runs on the driver's start, in the UI thread.
"""

from __future__ import annotations

import os
import struct
from typing import Any

__all__ = ["line_mode_driver", "take_typed_in_line_mode"]

TYPED_AHEAD_LIMIT = 64 * 1024
"""Bytes read at most (a terminal's input queue holds 4,096 on Linux: nothing real comes near)."""


def take_typed_in_line_mode(fd: int) -> str:
    """Read what was typed into the terminal `fd` while in line mode; "" when it is not in it.

    A line mode that translates carriage returns (ICRNL) only: otherwise an Enter arrived as it
    was, and Textual's own read is right. The last key, if a line feed, is given back as the
    carriage return it was typed as. Reading leaves the terminal's settings as they were.
    """
    try:
        import fcntl
        import termios
    except ImportError:  # not a POSIX terminal (Windows): no line mode to read
        return ""
    try:
        if not os.isatty(fd):
            return ""
        settings = termios.tcgetattr(fd)
    except (OSError, termios.error):
        return ""
    iflag, lflag = settings[0], settings[3]
    if not (lflag & termios.ICANON and iflag & termios.ICRNL):
        return ""
    # In line mode a read returns a line at a time and never the line being typed; out of it,
    # with VMIN and VTIME 0, a read returns at once whatever is there, the unfinished line too.
    reading = [*settings[:6], list(settings[6])]
    reading[3] = lflag & ~termios.ICANON
    reading[6][termios.VMIN] = 0
    reading[6][termios.VTIME] = 0
    try:
        termios.tcsetattr(fd, termios.TCSANOW, reading)
        try:
            pending = struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]
            typed = os.read(fd, min(pending, TYPED_AHEAD_LIMIT)) if pending > 0 else b""
        finally:
            termios.tcsetattr(fd, termios.TCSANOW, settings)
    except (OSError, termios.error):
        return ""
    text = typed.decode("utf-8", errors="replace")
    return text[:-1] + "\r" if text.endswith("\n") else text


def line_mode_driver(driver_class: type[Any]) -> type[Any]:
    """A subclass of Textual's Linux driver that reads what was typed in line mode as it was
    meant (see the module) before leaving it. Other drivers (headless, web) are returned as they are."""
    from textual.drivers.linux_driver import LinuxDriver

    if not issubclass(driver_class, LinuxDriver):
        return driver_class

    class LineModeDriver(driver_class):  # type: ignore[valid-type,misc]
        """Textual's Linux driver, taking the keys typed in line mode before its raw mode starts."""

        def start_application_mode(self) -> None:
            # Called again on resuming after Ctrl+Z: what was typed while suspended is read the same way.
            self._post_typed(take_typed_in_line_mode(self.fileno))
            super().start_application_mode()

        def _post_typed(self, typed: str) -> None:
            """Parse `typed` as Textual's input thread parses a read, and send its keys to the app.

            On the app's loop, before the input thread starts: they reach the app first, in order.
            """
            if not typed:
                return
            from textual._xterm_parser import XTermParser

            parser = XTermParser()
            for event in [*parser.feed(typed), *parser.feed("")]:  # "": the end, a lone Esc included
                self.process_message(event)

    LineModeDriver.__name__ = LineModeDriver.__qualname__ = f"LineMode{driver_class.__name__}"
    return LineModeDriver
