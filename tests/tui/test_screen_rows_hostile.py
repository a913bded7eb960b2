"""The screen model (`tui.terminal.screen_rows`) against hostile text: every frame reaches what a full repaint shows.

Hypothesis builds screens from what an agent may send once it is sanitised (wide CJK, emoji
sequences joined by U+200D, skin tones, flags, variation selectors, combining marks, zero-width
characters, right-to-left scripts, long runs without spaces) in random styles, and changes them
frame after frame (rows replaced, bands scrolled, partial updates as Textual sends them). After
each frame, the pyte terminal fed `ScreenRows.render()` must equal a pyte terminal painted whole
from the target rows. pyte measures characters with `wcwidth`, which disagrees with Rich on emoji
sequences, flags and skin tones as real terminals do (each in its own way): a row holding such
characters is written whole, so the disagreement cannot leave cells behind.
"""

from __future__ import annotations

import pyte
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.color import ColorSystem
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from textual._compositor import ChopsUpdate, LayoutUpdate
from textual.geometry import Region
from textual.strip import Strip

from tandem.core.sanitize import sanitize
from tandem.tui.terminal.row_pen import render_row
from tandem.tui.terminal.row_segments import changed_span, uncertain_row
from tandem.tui.terminal.screen_rows import ScreenRows

WIDTH, HEIGHT = 24, 8

# What survives the sanitiser (controls, ESC and bidi overrides are gone), in pieces that keep a
# grapheme whole (Textual's segments split between graphemes, never inside one).
CERTAIN = ["a", "b", "word", " ", "  ", "你", "好世", "日本語", "שלום", "مرحبا", "x" * 11, "[@click=app.quit]", "]52;c;ZXZ",
           "\\", "`", "|", "─", "▌", "…", "é", "Ａ"]
UNCERTAIN = ["e\u0301", "Z\u0324\u0354\u0367", "a\u200bb", "x\u2060y", "\ufeffz", "👍🏽", "🧑🏿", "👨\u200d👩\u200d👧\u200d👦",
             "🇫🇷", "🇯🇵", "🏳️\u200d🌈", "❤️", "⚠️", "#️⃣", "☺\ufe0e", "\ufffd"]
STYLES = [None, Style(color="red", bgcolor="black"), Style(color="#ff8800", bold=True), Style(bgcolor="blue", italic=True),
          Style(underline=True, link="https://example.com/x")]

_pieces = st.sampled_from(CERTAIN + UNCERTAIN)
_styles = st.sampled_from(STYLES)


@st.composite
def rows(draw: st.DrawFn) -> list[Segment]:
    """One row of exactly WIDTH cells (by Rich's count), starting with a plain character.

    (pyte joins a combining mark at a row's start to the previous row's last cell: Textual's rows
    start with a border, a margin or a scrollbar, never with agent text.)
    """
    segments = [Segment("|", draw(_styles))]
    filled = 1
    while filled < WIDTH:
        text = draw(_pieces)
        if filled + cell_len(text) > WIDTH:
            text = " " * (WIDTH - filled)
        segments.append(Segment(text, draw(_styles)))
        filled += cell_len(text)
    return segments


def _painted_whole(screen_rows: list[list[Segment]]) -> pyte.Screen:
    """A fresh terminal with every row written from its first column (what a full repaint shows)."""
    screen = pyte.Screen(WIDTH, HEIGHT)
    stream = pyte.Stream(screen)
    stream.feed("\x1b[?7l")
    for y, row in enumerate(screen_rows):
        stream.feed(f"\x1b[{y + 1};1H" + render_row(row))
    return screen


def _cells(screen: pyte.Screen) -> list[list[tuple[object, ...]]]:
    return [[tuple(screen.buffer[y][x]) for x in range(screen.columns)] for y in range(screen.lines)]


