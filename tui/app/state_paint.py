"""When the state panel paints the shared state: at once when it shows and is quiet, paced while a turn streams."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.app import App
    from textual.timer import Timer

    from tandem.core.state.agent_state import AgentState
    from tandem.tui.app.screens.main_screen import MainScreen

__all__ = ["STATE_PANEL_SECONDS", "StatePaint"]

STATE_PANEL_SECONDS = 1.0
"""While a turn streams, the state panel paints the agent's writes at most this often (the last one always)."""


class StatePaint:
    """Decides when the state panel paints the state the bridge hands over.

    Owns the state the panel does not show yet, the time of the last paint, the one timer of a
    put-off paint, and whether the person chose the panel's visibility (then it never opens by
    itself). UI thread only. Lifecycle: built with the app; `changed` for each state the bridge
    hands over, `flush_started`/`status_changed`/`panel_shown` when a put-off paint may be due.

    What the panel does not show costs nothing: a hidden panel is painted when it opens, and while
    a turn streams the agent's writes are painted at most once a `STATE_PANEL_SECONDS` (the last
    one always: a timer paints it, and the end of the stream does at once); a paint due while a
    flush is on its way goes with that flush (one layout of the screen, not two). Each paint
    rebuilds the tree's lines and lays out the screen again. A panel the person works in (focus
    inside it: an edit, a proposal's or a conflict's buttons) is painted at once: their own
    writes are never late.
    """

    def __init__(
        self,
        app: App[Any],
        screen: Callable[[], MainScreen | None],
        *,
        flush_scheduled: Callable[[], bool],
        proposer_of: Callable[[str], str | None],
    ) -> None:
        """
        Args:
            app: Runs the timer; says what has focus.
            screen: The main screen, once there and mounted (None before and while closing).
            flush_scheduled: Whether a flush of the bridge is on its way.
            proposer_of: The tool whose call a proposal predicts (shown in the panel).
        """
        self._app = app
        self._screen = screen
        self._flush_scheduled = flush_scheduled
        self._proposer_of = proposer_of
        self.panel_chosen = False
        """The person showed or hid the panel (F2): it no longer opens by itself."""
        self.unshown: AgentState | None = None
        """The state the panel does not show yet (not mounted, hidden, or a paint put off while streaming)."""
        self._last_paint = 0.0
        self.timer: Timer | None = None
        """The put-off paint's timer, while one waits."""
        self._due = False
        """A put-off paint is due, and left to the next flush (on its way)."""
        self.paints = 0
        """How many times the state panel was painted (for tests and benchmarks)."""

    def changed(self, state: AgentState) -> None:
        """A new state from the bridge: paint it now, when the panel opens, or after the pause."""
        main = self._screen()
        if main is None:
            return
        self.unshown = state
        if not main.state_panel_mounted:
            return  # painted once mounted (`panel_mounted`)
        if not self.panel_chosen and (state.committed not in (None, {}) or state.proposals):
            main.panel_visible = True  # (opening it paints it: `panel_shown`)
        if not main.panel_visible or self.unshown is None:
            return  # painted when the panel opens, or it just did
        wait = self._last_paint + STATE_PANEL_SECONDS - time.monotonic()
        if wait > 0 and self._streaming(main) and not self._working_in_panel():
            if self.timer is None and not self._due:
                self.timer = self._app.set_timer(wait, self.paint_due)
            return
        self._paint(main, state)

    def panel_mounted(self) -> None:
        """The panel was mounted after the conversation's first frame: the state it missed, now."""
        if self.unshown is not None:
            self.changed(self.unshown)

    def flush_started(self) -> None:
        """A flush hands over a change: a paint due goes with it."""
        if self._due:
            self._paint_unshown()

    def status_changed(self, *, streaming: bool) -> None:
        """A status was painted: when the stream ended, its last state now, not at the timer."""
        if not streaming and self.timer is not None:
            self._paint_unshown()

    def panel_shown(self, visible: bool) -> None:
        """The panel opened (or closed): what it missed, now."""
        if visible:
            self._paint_unshown()

    def toggle(self) -> None:
        """Show or hide the panel as the person asked (F2); it no longer opens by itself."""
        main = self._screen()
        self.panel_chosen = True
        if main is not None:
            main.panel_visible = not main.panel_visible

    def paint_due(self) -> None:
        """The put-off paint's time came (its timer): paint now, or with the flush on its way."""
        self.timer = None
        main = self._screen()
        if main is not None and self._streaming(main) and self._flush_scheduled():
            # A flush is on its way (within half a second while streaming): painted with it, the
            # panel costs no layout and paint of the screen of its own.
            self._due = True
            return
        self._paint_unshown()

    def _paint_unshown(self) -> None:
        if self.timer is not None:
            self.timer.stop()  # painted now (the stream ended, or a flush took it): not again later
            self.timer = None
        self._due = False
        state, main = self.unshown, self._screen()
        if state is not None and main is not None and main.state_panel_mounted and main.panel_visible:
            self._paint(main, state)

    def _paint(self, main: MainScreen, state: AgentState) -> None:
        self.unshown = None
        self._due = False
        self._last_paint = time.monotonic()
        if self.timer is not None:
            self.timer.stop()
            self.timer = None
        panel = main.state_panel
        panel.proposer = self._proposer_of
        if panel.state is not state:
            panel.set_state(state)
        else:
            panel.refresh_state()
        self.paints += 1

    @staticmethod
    def _streaming(main: MainScreen) -> bool:
        status = main.status
        return status is not None and status.value == "streaming"

    def _working_in_panel(self) -> bool:
        focused = self._app.focused
        return focused is not None and any(node.id == "state-panel" for node in focused.ancestors_with_self)
