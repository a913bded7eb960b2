"""The window of mounted views: which of a conversation's shown blocks have a view, and their views."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.geometry import Size
    from textual.widget import AwaitMount, Widget

    from tandem.core.blocks.base import Block
    from tandem.tui.app.conversation import Conversation
    from tandem.widgets.block_view import BlockView

__all__ = ["ViewWindow"]


class ViewWindow:
    """The blocks a conversation shows, the window `[lo, hi)` of them that is mounted, and their views.

    Textual lays out every mounted widget on every frame, so what is mounted stays bounded however
    long the conversation: the sizes are the conversation's (`window`, `chunk`, `max_mounted`,
    `burst`, `follow_minimum`). Heights are estimated from the blocks' text, so nothing is laid out
    to decide what to lay out. A view is rebuilt from its block whenever it comes back. Mounts into
    and removes from the conversation's scroller. UI thread only; one per `Conversation`.
    """

    def __init__(self, conversation: Conversation, timestamps: Callable[[Block], float | None]) -> None:
        self._conversation = conversation
        self._timestamps = timestamps
        self.shown: list[Block] = []
        """The blocks the conversation shows, in order (mounted or not)."""
        self.lo = 0
        """The first mounted index of `shown`."""
        self.hi = 0
        """One past the last mounted index of `shown`."""
        self.views: dict[str, BlockView] = {}
        """The mounted (or mounting) views by block id."""
        self.preview: list[BlockView] = []
        """Views of a resumed thread's stored last blocks, until the replayed blocks come."""
        self._serial = 0

    @property
    def mounted_views(self) -> list[BlockView]:
        """The views currently mounted, top to bottom."""
        return [self.views[block.id] for block in self.shown[self.lo : self.hi] if block.id in self.views]

    @property
    def at_end(self) -> bool:
        """Whether the last shown block is in the window."""
        return self.hi >= len(self.shown)

    def top_visible_view(self) -> BlockView | None:
        """The first mounted view whose bottom is below the top of the viewport."""
        top = self._conversation.scroller.content_region.y
        for view in self.mounted_views:
            if view.region.bottom > top:
                return view
        return None

    def clear(self) -> None:
        """Forget every block and remove every view."""
        self._conversation.scroller.remove_children(list(self.views.values()))
        self.views.clear()
        self.shown.clear()
        self.lo = self.hi = 0

    def fill_count(self, stop: int, *, screens: float) -> int:
        """How many views, ending before `stop`, fill `screens` viewport heights (at most `window`).

        Before the view has a size, `burst`.
        """
        conversation = self._conversation
        region = conversation.scroller.scrollable_content_region
        if not region.height or not region.width:
            return min(conversation.burst, stop)
        need = region.height * screens
        width = max(10, region.width - 4)  # the text view's border and padding
        count = total = 0
        for block in reversed(self.shown[max(0, stop - conversation.window) : stop]):
            count += 1
            total += self.estimated_height(block, width)
            if total >= need:
                break
        return max(1, count)

    @staticmethod
    def estimated_height(block: Block, width: int) -> int:
        """The lines `block`'s view takes at `width`, from its text: a header, a margin, its wrapped lines."""
        text = getattr(block, "text", None)
        if not isinstance(text, str):
            return 4  # a card: a title, a line or two, a margin
        # (Counted in C: a 20,000-token answer is estimated as fast as a one-liner.)
        return 2 + text.count("\n") + 1 + len(text) // width

    def make_view(self, block: Block) -> BlockView:
        """A new view of `block`, recorded as its view."""
        from tandem.widgets import TextView, safe_id, view_for

        # A view unmounted a moment ago may still be in the DOM while its block comes back, so
        # each mount gets its own (encoded) id.
        self._serial += 1
        view = view_for(block, id=f"{safe_id(block.id)}--{self._serial}")
        if isinstance(view, TextView):
            view.timestamp = self._timestamps(block)
        self.views[block.id] = view
        return view

    def mount_range(
        self, start: int, stop: int, *, before: Widget | None = None, awaiting: list[Awaitable[object]] | None = None
    ) -> list[BlockView]:
        """Mount the views of `shown[start:stop]` (before `before`, else at the end); the mount's
        awaitable is added to `awaiting` if given."""
        views = [self.make_view(block) for block in self.shown[start:stop]]
        if views:
            scroller = self._conversation.scroller
            mounted = scroller.mount_all(views, before=before) if before is not None else scroller.mount_all(views)
            if awaiting is not None:
                awaiting.append(mounted)
        if before is not None:
            self.lo = start
        else:
            self.hi = stop
        return views

    def unmount(self, blocks: list[Block]) -> Awaitable[object] | None:
        """Remove the views of `blocks`; returns what completes once they are gone (None: there were none)."""
        views = [self.views.pop(block.id) for block in blocks if block.id in self.views]
        if views:
            return self._conversation.scroller.remove_children(views)
        return None

    def follow(self, new: int, awaiting: list[Awaitable[object]]) -> list[BlockView]:
        """The last `new` shown blocks just came while following: mount what stays in the window.

        That is what fills about two screens (a block that scrolls away before it is seen gets
        no view at all), and for a burst (a resumed thread) what fills one, the last block first.
        Views above go; the mounts and removals are added to `awaiting`.
        """
        conversation = self._conversation
        shown, burst = len(self.shown), 1.0 + conversation.margin / 2
        if new <= conversation.window:
            keep = max(conversation.follow_minimum, self.fill_count(shown, screens=2.0))
            if shown - keep >= self.hi:
                # The new blocks alone fill the window (a fast stream: several messages and tool
                # calls per frame): as for a burst, build only what fills the screen, not views
                # that scroll away before they are seen.
                keep = self.fill_count(shown, screens=burst)
        else:
            keep = self.fill_count(shown, screens=burst)
        new_lo = max(self.lo, len(self.shown) - keep)
        removal = self.unmount(self.shown[self.lo : min(new_lo, self.hi)])
        if removal is not None:
            awaiting.append(removal)
        self.lo = new_lo
        self.hi = max(self.hi, new_lo)
        return self.mount_range(self.hi, len(self.shown), awaiting=awaiting)

    def mount_preview(self, blocks: Sequence[Block], size: Size) -> AwaitMount | None:
        """Mount views of a resumed thread's stored last blocks, as many as fill `size`, at the end.

        They stand in until `drop_preview`: they are not in `shown` or `views`. Returns the
        mount, or None when there was nothing to mount (or a preview is already shown).
        """
        if self.preview or not blocks:
            return None
        # (The view has no size yet in the first frame: the terminal's. Each view costs its
        # Markdown, and the replayed blocks replace them all a moment later.)
        width, need, rows = max(10, size.width - 4), size.height, 0
        start = len(blocks)
        while start > 0 and rows < need:
            start -= 1
            rows += self.estimated_height(blocks[start], width)
        views = []
        for block in blocks[start:]:
            view = self.make_view(block)
            del self.views[block.id]  # the replayed block's view takes the id's place
            views.append(view)
        self.preview = views
        return self._conversation.scroller.mount_all(views)

    def drop_preview(self) -> bool:
        """Remove the preview's views; returns whether there were any."""
        views, self.preview = self.preview, []
        if views:
            self._conversation.scroller.remove_children(views)
        return bool(views)

    def hide_far_chunks(self, margin: float) -> None:
        """Lay out only the chunks of long messages within `margin` viewport heights of the viewport."""
        if not self.views:
            return  # and `widgets` is not imported before the first block: start-up paints first
        from tandem.widgets import TextView

        scroller = self._conversation.scroller
        height = scroller.scrollable_content_region.height
        top = int(scroller.scroll_y - height * margin)
        bottom = int(scroller.scroll_y + height * (1 + margin))
        for view in self.views.values():
            if isinstance(view, TextView) and view.is_mounted and view.statistics().chunks > 1:
                y = view.virtual_region.y
                view.hide_outside(top - y, bottom - y)

    def mount_end(self) -> None:
        """Mount the last views (what fills about two screens) instead of the window's."""
        self.unmount(self.shown[self.lo : self.hi])
        keep = max(self._conversation.follow_minimum, self.fill_count(len(self.shown), screens=2.0))
        self.lo = self.hi = max(0, len(self.shown) - keep)
        self.mount_range(self.lo, len(self.shown))

    def mount_start(self) -> None:
        """Mount the first views, what fills about two screens, instead of the window's (no change
        when they are mounted). Not `chunk` of them: twenty long answers take seconds to build,
        and the view is blank meanwhile; scrolling down mounts more (`extend_down`)."""
        if self.lo > 0:
            self.unmount(self.shown[self.lo : self.hi])
            self.lo = self.hi = 0
            self.mount_range(0, self.fill_count_from(0, screens=2.0))

    def fill_count_from(self, start: int, *, screens: float) -> int:
        """How many views, from `start` on, fill `screens` viewport heights (at least one, at most `chunk`)."""
        conversation = self._conversation
        stop = min(len(self.shown), start + conversation.chunk)
        region = conversation.scroller.scrollable_content_region
        if not region.height or not region.width:
            return stop - start
        need, width, total = region.height * screens, max(10, region.width - 4), 0
        for index in range(start, stop):
            total += self.estimated_height(self.shown[index], width)
            if total >= need:
                return index - start + 1
        return stop - start

    def mount_around(self, index: int, awaiting: list[Awaitable[object]]) -> None:
        """Mount the views around `shown[index]` instead of the window's."""
        if (removal := self.unmount(self.shown[self.lo : self.hi])) is not None:
            awaiting.append(removal)
        half = self._conversation.chunk // 2
        self.lo = self.hi = max(0, index - half)
        self.mount_range(self.lo, min(len(self.shown), index + half + 1), awaiting=awaiting)

    def extend_up(self) -> BlockView | None:
        """Mount `chunk` more views above the window, unmounting below past `max_mounted`.

        Returns the view that was first before (to keep in place), if any.
        """
        anchor = self.views.get(self.shown[self.lo].id)
        start = max(0, self.lo - self._conversation.chunk)
        self.mount_range(start, self.lo, before=anchor)
        self.trim_bottom(keep=self._conversation.max_mounted)
        return anchor

    def extend_down(self) -> None:
        """Mount `chunk` more views below the window, unmounting above past `max_mounted`."""
        self.mount_range(self.hi, min(len(self.shown), self.hi + self._conversation.chunk))
        self.trim_top(keep=self._conversation.max_mounted)

    def trim_top(self, *, keep: int) -> int:
        """Unmount views above the last `keep`; returns the height removed (in lines)."""
        excess = (self.hi - self.lo) - keep
        if excess <= 0:
            return 0
        blocks = self.shown[self.lo : self.lo + excess]
        height = sum(self.views[b.id].outer_size.height for b in blocks if b.id in self.views)
        self.unmount(blocks)
        self.lo += excess
        return height

    def trim_bottom(self, *, keep: int) -> None:
        """Unmount views below the first `keep`."""
        excess = (self.hi - self.lo) - keep
        if excess > 0:
            self.unmount(self.shown[self.hi - excess : self.hi])
            self.hi -= excess
