"""Hostile agent text through the real app into the twin terminal (`tests.helpers.twin_terminal.Twin`).

A seeded stream of what an agent may send — C0 and C1 controls, CSI, OSC 52 and OSC 8, DCS,
markup, wide CJK, right-to-left scripts, tabs, lone surrogates, 300-character words, Markdown
tables wider than the screen, nested lists and quotes, a code fence never closed; then emoji
joined by U+200D, skin tones, flags, variation selectors, combining and zero-width characters —
streams into the app in small tokens. After every frame the wire terminal must equal Textual's
own output (or, for characters whose width pyte measures unlike Rich, a terminal painted whole
from the compositor), and at the end a full repaint. Then finished Markdown chunks, frozen into
painted lines (`widgets.frozen_markdown`), are thawed by a theme switch and a new width while the
reader scrolls above a stream that goes on: the frozen lines must equal a live render.
"""

from __future__ import annotations

import asyncio
import random
import unicodedata
from typing import Any

import pyte
from tests.helpers.app_harness import streamed_segment, Scripted, send, started, wait_for
from tests.helpers.twin_terminal import Twin, differences, run_twin, twin_app
from textual._compositor import LayoutUpdate
from textual.geometry import Region
from textual.pilot import Pilot
from wcwidth import wcwidth

from tandem.core import Status
from tandem.core.sanitize import sanitize
from tandem.widgets import TextView
from tandem.widgets.frozen_markdown import FrozenMarkdown, paint

# Characters whose width pyte (wcwidth) and Rich agree on, whatever they do to a terminal raw.
CERTAIN = [
    "\x1b[2J\x1b[H", "\x1b]52;c;ZXZpbA==\x07", "\x1b]8;;http://evil.example\x1b\\link\x1b]8;;\x1b\\", "\x1bP+q544e\x1b\\",
    "\x9b31m", "\x9d0;title\x9c", "\x07\x08\x00\r\x7f", "\x1bc", "你好世界", "日本語のテキスト", "שלום עולם", "مرحبا",
    "\u202eevil\u202c", "\u2066iso\u2069", "\t", "a\tb", "\ud800", "\udfff", "x" * 300, "[@click=app.quit]x[/]",
    "[link](javascript:alert(1))", "<script>", "**unbalanced", "\\", "`", "word ", "word ", "word ", " ", "\n", "\n\n",
    "\n\n| a | b |\n| - | - |\n| " + "w" * 200 + " | x |\n\n", "\n\n" + "> " * 6 + "deep quote\n\n",
    "\n\n" + "".join("  " * i + "- item\n" for i in range(6)) + "\n", "\n# heading\n", "\n---\n", "\n~~~\n",
]
# Characters pyte measures unlike Rich (as real terminals do, each in its own way).
UNCERTAIN = [
    "👍🏽", "🧑🏿", "👨\u200d👩\u200d👧\u200d👦", "🇫🇷🇯🇵", "🏳️\u200d🌈", "❤️", "⚠️", "#️⃣", "e\u0301", "\u0301",
    "Z\u0324\u0354\u0367\u0311a\u0308", "a\u200bb", "\u200d", "\ufeff", "\u2060", "word ", "word ", "\n\n", "你好",
]
FENCE = "\n\n```python\nnever closed " + "token " * 40


def hostile_text(seed: int, pool: list[str], pieces: int) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(pool) for _ in range(pieces))




class _Terminal(pyte.Screen):  # type: ignore[misc]
    """pyte, but a zero-width character that is not a combining mark is skipped, not the end of the text.

    (pyte stops drawing the rest of a write at U+200B, U+200D, U+FE0F...; terminals skip or join
    them. Left as it is, where Textual and the row output split a row into writes differently,
    pyte would drop different text from each.)
    """

    def draw(self, data: str) -> None:
        super().draw("".join(c for c in data if wcwidth(c) > 0 or unicodedata.combining(c)))


