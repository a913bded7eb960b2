"""Render counters for the pty benchmarks: what Textual re-rendered in each painted frame.

Installed only when `$TANDEM_PROFILE_RENDERS` names a file (`tandem` checks it at start-up; unset,
nothing here is imported and nothing is patched). Then every painted frame (`App._display` with
something to write) records its time and how many Markdown blocks were rendered (their lines
rebuilt: `Widget._render_content`) and measured (a `get_content_height` that missed its cache)
since the previous frame; at exit the file receives one JSON object:
`{"frames": [[monotonic, renders, measures, repeats], ...], "renders": {class: n}, "measures": {class: n},
"rerenders": n, "input_frames": [monotonic, ...], "layouts": [monotonic, ...], "flushes": [monotonic, ...]}`
(a repeat: a render of a block rendered before, in an earlier frame or this one, where the other
renders are new blocks' first; a re-render: a block rebuilt with the same content at the same size, i.e. waste; a layout: the
screen arranged its widgets again, `Compositor.reflow`; a flush: the bridge handed engine changes
to the UI, `Bridge.flush`). A frame that only paints typed input ahead of the stream
(`tui.terminal.input_paint`) renders no Markdown: it is listed in `input_frames`, not in `frames`.
`time.monotonic()` is system-wide on Linux, so a benchmark can cut the frames to its own window.
A benchmark whose app stalls sends it SIGUSR1: `RenderProfile.dump_state` writes what the UI loop
waits on (batch count, the screen's pending layout and repaint, its update timer, the bridge's
pacing, every asyncio task's stack) to `<path>.state`.
"""

from __future__ import annotations

import asyncio
import atexit
import io
import json
import signal
import time
import weakref
from collections import Counter
from pathlib import Path
from typing import Any

__all__ = ["ENV", "RenderProfile", "install"]

ENV = "TANDEM_PROFILE_RENDERS"
"""The environment variable naming the file the counters are written to at exit."""


