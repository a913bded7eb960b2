"""Streaming Markdown for a text block: appends only what is new, splits long messages."""

from __future__ import annotations

import asyncio
import datetime
import time
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.content import Content
from textual import events
from textual.widget import Widget
from textual.widgets import Markdown, Static

from tandem.core.blocks.base import Lifecycle
from tandem.core.blocks.text import TextBlock
from tandem.widgets.block_view import BlockView
from tandem.widgets.chunk_freezing import ChunkFreezing
from tandem.widgets.chunk_window import ChunkWindow
from tandem.widgets.frozen_markdown import FrozenMarkdown
from tandem.widgets.hidden_chunk import HiddenChunk
from tandem.widgets.laid_out_once import LaidOutOnce, StreamMarkdown, hand_in_layout_requests
from tandem.widgets.markdown_chunks import BuiltMarkdown, ChunkSplitter, chunk_classes, runs_on, shared_parser
from tandem.widgets.markdown_depth import DepthLimiter
from tandem.widgets.markdown_lexers import warm_lexers
from tandem.widgets.painted_batch import painted_batch
from tandem.widgets.sanitize import reveal, sanitize
from tandem.widgets.screen_turn import screen_turn
from tandem.widgets.text_statistics import TextViewStatistics

# (`ChunkSplitter`, `BuiltMarkdown`, `shared_parser` and `painted_batch` are also imported from here,
# by `value_viewer` and the tests: they stay importable from this module.)
__all__ = ["TextView", "TextViewStatistics", "ChunkSplitter", "BuiltMarkdown"]


class _Spacer(LaidOutOnce, Widget):
    """Stands in for the hidden chunks of a `TextView` (their total height); owns nothing."""


