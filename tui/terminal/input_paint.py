"""Typed input is painted in a frame of its own, ahead of the stream's layout.

Textual lays out and paints a screen in one step on its update timer, so a key typed while an
answer streams waits for the whole conversation's layout. `InputFirstPaint` is a `Screen` mixin:
when the focused widget the screen names in `paints_alone` (the main screen: its composer) asks
for a repaint of typed input (`typed_input`: text and cursor, not a blink), its dirty region is
painted at once from the last layout's map, also inside a batch update or when a layout begins
with such a repaint waiting; the next regular frame does the rest. It steps aside when that could
draw something wrong: the widget's own layout is pending, it is not in the last map, the screen is
not shown, or the app runs inline.

A layout of the stream alone paints in a later step of the loop (after a key that came during the
layout was painted alone, `INPUT_WAIT_SECONDS` at most); the screen's after-refresh callbacks wait
for that paint. UI thread only. `seams_present()` checks the Textual 8.2.8 internals used
(`tests/tui/test_textual_private.py` lists them); without them the mixin does nothing. Measured by
`tests/perf/bench_stream_pty.py`.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, ClassVar

from textual import messages
from textual.app import App
from textual.screen import Screen
from textual.widget import Widget

__all__ = ["InputFirstPaint", "seams_present"]


def seams_present() -> bool:
    """Whether the Textual internals the mixin relies on are where it expects them."""
    from textual._compositor import Compositor

    return (
        hasattr(Screen, "_on_update")
        and "_layout_widgets" in Screen.__init__.__code__.co_names
        and "_batch_count" in App.__init__.__code__.co_names
        and hasattr(Compositor, "update_widgets")
        and hasattr(Compositor, "render_update")
        and hasattr(Compositor, "visible_widgets")
        and "_layout_required" in Widget.__init__.__code__.co_names
        and hasattr(Screen, "_compositor_refresh")
        and hasattr(Screen, "_invoke_and_clear_callbacks")
        and "_callbacks" in Screen.__init__.__code__.co_names
        and "_dirty_regions" in Compositor.__init__.__code__.co_names
    )


_SEAMS = seams_present()


class InputFirstPaint(Screen[Any]):
    """Paints the focused widget's repaint at once while the screen waits for a layout or a batch,
    and typed input at once always.

    The base of `HeldFrames` (tui/terminal/flush_frame.py), the main screen's base; owns counters and the state of a put-off layout paint (when it was
    put off, the input count and alone-paint count then, the focused widget's place before the
    layout). UI thread only. The paint runs as the screen's next callback, after the messages already queued: the `Layout` message a widget posts
    right after its `Update` (when its size changes) is then known, and such a widget waits.
    """

    input_first_paints = 0
    """How many repaints went out ahead of the regular frame (for tests and benchmarks)."""
    stream_paints_deferred = 0
    """How many stream layouts left their paint to a later step of the loop (for tests and benchmarks)."""

    INPUT_WAIT_SECONDS: ClassVar[float] = 0.015
    """The longest a stream layout's paint waits for a key that arrived meanwhile to be painted alone."""

    _deferring = False
    """Inside a layout of the stream alone, whose paint may go to a later step (see `_refresh_layout`)."""
    _paint_deferred = False
    """A layout's paint is owed (`_paint_deferred_layout` sends it)."""
    _deferred_at = 0.0
    _serial_at_deferral = 0
    _alone_at_deferral = 0
    _region_before_layout: object = None

    async def _on_update(self, message: messages.Update) -> None:
        await super()._on_update(message)
        widget = message.widget
        if (
            _SEAMS
            and widget is self.focused
            and self.paints_alone(widget)
            and (self._frame_held_back() or self._typed_unpainted(widget))
        ):
            self.call_later(self._paint_alone, widget)

    _painted_input: object = None
    """What the focused widget showed of typed input at the last frame (`typed_input`)."""

    def _refresh_layout(self, size: Any = None, scroll: bool = False) -> None:
        # A key typed just before the stream asked for this layout (its repaint was waiting for
        # the regular frame, which nothing held back then): it goes out first, alone, instead of
        # after the whole conversation's layout and painting (pty bench: keys pressed 6-30 ms
        # before a 40-120 ms layout began were painted only after it). Only typed input: a
        # cursor blink waits for the frame (a frame painted alone shows the rest as it was).
        # And only while the rest waiting for this frame is the stream's (what else changed,
        # a status line, say, goes out with the layout as before).
        widget = self.focused
        if _SEAMS and widget is not None and widget in self._dirty_widgets and self.paints_alone(widget):
            typed = self.typed_input(widget)
            if (
                typed is not None
                and typed != self._painted_input
                and all(self.streams(other) for other in self._dirty_widgets if other is not widget)
                and all(self.streams(other) for asked in self._layout_widgets.values() for other in asked)
            ):
                self._paint_alone(widget)
        # A layout of the stream alone leaves its paint (the larger half of the frame: 20-30 ms
        # of a 40-50 ms step at 120x40) to a later step of the loop, so that a key that came
        # during the layout is handled and painted alone first instead of waiting for both
        # (the key's way in takes a few steps: the driver's callback, the app, the composer,
        # the screen). After-refresh callbacks wait for that paint (they expect a painted screen).
        app = self.app
        self._deferring = (
            _SEAMS
            and not app.is_inline
            and not app._batch_count
            and self is app.screen
            and bool(self._layout_widgets)
            # (a chunk the stream just removed is still listed: it is no longer on the screen)
            and all(self.streams(other) or not other.is_attached for asked in self._layout_widgets.values() for other in asked)
        )
        if self._deferring and widget is not None:
            self._region_before_layout = self._compositor.visible_widgets.get(widget)
        try:
            super()._refresh_layout(size, scroll)
        finally:
            self._deferring = False

    def _compositor_refresh(self) -> None:
        if self._deferring:
            if not self._paint_deferred:
                self._paint_deferred = True
                self.stream_paints_deferred += 1
                self._deferred_at = time.monotonic()
                self._serial_at_deferral = self.input_serial()
                self._alone_at_deferral = self.input_first_paints
                asyncio.get_running_loop().call_soon(self._paint_deferred_layout, 2)
            return
        self._paint_deferred = False
        super()._compositor_refresh()
        widget = self.focused
        self._painted_input = None if widget is None else self.typed_input(widget)

    def _paint_deferred_layout(self, hops: int) -> None:
        """Paint the layout `_compositor_refresh` put off, once a key that came meanwhile went out alone."""
        if not self._paint_deferred:
            return  # (a regular frame painted it)
        if not self.is_attached:
            self._paint_deferred = False
            return
        loop = asyncio.get_running_loop()
        if hops:
            loop.call_soon(self._paint_deferred_layout, hops - 1)
            return
        if (
            self.input_serial() != self._serial_at_deferral
            and self.input_first_paints == self._alone_at_deferral
            and time.monotonic() - self._deferred_at < self.INPUT_WAIT_SECONDS
        ):
            loop.call_later(0.001, self._paint_deferred_layout, 0)
            return
        if self.app._batch_count:
            self._paint_deferred = False
            self.call_later(self._compositor_refresh)  # (as Textual's layout does inside a batch)
        else:
            self._compositor_refresh()
        if self._callbacks:
            self.call_next(self._invoke_and_clear_callbacks)

    async def _invoke_and_clear_callbacks(self) -> None:
        if self._paint_deferred:
            return  # (run after the put-off paint: they expect the screen painted)
        await super()._invoke_and_clear_callbacks()

    def input_serial(self) -> int:
        """A number that changes with every key, paste or click the app received (the screen says)."""
        return 0

    def streams(self, widget: Widget) -> bool:
        """Whether `widget` is part of what streams in (the screen says), which a key's frame may leave for the next one."""
        return False

    def typed_input(self, widget: Widget) -> object:
        """What typing changes in `widget` (the screen says), compared between frames; None: never painted ahead of a layout."""
        return None

    def paints_alone(self, widget: Widget) -> bool:
        """Whether `widget`, when focused, may be painted ahead of the regular frame (the screen says)."""
        return False

    def _typed_unpainted(self, widget: Widget) -> bool:
        """Whether `widget` shows typed input the terminal has not been sent yet."""
        typed = self.typed_input(widget)
        return typed is not None and typed != self._painted_input

    def _frame_held_back(self) -> bool:
        """Whether the regular frame will be slow to come: a layout is owed, or a batch holds it."""
        return bool(self._layout_required or self.app._batch_count or self._paint_deferred)

    def _may_paint_alone(self, widget: Widget) -> bool:
        app = self.app
        return (
            widget is self.focused
            and (self._frame_held_back() or self._typed_unpainted(widget))
            and self.is_current
            and not app.is_inline
            and not widget._layout_required
            and widget not in self._layout_widgets
            and not any(widget in laid_out for laid_out in self._layout_widgets.values())
            and widget in self._compositor.visible_widgets
            and (
                not self._compositor._dirty_regions  # (a layout's repaint held back: not ours to send) ...
                # ... unless it is the put-off paint of a layout that left the widget where it was
                or self._paint_deferred and self._compositor.visible_widgets.get(widget) == self._region_before_layout
            )
        )

    def _paint_alone(self, widget: Widget) -> None:
        """Render the widget's dirty regions with the current map and write them (one small frame)."""
        if not self._may_paint_alone(widget):
            return
        compositor = self._compositor
        app = self.app
        owed = set(compositor._dirty_regions)  # (a put-off layout paint's: it goes out later, whole)
        compositor._dirty_regions.clear()
        try:
            compositor.update_widgets({widget})
            update = compositor.render_update(screen_stack=app._background_screens)
        finally:
            compositor._dirty_regions.update(owed)
        if update is None:
            return
        self.input_first_paints += 1
        self._painted_input = self.typed_input(widget)
        # A batch (Markdown mounting a streamed block across several awaits) holds every frame
        # back, and `App._display` drops what it is given meanwhile: the widget's region is not
        # part of what the batch changes, so it goes out now.
        batch, app._batch_count = app._batch_count, 0
        try:
            display = getattr(app, "display_typed_input", app._display)  # (`tui.terminal.wire_output`: ahead of a backlog)
            display(self, update)
        finally:
            app._batch_count = batch
        if not self._frame_held_back():
            # Nothing else waits for the regular frame on its account: it would paint these lines again.
            self._dirty_widgets.discard(widget)
