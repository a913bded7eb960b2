"""The wire driver's input: the terminal's cursor answers split off before Textual's key parser reads the keys.

The row output asks the terminal where its cursor is after each frame (`tui.terminal.wire_driver`),
so its answers (`ESC [ row ; column R`) arrive among the keys all the time. Textual's parser must not
meet them half-way through a key: it holds Esc followed by a character (`ESC w`: Alt+W, or Esc then
W read at once) for `ESCAPE_DELAY` in case more of a sequence follows, and a new ESC arriving
meanwhile makes it give the held keys back with the Esc turned into a typed "^" (Textual 8.2.8,
`reissue_sequence_as_keys(process_alt=False)`): the Esc, which stops a stream, would be lost to
every answer that came within the delay. So `read_input` takes each answer out of what was read and
hands it to the driver as the `events.CursorPosition` Textual would have made of it, in its place
among the keys; the parser sees the keys alone, as it did before any question was asked.
"""

from __future__ import annotations

import os
import re
import selectors
from codecs import getincrementaldecoder
from typing import Any

from textual import events

__all__ = ["CursorAnswers", "read_input"]

_ANSWER = re.compile(r"\x1b\[(\d+);(\d+)R")
"""A cursor position report (Textual reads `ESC [ 1 ; 5 R`, xterm's Ctrl+F3, as one too)."""
_ANSWER_START = re.compile(r"\x1b\[\d*(?:;\d*)?\Z")
"""The start of an answer a read may end in (not a lone ESC: that may be the Esc key, which the parser times)."""

READ_SIZE = 4096
"""Bytes read at once (as Textual reads)."""
SELECT_SECONDS = 0.1
"""How long a read waits before the parser's timeouts (a lone Esc) are looked at (as Textual waits)."""


class CursorAnswers:
    """Splits the terminal's input into text for the key parser and cursor position answers.

    Owns the start of an answer a read ended in: it is held until the next read joins it, or
    given to the parser as typed once a wait for input passes with nothing read (`overdue`).
    Used by the driver's input thread only.
    """

    def __init__(self) -> None:
        self._held = ""

    def split(self, data: str) -> list[str | events.CursorPosition]:
        """`data` (after what was held) as text and answers, in the order they came."""
        data, self._held = self._held + data, ""
        pieces: list[str | events.CursorPosition] = []
        start = 0
        for answer in _ANSWER.finditer(data):
            if answer.start() > start:
                pieces.append(data[start:answer.start()])
            row, column = int(answer[1]), int(answer[2])
            pieces.append(events.CursorPosition(column - 1, row - 1))  # (as Textual makes it)
            start = answer.end()
        rest = data[start:]
        if (partial := _ANSWER_START.search(rest)) is not None:
            self._held, rest = partial.group(), rest[:partial.start()]
        if rest:
            pieces.append(rest)
        return pieces

    def overdue(self) -> str:
        """What was held, once nothing more came: it was typed after all (Esc [ and digits), not an answer."""
        held, self._held = self._held, ""
        return held


def read_input(driver: Any) -> None:
    """The input thread of a Linux driver (Textual 8.2.8's `LinuxDriver.run_input_thread`), the
    answers split off before its parser: every key and answer goes to `driver.process_message`,
    until `driver.exit_event` is set."""
    from textual._parser import ParseError
    from textual._xterm_parser import XTermParser

    parser = XTermParser()
    answers = CursorAnswers()
    decode = getincrementaldecoder("utf-8")().decode

    def take(text: str) -> None:
        for piece in answers.split(text):
            if isinstance(piece, str):
                for event in parser.feed(piece):
                    driver.process_message(event)
            else:
                driver.process_message(piece)

    def read_ready(ready: list[tuple[selectors.SelectorKey, int]], final: bool = False) -> None:
        for index, (_key, mask) in enumerate(ready):
            if mask & selectors.EVENT_READ:
                text = decode(os.read(driver.fileno, READ_SIZE), final=final and index == len(ready) - 1)
                if not text:
                    break  # (stdin piped, or the terminal gone)
                take(text)
        if not ready and (held := answers.overdue()):
            for event in parser.feed(held):
                driver.process_message(event)
        for event in parser.tick():
            driver.process_message(event)

    selector = selectors.SelectSelector()
    selector.register(driver.fileno, selectors.EVENT_READ)
    try:
        while not driver.exit_event.is_set():
            read_ready(selector.select(SELECT_SECONDS))
        selector.unregister(driver.fileno)
        read_ready(selector.select(SELECT_SECONDS), final=True)
    finally:
        selector.close()
        try:
            for _event in parser.feed(""):
                pass
        except (EOFError, ParseError):
            pass
