"""The lines a resumed thread showed when it was closed: over the main screen until its replayed
blocks are drawn, and the lines to keep when the conversation is left."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from tandem.tui.terminal.flush_frame import frame_pending

if TYPE_CHECKING:
    from tandem.tui.app.screens.main_screen import MainScreen
    from tandem.tui.app.stored_lines import StoredLines

__all__ = ["PaintedLines", "ResumedLines"]

PaintedLines = tuple[dict[str, object], int, str]
"""Lines to paint first at the next resume (`tui.app.stored_lines.capture`), how many blocks they
show, and the id of the last."""


class ResumedLines:
    """The stored lines of one `MainScreen` (`tui.app.stored_lines`).

    Owns the reader of the lines kept when the thread was last closed, the `StoredLines` widget
    that shows them over the conversation from the first frame until `drop`, and what they were
    read from. Says what the screen shows, as lines to keep, when the conversation is left
    (`painted`, `settled`). UI thread only; built with the screen.
    """

    SETTLE_WAIT_SECONDS: ClassVar[float] = 1.0
    """The longest `settled` waits for one refresh (a quit must end even if none comes)."""

    def __init__(self, screen: MainScreen) -> None:
        self._screen = screen
        self.read: Callable[[], object] | None = None
        """Reads the lines the conversation showed when the resumed thread was closed
        (`ThreadLibrary.stored_lines`), painted in the first frame when they fit this terminal;
        else the screen's `preview` is shown after it."""
        self.widget: StoredLines | None = None
        """The lines standing over the conversation (None once dropped, or never shown)."""
        self._source: object = None

    @property
    def shown(self) -> bool:
        """Whether the stored lines of a resumed thread stand in for the conversation."""
        return self.widget is not None

    def first_frame(self) -> StoredLines | None:
        """The widget of the stored lines for the screen's first frame, if they fit this terminal (once)."""
        read, self.read = self.read, None
        lines = read() if read is not None else None
        if lines is None:
            return None
        from tandem.tui.app.stored_lines import StoredLines, paintable

        screen = self._screen
        found = paintable(lines, screen.app)
        if found is None:
            return None
        screen.preview = None  # the lines show what the stored blocks' views would
        self._source = lines
        self.widget = StoredLines(*found, screen_size=screen.app.size, id="stored-lines")
        return self.widget

    async def stand_in(self, lines: dict[str, object]) -> bool:
        """Show `lines` over the conversation now, as the first frame of a resume does (a
        conversation shown again, its views built beneath), until `drop`. Returns whether they fit
        this terminal and were shown."""
        from tandem.tui.app.stored_lines import StoredLines, paintable

        screen = self._screen
        found = paintable(lines, screen.app) if self.widget is None else None
        if found is None:
            return False
        self._source = lines
        self.widget = StoredLines(*found, screen_size=screen.app.size, id="stored-lines")
        await screen.mount(self.widget)
        return True

    async def drop(self, *, when_painted: bool = True) -> None:
        """Remove the stored lines (after the conversation beneath drew its replayed blocks,
        unless `when_painted` is False: a restore that failed, a terminal resized)."""
        if self.widget is None:
            return
        if when_painted:
            # Two refreshes: the replayed views mount in the first, their text is laid out by the next.
            for _ in range(2):
                painted = asyncio.Event()
                self._screen.call_after_refresh(painted.set)
                await painted.wait()
        stored, self.widget = self.widget, None
        if stored is not None and stored.is_attached:
            await stored.remove()

    def drop_soon(self) -> None:
        """`drop` at once, in a worker of the screen (a resize, the state panel opened over them)."""
        if self.widget is not None:
            self._screen.run_worker(self.drop(when_painted=False))

    def drawn(self) -> bool:
        """Whether what the screen last drew is all there is to draw: no text view still laying
        out text it was given, no layout, scroll or repaint pending, no batch update open."""
        from tandem.widgets import TextView

        screen = self._screen
        if any(worker.group == TextView.DRAIN_GROUP and not worker.is_finished for worker in screen.app.workers):
            return False
        return not frame_pending(screen)

    async def settled(self, frames: int = 6) -> PaintedLines | None:
        """`painted` once the screen drew everything it was given (waiting up to `frames`
        refreshes; a refresh that does not come within `SETTLE_WAIT_SECONDS` ends the wait)."""
        screen = self._screen
        if screen.status is not None and screen.status.value == "streaming":
            return None  # no tail is kept of a turn under way (`ThreadLibrary.retire`): no wait
        for _ in range(frames):
            if self.drawn():
                break
            painted = asyncio.Event()
            screen.call_after_refresh(painted.set)
            try:
                async with asyncio.timeout(self.SETTLE_WAIT_SECONDS):
                    await painted.wait()
            except TimeoutError:
                break
        return self.painted()

    def painted(self) -> PaintedLines | None:
        """What the conversation shows, as lines to paint first at the next resume; None when the
        screen does not show the conversation's end as a resume would (scrolled up, covered by a
        toast or a selection, the state panel beside it, still restoring)."""
        from tandem.tui.app.stored_lines import capture

        screen = self._screen
        conversation = screen.conversation
        shown = conversation.shown_blocks
        if shown and self.widget is not None and isinstance(self._source, dict):
            # Left while they still stand over the replayed blocks: they are these blocks' lines.
            return self._source, len(shown), shown[-1].id
        scroller = conversation.scroller
        if (
            not shown
            or screen.app.screen is not screen
            or self.widget is not None
            or screen.restoring
            or conversation.preview_views
            or not conversation.following
            or scroller.scroll_y < scroller.max_scroll_y
            or screen.app._notifications
            or screen.selections
            or screen.state_panel_mounted and screen.panel_visible
            or not self.drawn()  # the compositor's lines are not what is shown yet
        ):
            return None
        lines = capture(screen.app, conversation.region)
        return (lines, len(shown), shown[-1].id) if lines is not None else None
