"""Freezing the finished chunks of a message once painted, and thawing them when their lines go stale."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, ClassVar

from textual.theme import Theme
from textual.widget import Widget
from textual.widgets import Markdown

from tandem.widgets.frozen_markdown import FrozenMarkdown, paint
from tandem.widgets.hidden_chunk import HiddenChunk
from tandem.widgets.laid_out_once import StreamMarkdown
from tandem.widgets.markdown_chunks import chunk_classes, shared_parser
from tandem.widgets.painted_batch import painted_batch
from tandem.widgets.styles_cache import forget_removed_styles

__all__ = ["ChunkFreezing"]

if TYPE_CHECKING:
    _WidgetBase = Widget
else:
    _WidgetBase = object


def _rendered(chunk: Widget) -> bool:
    """Whether every block of `chunk` has its lines rendered at its current size (painted, not stale)."""
    for node in chunk.walk_children(Widget):
        if not node.is_container and (node._dirty_regions or node._render_cache.size != node.size):
            return False
    return True


def _wholly_shown(chunk: Widget) -> bool:
    """Whether all of `chunk` is inside what the screen shows (then the next frame paints what is stale in it)."""
    try:
        region, clip = chunk.screen._compositor.visible_widgets[chunk]
    except (KeyError, LookupError, AttributeError):  # not on the screen (or no screen yet)
        return False
    return bool(clip.contains_region(region))


class ChunkFreezing(_WidgetBase):
    """Mixin for `TextView`: swaps each finished chunk, once painted, for a `FrozenMarkdown` of its
    lines, and puts live Markdown back when a new width or theme (or a press that may start a
    selection) needs it.

    Owns the freeze passes and the swaps only: its state (`_chunks`, the attempts left, the swap
    lock, the width the chunks were frozen at, the swaps deferred to the next drain pass) lives
    on the view, which sets it up in `__init__` and subscribes `_theme_changed` on mount. A swap
    runs as a worker in the view's `DRAIN_GROUP`. UI thread only.
    """

    if TYPE_CHECKING:
        # Provided by `TextView`: declared so the mixin type-checks alone.
        FREEZE_ATTEMPTS: ClassVar[int]
        BATCH_RETRY_SECONDS: ClassVar[float]
        DRAIN_GROUP: ClassVar[str]
        _chunks: list[Markdown | FrozenMarkdown | HiddenChunk]
        _in_pass: bool
        _freeze_after_pass: bool
        _freeze_scheduled: bool
        _freeze_attempts: int
        _frozen_width: int
        _deferred_swaps: list[tuple[Markdown, FrozenMarkdown]]
        _swap_lock: asyncio.Lock | None

        def _streaming(self) -> bool: ...
        def _defer(self) -> None: ...

    def _schedule_freeze(self) -> None:
        # A new reason to freeze (a chunk finished, was thawed or shown): a whole budget of
        # attempts, also when a pass that is waiting for a chunk to be painted is already due.
        self._freeze_attempts = 0
        if self._in_pass:
            # While a batch holds the frame back Textual runs after-refresh callbacks at once:
            # the freeze pass would find nothing painted and spend its attempts inside the batch.
            self._freeze_after_pass = True
            return
        if not self._freeze_scheduled and self.is_mounted:
            self._freeze_scheduled = True
            self.call_after_refresh(self._freeze_finished)

    def _freeze_finished(self) -> None:
        """Freeze every finished, shown, idle chunk that has been painted; try again after the next frame if one is not."""
        self._freeze_scheduled = False
        if not self.is_attached:
            return
        if self._in_pass:
            self._freeze_after_pass = True  # (due before the pass began: it runs after it instead)
            return
        if self.app._batch_count:
            # Another batch (a swap, another view's pass) holds the frame back: nothing gets
            # painted until it ends, so look again shortly, without spending an attempt.
            self._freeze_scheduled = True
            self.set_timer(self.BATCH_RETRY_SECONDS, self._freeze_finished)
            return
        if self._frozen_width and self._frozen_width != self.size.width:
            # The width changed since the last freeze and this pass runs before the view's Resize
            # is handled: freezing now would record the new width, the handler would see nothing
            # to thaw, and the chunks frozen at the old width would keep their old lines for good.
            self._thaw_all()
            return
        waiting = False
        deferred = {id(live) for live, _frozen in self._deferred_swaps}
        for index, chunk in enumerate(self._chunks[:-1]):
            if not isinstance(chunk, Markdown) or not chunk.display or id(chunk) in deferred:
                continue  # frozen already (or waiting to be swapped), or hidden
            if not _rendered(chunk):
                # Some of it scrolled past unseen: freezing would render it only to freeze it (it
                # is hidden soon, and freezes if it is shown again). But a chunk not laid out yet
                # (the next one was mounted at once), or shown whole and stale only until the next
                # frame, is painted then: try again after it, or it stays live Markdown (laid out
                # on every frame) until another chunk starts, or for good once the answer ended.
                waiting = waiting or not chunk.size.height or _wholly_shown(chunk)
                continue
            # Appending or (re)building: the painted lines would miss text.
            busy = chunk.lock.is_locked or chunk._initial_markdown is not None
            strips = None if busy else paint(chunk)
            if strips is None:
                waiting = True
                continue
            self._frozen_width = self.size.width
            frozen = FrozenMarkdown(chunk, strips, classes="text-view--chunk")
            if self._streaming():
                # The swap (a mount and a removal) is a layout of the screen: while text streams
                # in, the next drain pass does it inside its batch, so it costs no layout of its own.
                self._deferred_swaps.append((chunk, frozen))
                self._defer()
                continue
            self._chunks[index] = frozen
            self.run_worker(self._swap(chunk, frozen), group=self.DRAIN_GROUP, exit_on_error=False)
        if waiting and self._freeze_attempts < self.FREEZE_ATTEMPTS and self.is_mounted:
            self._freeze_attempts += 1
            self._freeze_scheduled = True
            self.call_after_refresh(self._freeze_finished)

    async def _swap(self, old: Widget, new: Widget) -> None:
        """Put `new` where `old` is, in one frame (no frame shows neither or both).

        One swap at a time, in the order asked: a thaw asked while the freeze it undoes is still
        mounting waits for it.
        """
        if self._swap_lock is None:
            self._swap_lock = asyncio.Lock()
        async with self._swap_lock:
            if not old.is_attached or not self.is_attached:
                return  # the view was cleared meanwhile
            with painted_batch(self):
                await self.mount(new, after=old)
                await old.remove()
            forget_removed_styles(self)
        if isinstance(new, Markdown):
            self._schedule_freeze()  # thawed: it freezes again once it is built and painted

    def _thaw_all(self) -> None:
        """Put live Markdown back for every frozen chunk (their lines hold an old width or theme)."""
        self._frozen_width = 0
        self._deferred_swaps.clear()  # (painted at the old width or theme too)
        for index, chunk in enumerate(self._chunks):
            if isinstance(chunk, FrozenMarkdown):
                self._thaw(index, chunk)
        self._schedule_freeze()

    def _thaw(self, index: int, frozen: FrozenMarkdown) -> None:
        live = StreamMarkdown(frozen.source, open_links=False, classes=chunk_classes(frozen.source), parser_factory=shared_parser)
        live.display = frozen.display
        self._chunks[index] = live
        self.run_worker(self._swap(frozen, live), group=self.DRAIN_GROUP, exit_on_error=False)

    def on_frozen_markdown_thaw(self, message: FrozenMarkdown.Thaw) -> None:
        # A press outside a link may start a selection: only live Markdown can be selected.
        message.stop()
        if message.frozen in self._chunks:
            self._thaw(self._chunks.index(message.frozen), message.frozen)

    def _theme_changed(self, _theme: Theme) -> None:
        if self._deferred_swaps or any(isinstance(chunk, FrozenMarkdown) for chunk in self._chunks):
            self._thaw_all()