class TextView(ChunkWindow, ChunkFreezing, LaidOutOnce, BlockView):
    """A user or assistant message: header (author, time), streaming Markdown, a "stopped" mark.

    Owns its chunks (live `Markdown`, `FrozenMarkdown` or `HiddenChunk`), the spacers standing in
    for hidden ones, and a drain worker (`DRAIN_GROUP`) that appends new text to the last chunk,
    coalescing what arrives while Markdown is busy. It guarantees:

    - a paint feeds only the text added since the last one: a token costs O(token), not O(message);
    - a new chunk starts after `blocks_per_chunk` Markdown blocks, at a blank line outside a code
      fence, so an append's cost stays bounded (Textual's Markdown slows as its document grows);
    - only the last chunk is live: a finished one is frozen once painted (`ChunkFreezing`), as one
      widget of painted lines never rendered again; a new width or theme thaws it;
    - chunks far above the viewport (and far below, once the message is finished) are hidden by
      the scrolling container (`hide_outside`, `ChunkWindow`): only their source is kept, so
      memory stays bounded however long the answer grows, and they are rebuilt when scrolled near.

    UI thread only. The time comes from `timestamp` (epoch seconds), set by the app; None shows no
    time (snapshots show no clock).
    """

    DEFAULT_CSS: ClassVar[str] = """
    TextView {
        height: auto;
        margin: 0 0 1 0;
        padding: 0 1;
        border-left: outer $primary;
        & > .text-view--header {
            color: $text-muted;
            text-style: bold;
        }
        & > Markdown {
            margin: 0;
            padding: 0;
            background: transparent;
        }
        & > .-runs-on > MarkdownParagraph {
            margin-bottom: 0;  /* a paragraph cut in two (ChunkSplitter): the next chunk goes on with it */
        }
        & > .text-view--spacer {
            display: none;
        }
        & > .text-view--stopped {
            display: none;
            color: $text-warning;
            text-style: italic;
        }
        &.-stopped > .text-view--stopped {
            display: block;
        }
        &.-user {
            border-left: outer $accent;
            background: $boost;
        }
    }
    """

    BLOCKS_PER_CHUNK: ClassVar[int] = 8
    """Markdown blocks (paragraphs, lists, fences) per chunk widget before a new one starts: the
    live chunk's widgets are laid out on every frame while it grows, a frozen one is one widget."""
    FREEZE_ATTEMPTS: ClassVar[int] = 20
    """Frames a finished chunk may wait to be painted (laid out, not busy) before freezing is given up."""
    BATCH_RETRY_SECONDS: ClassVar[float] = 1 / 60
    """How soon a freeze pass that met another widget's batch update looks again."""
    DEFER_SECONDS: ClassVar[float] = 0.5
    """The longest a freeze's swap or a hide waits for the next drain pass (to share its layout) while the block streams."""
    CHUNKS_PER_PASS: ClassVar[int] = 8
    """New chunks one drain pass mounts at most (a few screens): the next pass mounts more, once
    the view could hide what went far above the viewport. Each pass costs a frame: fewer per
    pass cost more CPU in a burst."""
    REQUESTS_WAIT_SECONDS: ClassVar[float] = 0.02
    """The longest a pass holds its frame back for the new blocks' layout requests (`_requests_handed_in`)."""
    DRAIN_GROUP: ClassVar[str] = "text-view-drain"
    """The worker group of the drain that appends to Markdown (the app waits for it before a full collection)."""

    def __init__(
        self,
        block: TextBlock,
        *,
        timestamp: float | None = None,
        blocks_per_chunk: int | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(block, name=name, id=id, classes=classes)
        self.timestamp = timestamp
        """When the message was sent or started (epoch seconds), set by the app; None shows no time."""
        self._splitter = ChunkSplitter(blocks_per_chunk or self.BLOCKS_PER_CHUNK)
        self._fed = 0
        self._depth = DepthLimiter()  # nested quotes and lists bounded (each level is a widget)
        self._outbox: list[list[str]] = []
        self._draining = False
        self._in_pass = False
        self._freeze_after_pass = False
        self._deferred_swaps: list[tuple[Markdown, FrozenMarkdown]] = []
        self._deferred_hide: int | None = None
        self._deferred_timer: Any = None
        self._chunks: list[Markdown | FrozenMarkdown | HiddenChunk] = []
        self._freeze_scheduled = False
        self._freeze_attempts = 0
        self._shown_header: Content | None = None
        self._swap_lock: asyncio.Lock | None = None
        self._frozen_width = 0
        self._hidden = 0  # the chunks hidden above: a leading run of `HiddenChunk`s in `_chunks`
        self._hidden_below = 0  # ... and below: the run just before the last chunk (a finished message)
        self._target: tuple[int, int] | None = None  # (leading, trailing) hidden, while `_show_hidden` goes there
        self._gone: list[Widget] = []  # chunk widgets just hidden, to be removed
        self._spacer = _Spacer(classes="text-view--spacer")
        self._spacer_below = _Spacer(classes="text-view--spacer")
        self._hidden_width = 0
        self._paints = 0
        self._chars_written = 0
        self._appended_at = 0.0

    def compose(self) -> ComposeResult:
        yield Static(classes="text-view--header")
        yield self._spacer
        # A finished message (a resumed thread, a view scrolled back into the window) mounts
        # with its Markdown built, in the same mount as the view: one layout, no drain.
        yield from self._finished_chunks()
        yield self._spacer_below  # (moved before the last chunk when chunks below hide)
        yield Static(Content("■ stopped"), classes="text-view--stopped")

    def on_mount(self) -> None:
        # (BlockView.on_mount runs too: Textual calls each class's handler.)
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)
        if len(self._chunks) > 1:
            # Built finished: every chunk but the last can freeze once painted (not from here:
            # the view counts as mounted only once its mount handlers have run).
            self.call_after_refresh(self._schedule_freeze)

    def on_unmount(self) -> None:
        # Textual's signal keeps a subscriber's callback (a bound method: the view itself) until
        # the signal is next published, so a view scrolled out of the window would stay in memory,
        # with its chunks and their painted lines, until the theme changes.
        self.app.theme_changed_signal.unsubscribe(self)

    def on_resize(self, _event: events.Resize) -> None:
        # A new width rewraps every chunk: the heights the spacer stands for no longer hold.
        if (self._hidden or self._hidden_below) and self.size.width != self._hidden_width:
            self._move_to(0, 0)
        # ... and the lines frozen chunks hold were painted for the old width.
        if self._frozen_width and self.size.width != self._frozen_width:
            self._thaw_all()

    def update_from_block(self) -> None:
        block = self.block
        assert isinstance(block, TextBlock)
        self._paints += 1
        self.set_class(block.role == "user", "-user")
        self.set_class(block.stopped, "-stopped")
        header = self._header()
        if header != self._shown_header:  # an update lays the whole screen out again: not per token
            self._shown_header = header
            self.query_one(".text-view--header", Static).update(header)
        text = block.text
        if len(text) > self._fed:
            if not self._fed and self._streaming():
                warm_lexers()  # (an answer begins: its first code fence finds its lexer ready)
            suffix = self._depth.feed(sanitize(text[self._fed :]))
            self._fed = len(text)
            self._queue(suffix)
        self._schedule_flush()

    def statistics(self) -> TextViewStatistics:
        """Paints, characters written and chunk count so far."""
        frozen = sum(isinstance(chunk, FrozenMarkdown) for chunk in self._chunks)
        return TextViewStatistics(
            self._paints, self._chars_written, len(self._chunks), self._hidden, self._appended_at, frozen,
            self._hidden_below,
        )

    @property
    def chunks(self) -> list[Markdown | FrozenMarkdown | HiddenChunk]:
        """The pieces of the message, in order: live Markdown, frozen, or hidden with no widget (all have `source`)."""
        return list(self._chunks)

    def _header(self) -> Content:
        block = self.block
        author = " ".join(reveal(block.speaker).split())  # an agent's name: nothing hidden in it
        header = Content(author)
        if self.timestamp is not None:
            when = datetime.datetime.fromtimestamp(self.timestamp).strftime("%H:%M")
            header = header + Content(f" · {when}")
        return header

    def _queue(self, suffix: str) -> None:
        """Split the new text at chunk boundaries; the first piece continues the last chunk."""
        cuts = self._splitter.feed(suffix)
        start = 0
        pieces: list[str] = []
        for cut in cuts:
            pieces.append(suffix[start:cut])
            start = cut
        pieces.append(suffix[start:])
        if not self._outbox:
            self._outbox.append([])
        self._outbox[-1].append(pieces[0])
        for piece in pieces[1:]:
            self._outbox.append([piece])

    def _finished_chunks(self) -> list[BuiltMarkdown]:
        """The first chunks of the block's whole text, built, if the block is finished (else none: it streams).

        At most `CHUNKS_PER_PASS` are built with the view (one layout); the rest wait in the queue
        and the drain mounts them pass by pass as if they streamed, so a giant message (one built
        finished: resumed, or ended before its view was made) never costs one layout of all of it.
        """
        block = self.block
        assert isinstance(block, TextBlock)
        if block.lifecycle is not Lifecycle.INACTIVE or self._fed:
            return []
        text = block.text
        if not text:
            return []
        self._fed = len(text)
        text = self._depth.feed(sanitize(text))
        start = 0
        sources: list[str] = []
        for cut in self._splitter.feed(text):
            sources.append(text[start:cut])
            start = cut
        sources.append(text[start:])
        sources = [source for source in sources if source]
        built, rest = sources[: self.CHUNKS_PER_PASS], sources[self.CHUNKS_PER_PASS :]
        if rest:
            self._outbox = [[], *([source] for source in rest)]  # (the first entry would go on with the last chunk built)
        chunks = [
            BuiltMarkdown(source, open_links=False,
                          classes=chunk_classes(source) if index < len(sources) - 1 else "text-view--chunk")
            for index, source in enumerate(built)
        ]
        self._chunks.extend(chunks)
        self._chars_written += sum(map(len, built))
        self._appended_at = time.perf_counter()
        return chunks

    def _schedule_flush(self) -> None:
        if not self._draining and self._outbox:
            self._draining = True
            self.run_worker(self._drain(), group=self.DRAIN_GROUP, exit_on_error=False)

    def _streaming(self) -> bool:
        """Whether more text may come (the block is not finished)."""
        return self.block.lifecycle is not Lifecycle.INACTIVE

    async def _drain(self) -> None:
        """Append queued text to the chunk widgets until the queue is empty.

        Runs as a worker (cancelled with the view). Text that arrives during a pass is appended
        in one go by the next one, so the view coalesces when Markdown falls behind. Each pass is
        one batch update (`painted_batch`): the screen lays out and paints its appends, new
        chunks, swaps and hides once. A frame is painted between two passes, so a stream that
        never pauses still gets its frames.
        """
        try:
            while self._outbox:
                outbox, self._outbox = self._take_pass()
                self._in_pass = True
                try:
                    with painted_batch(self):
                        await self._apply_deferred()
                        await self._append_pass(outbox)
                        await self._requests_handed_in()
                finally:
                    self._in_pass = False
                if self._freeze_after_pass:
                    # Asked for while the batch held the frame back: the pass is painted next.
                    self._freeze_after_pass = False
                    self._schedule_freeze()
                if self._outbox:
                    await screen_turn(self)
        finally:
            self._draining = False

    def _take_pass(self) -> tuple[list[list[str]], list[list[str]]]:
        """What one pass appends (at most `CHUNKS_PER_PASS` new chunks) and what waits for the next one.

        A fast stream brings many chunks in one flush; mounted at once, they would all exist (a
        widget per paragraph) before any could be hidden. A few per pass, the ones far above the
        viewport are hidden between passes, which bounds the peak memory.
        """
        outbox = self._outbox
        if len(outbox) <= self.CHUNKS_PER_PASS + 1:
            return outbox, []
        # (The rest starts with an empty entry: its first piece is a new chunk, not more of the last one.)
        return outbox[: self.CHUNKS_PER_PASS + 1], [[], *outbox[self.CHUNKS_PER_PASS + 1 :]]

    async def _append_pass(self, outbox: list[list[str]]) -> None:
        """Append one snapshot of the queue: the first entry to the last chunk, each further one to a new chunk."""
        for index, pieces in enumerate(outbox):
            if index > 0 or not self._chunks:
                await self._new_chunk()
            fragment = "".join(pieces)
            if fragment:
                self._chars_written += len(fragment)
                live = self._chunks[-1]
                assert isinstance(live, Markdown)  # only finished chunks freeze
                await live.append(fragment)
                self._appended_at = time.perf_counter()

    async def _requests_handed_in(self) -> None:
        """Wait (inside the pass's batch) until the screen has heard every layout the pass asks for.

        On Textual 8.2.8 (pinned) a newly mounted widget posts the layout it asked for only when
        its message loop next goes idle; ending the batch before that costs a second layout per
        pass. So every widget of the view with a request waiting is prompted (`check_idle`), the
        pass yields until they have posted (`REQUESTS_WAIT_SECONDS` at most: a widget that never
        settles cannot hold frames back), then waits one turn of the screen, which handles them.
        """
        await hand_in_layout_requests(self.walk_children(Widget), time.monotonic() + self.REQUESTS_WAIT_SECONDS)
        await screen_turn(self)

    # -- work that waits for the next pass -----------------------------------------------------

    def _defer(self) -> None:
        """Make sure deferred swaps and hides are done, by the next pass or after `DEFER_SECONDS`."""
        if self._deferred_timer is None and self.is_mounted:
            self._deferred_timer = self.set_timer(self.DEFER_SECONDS, self._deferred_due)

    def _deferred_due(self) -> None:
        self._deferred_timer = None
        if not self._draining and (self._deferred_swaps or self._deferred_hide is not None):
            self.run_worker(self._apply_deferred_alone(), group=self.DRAIN_GROUP, exit_on_error=False)

    async def _apply_deferred_alone(self) -> None:
        if self._draining or not self.is_attached:
            return  # a pass started meanwhile: it does the work
        with painted_batch(self):
            await self._apply_deferred()

    async def _apply_deferred(self) -> None:
        """Swap in the chunks frozen and hide the chunks asked for since the last pass (inside the caller's batch)."""
        if self._deferred_timer is not None:
            self._deferred_timer.stop()
            self._deferred_timer = None
        hide, self._deferred_hide = self._deferred_hide, None
        if hide is not None and hide > self._hidden and self._target is None:
            _mounts, removal = self._apply_target(hide, self._hidden_below)
            if removal is not None:
                await removal  # (inside the pass's batch: laid out with it, not after it)
        swaps, self._deferred_swaps = self._deferred_swaps, []
        for live, frozen in swaps:
            if live not in self._chunks or frozen.painted_width != live.outer_size.width or not live.display:
                continue  # thawed, re-laid out at another width, or hidden since it was painted
            self._chunks[self._chunks.index(live)] = frozen
            await self._swap(live, frozen)

    async def _new_chunk(self) -> None:
        # Links are never opened by the widget: the app checks the scheme and asks first.
        chunk = StreamMarkdown(open_links=False, classes="text-view--chunk", parser_factory=shared_parser)
        if self._chunks and isinstance(self._chunks[-1], Markdown):
            self._chunks[-1].set_class(runs_on(self._chunks[-1].source), "-runs-on")  # (it is finished now)
        self._chunks.append(chunk)
        await self.mount(chunk, before=self.query_one(".text-view--stopped"))
        if len(self._chunks) > 1:
            self._schedule_freeze()  # the chunk before this one is finished
