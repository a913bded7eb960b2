"""The conversation view: a bounded window of block views over the whole conversation, and following its end."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import TYPE_CHECKING, ClassVar, NamedTuple

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.reactive import var
from textual.widget import AwaitMount, Widget
from textual.widgets import Static

from tandem.tui.terminal.conversation_scroll import ConversationScroll, NewContentHint
from tandem.tui.app.view_window import ViewWindow

if TYPE_CHECKING:
    # The view paints its welcome before core and the block widgets are imported: they are
    # imported when the first block arrives (the engine thread has loaded core by then).
    from tandem.core.blocks.base import Block
    from tandem.widgets.block_view import BlockView

__all__ = ["Conversation", "ConversationScroll", "Mounting", "NewContentHint"]  # (the scroll and the hint: re-exported)


class Mounting(NamedTuple):
    """What `Conversation.add_blocks` started: mounts and removals under way, and the views it mounted."""

    done: list[Awaitable[object]]
    """Completes once each mount or removal is done."""
    views: list[Widget]
    """The views being mounted (their children post their layout requests once prompted)."""


class Conversation(Vertical):
    """Shows the conversation's blocks, at most `max_mounted` views at a time, and follows its end.

    Owns every block it was given, its `ViewWindow` (the shown blocks, debug blocks only with
    `show_debug`, and which of them have a mounted view), the follow state and the "new content"
    hint. Following the stream keeps the views that fill about two screens; a burst (a resumed
    thread) mounts, last first, what fills one; scrolling to the top or bottom edge mounts the
    next `chunk` views there and unmounts as many at the far end; Home, and going to a block far
    above (`reveal`), mount the views around where they go. Inside one long message, the chunks
    far from the viewport are hidden (`TextView.hide_outside`). UI thread only.
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
    view has a size (with a size: what fills it)."""
    REVEAL_ATTEMPTS: ClassVar[int] = 3
    """How many times `reveal` scrolls again when a layout moved the view before it was drawn."""
    follow_minimum: ClassVar[int] = 10
    """Views kept mounted while following however tall the last ones are."""

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
        self.all_blocks: list[Block] = []
        """Every block the app was given, in order (shown or not)."""
        self._window = ViewWindow(self, timestamps or (lambda block: None))
        self._unseen = False
        self._adjusting = False

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
        return self._window.mounted_views

    @property
    def keeping_place(self) -> bool:
        """Whether views were just mounted above or below and the scroll that keeps the reader's
        place (the same block at the top of the view) is still to run, after the next layout."""
        return self._adjusting

    @property
    def preview_views(self) -> list[BlockView]:
        """The views of a resumed thread's stored last blocks, while they stand in (`show_preview`)."""
        return list(self._window.preview)

    @property
    def shown_blocks(self) -> list[Block]:
        """The blocks the conversation shows (in the window or not)."""
        return list(self._window.shown)

    def view_of(self, block: Block) -> BlockView | None:
        """The mounted view of `block`, if it is in the window."""
        return self._window.views.get(block.id)

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
        self._window.shown[:] = self._shown_of(self.all_blocks)
        self._window.mount_end()

    # -- the bridge's entry points -------------------------------------------------------------

    def show_preview(self, blocks: Sequence[Block]) -> AwaitMount | None:
        """Show a resumed thread's stored last blocks (`core.store.tail`) at the end, as their views
        will show them, until the replayed blocks come: the first `add_blocks` replaces them.

        They are not the conversation's blocks (`all_blocks` stays empty): nothing is windowed,
        decided on or kept from them.
        """
        if self._window.shown:
            return None
        mounted = self._window.mount_preview(blocks, self.app.size)
        if mounted is not None:
            self._hide_welcome()
            self._scroll_to_end()
        return mounted

    def drop_preview(self) -> None:
        """Remove the stored last blocks' views (the replayed blocks came, or the restore failed)."""
        if self._window.drop_preview() and not self._window.shown:
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
        window = self._window
        window.shown.extend(new)
        started = Mounting([], [])
        if not new:
            return started
        self._hide_welcome()
        if self.following and window.hi == len(window.shown) - len(new):
            started.views.extend(window.follow(len(new), started.done))
            self._scroll_to_end()
        else:
            self._unseen = True
            self._update_hint()
        return started

    def refresh_blocks(self, blocks: Iterable[Block]) -> None:
        """Repaint the views of changed blocks that are mounted (others repaint when mounted)."""
        for block in blocks:
            view = self._window.views.get(block.id)
            # A view not mounted yet reads the block's latest state when it mounts.
            if view is not None and view.is_mounted:
                view.refresh_block()
                if not self.following:
                    self._unseen = self._unseen or block is self._window.shown[-1]
        if self.following:
            self._scroll_to_end()
        else:
            self._update_hint()

    def clear(self) -> None:
        """Forget every block and view (a new conversation)."""
        self.drop_preview()
        self._window.clear()
        self.all_blocks.clear()
        self._unseen = False
        self.following = True
        self.scroller.query_children("#welcome").set(display=True)

    def set_welcome(self, welcome: Content) -> None:
        """Replace the welcome text (shown until the first block arrives)."""
        self._welcome = welcome
        for static in self.scroller.query_children("#welcome").results(Static):
            static.update(welcome)

    # -- actions -----------------------------------------------------------------------------

    def jump_to_end(self) -> None:
        """Show the last views, scroll to the end and follow the stream again."""
        if not self._window.at_end:
            self._window.mount_end()
        self.following = True
        self._scroll_to_end()

    def on_new_content_hint_pressed(self, _message: NewContentHint.Pressed) -> None:
        self.jump_to_end()

    def jump_to_start(self) -> None:
        """Show the first views and scroll to the top (Home): the mounted window moves there."""
        if not self._window.shown:
            self.scroller.scroll_home(animate=False)
            return
        self.following = False
        self._window.mount_start()
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
        """
        try:
            index = self._window.shown.index(block)
        except ValueError:
            return None
        pending: list[Awaitable[object]] = []
        if block.id not in self._window.views:
            self._window.mount_around(index, pending)
        view = self._window.views[block.id]
        if not self._window.at_end:
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

    # -- scrolling and following -------------------------------------------------------------

    def _shown_of(self, blocks: list[Block]) -> list[Block]:
        """The blocks of `blocks` the conversation shows (debug blocks only when asked)."""
        if self.show_debug or not blocks:
            return list(blocks)  # (no blocks: nothing to import core for before the first frame)
        from tandem.core.handlers import DebugBlock

        return [block for block in blocks if not isinstance(block, DebugBlock) and not getattr(block, "hidden", False)]

    def _scrolled(self, old: float, new: float) -> None:
        if not self.is_mounted:
            return
        self._window_messages()
        if self._adjusting:
            return
        scroller = self.scroller
        at_bottom = new >= scroller.max_scroll_y - 0.5
        if at_bottom:
            if not self._window.at_end:
                anchor = self._window.top_visible_view()
                self._window.extend_down()
                if anchor is not None and anchor.is_attached:
                    self._keep_at_top(anchor, offset=anchor.region.y - scroller.content_region.y)
            elif not self.following:
                self.following = True
        elif new < old and self.following:
            # Content shrinking clamps scroll_y too, but then the view is still at the bottom.
            self.following = False
        if new <= 0 and self._window.lo > 0 and (top := self._window.extend_up()) is not None:
            self._keep_at_top(top)

    def _window_messages(self) -> None:
        """Lay out only the chunks of long messages that are near the viewport."""
        self._window.hide_far_chunks(self.margin)

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
        hint.set_class(not self.following and (self._unseen or not self._window.at_end), "-shown")