_steps = st.lists(
    st.one_of(
        st.tuples(st.just("row"), st.integers(0, HEIGHT - 1), rows()),
        st.tuples(st.just("scroll"), st.integers(-3, 3).filter(bool), rows()),
        st.tuples(st.just("chop"), st.integers(0, HEIGHT - 1), st.integers(1, WIDTH - 2), rows()),
    ),
    min_size=1,
    max_size=12,
)


class TestEveryFrameEqualsAFullRepaint:
    @settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
    @given(first=st.lists(rows(), min_size=HEIGHT, max_size=HEIGHT), steps=_steps)
    def test_hostile_rows_scrolled_replaced_and_partly_updated(self, first: list[list[Segment]], steps: list[tuple]) -> None:
        model = ScreenRows()
        terminal = pyte.Screen(WIDTH, HEIGHT)
        stream = pyte.Stream(terminal)
        stream.feed("\x1b[?7l")
        screen = [list(row) for row in first]
        model.apply_full([[Strip(row)] for row in screen], WIDTH, HEIGHT)
        stream.feed(model.render(ColorSystem.TRUECOLOR))
        assert _cells(terminal) == _cells(_painted_whole(screen))
        for number, step in enumerate(steps):
            if step[0] == "row":
                _, y, row = step
                screen[y] = row
                model.apply_full([[Strip(row)] for row in screen], WIDTH, HEIGHT)
            elif step[0] == "scroll":
                _, lines, row = step
                screen = screen[lines:] + [row] * lines if lines > 0 else [row] * -lines + screen[:lines]
                model.apply_full([[Strip(row)] for row in screen], WIDTH, HEIGHT)
            else:
                # Textual's partial update: the row's chops from `x` on, over the span [x, WIDTH).
                _, y, x, row = step
                head, tail = Strip(screen[y]).crop(0, x), Strip(row).crop(x, WIDTH)
                if head.cell_length != x or tail.cell_length != WIDTH - x:
                    continue  # x falls inside a wide character: Textual's chops never do
                screen[y] = [*head, *tail]
                chops = [{0: None} for _ in range(HEIGHT)]
                ends = [[WIDTH] for _ in range(HEIGHT)]
                chops[y] = {0: head, x: tail}
                ends[y] = [x, WIDTH]
                model.apply_chops(chops, [(y, x, WIDTH)], ends)
            stream.feed(model.render(ColorSystem.TRUECOLOR))
            expected = _painted_whole(screen)
            assert _cells(terminal) == _cells(expected), f"step {number}: {step[0]}\n{terminal.display}\n{expected.display}"


def _textual_writes(updates: list[LayoutUpdate | ChopsUpdate]) -> pyte.Screen:
    screen = pyte.Screen(WIDTH, HEIGHT)
    stream = pyte.Stream(screen)
    stream.feed("\x1b[?7l")
    console = Console(color_system="truecolor", force_terminal=True, legacy_windows=False)
    for update in updates:
        stream.feed(update.render_segments(console))
    return screen


def _model_writes(updates: list[LayoutUpdate | ChopsUpdate]) -> pyte.Screen:
    model = ScreenRows()
    screen = pyte.Screen(WIDTH, HEIGHT)
    stream = pyte.Stream(screen)
    stream.feed("\x1b[?7l")
    for update in updates:
        if isinstance(update, LayoutUpdate):
            model.apply_full(update.strips, WIDTH, HEIGHT)
        else:
            model.apply_chops(update.chops, update.spans, update.chop_ends)
        stream.feed(model.render(ColorSystem.TRUECOLOR))
    return screen


