"""One bridge flush, laid out and painted once: the main screen's frame waits until what the flush
mounted has settled.

A flush (tui/app/bridge.py) mounts the views of new blocks and returns; on Textual 8.2.8 (pinned)
those views compose their children, and the children post their layout requests, in later turns
of their message loops. `FlushFrame` holds the screen's next frame (`HeldFrames`) from the flush's
first change until the views it mounted are mounted and every widget in them has handed in its
layout or repaint request; then the screen lays the flush out and paints it once. Unlike Textual's
`batch_update`, after-refresh callbacks still run after the frame. Typed input is not held
(`tui.terminal.input_paint`). The hold is bounded (`FlushFrame.HOLD_SECONDS`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, ClassVar

from textual.screen import Screen
from textual.widget import Widget

from tandem.tui.terminal.input_paint import InputFirstPaint

__all__ = ["FlushFrame", "HeldFrames", "frame_pending"]


class HeldFrames(InputFirstPaint):
    """The main screen's base (over `InputFirstPaint`): `hold_frames` keeps the next layout and
    paint back until `release_frames`; a layout asks for no second one merely because it resized a
    widget.

    Owns the hold count and the widgets a flush mounted since the last layout. UI thread only.
    Overrides `Screen._on_timer_update` (the layout and paint: paused while held) and
    `Screen._refresh_layout`: after each layout, a widget whose layout request that layout alone
    raised (by giving it a size) and that cannot show a scrollbar has the request lowered; only
    widgets whose state before the layout is known are touched (those of the last map and those
    noted by `note_settled`).
    """

    _frames_held = 0
    _settled_widgets: list[Widget] | None = None

    def hold_frames(self) -> None:
        """Keep the next frame back (counted: each hold needs its release)."""
        self._frames_held += 1

    def release_frames(self) -> None:
        """Undo one `hold_frames`; the last one lets the frame (layout and paint) go at once."""
        self._frames_held = max(0, self._frames_held - 1)
        if not self._frames_held and self.is_attached:
            self.check_idle()  # (the idle handler resumes the update timer if anything waits)

    @property
    def frames_held(self) -> bool:
        """Whether a hold keeps the next frame back."""
        return bool(self._frames_held)

    def note_settled(self, widgets: Iterable[Widget]) -> None:
        """Widgets a flush mounted and prompted: the next layout knows whether they asked for it."""
        if self._settled_widgets is None:
            self._settled_widgets = []
        self._settled_widgets.extend(widgets)

    def _refresh_layout(self, size: Any = None, scroll: bool = False) -> None:
        known = self._compositor.widgets  # (the last map's set: the layout builds a new one)
        settled = set(self._settled_widgets or ())
        self._settled_widgets = None
        asked = {widget for widget in known if widget._layout_required}
        asked.update(widget for widget in settled if widget._layout_required)
        super()._refresh_layout(size, scroll)
        for widget in self._compositor.widgets:
            if (
                widget._layout_required
                and widget not in asked
                and (widget in known or widget in settled)
                and widget.styles.overflow_x == "hidden"
                and widget.styles.overflow_y == "hidden"
            ):
                widget._layout_required = False  # raised by this layout's resize alone

    def _on_timer_update(self) -> None:
        if self._frames_held:
            self._update_timer.pause()  # (resumed by the next idle; `release_frames` prompts one)
            return
        super()._on_timer_update()


class FlushFrame:
    """Holds the main screen's frame while one flush settles (see the module docstring).

    Owns the hold (at most one at a time) and the mounts and removals it waits for. UI thread
    only. `open` at a flush's first change; `wait_for` what the flush mounts and removes; the
    frame is released by itself once they have settled, or after `HOLD_SECONDS`.
    """

    HOLD_SECONDS: ClassVar[float] = 0.25
    """The longest a flush's frame is held back for its mounts to settle."""
    REQUESTS_WAIT_SECONDS: ClassVar[float] = 0.02
    """The longest the frame waits for the mounted widgets, once prompted, to post their requests."""

    def __init__(self, screen: Callable[[], HeldFrames | None]) -> None:
        self._screen = screen
        self._held: HeldFrames | None = None
        self._pending: list[tuple[list[Awaitable[object]], list[Widget]]] = []
        self._task: asyncio.Task[None] | None = None
        self.frames = 0
        """How many flush frames were held (for tests and benchmarks)."""

    @property
    def is_open(self) -> bool:
        """Whether a flush's frame is being held."""
        return self._held is not None

    def open(self) -> None:
        """Hold the main screen's frame until the current flush has settled (a no-op while one is held)."""
        if self._held is not None:
            return
        screen = self._screen()
        if screen is None or not screen.is_attached:
            return
        screen.hold_frames()
        self._held = screen
        self.frames += 1
        self._task = asyncio.create_task(self._settle(screen))

    def wait_for(self, done: Iterable[Awaitable[object]], widgets: Iterable[Widget] = ()) -> None:
        """Hold the open frame until each of `done` (mounts, removals) completes, then prompt `widgets` (mounted by them)."""
        if self._held is not None:
            self._pending.append((list(done), list(widgets)))

    async def _settle(self, screen: HeldFrames) -> None:
        deadline = time.monotonic() + self.HOLD_SECONDS
        try:
            # (The task runs once the flush has returned: everything it started is pending now.)
            while self._pending:
                pending, self._pending = self._pending, []
                waits = [asyncio.ensure_future(_awaited(done)) for dones, _widgets in pending for done in dones]
                if waits:
                    # Never cancelled: a removal's awaitable gathers the removed widgets' tasks,
                    # and cancelling it would cancel them (a widget that never ends its loop).
                    await asyncio.wait(waits, timeout=max(0.0, deadline - time.monotonic()))
                roots = [widget for _dones, widgets in pending for widget in widgets]
                await self._requests_handed_in(screen, roots, deadline)
        finally:
            self._held = None
            self._pending = []
            self._task = None
            screen.release_frames()

    async def _requests_handed_in(self, screen: HeldFrames, roots: list[Widget], deadline: float) -> None:
        """Prompt every widget under `roots` with a request waiting; return once the screen has taken them."""
        # Imported here: the widgets are not on the start-up path (`tui.app.app`).
        from tandem.widgets.laid_out_once import hand_in_layout_requests

        mounted = [node for root in roots if root.is_attached for node in root.walk_children(Widget, with_self=True)]
        await hand_in_layout_requests(mounted, min(deadline, time.monotonic() + self.REQUESTS_WAIT_SECONDS))
        # What they posted is in the screen's queue now: a callback queued behind it runs once
        # the screen has handled it.
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def resolve() -> None:
            if not turn.done():
                turn.set_result(None)

        if screen.call_later(resolve):
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(max(0.0, deadline - time.monotonic())):
                    await turn
        screen.note_settled(mounted)


def frame_pending(screen: Screen[Any]) -> bool:
    """Whether `screen` owes a frame: a layout, scroll, repaint or recompose pending (Textual's own
    flags, as its idle handler reads them), a dirty widget, or a batch update open."""
    return bool(
        screen.app._batch_count
        or screen._layout_required
        or screen._scroll_required
        or screen._repaint_required
        or screen._recompose_required
        or screen._dirty_widgets
    )


async def _awaited(done: Awaitable[object]) -> None:
    await done
