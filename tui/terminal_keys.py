"""Key sequences that terminals send and Textual's parser does not name, taught to it at start-up.

Alt+Enter: xterm, GNOME Terminal, PuTTY, tmux and the browser's xterm.js send ESC followed by CR.
Textual 8.2.8's parser finds no name for that pair, waits for the escape delay and then reissues
it key by key with "alt" set, which a mapped key like CR ignores: Alt+Enter arrived as a plain
Enter and sent the message the person meant to continue. Naming the pair makes it `alt+enter`,
which the composer takes as a new line (`tui.composer.NEWLINE_KEYS`).
"""

from __future__ import annotations

import enum
from typing import Any, cast

__all__ = ["ALT_ENTER", "ExtraKey", "teach_textual_keys"]

ALT_ENTER = "\x1b\r"
"""What a terminal without the kitty keyboard protocol sends for Alt+Enter."""


class ExtraKey(enum.Enum):
    """Key names for sequences Textual does not map (its table holds members with a `.value`)."""

    ALT_ENTER = "alt+enter"


def teach_textual_keys() -> None:
    """Add Tandem's sequences to Textual's table of key sequences (idempotent, before the app runs).

    The table is private to Textual (`textual._ansi_sequences`); a sequence it already names is
    left alone, so a Textual that learns Alt+Enter itself keeps its own mapping.
    """
    from textual._ansi_sequences import ANSI_SEQUENCES_KEYS

    table = cast(dict[str, Any], ANSI_SEQUENCES_KEYS)
    table.setdefault(ALT_ENTER, (ExtraKey.ALT_ENTER,))
