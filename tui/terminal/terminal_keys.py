"""Key sequences that terminals send and Textual's parser does not name, taught to it at start-up.

Alt+Enter: most terminals send ESC then CR, which Textual 8.2.8's parser reissues as a plain
Enter; `teach_textual_keys` names the pair `alt+enter`, which the composer takes as a new line
(`tui.app.composer.NEWLINE_KEYS`). Esc then a key read at once: the parser makes them one
`alt+<key>`; Tandem binds no Alt+character but Alt+1…9 (conversation N), so `esc_prefix_driver`
gives any other such key back as Esc, then the character. Alt+1…9: terminals without the kitty
protocol (xterm, GNOME Terminal, tmux, PuTTY) send ESC then the digit, which Textual's table maps to
the characters macOS's Option key types under WezTerm (`ESC 2` → "™"): `teach_textual_keys` names
them `alt+1`…`alt+9` instead, so they reach the app's bindings rather than the composer.
"""

from __future__ import annotations

import enum
from typing import Any, cast

__all__ = ["ALT_ENTER", "ExtraKey", "esc_prefix_driver", "teach_textual_keys"]

ALT_DIGITS = frozenset(f"alt+{digit}" for digit in range(1, 10))
"""Alt+1…9: kept as typed (they show conversation N), not split into Esc and the digit."""

ALT_ENTER = "\x1b\r"
"""What a terminal without the kitty keyboard protocol sends for Alt+Enter."""


class ExtraKey(enum.Enum):
    """Key names for sequences Textual does not map (its table holds members with a `.value`)."""

    ALT_ENTER = "alt+enter"
    ALT_1 = "alt+1"
    ALT_2 = "alt+2"
    ALT_3 = "alt+3"
    ALT_4 = "alt+4"
    ALT_5 = "alt+5"
    ALT_6 = "alt+6"
    ALT_7 = "alt+7"
    ALT_8 = "alt+8"
    ALT_9 = "alt+9"


def teach_textual_keys() -> None:
    """Add Tandem's sequences to Textual's table of key sequences (idempotent, before the app runs).

    The table is private to Textual (`textual._ansi_sequences`); a sequence it already names is
    left alone, so a Textual that learns Alt+Enter itself keeps its own mapping. ESC + a digit is
    the exception: Textual maps it to a character (see the module's docstring), replaced here.
    """
    from textual._ansi_sequences import ANSI_SEQUENCES_KEYS

    table = cast(dict[str, Any], ANSI_SEQUENCES_KEYS)
    table.setdefault(ALT_ENTER, (ExtraKey.ALT_ENTER,))
    for digit in range(1, 10):
        table[f"\x1b{digit}"] = (ExtraKey(f"alt+{digit}"),)


def esc_prefix_driver(driver_class: type[Any]) -> type[Any]:
    """A subclass of a Textual driver that gives an `alt+<character>` key back as Esc, then the
    character's own key (see the module's docstring). Keys with a name (`alt+enter`,
    `alt+up`) are left alone."""
    from textual import events
    from textual._xterm_parser import XTermParser

    class EscPrefixDriver(driver_class):  # type: ignore[valid-type,misc]
        """Textual's driver, reading ESC + a character as the two keys they most likely were."""

        def process_message(self, message: Any) -> None:
            # The input thread: the parser's events, one by one.
            character = getattr(message, "character", None)
            if (isinstance(message, events.Key) and message.key.startswith("alt+") and character is not None
                    and len(character) == 1 and character.isprintable() and message.key not in ALT_DIGITS):
                super().process_message(events.Key("escape", "\x1b"))
                for key in XTermParser().feed(character):  # the character's key, named as Textual names it
                    super().process_message(key)
                return
            super().process_message(message)

    EscPrefixDriver.__name__ = EscPrefixDriver.__qualname__ = f"EscPrefix{driver_class.__name__}"
    return EscPrefixDriver
