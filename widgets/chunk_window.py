"""Which chunks of a long message are laid out: those near the viewport; the rest hide behind spacers."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.await_remove import AwaitRemove
from textual.widget import AwaitMount, Widget
from textual.widgets import Markdown

from tandem.widgets.frozen_markdown import FrozenMarkdown
from tandem.widgets.hidden_chunk import HiddenChunk
from tandem.widgets.markdown_chunks import BuiltMarkdown, chunk_classes
from tandem.widgets.painted_batch import painted_batch
from tandem.widgets.styles_cache import forget_removed_styles

__all__ = ["ChunkWindow"]

if TYPE_CHECKING:
    _WidgetBase = Widget
else:
    _WidgetBase = object


class ChunkWindow(_WidgetBase):
    """Mixin for `TextView`: hides its chunks far above the viewport (and far below it, once the
    message is finished) behind a spacer each, and builds them again when the reader comes near.

    Owns the hiding and showing only: its state (`_chunks`, the runs `_hidden` and
    `_hidden_below`, `_target`, `_gone`, the two spacers) lives on the view, which sets it up in
    `__init__`; a hidden chunk keeps only its source (`HiddenChunk`). The scrolling container
    calls `hide_outside`; the view calls `_move_to` on a resize and `_apply_target` in a drain
    pass (a hide deferred while text streams). UI thread only.
    """

    if TYPE_CHECKING:
        # Provided by `TextView` (and `ChunkFreezing`): declared so the mixin type-checks alone.
        DRAIN_GROUP: ClassVar[str]
        _chunks: list[Markdown | FrozenMarkdown | HiddenChunk]
        _hidden: int
        _hidden_below: int
        _hidden_width: int
        _target: tuple[int, int] | None
        _gone: list[Widget]
        _spacer: Widget
        _spacer_below: Widget
        _deferred_hide: int | None

        def _streaming(self) -> bool: ...
        def _defer(self) -> None: ...
        def _schedule_freeze(self) -> None: ...

    def hide_outside(self, top: int, bottom: int | None = None) -> None:
        """Lay out only the chunks near the viewport; hide the ones wholly above `top` (or below `bottom`).

        The hidden chunks (a leading run, and once the message is finished a trailing run; never
        the last chunk) give way to a spacer of their total height each, so nothing moves and the
        scroll position holds; their widgets are removed (each keeps only its source:
        `HiddenChunk`) and built again when they are shown. A chunk that goes from one run to the
        other (Home or End on a long answer) is not built on the way. Cheap when nothing
        changes: the caller may call it on every scroll and frame.

        Args:
            top: The highest line to keep laid out, in this view's coordinates (0 is its top
                edge): the viewport's top minus a margin, so a chunk is back before it is seen.
            bottom: The lowest line to keep laid out (the viewport's bottom plus a margin); None
                leaves the chunks below as they are. Only a finished message hides chunks below.
        """
        chunks = self._chunks
        if len(chunks) < 2:
            return
        hidden = self._keep_hidden(top)
        if self._streaming():
            below = 0
        else:
            below = self._hidden_below if bottom is None else self._keep_hidden_below(bottom)
        below = min(below, len(chunks) - 1 - hidden)
        if self._target is not None:
            self._target = (hidden, below)  # (the worker under way goes there instead)
            return
        if hidden > self._hidden and self._streaming():
            # More to hide while text streams in: the next drain pass hides them inside its batch,
            # so the screen lays the change out with the pass instead of once more on its own
            # (they are far above the viewport: nothing the reader sees waits for it).
            self._deferred_hide = hidden
            self._defer()
            return
        self._deferred_hide = None
        self._move_to(hidden, below)

    def _keep_hidden(self, top: int) -> int:
        """How many leading chunks lie wholly above `top` (a chunk not laid out yet ends the run)."""
        chunks = self._chunks
        y = self._spacer.virtual_region.y if self._hidden else self._top_of(chunks[0])
        keep = 0
        for index, chunk in enumerate(chunks[:-1]):
            height = self._height(chunk)
            if not height or y + height > top:
                break
            y += height
            keep = index + 1
        return keep

    def _keep_hidden_below(self, bottom: int) -> int:
        """How many chunks before the last lie wholly below `bottom` (counted upwards from the last)."""
        chunks = self._chunks
        last = chunks[-1]
        if isinstance(last, HiddenChunk) or not last.is_attached or not last.outer_size.width:
            return self._hidden_below  # (being swapped or built: nothing to measure from)
        # (Its height may be 0: an answer that ends with a blank line ends with an empty chunk.)
        y = last.virtual_region.y
        keep = 0
        for index in range(len(chunks) - 2, -1, -1):
            height = self._height(chunks[index])
            y -= height
            if not height or y < bottom:
                break
            keep = len(chunks) - 1 - index
        return keep

    def _top_of(self, chunk: Markdown | FrozenMarkdown | HiddenChunk) -> int:
        """Where the first chunk starts (hidden, it is the first of the trailing run: the bottom spacer)."""
        return self._spacer_below.virtual_region.y if isinstance(chunk, HiddenChunk) else chunk.virtual_region.y

    @staticmethod
    def _height(chunk: Markdown | FrozenMarkdown | HiddenChunk) -> int:
        """The height `chunk` was laid out at (0: not laid out, or not mounted yet)."""
        if isinstance(chunk, HiddenChunk):
            return chunk.height
        return chunk.outer_size.height if chunk.is_attached else 0

    def _move_to(self, hidden: int, below: int) -> None:
        """Hide `hidden` leading and `below` trailing chunks (the last one aside) and show the rest:
        at once if nothing is to be built, else in a worker (`_show_hidden`)."""
        if (hidden, below) == (self._hidden, self._hidden_below):
            return
        if hidden >= self._hidden and below >= self._hidden_below:
            self._apply_target(hidden, below)  # only hiding: nothing to wait for
            return
        self._target = (hidden, below)
        self.run_worker(self._show_hidden(), group=self.DRAIN_GROUP, exit_on_error=False)

    async def _show_hidden(self) -> None:
        """Go to `_target`, building the Markdown of the hidden chunks it shows, in one frame.

        A worker, so the mount and the spacers' change are one frame (`painted_batch`): the
        blocks of a `BuiltMarkdown` mount a few turns of the loop after it, and a frame painted
        between would show a spacer shrunk and the chunk not yet there (what follows would jump
        up and back). The chunks are built from their source at the current width and theme:
        they look as they did, and freeze again once painted.
        """
        try:
            while self.is_attached and self._target is not None:
                target = self._target
                if target == (self._hidden, self._hidden_below):
                    break
                with painted_batch(self):
                    mounts, removal = self._apply_target(*target)
                    for mounted in mounts:
                        await mounted
                    if removal is not None:
                        await removal
                self._schedule_freeze()  # a chunk shown again can freeze once painted
                if self._target == target:
                    break  # (as near as it could go: a chunk not laid out stays)
        finally:
            self._target = None

    def _apply_target(self, hidden: int, below: int) -> tuple[list[AwaitMount], AwaitRemove | None]:
        """Hide and build chunks so that `hidden` lead and `below` trail; returns the mounts and the removal.

        A chunk hidden in both runs stays a `HiddenChunk` (it only changes spacer); one shown now
        is built and mounted after the top spacer (it was above) or before the bottom one; one
        hidden now is removed. A chunk that is not laid out cannot be hidden: the run stops there.
        """
        chunks = self._chunks
        last = len(chunks) - 1
        if self._holds_selection():
            # Copying the selection needs the text of every widget it reaches into.
            hidden, below = min(hidden, self._hidden), min(below, self._hidden_below)
        old_hidden, old_first_below = self._hidden, last - self._hidden_below
        for index in range(old_hidden, min(hidden, old_first_below)):
            if not self._hide(index):
                hidden = index
                break
        for index in range(old_first_below - 1, max(last - below, hidden) - 1, -1):
            if not self._hide(index):
                below = last - index - 1
                break
        hidden, below = max(hidden, 0), max(below, 0)
        first_below = last - below
        above_built = self._build(hidden, min(old_hidden, first_below))
        below_built = self._build(max(old_first_below, hidden), first_below)
        if below and not self._hidden_below:
            end = chunks[-1]
            assert not isinstance(end, HiddenChunk)
            self.move_child(self._spacer_below, before=end)  # (the trailing run sits before the last chunk)
        self._hidden, self._hidden_below = hidden, below
        self._set_spacer()
        mounts = []
        if above_built:
            mounts.append(self.mount_all(above_built, after=self._spacer))
        if below_built:
            mounts.append(self.mount_all(below_built, before=self._spacer_below))
        gone, self._gone = self._gone, []
        removal = self.remove_children(gone) if gone else None
        if gone:
            forget_removed_styles(self)
        return mounts, removal

    def _hide(self, index: int) -> bool:
        """Put a `HiddenChunk` in the place of chunk `index` (False: it is not laid out, it stays)."""
        chunk = self._chunks[index]
        if isinstance(chunk, HiddenChunk):
            return True
        height = self._height(chunk)
        if not height:
            return False
        # Out of this frame's layout at once (the removal completes later, in messages).
        chunk.display = False
        self._chunks[index] = HiddenChunk(chunk.source, height)
        self._gone.append(chunk)
        return True

    def _build(self, start: int, stop: int) -> list[Widget]:
        """Put Markdown built from their source in the place of the hidden chunks `start` to `stop`."""
        built: list[Widget] = []
        for index in range(start, stop):
            chunk = self._chunks[index]
            if not isinstance(chunk, HiddenChunk):
                continue  # (shown already)
            markdown = BuiltMarkdown(chunk.source, open_links=False, classes=chunk_classes(chunk.source))
            self._chunks[index] = markdown
            built.append(markdown)
        return built

    def _holds_selection(self) -> bool:
        """Whether text inside this view is selected (Textual copies it from the selected widgets)."""
        selections = self.screen.selections
        return bool(selections) and any(self in widget.ancestors for widget in selections)

    def _set_spacer(self) -> None:
        """Size the spacers to the hidden chunks' total heights (shown only when there are any)."""
        self._hidden_width = self.size.width
        chunks = self._chunks
        above = chunks[: self._hidden]
        below = chunks[len(chunks) - 1 - self._hidden_below : len(chunks) - 1]
        for spacer, hidden in ((self._spacer, above), (self._spacer_below, below)):
            spacer.styles.height = sum(chunk.height for chunk in hidden if isinstance(chunk, HiddenChunk))
            spacer.display = bool(hidden)
