"""Streaming Markdown for a text block: appends only what is new, splits long messages."""

from __future__ import annotations

import asyncio
import datetime
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, ClassVar, NamedTuple

from markdown_it import MarkdownIt
from textual.app import ComposeResult
from textual.await_complete import AwaitComplete
from textual.await_remove import AwaitRemove
from textual.widget import AwaitMount
from textual.content import Content
from textual import events
from textual.theme import Theme
from textual.widget import Widget
from textual.widgets import Markdown, Static

from tandem.core.blocks.base import Lifecycle
from tandem.core.blocks.text import TextBlock
from tandem.widgets.block_view import BlockView
from tandem.widgets.frozen_markdown import FrozenMarkdown, paint
from tandem.widgets.hidden_chunk import HiddenChunk
from tandem.widgets.laid_out_once import LaidOutOnce, StreamMarkdown, hand_in_layout_requests
from tandem.widgets.markdown_depth import DepthLimiter
from tandem.widgets.markdown_lexers import warm_lexers
from tandem.widgets.sanitize import sanitize
from tandem.widgets.styles_cache import forget_removed_styles

__all__ = ["TextView", "TextViewStatistics", "ChunkSplitter", "BuiltMarkdown"]


class TextViewStatistics(NamedTuple):
    """What a `TextView` did, for tests and benchmarks."""

    paints: int
    """How many times `update_from_block` ran."""
    chars_written: int
    """Characters appended to Markdown chunks; equals the sanitised text length when only suffixes are fed."""
    chunks: int
    """How many chunks the message is split across (live Markdown, frozen, or hidden with no widget)."""
    hidden_chunks: int = 0
    """How many of them are hidden (far above the viewport, see `TextView.hide_outside`): kept as their source, no widget."""
    appended_at: float = 0.0
    """`time.perf_counter()` when the last append to a Markdown chunk completed (0: none yet)."""
    frozen_chunks: int = 0
    """How many chunks are frozen (painted once, kept as lines: `FrozenMarkdown`)."""
    hidden_below: int = 0
    """How many chunks are hidden far below the viewport (a finished message scrolled back), kept as their source."""


class ChunkSplitter:
    """Finds where a growing Markdown text may be cut into a new chunk.

    Owns the scan state (fence, partial line, blocks in the current chunk), so each call costs
    O(length of the new text), not O(message). A cut is allowed only at a blank line outside a
    fenced code block, after `blocks_per_chunk` blocks in the current chunk.
    """

    def __init__(self, blocks_per_chunk: int) -> None:
        self.blocks_per_chunk = blocks_per_chunk
        self._partial = ""
        self._fence: str | None = None
        self._blocks = 0
        self._previous_blank = True

    def feed(self, text: str) -> list[int]:
        """Scan new text; return the offsets in `text` after which a new chunk starts."""
        cuts: list[int] = []
        position = 0
        for piece in text.splitlines(keepends=True):
            position += len(piece)
            if not piece.endswith("\n"):
                self._partial += piece
                break
            line = self._partial + piece
            self._partial = ""
            if self._scan_line(line):
                cuts.append(position)
        return cuts

    def _scan_line(self, line: str) -> bool:
        stripped = line.strip()
        indent = len(line) - len(line.lstrip(" "))
        if indent < 4 and stripped[:3] in ("```", "~~~"):
            marker = stripped[0] * (len(stripped) - len(stripped.lstrip(stripped[0])))
            if self._fence is None:
                self._fence = marker
            elif stripped.startswith(self._fence) and not stripped.lstrip(self._fence[0]):
                self._fence = None
        blank = not stripped
        if self._fence is None and blank and not self._previous_blank:
            self._blocks += 1
            self._previous_blank = True
            if self._blocks >= self.blocks_per_chunk:
                self._blocks = 0
                return True
            return False
        self._previous_blank = blank
        return False


_parser: MarkdownIt | None = None


