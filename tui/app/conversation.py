"""The conversation view: a bounded window of block views over the whole conversation."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import TYPE_CHECKING, ClassVar, NamedTuple

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.geometry import Size
from textual.message import Message
from textual.reactive import var
from textual.widget import AwaitMount, Widget
from textual.widgets import Static

if TYPE_CHECKING:
    # The view paints its welcome before core and the block widgets are imported: they are
    # imported when the first block arrives (the engine thread has loaded core by then).
    from tandem.core.blocks.base import Block
    from tandem.widgets.block_view import BlockView

__all__ = ["Conversation", "ConversationScroll", "Mounting", "NewContentHint"]


class Mounting(NamedTuple):
    """What `Conversation.add_blocks` started: mounts and removals under way, and the views it mounted."""

    done: list[Awaitable[object]]
    """Completes once each mount or removal is done."""
    views: list[Widget]
    """The views being mounted (their children post their layout requests once prompted)."""


class ConversationScroll(VerticalScroll, can_focus=True):
    """The scrolling list of block views; reports scrolls to its `Conversation`.

    | Key | Description |
    | :- | :- |
    | home | Jump to the first message of the conversation (however far above the mounted views). |
    | end | Jump to the end of the conversation and follow the stream again. |
    """

    DEFAULT_CSS: ClassVar[str] = """
    ConversationScroll {
        height: 1fr;
        &:focus {
            background-tint: $foreground 3%;
        }
    }
    """

    def __init__(
        self,
        on_scrolled: Callable[[float, float], None],
        *,
        on_laid_out: Callable[[], None] | None = None,
        id: str | None = None,
    ) -> None:
        """
        Args:
            on_scrolled: Called with the old and new `scroll_y` after every scroll.
            on_laid_out: Called when a layout changed the height of the content (a message grew,
                views came or went), which a scroll watcher does not see while anchored.
        """
        super().__init__(id=id)
        self._on_scrolled = on_scrolled
        self._on_laid_out = on_laid_out
        self._laying_out = False

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self._on_scrolled(old_value, new_value)

    def watch_virtual_size(self) -> None:
        if self._on_laid_out is not None:
            self._on_laid_out()

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        # As `tandem.widgets.laid_out_once.LaidOutOnce` (not imported here: the view paints before
        # the widgets package loads): on Textual 8.2.8 assigning the `virtual_size` reactive during a
        # layout asks for a second screen layout after every flush that grew the content, which moves
        # nothing (a scrollbar that must appear asks for its own). Stored without a refresh instead,
        # so the watcher, which the reactive no longer runs, is called here.
        grown = virtual_size != self.virtual_size
        self._laying_out = True
        try:
            resized = super()._size_updated(size, virtual_size, container_size, layout=False)
        finally:
            self._laying_out = False
        if grown:
            self.watch_virtual_size()
        return resized

    def _scroll_update(self, virtual_size: Size) -> None:
        super()._scroll_update(virtual_size)
        if not self._laying_out:
            return
        # Called by the screen's layout (`_size_updated`), which paints right after: the
        # scrollbar's new thumb goes into that frame. Left to its own repaint request (posted
        # when the scrollbar next goes idle, after the frame), it cost a second painted frame,
        # the whole bar re-rendered, after every flush that grew the content.
        scrollbar = self.vertical_scrollbar if self.show_vertical_scrollbar else None
        if scrollbar is None or not scrollbar._repaint_required:
            return
        compositor = self.screen._compositor
        if scrollbar in compositor.visible_widgets:
            compositor.update_widgets({scrollbar})
            scrollbar._repaint_required = False

    def release_anchor(self) -> None:
        # Textual releases the anchor on any user scroll and, on 8.2.8, does not re-engage it
        # reliably (textual#6677). The Conversation owns following instead: it un-anchors when the
        # user scrolls up and re-anchors at the end, so a scroll only keeps its target here.
        self.scroll_target_y = self.scroll_y

    def action_scroll_end(self) -> None:
        conversation = self.parent
        assert isinstance(conversation, Conversation)
        conversation.jump_to_end()

    def action_scroll_home(self) -> None:
        conversation = self.parent
        assert isinstance(conversation, Conversation)
        conversation.jump_to_start()


class NewContentHint(Static):
    """The "new content below" line shown while the user reads further up."""

    DEFAULT_CSS: ClassVar[str] = """
    NewContentHint {
        display: none;
        height: 1;
        width: 100%;
        content-align: center middle;
        background: $accent 30%;
        color: $text;
        &.-shown {
            display: block;
        }
    }
    """

    class Pressed(Message):
        """The hint was clicked; handled by `Conversation` to jump to the end."""

    def on_click(self) -> None:
        self.post_message(self.Pressed())


class Conversation(Vertical):
    """Shows the conversation's blocks, at most `max_mounted` views at a time.

    Owns the ordered list of shown blocks (debug blocks only with `show_debug`), the window
    `[lo, hi)` of them that is mounted, their views, and the follow state. Textual lays out every
    mounted widget on every frame and a view is tens of widgets (Markdown is one per paragraph,
    list item, table cell), so what is mounted stays bounded however long the conversation, in
    count and therefore in memory: following the stream keeps the views that fill about two
    screens (`window` at most); a burst (a resumed thread) mounts, last first, only those that
    fill the screen; scrolling to the top or bottom edge mounts the next `chunk` views there and
    unmounts as many at the far end; Home, and going to a decision far above (`reveal`), mount the
    views around where they go and drop the rest. Inside one long message,
    the chunks far from the viewport are hidden too (`TextView.hide_outside`, after every scroll
    and every layout that changed the content's height). Core keeps every block, so a view is
    rebuilt from its block whenever it comes back. UI thread only.
    """

    DEFAULT_CSS: ClassVar[str] = """
    Conversation {
        height: 1fr;
        & > #welcome {
            padding: 1 2;
            color: $text-muted;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+end", "jump_to_end", "Follow", show=False, id="tandem.follow"),
    ]
    """
    | Key | Description |
    | :- | :- |
    | ctrl+end | Jump to the end of the conversation and follow the stream again. |
    """

    window: ClassVar[int] = 60
    """Views kept mounted while following the stream."""
    chunk: ClassVar[int] = 20
    """Views mounted at once when scrolling past the top or bottom of the window."""
    max_mounted: ClassVar[int] = 100
    """The most views ever mounted at once."""
    margin: ClassVar[float] = 1.0
    """How far above and below the viewport (in viewport heights) a long message's chunks stay laid out."""
    burst: ClassVar[int] = 20
    """Views mounted when more than `window` blocks arrive at once (a restored thread) before the
    view has a size: enough to fill a tall terminal; scrolling up mounts the rest. With a size,
    only the views that fill it are mounted (see `_fill_count`)."""
    REVEAL_ATTEMPTS: ClassVar[int] = 3
    """How many times `reveal` scrolls again when a layout moved the view before it was drawn."""
    follow_minimum: ClassVar[int] = 10
    """Views kept mounted while following however tall the last ones are (scrolling back a little
    needs no mount)."""

    following = var(True)
    """Whether the view sticks to the end of the stream."""
    show_debug = var(False)
    """Whether debug blocks (protocol traffic) are shown."""

    class FollowChanged(Message):
        """Following started or stopped; handled as `on_conversation_follow_changed`."""

        def __init__(self, following: bool) -> None:
            super().__init__()
            self.following = following
            """Whether the view follows the stream now."""

    def __init__(
        self,
        *,
        welcome: Content | None = None,
        timestamps: Callable[[Block], float | None] | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self._welcome = welcome
        self._timestamps = timestamps or (lambda block: None)
        self.all_blocks: list[Block] = []
        """Every block the app was given, in order (shown or not)."""
        self._shown: list[Block] = []
        self._lo = 0
        self._hi = 0
        self._views: dict[str, BlockView] = {}
        self._unseen = False
        self._adjusting = False
        self._serial = 0
        self._preview: list[BlockView] = []
        """Views of a resumed thread's stored last blocks, until the replayed blocks come."""

    def compose(self) -> ComposeResult:
        with ConversationScroll(self._scrolled, on_laid_out=self._window_messages, id="conversation-scroll"):
            if self._welcome is not None:
                yield Static(self._welcome, id="welcome")
        yield NewContentHint(Content("▼ new content below · End (ctrl+end) follows again"), id="new-content-hint")

    @property
    def scroller(self) -> ConversationScroll:
        """The scroll container holding the views."""
        return self.query_one(ConversationScroll)

    @property
    def mounted_views(self) -> list[BlockView]:
        """The views currently mounted, top to bottom."""
        return [self._views[block.id] for block in self._shown[self._lo : self._hi] if block.id in self._views]

    @property
    def keeping_place(self) -> bool:
        """Whether views were just mounted above or below and the scroll that keeps the reader's
        place (the same block at the top of the view) is still to run, after the next layout."""
        return self._adjusting

    @property
    def preview_views(self) -> list[BlockView]:
        """The views of a resumed thread's stored last blocks, while they stand in (`show_preview`)."""
        return list(self._preview)

    @property
    def shown_blocks(self) -> list[Block]:
        """The blocks the conversation shows (in the window or not)."""
        return list(self._shown)

    def view_of(self, block: Block) -> BlockView | None:
        """The mounted view of `block`, if it is in the window."""
        return self._views.get(block.id)

    # -- watchers ----------------------------------------------------------------------------

    def on_mount(self) -> None:
        self.scroller.anchor(self.following)
        # Text views lay out appended text in their own workers, after the frame that changed the
        # content height; a slow look-again catches chunks that moved far away since.
        self.set_interval(0.25, self._window_messages)

    def watch_following(self, following: bool) -> None:
        if self.is_mounted:
            # Not now: this may run inside a scroll animation's step, which must not be stopped
            # from within (Textual's animator would lose its place).
            self.call_later(self._apply_anchor)
        if following:
            self._unseen = False
        self._update_hint()
        self.post_message(self.FollowChanged(following))

    def _apply_anchor(self) -> None:
        # Anchored, Textual's compositor keeps the end in view on every layout, including
        # Markdown that grows after the bridge painted it.
        if self.scroller.is_anchored != self.following:
            self.scroller.anchor(self.following)

    def watch_show_debug(self, show: bool) -> None:
        self._shown = self._shown_of(self.all_blocks)
        self._remount_end()

    # -- the bridge's entry points -------------------------------------------------------------

    def show_preview(self, blocks: Sequence[Block]) -> AwaitMount | None:
        """Show a resumed thread's stored last blocks (`core.store.tail`) at the end, as their views
        will show them, until the replayed blocks come: the first `add_blocks` replaces them.

        They are not the conversation's blocks (`all_blocks` stays empty): nothing is windowed,
        decided on or kept from them.
        """
        if self._preview or self._shown or not blocks:
            return None
        # Only what fills the terminal (the view has no size yet in the first frame): each view
        # costs its Markdown, and the replayed blocks replace them all a moment later.
        size = self.app.size
        width, need, rows = max(10, size.width - 4), size.height, 0
        start = len(blocks)
        while start > 0 and rows < need:
            start -= 1
            rows += self._estimated_height(blocks[start], width)
        self._hide_welcome()
        views = []
        for block in blocks[start:]:
            view = self._make_view(block)
            del self._views[block.id]  # the replayed block's view takes the id's place
            views.append(view)
        self._preview = views
        mounted = self.scroller.mount_all(views)
        self._scroll_to_end()
        return mounted

    def drop_preview(self) -> None:
        """Remove the stored last blocks' views (the replayed blocks came, or the restore failed)."""
        views, self._preview = self._preview, []
        if views:
            self.scroller.remove_children(views)
            if not self._shown:
                self.scroller.query_children("#welcome").set(display=True)

    def add_blocks(self, blocks: Iterable[Block]) -> Mounting:
        """Append blocks; mounted at once while following, else announced by the hint.

        Returns:
            The mounts and removals this started, and the views it mounted (the app's flush
            frame waits for them to settle before the screen lays the flush out).
        """
        # The replayed thread: its views replace the stored last screenful's, in this frame.
        self.drop_preview()
        batch = list(blocks)
        self.all_blocks.extend(batch)
        new = self._shown_of(batch)  # once per batch: a resumed thread adds thousands at once
        self._shown.extend(new)
        started = Mounting([], [])
        if not new:
            return started
        self._hide_welcome()
        at_end = self._hi == len(self._shown) - len(new)
        if self.following and at_end:
            # Mount only what stays in the window: what fills about two screens while following
            # (a block that scrolls away before it is seen gets no view at all), and for a burst
            # (a resumed thread) what fills one, the last block first.
            if len(new) <= self.window:
                keep = max(self.follow_minimum, self._fill_count(len(self._shown), screens=2.0))
                if len(self._shown) - keep >= self._hi:
                    # The new blocks alone fill the window (a fast stream: several messages and
                    # tool calls per frame), so every view they would mount replaces all the
                    # others: as for a burst, build only what fills the screen, not views that
                    # scroll away before they are seen (scrolling up mounts them when reached).
                    keep = self._fill_count(len(self._shown), screens=1.0 + self.margin / 2)
            else:
                keep = self._fill_count(len(self._shown), screens=1.0 + self.margin / 2)
            new_lo = max(self._lo, len(self._shown) - keep)
            removal = self._unmount(self._shown[self._lo : min(new_lo, self._hi)])
            if removal is not None:
                started.done.append(removal)
            self._lo = new_lo
            self._hi = max(self._hi, new_lo)
            started.views.extend(self._mount_range(self._hi, len(self._shown), awaiting=started.done))
            self._scroll_to_end()
        else:
            self._unseen = True
            self._update_hint()
        return started

    def refresh_blocks(self, blocks: Iterable[Block]) -> None:
        """Repaint the views of changed blocks that are mounted (others repaint when mounted)."""
        for block in blocks:
            view = self._views.get(block.id)
            # A view not mounted yet reads the block's latest state when it mounts.
            if view is not None and view.is_mounted:
                view.refresh_block()
                if not self.following:
                    self._unseen = self._unseen or block is self._shown[-1]
        if self.following:
            self._scroll_to_end()
        else:
            self._update_hint()

    def clear(self) -> None:
        """Forget every block and view (a new conversation)."""
        self.drop_preview()
        self.scroller.remove_children(list(self._views.values()))
        self._views.clear()
        self.all_blocks.clear()
        self._shown.clear()
        self._lo = self._hi = 0
        self._unseen = False
        self.following = True
        self.scroller.query_children("#welcome").set(display=True)

    def set_welcome(self, welcome: Content) -> None:
        """Replace the welcome text (shown until the first block arrives)."""
        self._welcome = welcome
        for static in self.scroller.query_children("#welcome").results(Static):
            static.update(welcome)

    # -- actions -----------------------------------------------------------------------------

    def action_jump_to_end(self) -> None:
        self.jump_to_end()

    def jump_to_end(self) -> None:
        """Show the last views, scroll to the end and follow the stream again."""
        if self._hi < len(self._shown):
            self._remount_end()
        self.following = True
        self._scroll_to_end()

    def on_new_content_hint_pressed(self, _message: NewContentHint.Pressed) -> None:
        self.jump_to_end()

    def jump_to_start(self) -> None:
        """Show the first views and scroll to the top (Home): the mounted window moves there."""
        if not self._shown:
            self.scroller.scroll_home(animate=False)
            return
        self.following = False
        if self._lo > 0:
            self._unmount(self._shown[self._lo : self._hi])
            self._lo = self._hi = 0
            self._mount_range(0, min(len(self._shown), self.chunk))
        self._update_hint()
        self._adjusting = True

        def scroll() -> None:
            try:
                self.scroller.scroll_home(animate=False, immediate=True)
            finally:
                self._adjusting = False

        self.scroller.call_after_refresh(scroll)

    def reveal(self, block: Block, then: Callable[[BlockView], object] | None = None) -> BlockView | None:
        """Mount the views around `block`, wherever it is, and scroll it into view once laid out.

        Following stops unless the block is among the last views. Returns the block's view (None
        if the conversation does not show the block).

        Args:
            then: Called with the view once it has been scrolled into view (e.g. to focus in it):
                after the views it replaces are gone and the new ones are mounted and laid out.
                Scrolling before that scrolled to where the view was in a layout still holding the
                old views (or before its Markdown was built), and left it off screen.
        """
        try:
            index = self._shown.index(block)
        except ValueError:
            return None
        pending: list[Awaitable[object]] = []
        if block.id not in self._views:
            if (removal := self._unmount(self._shown[self._lo : self._hi])) is not None:
                pending.append(removal)
            half = self.chunk // 2
            self._lo = self._hi = max(0, index - half)
            self._mount_range(self._lo, min(len(self._shown), index + half + 1), awaiting=pending)
        view = self._views[block.id]
        if self._hi < len(self._shown):
            self.following = False
        self._update_hint()

        def scroll(attempt: int = 0) -> None:
            if not view.is_attached:
                return
            self.scroller.scroll_to_widget(view, animate=False, immediate=True, top=True, force=True)
            if then is not None:
                self.scroller.call_after_refresh(hand_over, attempt)

        def hand_over(attempt: int) -> None:
            # The screen's map of regions changes only when it is next drawn: hand the view over
            # once the scroll is on screen. A layout that moved it meanwhile (a Markdown block
            # finished building above it) gets the scroll again, a bounded number of times.
            if not view.is_attached or then is None:
                return
            if view.region.overlaps(self.scroller.content_region) or attempt >= self.REVEAL_ATTEMPTS:
                then(view)
            else:
                scroll(attempt + 1)

        async def place() -> None:
            for awaitable in pending:
                await awaitable
            self.scroller.call_after_refresh(scroll)

        self.call_later(place)
        return view

    # -- windowing ---------------------------------------------------------------------------

    def _shown_of(self, blocks: list[Block]) -> list[Block]:
        """The blocks of `blocks` the conversation shows (debug blocks only when asked)."""
        if self.show_debug or not blocks:
            return list(blocks)  # (no blocks: nothing to import core for before the first frame)
        from tandem.core.handlers import DebugBlock

        return [block for block in blocks if not isinstance(block, DebugBlock)]

    def _fill_count(self, stop: int, *, screens: float) -> int:
        """How many views, ending before `stop`, fill `screens` viewport heights (at most `window`).

        Heights are estimated from the blocks' text (a header, a margin and its lines wrapped at
        the view's width), so nothing is laid out to decide what to lay out. Before the view has
        a size, `burst`.
        """
        region = self.scroller.scrollable_content_region
        if not region.height or not region.width:
            return min(self.burst, stop)
        need = region.height * screens
        width = max(10, region.width - 4)  # the text view's border and padding
        count = total = 0
        for block in reversed(self._shown[max(0, stop - self.window) : stop]):
            count += 1
            total += self._estimated_height(block, width)
            if total >= need:
                break
        return max(1, count)

    @staticmethod
    def _estimated_height(block: Block, width: int) -> int:
        text = getattr(block, "text", None)
        if not isinstance(text, str):
            return 4  # a card: a title, a line or two, a margin
        # Header and margin; every line, plus one per `width` characters it wraps over (counted
        # in C: a 20,000-token answer is estimated as fast as a one-liner).
        return 2 + text.count("\n") + 1 + len(text) // width

    def _make_view(self, block: Block) -> BlockView:
        from tandem.widgets import TextView, safe_id, view_for

        # A view unmounted a moment ago may still be in the DOM while its block comes back, so
        # each mount gets its own (encoded) id.
        self._serial += 1
        view = view_for(block, id=f"{safe_id(block.id)}--{self._serial}")
        if isinstance(view, TextView):
            view.timestamp = self._timestamps(block)
        self._views[block.id] = view
        return view

    def _mount_range(
        self, start: int, stop: int, *, before: Widget | None = None, awaiting: list[Awaitable[object]] | None = None
    ) -> list[BlockView]:
        """Mount the views of `_shown[start:stop]` (before `before`, else at the end); the mount's
        awaitable is added to `awaiting` if given."""
        views = [self._make_view(block) for block in self._shown[start:stop]]
        if views:
            if before is not None:
                mounted = self.scroller.mount_all(views, before=before)
            else:
                mounted = self.scroller.mount_all(views)
            if awaiting is not None:
                awaiting.append(mounted)
        if before is not None:
            self._lo = start
        else:
            self._hi = stop
        return views

    def _unmount(self, blocks: list[Block]) -> Awaitable[object] | None:
        """Remove the views of `blocks`; returns what completes once they are gone (None: there were none)."""
        views = [self._views.pop(block.id) for block in blocks if block.id in self._views]
        if views:
            return self.scroller.remove_children(views)
        return None

    def _trim_top(self, *, keep: int) -> int:
        """Unmount views above the last `keep`; returns the height removed (in lines)."""
        excess = (self._hi - self._lo) - keep
        if excess <= 0:
            return 0
        blocks = self._shown[self._lo : self._lo + excess]
        height = sum(self._views[b.id].outer_size.height for b in blocks if b.id in self._views)
        self._unmount(blocks)
        self._lo += excess
        return height

    def _trim_bottom(self, *, keep: int) -> None:
        excess = (self._hi - self._lo) - keep
        if excess > 0:
            self._unmount(self._shown[self._hi - excess : self._hi])
            self._hi -= excess

    def _remount_end(self) -> None:
        self._unmount(self._shown[self._lo : self._hi])
        keep = max(self.follow_minimum, self._fill_count(len(self._shown), screens=2.0))
        self._lo = self._hi = max(0, len(self._shown) - keep)
        self._mount_range(self._lo, len(self._shown))

    def _scrolled(self, old: float, new: float) -> None:
        if not self.is_mounted:
            return
        self._window_messages()
        if self._adjusting:
            return
        scroller = self.scroller
        at_bottom = new >= scroller.max_scroll_y - 0.5
        if at_bottom:
            if self._hi < len(self._shown):
                self._extend_down()
            elif not self.following:
                self.following = True
        elif new < old and self.following:
            # Content shrinking clamps scroll_y too, but then the view is still at the bottom.
            self.following = False
        if new <= 0 and self._lo > 0:
            self._extend_up()

    def _window_messages(self) -> None:
        """Lay out only the chunks of long messages that are near the viewport."""
        if not self._views:
            return  # and `widgets` is not imported before the first block: start-up paints first
        from tandem.widgets import TextView

        scroller = self.scroller
        height = scroller.scrollable_content_region.height
        top = int(scroller.scroll_y - height * self.margin)
        bottom = int(scroller.scroll_y + height * (1 + self.margin))
        for view in self._views.values():
            if isinstance(view, TextView) and view.is_mounted and view.statistics().chunks > 1:
                y = view.virtual_region.y
                view.hide_outside(top - y, bottom - y)

    def _extend_up(self) -> None:
        anchor = self._views.get(self._shown[self._lo].id)
        start = max(0, self._lo - self.chunk)
        self._mount_range(start, self._lo, before=anchor)
        self._trim_bottom(keep=self.max_mounted)
        if anchor is not None:
            self._keep_at_top(anchor)

    def _extend_down(self) -> None:
        anchor = self._top_visible_view()
        self._mount_range(self._hi, min(len(self._shown), self._hi + self.chunk))
        self._trim_top(keep=self.max_mounted)
        if anchor is not None and anchor.is_attached:
            self._keep_at_top(anchor, offset=anchor.region.y - self.scroller.content_region.y)

    def _top_visible_view(self) -> BlockView | None:
        top = self.scroller.content_region.y
        for view in self.mounted_views:
            if view.region.bottom > top:
                return view
        return None

    def _keep_at_top(self, anchor: Widget, *, offset: int = 0) -> None:
        """After the next layout, scroll so `anchor` sits `offset` lines below the top."""
        self._adjusting = True

        def adjust() -> None:
            try:
                if anchor.is_attached:
                    self.scroller.scroll_to(y=anchor.virtual_region.y - offset, animate=False, immediate=True)
            finally:
                self._adjusting = False

        self.scroller.call_after_refresh(adjust)

    def _scroll_to_end(self) -> None:
        self.scroller.scroll_end(animate=False)

    def _hide_welcome(self) -> None:
        # The welcome is a child of the scroller: a `query` would walk every widget of every
        # mounted message (tens of thousands on a long thread) on each batch of blocks.
        for welcome in self.scroller.query_children("#welcome"):
            welcome.display = False

    def _update_hint(self) -> None:
        hint = self.query_one(NewContentHint)
        hint.set_class(not self.following and (self._unseen or self._hi < len(self._shown)), "-shown")