class TestStripsThatMisstateTheirWidth:
    """Textual's Markdown tables wider than the screen make strips whose `cell_length` is one less
    than the cells they hold (found by `test_wire_hostile`: the row output shifted the rest of the
    row by a cell, on screen until the next full repaint). Textual writes such a strip whole: the
    row output must place it where the terminal does."""

    @staticmethod
    def _blank() -> list[list[Strip]]:
        return [[Strip([Segment("." * WIDTH)])] for _ in range(HEIGHT)]

    def test_a_strip_holding_more_cells_than_its_chop(self) -> None:
        # Cells 10..11: a strip that says 1 cell and holds 2 (as Textual's table cells do), then a border.
        overlong = Strip([Segment(" "), Segment("", Style(color="red")), Segment(" ")], 1)
        assert overlong.cell_length == 1 and sum(cell_len(segment.text) for segment in overlong) == 2
        chops = [{0: None} for _ in range(HEIGHT)]
        ends = [[WIDTH] for _ in range(HEIGHT)]
        chops[2] = {0: Strip([Segment("a" * 10)]), 10: overlong, 11: Strip([Segment("│", Style(color="blue"))]),
                    12: Strip([Segment("b" * (WIDTH - 12))])}
        ends[2] = [10, 11, 12, WIDTH]
        updates = [LayoutUpdate(self._blank(), Region(0, 0, WIDTH, HEIGHT)), ChopsUpdate(chops, [(2, 0, WIDTH)], ends)]
        assert _cells(_model_writes(updates)) == _cells(_textual_writes(updates))

    def test_a_strip_holding_fewer_cells_than_its_chop(self) -> None:
        short = Strip([Segment("xy")], 5)
        chops = [{0: None} for _ in range(HEIGHT)]
        ends = [[WIDTH] for _ in range(HEIGHT)]
        chops[3] = {0: Strip([Segment("a" * 4)]), 4: short, 9: Strip([Segment("c" * (WIDTH - 9))])}
        ends[3] = [4, 9, WIDTH]
        updates = [LayoutUpdate(self._blank(), Region(0, 0, WIDTH, HEIGHT)), ChopsUpdate(chops, [(3, 0, WIDTH)], ends)]
        assert _cells(_model_writes(updates)) == _cells(_textual_writes(updates))

    def test_an_overlong_last_chop_and_an_overlong_full_row_are_clamped_as_the_terminal_clamps(self) -> None:
        rows = self._blank()
        rows[1] = [Strip([Segment("q" * (WIDTH - 1))]), Strip([Segment("XY", Style(color="red"))], 1)]
        chops = [{0: None} for _ in range(HEIGHT)]
        ends = [[WIDTH] for _ in range(HEIGHT)]
        chops[5] = {0: Strip([Segment("r" * (WIDTH - 2))]), WIDTH - 2: Strip([Segment("UVW")], 2)}
        ends[5] = [WIDTH - 2, WIDTH]
        updates = [LayoutUpdate(rows, Region(0, 0, WIDTH, HEIGHT)), ChopsUpdate(chops, [(5, 0, WIDTH)], ends)]
        assert _cells(_model_writes(updates)) == _cells(_textual_writes(updates))


class TestCellsAndCharacters:
    def test_a_wide_character_and_a_combining_mark_in_one_segment_do_not_pass_for_one_cell_each(self) -> None:
        # Both texts have as many characters as cells (a wide character and a zero-width one
        # balance out), yet their common first character is 0 cells, not 1: the span starts at 0.
        new = (Segment("\u0301你xy"),)
        old = (Segment("\u0301\u0301你你"),)
        assert len(new[0].text) == cell_len(new[0].text) and len(old[0].text) == cell_len(old[0].text)
        assert changed_span(new, old, 4) == (0, 4)

    def test_which_rows_are_written_whole(self) -> None:
        assert not uncertain_row((Segment("plain ascii"), Segment("你好 שלום ▌─…")))
        for text in UNCERTAIN[:-1]:
            assert uncertain_row((Segment("ok "), Segment(text))), text
        assert not uncertain_row((Segment("\ufffd"),))

    def test_a_lone_surrogate_becomes_the_replacement_character(self) -> None:
        # JSON's "\ud800" escape decodes to a lone surrogate: stderr would write it as six characters.
        assert sanitize("a\ud800b\udfffc") == "a\ufffdb\ufffdc"
        assert sanitize("😀 你") == "😀 你"
        assert all(not 0xD800 <= ord(character) <= 0xDFFF for character in sanitize("".join(map(chr, range(0xD7F0, 0xE010)))))