def shared_parser() -> MarkdownIt:
    """The one "gfm-like" parser every streamed chunk uses, with raw HTML read as text.

    Textual's `Markdown.append` builds a new `MarkdownIt("gfm-like")` for every append (its
    rules compiled again: ~1 ms each, 20 appends a second while a turn streams); a parser keeps
    no state between `parse` calls (each gets its own environment), so one serves them all.
    Textual's Markdown draws no HTML token: with markdown-it's `html` option on, a person's
    `<b>x</b>` showed as "x" and an agent's `<div>…</div>` line vanished whole. A terminal cannot
    render HTML, so it is shown as the characters that were written. UI thread only, like the
    widgets that call it.
    """
    global _parser
    if _parser is None:
        _parser = MarkdownIt("gfm-like", {"html": False})
    return _parser


class BuiltMarkdown(StreamMarkdown):
    """A `Markdown` whose blocks are built when it is made, and mounted with it in one pass.

    Owns nothing beyond `Markdown`: it only skips the empty document `Markdown` loads when it is
    mounted (which would remove the blocks composed here). `Markdown` mounts its blocks itself
    once mounted: an empty widget first, a parse in a thread, then the blocks in a second mount
    and a second layout; a finished message (a resumed thread, a view scrolled back into the
    window) needs neither step. It stays a `Markdown` in every other way (appends, links,
    selection, freezing).
    """

    def __init__(self, source: str, *, open_links: bool = True, classes: str | None = None) -> None:
        super().__init__(open_links=open_links, classes=classes, parser_factory=shared_parser)
        self._markdown = source
        self._skip_update = True
        lines = source.splitlines()
        # Where `Markdown.append` resumes parsing (what `Markdown.update` would have set).
        self._last_parsed_line = len(lines) - (1 if lines and lines[-1] else 0)

    def compose(self) -> ComposeResult:
        yield from self._build_from_source(self._markdown)

    def update(self, markdown: str) -> AwaitComplete:
        if self._skip_update and not markdown:
            # The empty document `Markdown._on_mount` loads: the blocks are composed already.
            self._skip_update = False
            self._theme = self.app.theme

            async def nothing() -> None:
                pass

            return AwaitComplete(nothing())
        self._skip_update = False
        return super().update(markdown)


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


@contextmanager
def painted_batch(widget: Widget) -> Iterator[None]:
    """`App.batch_update` that lets the screen paint what the batch changed once it ends.

    Textual 8.2.8 (pinned) ends a batch by prompting the app only: a screen that handled the
    batch's repaint and layout requests while the batch held its frames back (its update timer
    stays paused) is idle by then and hears nothing more, so nothing is painted until some other
    message reaches it (a key, a clock tick a second later). That is how a stream painted as one
    batch per drain pass stalled at one frame a second in a real terminal. Prompting the screen
    too (`check_idle`, a no-op while its queue is busy) lets it resume its update timer.
    """
    screen = widget.screen
    with widget.app.batch_update():
        yield
    screen.check_idle()


class _Spacer(LaidOutOnce, Widget):
    """Stands in for the hidden chunks of a `TextView` (their total height); owns nothing."""


