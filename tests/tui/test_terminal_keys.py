"""Alt+Enter (ESC CR) and Alt+1…9 (ESC and the digit), as xterm, GNOME Terminal, PuTTY and tmux send them, parse as their own keys."""

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


def test_esc_and_a_digit_is_alt_digit_not_a_macos_character() -> None:
    # xterm, GNOME Terminal and tmux send Alt+2 as ESC "2"; Textual's own table made it "™",
    # typed into the composer instead of showing conversation 2.
    teach_textual_keys()
    assert _keys("\x1b1\x1b2\x1b9") == ["alt+1", "alt+2", "alt+9"]
    assert _keys("2") == ["2"]  # a digit alone is still a digit
