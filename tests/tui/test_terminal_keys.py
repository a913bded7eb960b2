"""Alt+Enter (ESC CR, as xterm, GNOME Terminal, PuTTY and tmux send it) parses as its own key."""

from __future__ import annotations

from textual import events
from textual._xterm_parser import XTermParser

from tandem.tui.app.composer import NEWLINE_KEYS
from tandem.tui.terminal.terminal_keys import teach_textual_keys


def _keys(data: str) -> list[str]:
    return [message.key for message in XTermParser().feed(data) if isinstance(message, events.Key)]


def test_esc_cr_is_alt_enter_and_the_composer_takes_it_as_a_new_line() -> None:
    teach_textual_keys()
    teach_textual_keys()  # idempotent
    assert _keys("a\x1b\rb") == ["a", "alt+enter", "b"]
    assert _keys("\r") == ["enter"]  # a plain Enter still sends
    assert "alt+enter" in NEWLINE_KEYS