class TextView(LaidOutOnce, BlockView):
    """A user or assistant message: header (author, time), streaming Markdown, a "stopped" mark.

    Owns one or more Markdown chunk widgets, the spacer standing in for hidden ones, and a drain
    worker that appends to the last chunk, coalescing what arrives while Markdown is busy. Each
    paint feeds only the text added since the last paint (a token costs O(token), not
    O(message)); after `blocks_per_chunk` Markdown blocks a new chunk widget starts at a blank
    line outside a code fence, so the per-append cost of Textual's Markdown (which grows with its
    document) stays bounded. Textual lays out every displayed widget on every frame and a
    Markdown chunk is a widget per block, so a chunk that is finished (a later one exists) is
    frozen once it has been painted: replaced by one `FrozenMarkdown` holding its painted lines,
    which is never rendered again. Only the last chunk, holding the paragraph being written, is
    live; a new width or theme thaws the frozen ones (they freeze again once painted). The
    chunks far above the viewport (and far below it, once the message is finished) are hidden
    (`hide_outside`, called by the scrolling container) behind a spacer of their height: their widgets are removed and only their source is kept
    (`HiddenChunk`), so what a long answer holds stays bounded however long it grows, and their
    Markdown is built again when the reader scrolls near them. UI
    thread only. The time comes from the optional `timestamp` attribute (epoch seconds) the app
    sets; without it no time is shown (snapshots show no clock).
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
    the layout between them let the view hide what went far above the viewport. Each pass is a
    frame that renders a screen of new text, so fewer cost CPU in a burst (4: ~20% more)."""
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
        yield Static(Content("⏹ stopped"), classes="text-view--stopped")

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
            forget_removed_styles()
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
            markdown = BuiltMarkdown(chunk.source, open_links=False, classes="text-view--chunk")
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

    def _header(self) -> Content:
        block = self.block
        author = sanitize(block.speaker)
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
        """The chunks of the block's whole text, built, if the block is finished (else none: it streams)."""
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
        chunks = [BuiltMarkdown(source, open_links=False, classes="text-view--chunk") for source in sources if source]
        self._chunks.extend(chunks)
        self._chars_written += len(text)
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

        Runs as a worker (cancelled with the view). Text that arrives while an append is in
        progress is appended in one go by the next pass: like `MarkdownStream`, this coalesces
        when Markdown falls behind, without a bare task. Each pass is one batch update (see
        `painted_batch`), so the screen lays the pass out and paints it once: not between one
        append's parse and its mount, between two chunks, for the swap of a chunk frozen since
        the last pass or for chunks hidden since, and again at the end. A frame is painted
        between two passes, so a stream that never pauses still gets its frames.
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
                    await self._next_frame()
        finally:
            self._draining = False

    def _take_pass(self) -> tuple[list[list[str]], list[list[str]]]:
        """What one pass appends (at most `CHUNKS_PER_PASS` new chunks) and what waits for the next one.

        A stream faster than the frames brings many chunks in one flush (the pty bench's 20,000
        tokens came in two): built in one pass, they were all mounted at once, a widget per
        paragraph, before any could be hidden, and the process kept that peak. A few per pass,
        the ones far above the viewport are hidden (their widgets removed) between passes.
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

    REQUESTS_WAIT_SECONDS: ClassVar[float] = 0.02
    """The longest a pass holds its frame back for the new blocks' layout requests (`_requests_handed_in`)."""

    async def _requests_handed_in(self) -> None:
        """Wait (inside the pass's batch) until the screen has heard every layout the pass asks for.

        A new block's content is set before it is mounted, and on Textual 8.2.8 (pinned) a widget
        posts the layout and repaint it asked for when its message loop next goes idle, which
        after a mount waits for its next message: the first one it gets is the Resize that the
        pass's own layout sends it. Ended at once, the batch let the screen lay out and paint
        the pass, then lay out again for those requests (in the pty bench, after most flushes).
        So every widget of the view with a request waiting is prompted (`check_idle`), the pass
        yields to the loop until they have posted (`REQUESTS_WAIT_SECONDS` at most: a widget
        that never settles cannot hold frames back), then waits one turn of the screen, which
        handles what they posted (inside a batch it runs after-refresh callbacks as soon as its
        queue is empty).
        """
        await hand_in_layout_requests(self.walk_children(Widget), time.monotonic() + self.REQUESTS_WAIT_SECONDS)
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def resolve() -> None:
            if not turn.done():
                turn.set_result(None)

        if self.call_after_refresh(resolve):
            await turn

    async def _next_frame(self) -> None:
        """Wait until the screen has refreshed (what the last pass changed is laid out and painted)."""
        painted: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def resolve() -> None:
            if not painted.done():
                painted.set_result(None)

        if not self.call_after_refresh(resolve):
            return  # closing: no frame will come
        await painted

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
        self._chunks.append(chunk)
        await self.mount(chunk, before=self.query_one(".text-view--stopped"))
        if len(self._chunks) > 1:
            self._schedule_freeze()  # the chunk before this one is finished

    # -- freezing finished chunks ------------------------------------------------------------

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
            forget_removed_styles()
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
        live = StreamMarkdown(frozen.source, open_links=False, classes="text-view--chunk", parser_factory=shared_parser)
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
