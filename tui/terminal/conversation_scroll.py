"""The conversation's scroll container (one layout per flush, through Textual's size and scroll internals), and the hint that new content waits below."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.message import Message
from textual.scrollbar import ScrollBar
from textual.widgets import Static

from tandem.tui.terminal.steady_scrollbar import steady_vertical_scrollbar

__all__ = ["ConversationScroll", "NewContentHint"]


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

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        return steady_vertical_scrollbar(self)  # (rendered again only when its thumb moved)

    def release_anchor(self) -> None:
        # Textual releases the anchor on any user scroll and, on 8.2.8, does not re-engage it
        # reliably (textual#6677). The Conversation owns following instead: it un-anchors when the
        # user scrolls up and re-anchors at the end, so a scroll only keeps its target here.
        self.scroll_target_y = self.scroll_y

    def action_scroll_end(self) -> None:
        from tandem.tui.app.conversation import Conversation

        conversation = self.parent
        assert isinstance(conversation, Conversation)
        conversation.jump_to_end()

    def action_scroll_home(self) -> None:
        from tandem.tui.app.conversation import Conversation

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