class RenderProfile:
    """Owns the counters (per class and per frame) and writes them to `path` at exit."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.renders: Counter[str] = Counter()
        """Markdown blocks whose lines were rebuilt, per class."""
        self.rerenders = 0
        """Of those, the ones rebuilt with the same content at the same size as their last build (waste)."""
        self.measures: Counter[str] = Counter()
        self.frames: list[tuple[float, int, int, int]] = []
        self.input_frames: list[float] = []
        """When a frame painted only typed input (`tui.terminal.input_paint`)."""
        self.painting_input = False
        self.layouts: list[float] = []
        """When the screen laid its widgets out (`Compositor.reflow`, the whole tree arranged)."""
        self.flushes: list[float] = []
        """When the bridge flushed engine changes to the UI."""
        self.per_widget: Counter[int] = Counter()
        """Renders per widget (by `id`)."""
        self._last: dict[int, tuple[int, Any]] = {}
        self._renders_in_frame = 0
        self._measures_in_frame = 0
        self._repeats_in_frame = 0
        self._seen: weakref.WeakSet[Any] = weakref.WeakSet()
        """The blocks rendered so far (an id could be a dead block's)."""
        self.app: Any = None
        """The app that painted last (for `dump_state`)."""

    def rendered(self, widget: Any) -> None:
        self.renders[type(widget).__name__] += 1
        self._renders_in_frame += 1
        key = id(widget)
        self.per_widget[key] += 1
        if widget in self._seen:
            self._repeats_in_frame += 1
        else:
            self._seen.add(widget)
        shape = (id(getattr(widget, "_content", None)), widget.size)
        if self._last.get(key) == shape:
            self.rerenders += 1
        self._last[key] = shape

    def measured(self, widget: Any) -> None:
        self.measures[type(widget).__name__] += 1
        self._measures_in_frame += 1

    def frame(self) -> None:
        if self.painting_input:
            self.input_frames.append(time.monotonic())
            return
        self.frames.append((time.monotonic(), self._renders_in_frame, self._measures_in_frame, self._repeats_in_frame))
        self._renders_in_frame = self._measures_in_frame = self._repeats_in_frame = 0

    def dump_state(self) -> None:
        """Write what the UI loop is waiting on to `<path>.state` (SIGUSR1: a benchmark whose app stalled asks)."""
        if self.path is None:
            return
        lines: list[str] = []
        app = self.app
        if app is not None:
            screen = app.screen
            timer = screen._update_timer
            lines.append(
                f"batch_count={app._batch_count} screen: layout_required={screen._layout_required} "
                f"scroll_required={screen._scroll_required} repaint_required={screen._repaint_required} "
                f"dirty_widgets={len(screen._dirty_widgets)} layout_widgets={len(screen._layout_widgets)} "
                f"callbacks={len(screen._callbacks)} queue={screen._message_queue.qsize()} "
                f"update_timer_active={timer._active.is_set()} app_queue={app._message_queue.qsize()}"
            )
            bridge = getattr(app, "bridge", None)
            if bridge is not None:
                lines.append(f"bridge: {bridge.statistics()._replace(repaints={})} timer_pending={bridge.pacer.timer_pending} "
                             f"wake_pending={bridge._wake_pending} held_since={bridge.pacer.held_since}")
        loop = getattr(app, "_loop", None) if app is not None else None
        tasks = asyncio.all_tasks(loop) if loop is not None else set()
        for task in tasks:
            stack = io.StringIO()
            task.print_stack(limit=6, file=stack)
            lines.append(stack.getvalue())
        Path(f"{self.path}.state").write_text("\n".join(lines))

    def uninstall(self) -> None:
        """Put Textual's methods back (replaced by `install`)."""

    def write(self) -> None:
        if self.path is None:
            return
        data = {"frames": self.frames, "renders": dict(self.renders), "measures": dict(self.measures),
                "rerenders": self.rerenders, "input_frames": self.input_frames, "layouts": self.layouts,
                "flushes": self.flushes}
        self.path.write_text(json.dumps(data))


def install(path: str | None) -> RenderProfile:
    """Wrap Textual's render, measure and display methods to count into a new profile.

    Args:
        path: The file the counters are written to at exit; None writes nothing (a test reads
            the profile and calls `RenderProfile.uninstall`).
    """
    from textual._compositor import Compositor
    from textual.app import App
    from textual.widget import Widget
    from textual.widgets.markdown import MarkdownBlock

    from tandem.tui.app.bridge import Bridge
    from tandem.tui.terminal.input_paint import InputFirstPaint

    profile = RenderProfile(Path(path) if path else None)
    render_content = Widget._render_content
    get_content_height = Widget.get_content_height
    display = App._display
    paint_alone = InputFirstPaint._paint_alone
    reflow = Compositor.reflow
    flush = Bridge.flush

    def counted_render_content(self: Widget) -> None:
        if isinstance(self, MarkdownBlock):
            profile.rendered(self)
        render_content(self)

    def counted_get_content_height(self: Widget, container: Any, viewport: Any, width: int) -> int:
        if isinstance(self, MarkdownBlock) and width and not self.is_container and self._content_height_cache[0] != width:
            profile.measured(self)
        return get_content_height(self, container, viewport, width)

    def counted_display(self: App[Any], screen: Any, renderable: Any) -> None:
        profile.app = self
        if renderable is not None and not self._batch_count:
            profile.frame()
        display(self, screen, renderable)

    def counted_paint_alone(self: InputFirstPaint, widget: Widget) -> None:
        profile.painting_input = True
        try:
            paint_alone(self, widget)
        finally:
            profile.painting_input = False

    def counted_reflow(self: Compositor, parent: Widget, size: Any) -> Any:
        if parent is parent.screen:  # (not a frozen chunk's own compositor, `frozen_markdown.paint`)
            profile.layouts.append(time.monotonic())
        return reflow(self, parent, size)

    def counted_flush(self: Bridge) -> None:
        profile.flushes.append(time.monotonic())
        flush(self)

    def uninstall() -> None:
        Widget._render_content = render_content  # type: ignore[method-assign]
        Widget.get_content_height = get_content_height  # type: ignore[method-assign]
        App._display = display  # type: ignore[method-assign]
        InputFirstPaint._paint_alone = paint_alone  # type: ignore[method-assign]
        Compositor.reflow = reflow  # type: ignore[method-assign]
        Bridge.flush = flush  # type: ignore[method-assign]

    Widget._render_content = counted_render_content  # type: ignore[method-assign]
    Widget.get_content_height = counted_get_content_height  # type: ignore[method-assign]
    App._display = counted_display  # type: ignore[method-assign]
    InputFirstPaint._paint_alone = counted_paint_alone  # type: ignore[method-assign]
    Compositor.reflow = counted_reflow  # type: ignore[method-assign]
    Bridge.flush = counted_flush  # type: ignore[method-assign]
    profile.uninstall = uninstall  # type: ignore[method-assign]
    if path:
        atexit.register(profile.write)
        signal.signal(signal.SIGUSR1, lambda _signum, _frame: profile.dump_state())
    return profile