def _realistic(twin: Twin) -> Twin:
    for name in ("wire", "reference"):
        screen = _Terminal(twin.wire.columns, twin.wire.lines)
        stream = pyte.Stream(screen)
        stream.feed("\x1b[?7l")
        setattr(twin, name, screen)
        setattr(twin, f"_{name}_stream", stream)
    return twin


def _fresh(twin: Twin, app: Any) -> pyte.Screen:
    """A terminal painted whole by Textual's own code from the compositor's current screen."""
    strips = app.screen._compositor.render_strips()
    screen = _Terminal(twin.wire.columns, twin.wire.lines)
    text = LayoutUpdate([[strip] for strip in strips], Region(0, 0, twin.wire.columns, len(strips))).render_segments(app.console)
    pyte.Stream(screen).feed("\x1b[?7l" + text)
    screen.cursor.x, screen.cursor.y = twin.wire.cursor.x, twin.wire.cursor.y
    return screen


def _each_frame_against_a_full_repaint(twin: Twin, app: Any) -> None:
    """Compare the wire after each frame with a terminal painted whole, not with Textual's partial writes.

    Where pyte measures a character unlike Rich, Textual's own partial writes leave cells behind
    (its reference terminal shows debris a full repaint does not): the row output writes such
    rows whole and must match the full repaint.
    """

    def check() -> None:
        twin.frames += 1
        if not twin.checking or getattr(app.screen, "_paint_deferred", False):
            # (a frame of typed input painted alone while a layout's paint is owed, a step later
            # (`tui.terminal.input_paint`): the rest of the screen is rightly still the last frame's)
            return
        twin.compared += 1
        if not twin.mismatches:
            found = differences(twin.wire, _fresh(twin, app))
            if found:
                twin.mismatches = [f"after frame {twin.frames} (against a full repaint):", *found]

    twin.check = check  # type: ignore[method-assign]


async def _equals_a_full_repaint(pilot: Pilot[Any], twin: Twin) -> None:
    """Wait (bounded) until the last frame is out and the wire equals a full repaint; say where not."""
    app = pilot.app
    found: list[str] = []

    def same() -> bool:
        nonlocal found
        found = differences(twin.wire, _fresh(twin, app))
        return not found and not app.wire.model.pending

    try:
        await wait_for(pilot, same, "the wire to equal a full repaint", 500)
    except AssertionError:
        reference = differences(twin.reference, _fresh(twin, app)) if twin.checking else ["(not compared)"]
        raise AssertionError("\n".join(["the wire differs from a full repaint:", *found, "Textual's own output:", *reference,
                                         *twin.wire.display])) from None


def _no_agent_escape_reached_the_wire(twin: Twin) -> None:
    written = "".join(twin.writes)
    for sequence in ("\x1b]52", "\x1b]0;", "\x1bP", "\x1bc", "\x1b[2J", "\x1b]8;;http://evil", "\x9b", "\x9d", "\r"):
        assert sequence not in written, repr(sequence)


def _assert_same(twin: Twin) -> None:
    assert not twin.mismatches, "\n".join(twin.mismatches)
    assert twin.compared > 10


