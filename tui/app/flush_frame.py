"""One bridge flush, laid out and painted once: the screen's frame waits until what it mounted has settled.

A flush (tui/app/bridge.py) is synchronous: it mounts the views of new blocks, repaints the changed
ones, the status line and maybe the state panel, and returns. What it mounted is not done then.
On Textual 8.2.8 (pinned) a view composes and mounts its children in tasks of their own, later,
and a child whose content was set before it was mounted (a Markdown paragraph built with its
`BuiltMarkdown`, a card's title) posts the layout it asked for only when its message loop next
goes idle, which after a mount waits for its next message: the Resize that the screen's layout
of the flush sends it. So, left alone, the screen laid the flush out as soon as the views'
container asked (half-mounted), then again once the views had mounted their children, then
again for the children's own requests: on the firehose (`bench_client_path --app`) about 2.4
layouts and 3.7 paints per flush.

`FlushFrame` holds the main screen's next frame (`HeldFrames`) from the flush's first change
until the views it mounted are mounted, every widget in them with a layout or repaint request
waiting has been prompted to post it, and the screen has taken what they posted; then the
screen lays the flush out and paints it once. It is not Textual's `batch_update`: inside a batch
the screen runs its after-refresh callbacks at once, and much of the app waits for a refresh
that way (the stored lines of a resumed thread stay until the replayed views are painted, a
view revealed far up is handed over once it is on screen, a quit keeps the lines last painted).
A held frame runs them after the frame, as always. Typed input is not held: `tui.terminal.input_paint`
paints the focused composer alone while the screen owes a layout. The hold is bounded
(`HOLD_SECONDS`): a flush that mounts slowly is painted as it stands, and the rest after.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, ClassVar

from textual.screen import Screen
from textual.widget import Widget

__all__ = ["FlushFrame", "HeldFrames"]


class HeldFrames(Screen[Any]):
    """Screen mixin: `hold_frames` keeps the next layout and paint back until `release_frames`;
    a layout asks for no second one merely because it resized a widget.

    Owns the hold count and the widgets a flush mounted since the last layout. UI thread only.
    Textual's private seams used (8.2.8, pinned): `Screen._on_timer_update` (the update timer's
    callback: the layout and the paint), `Screen._update_timer`, `Screen._refresh_layout`,
    `Compositor.widgets` and `Widget._layout_required`. A held screen still handles every
    message; its timer only finds nothing to do, so the after-refresh callbacks wait for the
    frame too.

    The second layout: `Screen._refresh_layout` hands every widget its new size through
    `Widget._size_updated`, which assigns the `virtual_size` reactive, declared `layout=True`: a
    widget the layout resized (every widget a flush mounted gets its first size) asks for
    another layout of the screen, which finds nothing to move (see `widgets.laid_out_once`, which
    spares our own streaming widgets the same way). After each layout, a widget whose request
    was raised by that layout alone (it had none before, and it cannot show a scrollbar, whose
    appearing is a real change of its own) has it lowered. A widget that handles its Resize by
    changing what it shows asks again then, as with `LaidOutOnce`. Only widgets whose state
    before the layout is known are touched: those of the last map and those a flush mounted
    and settled (`note_settled`).
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


async def _awaited(done: Awaitable[object]) -> None:
    await done
