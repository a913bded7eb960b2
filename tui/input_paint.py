"""Typed input is painted in a frame of its own, ahead of the stream's layout.

Textual paints a screen in one step: when the update timer fires, a screen that needs a layout
(a streamed Markdown chunk grew) lays out every displayed widget, then renders every dirty
region. A key typed into the composer while an answer streams is drawn by that same frame, so it
waits for the whole conversation's layout and painting: 40–200 ms of wall time on a loaded
machine (measured with `tests/perf/bench_stream_pty.py`), most of the key's latency.

`InputFirstPaint` is a `Screen` mixin that, when the focused widget (one the screen names in
`paints_alone`: the main screen names its composer) asks to be repainted while
the screen owes a layout, paints that widget's dirty region at once from the last layout's map (a
few milliseconds: the composer's lines only) and leaves everything else to the next regular frame,
which still lays out and paints the stream (and paints the composer again, unchanged). It steps
aside whenever the shortcut could draw something wrong: the focused widget asked for a layout of
its own that is not done yet (a new line grew the composer), it is not in the last map, the screen
is not the one shown, or the app runs inline. The same goes for a frame held back by
a batch update (Textual's Markdown mounts a streamed block inside one, across several awaits):
the focused widget's region is not part of what the batch changes, so it is written at once.
And a key whose repaint was waiting for the regular frame when the stream asked for a layout
(nothing held that frame back when the key came) is painted alone as that layout begins, ahead
of it, not after it.

Typed input (what `typed_input` tells apart: text and cursor, not a cursor blink) is painted alone
even when nothing holds the regular frame back: that frame comes on the screen's update timer, up
to 1/60 s after the key, so every key waited 16–20 ms for it on a quiet machine (pty bench: p50
17 ms quiet). Painted alone, the composer's lines are not painted again by that frame.

Textual's private seams used (Textual 8.2.8, pinned): `Screen._on_update`, `_layout_required`,
`_layout_widgets`, `_dirty_widgets`, `_refresh_layout`, `_compositor` (`update_widgets`, `render_update`, `visible_widgets`),
`Widget._layout_required`, `App._batch_count` and `App._display`. `seams_present()` checks they exist (a test calls
it); without them the mixin does nothing.
"""

from __future__ import annotations

from typing import Any

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
    )


_SEAMS = seams_present()


class InputFirstPaint(Screen[Any]):
    """Paints the focused widget's repaint at once while the screen waits for a layout or a batch,
    and typed input at once always.

    Mixed into the main screen; owns nothing but a counter. UI thread only. The paint runs as the
    screen's next callback, after the messages already queued: the `Layout` message a widget posts
    right after its `Update` (when its size changes) is then known, and such a widget waits.
    """

    input_first_paints = 0
    """How many repaints went out ahead of the regular frame (for tests and benchmarks)."""

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
        super()._refresh_layout(size, scroll)

    def _compositor_refresh(self) -> None:
        super()._compositor_refresh()
        widget = self.focused
        self._painted_input = None if widget is None else self.typed_input(widget)

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
        return bool(self._layout_required or self.app._batch_count)

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
            and not self._compositor._dirty_regions  # (a layout's repaint held back: not ours to send)
            and widget in self._compositor.visible_widgets
        )

    def _paint_alone(self, widget: Widget) -> None:
        """Render the widget's dirty regions with the current map and write them (one small frame)."""
        if not self._may_paint_alone(widget):
            return
        compositor = self._compositor
        compositor.update_widgets({widget})
        app = self.app
        update = compositor.render_update(screen_stack=app._background_screens)
        if update is None:
            return
        self.input_first_paints += 1
        self._painted_input = self.typed_input(widget)
        # A batch (Markdown mounting a streamed block across several awaits) holds every frame
        # back, and `App._display` drops what it is given meanwhile: the widget's region is not
        # part of what the batch changes, so it goes out now.
        batch, app._batch_count = app._batch_count, 0
        try:
            app._display(self, update)
        finally:
            app._batch_count = batch
        if not self._frame_held_back():
            # Nothing else waits for the regular frame on its account: it would paint these lines again.
            self._dirty_widgets.discard(widget)