class TestAHostileStream:
    async def test_controls_escapes_wide_text_tables_and_nesting_frame_by_frame(self) -> None:
        twin = Twin(80, 24)
        answer = hostile_text(11, CERTAIN, 160) + FENCE
        script = Scripted([streamed_segment(answer, token=9)])
        app = twin_app(twin, script.factory)

        async def scenario(pilot: Pilot[Any]) -> None:
            await started(pilot)
            await send(pilot, "hostile")
            await wait_for(pilot, lambda: app.main.status is Status.IDLE, "the answer", 3000)
            await _written(pilot, answer)
            # Textual's own output leaves a few cells of a scrolled code block's background behind
            # (its partial updates miss them; the wire, equal to it frame by frame, shows them too):
            # Ctrl+L writes the whole screen again, and then it equals a full repaint.
            await pilot.press("ctrl+l")
            await _equals_a_full_repaint(pilot, twin)
            # Every character the agent sent is in the Markdown, less what the sanitiser removes.
            view = _text_views(app)[-1]
            assert "".join(chunk.source for chunk in view.chunks) == sanitize(answer)
            # The app still takes a message after it.
            await send(pilot, "still here?")
            await wait_for(pilot, lambda: "still here?" in "".join(twin.wire.display), "the next message on screen")

        await run_twin(app, twin, scenario)
        _assert_same(twin)
        _no_agent_escape_reached_the_wire(twin)
        assert app.repaint == "changes", "the row output never failed over to Textual's"
        assert app.wire.model.scrolls > 0

    async def test_emoji_sequences_flags_skin_tones_and_zero_width_characters_frame_by_frame(self) -> None:
        twin = _realistic(Twin(60, 20))
        answer = hostile_text(5, UNCERTAIN, 260)
        script = Scripted([streamed_segment(answer, token=5)])
        app = twin_app(twin, script.factory)
        _each_frame_against_a_full_repaint(twin, app)

        async def scenario(pilot: Pilot[Any]) -> None:
            await started(pilot)
            await send(pilot, "emoji")
            await wait_for(pilot, lambda: app.main.status is Status.IDLE, "the answer", 3000)
            await _written(pilot, answer)
            await _equals_a_full_repaint(pilot, twin)

        await run_twin(app, twin, scenario)
        _assert_same(twin)
        assert app.repaint == "changes"


async def _written(pilot: Pilot[Any], answer: str) -> None:
    """Wait until the answer's view wrote all of it (less what the sanitiser removes) into its Markdown."""
    expected = len(sanitize(answer))
    await wait_for(pilot, lambda: _text_views(pilot.app)[-1].statistics().chars_written >= expected, "the answer written")


def _text_views(app: Any) -> list[TextView]:
    return [view for view in app.conversation.mounted_views if isinstance(view, TextView)]


def _all_frozen(view: TextView) -> bool:
    """Some finished chunks are frozen, all of them at the current width and on the screen.

    (Only chunks that were painted freeze: one scrolled past unseen stays live until it is shown.)
    """
    chunks = view.chunks
    width = chunks[-1].size.width if chunks else 0
    frozen = [chunk for chunk in chunks[:-1] if isinstance(chunk, FrozenMarkdown)]
    return bool(frozen) and all(chunk.painted_width == width and chunk.is_attached for chunk in frozen)


def _why_not_frozen(view: TextView) -> str:
    from textual.widget import Widget

    lines = [f"view width {view.size.width} freeze attempts {view._freeze_attempts}"]
    for chunk in view.chunks:
        lines.append(f"{type(chunk).__name__} display={chunk.display} size={chunk.size} region={chunk.region}")
        if not isinstance(chunk, FrozenMarkdown):
            for node in chunk.walk_children(Widget):
                if not node.is_container and (node._dirty_regions or node._render_cache.size != node.size):
                    lines.append(f"  stale {node!r} size={node.size} cache={node._render_cache.size} dirty={bool(node._dirty_regions)} region={node.region}")
    return "\n".join(lines)


async def _frozen_lines_equal_live_ones(pilot: Pilot[Any], view: TextView) -> None:
    """Each frozen chunk's lines equal what its source paints as live Markdown now (width and theme)."""
    from textual.widgets import Markdown

    from tandem.widgets.text import shared_parser

    def at_the_width() -> bool:
        width = view.chunks[-1].size.width
        return all(chunk.painted_width == width for chunk in view.chunks if isinstance(chunk, FrozenMarkdown))

    # (A scrollbar that comes or goes changes the width: the view thaws what it froze at the old one.)
    await wait_for(pilot, at_the_width, "every frozen chunk at the view's width")
    for chunk in [chunk for chunk in view.chunks if isinstance(chunk, FrozenMarkdown) and chunk.display]:
        live = Markdown(chunk.source, open_links=False, classes="text-view--chunk", parser_factory=shared_parser)
        if not chunk.is_attached:
            continue  # thawed meanwhile (the view's width changed again: a scrollbar came or went)
        await view.mount(live, after=chunk)
        lines: list[Any] = []

        def painted(live: Markdown = live, lines: list[Any] = lines, chunk: FrozenMarkdown = chunk) -> bool:
            if not chunk.is_attached or live.size.width != chunk.painted_width:
                return True  # the twin itself brought a scrollbar: the width moved, see below
            lines[:] = paint(live) or []
            return bool(lines) and not live._initial_markdown and len(lines) == len(chunk.strips)

        await wait_for(pilot, painted, "the live twin of a frozen chunk painted")
        if not chunk.is_attached or live.size.width != chunk.painted_width:
            # Mounting the twin can make the scroll container show its scrollbar (2 cells): the
            # twin is then laid out narrower than the chunk was frozen at (the view thaws it).
            await live.remove()
            continue
        assert [strip.text for strip in lines] == [strip.text for strip in chunk.strips]
        assert [[segment.style for segment in strip] for strip in lines] == [[segment.style for segment in strip] for strip in chunk.strips]
        await live.remove()


