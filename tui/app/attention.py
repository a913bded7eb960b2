"""Telling the person the agent waits on them: the terminal's title (OSC 2) and one bell.

Over SSH, in another tmux window, the app's screen is out of sight: the title (shown in tab
bars, window lists, tmux's `#{pane_title}`) says that an approval, a question or an action
waits, and the bell rings once when the window is not focused. The title is Tandem's own
words only, never agent text, so nothing an agent writes reaches the terminal's title.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from textual.app import App

from tandem.tui.terminal.driver_write import write_to_terminal

if TYPE_CHECKING:
    from tandem.core.blocks import Block

__all__ = ["BELL_ENV", "Attention", "bell_enabled", "need_of", "title_for"]

BELL_ENV = "TANDEM_BELL"
"""Set to 0, off, no or false to never ring the bell (also `tandem --no-bell`)."""

APP_TITLE = "Tandem"
"""The terminal's title while nothing waits on the person."""

_NEEDS = {
    "approval": "approval needed",
    "question": "your answer needed",
    "action": "action needed",
    "input": "your input needed",
}

# XTWINOPS: save the terminal's title before the first change, restore it when nothing waits
# (terminals without them ignore both, and show "Tandem" then).
_PUSH_TITLE = "\x1b[22;0t"
_POP_TITLE = "\x1b[23;0t"


def bell_enabled(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the bell may ring, by `TANDEM_BELL` (on unless it says 0, off, no or false)."""
    env = os.environ if environ is None else environ
    return env.get(BELL_ENV, "").strip().lower() not in ("0", "off", "no", "false")


def need_of(pending: Sequence[Block]) -> str:
    """What the person is asked for: approval, question, action or input (the first pending block's kind)."""
    from tandem.core.blocks import ApprovalBlock, InterruptBlock, UIActionBlock

    block = pending[0] if pending else None
    if isinstance(block, ApprovalBlock):
        return "approval"
    if isinstance(block, InterruptBlock):
        return "question"
    if isinstance(block, UIActionBlock):
        return "action"
    return "input"


def title_for(need: str | None, waiting: int = 0) -> str:
    """The terminal title for a need (None: nothing waits): Tandem's words only, printable.

    `waiting` counts the conversations that wait on the person: past one, the title says how
    many ("◆ Tandem: 2 waiting") rather than what the first needs."""
    if need is None:
        return APP_TITLE
    if waiting > 1:
        return f"◆ {APP_TITLE}: {waiting} waiting"
    return f"◆ {APP_TITLE}: {_NEEDS.get(need, _NEEDS['input'])}"


class Attention:
    """Owns the terminal's title while Tandem runs, and the bell that says a turn needs the person.

    `update(need)` is called whenever the waiting changes (UI thread): on the first need the
    terminal's own title is saved and replaced; while the need stays, nothing is written again;
    when nothing waits, the title says "Tandem" and the saved one is restored. The bell rings
    once per wait, only when the terminal reported that the window lost focus
    (`App.app_focus`: Textual turns on focus reporting; a terminal without it never rings).
    """

    def __init__(self, app: App[Any], *, bell: bool = True) -> None:
        """
        Args:
            app: The app whose terminal it writes to.
            bell: Whether to ring the bell (`tandem --no-bell`, `TANDEM_BELL=0` turn it off).
        """
        self.app = app
        self.bell = bell
        """Whether the bell rings when a wait starts and the window is not focused."""
        self.need: str | None = None
        """What the person is asked for now (None: nothing)."""
        self.waiting = 0
        """How many conversations wait on the person."""
        self.title: str | None = None
        """The title last written (None: never written, the terminal's own)."""
        self.bells = 0
        """How many times the bell rang (for tests and the log)."""
        self._saved = False

    def update(self, need: str | None, waiting: int = 0) -> None:
        """The person is asked for `need` now (None: nothing waits on them), by `waiting`
        conversations (`title_for`)."""
        if need == self.need and waiting == self.waiting:
            return
        started = self.need is None and need is not None
        self.need = need
        self.waiting = waiting
        if need is not None and not self._saved:
            self._write(_PUSH_TITLE)
            self._saved = True
        self._set_title(title_for(need, waiting))
        if need is None and self._saved:
            self._write(_POP_TITLE)
            self._saved = False
        if started and self.bell and not self.app.app_focus:
            self.bells += 1
            self.app.bell()

    def close(self) -> None:
        """Give the terminal its own title back (quitting)."""
        if self._saved:
            self._write(_POP_TITLE)
            self._saved = False

    def _set_title(self, title: str) -> None:
        # Only printable characters, and short: a title is written into the terminal's stream.
        clean = "".join(c for c in title if c.isprintable())[:80]
        self.title = clean
        self.app.title = clean
        self._write(f"\x1b]2;{clean}\x07")

    def _write(self, data: str) -> None:
        write_to_terminal(self.app, data)
