"""The terminal's screen as rows of segments, and the bytes that turn what it shows into a new frame.

`ScreenRows` keeps two copies of the screen, row by row: the *target* (what Textual means to show:
its updates are applied here) and what was *sent* (what the terminal shows). `render()` turns the
sent copy into the target with few bytes:

- a band of rows that moved (the conversation scrolled by n lines) becomes one scroll-region
  operation (DECSTBM, then n line feeds or reverse indexes, then the region reset): VT100
  sequences every terminal Textual runs on has, unlike SU/SD, which the Linux console lacks;
- each row that still differs is written from its first to its last differing cell, colours only
  where they change (`tui.terminal.row_pen`);
- a row holding characters whose width terminals disagree on (`row_segments.uncertain_row`) is
  erased and written whole from its first column, as a full repaint would.

Nothing here writes to a terminal: `tui.terminal.wire_output` feeds Textual's updates in and
writes what `render()` returns (on the UI thread).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from rich.color import ColorSystem
from rich.segment import Segment
from textual.strip import Strip

from tandem.tui.terminal.row_pen import Pen
from tandem.tui.terminal.row_segments import Row, blank_row, cell_count, changed_span, cut, fit, splice, uncertain_row

__all__ = ["ScreenRows", "Scroll"]


_SCROLL_COST = 24
"""About what a scroll-region operation costs in bytes (region, cursor, feeds, reset)."""
_ROW_COST = 10
"""About what starting to write a row costs in bytes (cursor move, colour)."""
_MIN_CHANGED_FOR_SCROLL = 3
"""Fewer changed rows than this are never worth looking for a scroll."""


class Scroll(NamedTuple):
    """A band of rows [top, bottom] whose content moves up by `lines` (down when negative)."""

    top: int
    bottom: int
    lines: int


class ScreenRows:
    """The target screen (what Textual means to show) and the sent one (what the terminal shows).

    Owns both copies, a hash per row of each (rows are compared by hash: Rich's styles are equal
    exactly when their hashes are, and a row's hash is its segments' tuple hash) and the set of
    rows touched since the last render. A row of the sent copy is None where the terminal's
    content is unknown (before the first frame, after a resize, a restart of the terminal's
    application mode or Ctrl+L): such rows are written whole.
    """

    def __init__(self) -> None:
        self.width = 0
        self.height = 0
        self.target: list[Row] = []
        self.sent: list[Row | None] = []
        self._target_hash: list[int] = []
        self._sent_hash: list[int | None] = []
        self.valid = False
        """Whether the target holds a whole screen (False until the first full update)."""
        self._touched: set[int] = set()
        self.scrolls = 0
        """Scroll operations sent so far (statistics for tests and benches)."""

    # -- the target --------------------------------------------------------------------------

    def resize(self, width: int, height: int) -> None:
        """A new screen size: the target is unknown until the next full update, the terminal's content too."""
        self.width, self.height = width, height
        blank = blank_row(width)
        self.target = [blank] * height
        self._target_hash = [hash(blank)] * height
        self.valid = False
        self.invalidate()

    def invalidate(self) -> None:
        """Forget what the terminal shows (it was cleared or garbled): the next render writes every row."""
        self.sent = [None] * self.height
        self._sent_hash = [None] * self.height
        self._touched = set(range(self.height))

    def _set(self, y: int, row: Row) -> None:
        self.target[y] = row
        self._target_hash[y] = hash(row)
        self._touched.add(y)

    def apply_full(self, rows: Iterable[Iterable[Strip]], width: int, height: int) -> None:
        """A whole screen from Textual (a `LayoutUpdate`'s strips, one iterable of chops per row)."""
        if (width, height) != (self.width, self.height):
            self.resize(width, height)
        for y, chops in enumerate(rows):
            if y >= height:
                break
            self._set(y, fit([segment for strip in chops if strip is not None for segment in strip._segments], width))
        self.valid = True

    def apply_chops(
        self,
        chops: Sequence[Mapping[int, Strip | None]],
        spans: Iterable[tuple[int, int, int]],
        chop_ends: Sequence[Sequence[int]],
    ) -> None:
        """A partial update from Textual (a `ChopsUpdate`): the cells it would write, spliced into the target.

        The same cells as `ChopsUpdate.render_segments` writes: for each span, every chop that
        overlaps it, whole when it lies inside the span, else cut at the span's end. A chop's
        strip is placed by the cells it holds, not by where the next chop starts: a strip that
        holds more cells than its chop (Textual's tables make some) overwrites the start of the
        next chop on the terminal until that one is written, and one that holds fewer leaves the
        rest as it was.
        """
        width = self.width
        target = self.target
        for y, x1, x2 in spans:
            if not 0 <= y < self.height:
                continue
            line = chops[y]
            ends = chop_ends[y]
            run: list[Segment] = []
            run_start = run_end = -1
            row = target[y]
            for end, (x, strip) in zip(ends, line.items(), strict=False):
                if strip is None or x >= x2 or end <= x1 or x >= width:
                    continue
                # As `ChopsUpdate.render_segments` (Textual 8.2.8) cuts it.
                piece = strip._segments if x >= x1 and end <= x2 else strip.crop(0, min(end, x2) - x)._segments
                length = 0
                for segment in piece:
                    length += cell_count(segment)
                if not length:
                    continue
                if x != run_end and run:
                    row = splice(row, run_start, run_end, run, width)
                    run = []
                if not run:
                    run_start = x
                run.extend(piece)
                run_end = x + length
            if run:
                row = splice(row, run_start, run_end, run, width)
            if row is not target[y]:
                self._set(y, row)

    # -- the bytes ---------------------------------------------------------------------------

    @property
    def pending(self) -> bool:
        """Whether rows were touched since the last render (there may be something to send)."""
        return bool(self._touched)

    def render(self, color_system: ColorSystem, rows: Collection[int] | None = None, budget: int | None = None) -> str:
        """The terminal text that turns the sent screen into the target; the sent screen becomes the target.

        With `rows`, only those rows (and no scroll): the others stay pending for the next render.
        With `budget`, rows (after the scroll, if any; from the bottom up) stop once the text is
        that long: the rest stay pending, the terminal then holding the sent copy of them (a piece
        of the frame).
        Leaves the colours reset and the cursor somewhere on the screen (the caller moves it).
        """
        touched = self._touched
        if rows is None:
            self._touched = set()
        else:
            touched, self._touched = touched.intersection(rows), touched.difference(rows)
        target, target_hash = self.target, self._target_hash
        sent_hash = self._sent_hash
        changed = sorted(y for y in touched if target_hash[y] != sent_hash[y])
        if not changed:
            return ""
        out: list[str] = []
        scroll = self.find_scroll(changed) if rows is None and len(changed) >= _MIN_CHANGED_FOR_SCROLL else None
        if scroll is not None:
            out.append(self._scroll(scroll))
            sent_hash = self._sent_hash
            band = (y for y in range(scroll.top, scroll.bottom + 1) if target_hash[y] != sent_hash[y])
            changed = sorted(set(changed).union(band))
        sent = self.sent
        pen = Pen(color_system, out)
        append = out.append
        width = self.width
        # In pieces, the bottom rows first: the status line, the composer and the newest text of
        # a conversation that follows its end (what the person waits for) are at the bottom.
        order = changed if budget is None else changed[::-1]
        written = order
        for index, y in enumerate(order):
            if budget is not None and index and sum(map(len, out)) >= budget:
                written = order[:index]
                self._touched.update(order[index:])  # (the next piece)
                break
            row, before = target[y], sent[y]
            if uncertain_row(row) or (before is not None and uncertain_row(before)):
                # Erased (default colours), then written whole from its first column.
                pen.reset()
                append(f"\x1b[{y + 1}H\x1b[2K")
                pen.write(row)
                continue
            span = changed_span(row, before, width)
            if span is None:
                continue
            start, end = span
            # ESC [ row H when the column is the first: two bytes fewer.
            append(f"\x1b[{y + 1}H" if start == 0 else f"\x1b[{y + 1};{start + 1}H")
            pen.write(row if start == 0 and end == width else cut(row, start, end))
        pen.reset()
        if rows is None and len(written) == len(changed):
            self.sent = list(target)
            self._sent_hash = list(target_hash)
        else:
            for y in written:
                self.sent[y], self._sent_hash[y] = target[y], target_hash[y]
        return "".join(out)

    def _shifted(self, rows: list[Any], scroll: Scroll, blank: Any) -> list[Any]:
        """`rows` (the sent rows or their hashes) as the terminal holds them after the scroll."""
        top, bottom, lines = scroll
        shifted = list(rows)
        if lines > 0:
            shifted[top : bottom + 1] = [*rows[top + lines : bottom + 1], *[blank] * lines]
        else:
            shifted[top : bottom + 1] = [*[blank] * -lines, *rows[top : bottom + 1 + lines]]
        return shifted

    def _scroll(self, scroll: Scroll) -> str:
        """The scroll-region operation, applied to the sent copy as the terminal will apply it."""
        top, bottom, lines = scroll
        blank = blank_row(self.width)
        self.sent = self._shifted(self.sent, scroll, blank)
        self._sent_hash = self._shifted(self._sent_hash, scroll, hash(blank))
        region = f"\x1b[0m\x1b[{top + 1};{bottom + 1}r"  # colours reset: scrolled-in rows take the background
        if lines > 0:
            # Line feeds at the bottom margin scroll the region up (VT100; the Linux console has no SU).
            move = f"\x1b[{bottom + 1}H" + "\n" * lines
        else:
            # Reverse index at the top margin scrolls the region down.
            move = f"\x1b[{top + 1}H" + "\x1bM" * -lines
        self.scrolls += 1
        # DECSTBM homes the cursor; the caller moves it before writing anything.
        return region + move + "\x1b[r"

    def find_scroll(self, changed: list[int]) -> Scroll | None:
        """The band and distance the changed rows moved by, when scrolling it costs fewer bytes than rewriting."""
        target_hash, sent_hash, height = self._target_hash, self._sent_hash, self.height
        low, high = changed[0], changed[-1]
        where: dict[int, list[int]] = {}
        for y in range(low, high + 1):
            key = sent_hash[y]
            if key is not None:
                where.setdefault(key, []).append(y)
        votes: dict[int, int] = {}
        for y in changed:
            places = where.get(target_hash[y])
            # A row that occurs often (a blank line) says nothing about where the band moved.
            if places is None or len(places) > 2:
                continue
            for place in places:
                if place != y:
                    votes[place - y] = votes.get(place - y, 0) + 1
        if not votes:
            return None
        lines = max(votes, key=lambda shift: (votes[shift], -abs(shift)))
        if votes[lines] < 2:
            return None
        matched = [y for y in changed if 0 <= y + lines < height and target_hash[y] == sent_hash[y + lines]]
        if not matched:
            return None
        if lines > 0:
            scroll = Scroll(matched[0], matched[-1] + lines, lines)
        else:
            scroll = Scroll(matched[0] + lines, matched[-1], lines)
        if scroll.bottom - scroll.top < abs(lines):
            return None
        shifted = self._shifted(sent_hash, scroll, hash(blank_row(self.width)))
        rows = sorted(set(changed).union(range(scroll.top, scroll.bottom + 1)))
        after = [y for y in rows if target_hash[y] != shifted[y]]
        if len(after) + 1 < len(changed):
            return scroll  # fewer rows to write: the common case, a full-width band that scrolled
        if len(rows) < 6:
            return None
        # As many rows either way (a panel beside the band did not move with it): compare the
        # cells a few of them would cost, either way.
        sent, target, width = self.sent, self.target, self.width
        sent_after = self._shifted(sent, scroll, blank_row(width))
        sample = rows[:: max(1, len(rows) // 4)]

        def cost(row: Row, before: Row | None) -> int:
            span = changed_span(row, before, width)
            return 0 if span is None else span[1] - span[0] + _ROW_COST

        plain = sum(cost(target[y], sent[y]) for y in sample) / len(sample) * len(changed)
        scrolled = sum(cost(target[y], sent_after[y]) for y in sample) / len(sample) * len(rows)
        return scroll if scrolled + _SCROLL_COST < plain else None