class TestFrozenChunksUnderHostileText:
    async def test_a_theme_and_a_new_width_thaw_them_while_the_reader_scrolls_above_the_stream(self) -> None:
        twin = Twin(100, 80)  # tall: a chunk freezes once painted, not if it scrolled past unseen
        gate = asyncio.Event()
        answer = "".join(f"Paragraph {n}: 你好 שלום [x](https://example.com/{n}) **bold** `code` "
                         + hostile_text(n, CERTAIN[:28], 6) + "\n\n" for n in range(40))
        script = Scripted([streamed_segment(answer, token=40, gate=gate, gate_at=50)])
        app = twin_app(twin, script.factory)

        async def scenario(pilot: Pilot[Any]) -> None:
            await started(pilot)
            await send(pilot, "long")
            await wait_for(pilot, lambda: bool(_text_views(app)) and len(_text_views(app)[-1].chunks) >= 2, "a finished chunk")
            view = _text_views(app)[-1]
            try:
                await wait_for(pilot, lambda: _all_frozen(view), "finished chunks frozen")
            except AssertionError:
                raise AssertionError(_why_not_frozen(view)) from None
            await _equals_a_full_repaint(pilot, twin)
            await _frozen_lines_equal_live_ones(pilot, view)
            # The reader scrolls up (the row output scrolls with reverse indexes) as the stream goes on,
            # and a theme switch mid-stream thaws every frozen chunk above it.
            scroller = app.conversation.scroller
            for _ in range(6):
                scroller.scroll_relative(y=-3, animate=False)
                await pilot.pause(0.01)
            before = {id(chunk) for chunk in view.chunks if isinstance(chunk, FrozenMarkdown)}
            app.engine.loop.call_soon_threadsafe(gate.set)
            app.theme = "tandem-light" if app.theme != "tandem-light" else "tandem-dark"
            await wait_for(pilot, lambda: not before & {id(chunk) for chunk in view.chunks}, "every frozen chunk thawed")
            await wait_for(pilot, lambda: app.main.status is Status.IDLE, "the answer", 3000)
            await _written(pilot, answer)
            await _equals_a_full_repaint(pilot, twin)
            await _frozen_lines_equal_live_ones(pilot, view)
            # A new width: every frozen chunk thaws; what freezes again holds the new width.
            before = {id(chunk) for chunk in view.chunks if isinstance(chunk, FrozenMarkdown)}
            twin.resize(72, 80)
            await pilot.resize_terminal(72, 80)
            await wait_for(pilot, lambda: not before & {id(chunk) for chunk in view.chunks}, "every frozen chunk thawed")
            await wait_for(pilot, lambda: twin.checking, "a whole frame at 72 columns")
            await _equals_a_full_repaint(pilot, twin)
            await _frozen_lines_equal_live_ones(pilot, view)
            # Nothing of the text is lost on the way (a thawed chunk has its source once it is built).
            expected = sanitize(answer)
            await wait_for(pilot, lambda: "".join(chunk.source for chunk in view.chunks) == expected, "every chunk's source")

        await run_twin(app, twin, scenario)
        _assert_same(twin)
        _no_agent_escape_reached_the_wire(twin)
        assert app.repaint == "changes"
