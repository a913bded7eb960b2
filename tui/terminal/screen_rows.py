"""The terminal's screen as rows of segments, and the bytes that turn what it shows into a new frame.

Textual's compositor repaints every cell of a dirty region: when the conversation follows a
stream and scrolls by one line, every visible row of it is sent again, each segment wrapped in
its own colour codes. `ScreenRows` keeps two copies of the screen, row by row: the *target*
(what Textual means to show: its updates are applied here) and what was *sent* (what the
terminal shows). `render()` turns the sent copy into the target with few bytes:

- a band of rows that moved up or down (the conversation scrolled by n lines) becomes one
  scroll-region operation (DECSTBM, then n line feeds at the bottom margin or n reverse indexes
  at the top, then the region reset): VT100 sequences that every terminal Textual runs on has,
  unlike SU/SD, which the Linux console lacks;
- then each row that still differs is written from its first to its last differing cell;
- colours are written only when they change between segments, and then only the part that
  changed (Textual writes each segment's whole style and a reset after it);
- a row holding characters whose width terminals disagree on (zero-width characters and
  combining marks, emoji sequences joined by U+200D, variation selectors, skin tones, flags) is
  erased and written whole: a terminal that measures such a character differently from Rich
  shifts the rest of the row, and cells written at Rich's columns would land beside, not over,
  what they replace. Written whole from its first column, the row shows what a full repaint shows.

Rows are tuples of Rich `Segment`s exactly `width` cells wide. Nothing here writes to a terminal;
`tui.terminal.wire_output` feeds Textual's updates in and writes what `render()` returns.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from functools import lru_cache

from rich.cells import cell_len, get_character_cell_size
from rich.color import ColorSystem
from rich.segment import Segment
from rich.style import Style
from textual.strip import SGR_STYLES, Strip

__all__ = ["Row", "ScreenRows", "Scroll", "blank_row", "changed_span", "render_row", "uncertain_row"]

Row = tuple[Segment, ...]
"""One row of the screen: segments whose cells add up to the screen's width."""

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


def blank_row(width: int) -> Row:
    """What a row shows after the terminal scrolled it in or cleared it (default colours)."""
    return (Segment(" " * width),)



def _length(segment: Segment) -> int:
    text = segment.text
    if text.isascii() and text.isprintable():  # one cell per character, without Rich's lookups
        return len(text)
    return 0 if segment.control else cell_len(text)


@lru_cache(maxsize=4096)
def _uncertain_character(character: str) -> bool:
    """Whether terminals may give `character` another width than Rich does (Rich counts 0, 1 or 2)."""
    code = ord(character)
    return (
        get_character_cell_size(character) == 0  # combining marks, joiners, variation selectors, ...
        or 0x1F1E6 <= code <= 0x1F1FF  # regional indicators: Rich pairs them into 2-cell flags
        or 0x1F3FB <= code <= 0x1F3FF  # skin-tone modifiers: Rich 0 cells, many terminals 2
        or 0xD800 <= code <= 0xDFFF  # lone surrogates: written as escapes, if at all
    )


def uncertain_row(row: Sequence[Segment]) -> bool:
    """Whether the row holds a character terminals may measure differently from Rich (then it is written whole)."""
    for segment in row:
        text = segment.text
        if text.isascii():
            continue
        for character in text:
            if _uncertain_character(character):
                return True
    return False


def _one_cell_each(text: str) -> bool:
    """Whether every character of `text` is one cell wide (then characters and cells count alike)."""
    if text.isascii():
        return text.isprintable()
    return all(get_character_cell_size(character) == 1 for character in text)


def _cut(row: Sequence[Segment], start: int, end: int) -> list[Segment]:
    """The segments of `row` between cells `start` and `end` (both on character boundaries)."""
    out: list[Segment] = []
    position = 0
    for segment in row:
        if position >= end:
            break
        length = _length(segment)
        stop = position + length
        if stop <= start:
            position = stop
            continue
        if position >= start and stop <= end:
            out.append(segment)
        else:
            # Only the first and last segments are cut; Rich splits wide characters safely.
            piece = segment
            if position < start:
                piece = piece.split_cells(start - position)[1]
            if stop > end:
                piece = piece.split_cells(end - max(position, start))[0]
            if piece.text:
                out.append(piece)
        position = stop
    return out


def _splice(row: Row, start: int, end: int, middle: list[Segment], width: int) -> Row:
    """`row` with cells [start, end) replaced by `middle` (end - start cells; past `width`: clamped)."""
    if end > width:
        middle = list(_clamped(middle, width - start))
        end = width
    if start <= 0 and end >= width:
        return tuple(middle)
    return (*_cut(row, 0, start), *middle, *_cut(row, end, width))


def _clamped(segments: list[Segment], width: int) -> Row:
    """What a terminal without autowrap shows of segments wider than `width` cells.

    The cells that fit, then the last column overwritten by every character written past it:
    the row's last character stays there (as Textual's own output leaves it).
    """
    for segment in reversed(segments):
        text = segment.text
        if segment.control or not text:
            continue
        index = len(text) - 1
        while index > 0 and not cell_len(text[index]):
            index -= 1  # zero-width characters go with the character they follow
        last = text[index:]
        size = cell_len(last)
        if not size:
            continue
        if size > width:
            return (Segment(" " * width),) if width > 0 else ()
        return (*_cut(segments, 0, width - size), Segment(last, segment.style))
    return tuple(_cut(segments, 0, width))


def _fit(segments: list[Segment], width: int) -> Row:
    """The segments as a row of exactly `width` cells, as a terminal shows them written from column 0."""
    length = sum(_length(segment) for segment in segments)
    if length == width:
        return tuple(segments)
    if length > width:
        return _clamped(segments, width)
    return (*segments, Segment(" " * (width - length)))


def _common_prefix(a: str, b: str) -> int:
    limit = min(len(a), len(b))
    index = 0
    while index < limit and a[index] == b[index]:
        index += 1
    return index


def changed_span(new: Row, old: Row | None, width: int) -> tuple[int, int] | None:
    """The cells [start, end) of `new` that differ from `old`, or None when the rows are equal.

    Walks equal segments in from both ends; inside the first unequal pair of the same style it
    goes on character by character when both are one cell per character (never splitting a wide
    character). Conservative: the span may include equal cells, never miss a different one.
    """
    if old is None:
        return 0, width
    if new is old:
        return None
    start = 0
    count = min(len(new), len(old))
    index = 0
    while index < count and (new[index] is old[index] or new[index] == old[index]):
        start += _length(new[index])
        index += 1
    head = index
    if index < count:
        a, b = new[index], old[index]
        if a.style == b.style and not a.control and not b.control:
            same = _common_prefix(a.text, b.text)
            if same and _one_cell_each(a.text) and _one_cell_each(b.text):
                start += same
    end = width
    index = 0
    while index < count - head and (new[-1 - index] is old[-1 - index] or new[-1 - index] == old[-1 - index]):
        end -= _length(new[-1 - index])
        index += 1
    if index < count - head:
        a, b = new[-1 - index], old[-1 - index]
        if a.style == b.style and not a.control and not b.control:
            same = _common_prefix(a.text[::-1], b.text[::-1])
            if same and _one_cell_each(a.text) and _one_cell_each(b.text):
                end -= same
    if start >= end:
        # Equal cells, different segmentation.
        return None
    return start, end


_Sgr = tuple[str, str, str]
"""A style's SGR parameters: attributes, foreground, background (each "" when unset)."""

_PLAIN: _Sgr = ("", "", "")
_SGR_CACHE: dict[tuple[Style, ColorSystem], _Sgr] = {}


def _sgr(style: Style, color_system: ColorSystem) -> _Sgr:
    """The style's SGR parameters, as Textual's `Strip.render_ansi` computes them, split in three."""
    key = (style, color_system)
    cached = _SGR_CACHE.get(key)
    if cached is not None:
        return cached
    attributes = style._attributes & style._set_attributes
    codes = ";".join(SGR_STYLES[bit] for bit in range(attributes.bit_length()) if attributes & (1 << bit))
    color, bgcolor = style._color, style._bgcolor
    foreground = "" if color is None else ";".join(color.downgrade(color_system).get_ansi_codes())
    background = "" if bgcolor is None else ";".join(bgcolor.downgrade(color_system).get_ansi_codes(False))
    if len(_SGR_CACHE) > 8192:  # styles carry per-line metadata: bound the cache
        _SGR_CACHE.clear()
    parts = _SGR_CACHE[key] = (codes, foreground, background)
    return parts


class _Pen:
    """Writes segments with their colours, sending SGR codes only for what changes between them.

    Textual writes every segment as `ESC[<all of its style>m text ESC[0m`. The pen keeps the
    terminal's current attributes and colours: between two styles with the same attributes it
    sends only the colour that changed (39/49 for the default), else a reset and the whole style.
    """

    __slots__ = ("color_system", "out", "sgr")

    def __init__(self, color_system: ColorSystem, out: list[str]) -> None:
        self.sgr = _PLAIN
        self.color_system = color_system
        self.out = out

    def write(self, segments: Iterable[Segment]) -> None:
        append = self.out.append
        color_system = self.color_system
        for text, style, control in segments:
            if control:
                append(text)
                continue
            sgr = _PLAIN if style is None else _sgr(style, color_system)
            if sgr != self.sgr:
                append(self._change(self.sgr, sgr))
                self.sgr = sgr
            link = None if style is None else style._link
            if link:
                assert style is not None
                append(f"\x1b]8;id={style._link_id};{link}\x1b\\{text}\x1b]8;;\x1b\\")
            else:
                append(text)

    @staticmethod
    def _change(old: _Sgr, new: _Sgr) -> str:
        if old[0] == new[0]:
            params = []
            if old[1] != new[1]:
                params.append(new[1] or "39")
            if old[2] != new[2]:
                params.append(new[2] or "49")
            return f"\x1b[{';'.join(params)}m"
        # Different attributes: from a reset, so that none of the old ones leaks into the new style.
        full = ";".join(part for part in new if part)
        return f"\x1b[0;{full}m" if full else "\x1b[0m"

    def reset(self) -> None:
        if self.sgr != _PLAIN:
            self.out.append("\x1b[0m")
            self.sgr = _PLAIN


def render_row(row: Sequence[Segment], color_system: ColorSystem = ColorSystem.TRUECOLOR) -> str:
    """The row's segments as terminal text, colours written only where they change, reset at the end."""
    out: list[str] = []
    pen = _Pen(color_system, out)
    pen.write(row)
    pen.reset()
    return "".join(out)


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
            self._set(y, _fit([segment for strip in chops if strip is not None for segment in strip._segments], width))
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
                    length += _length(segment)
                if not length:
                    continue
                if x != run_end and run:
                    row = _splice(row, run_start, run_end, run, width)
                    run = []
                if not run:
                    run_start = x
                run.extend(piece)
                run_end = x + length
            if run:
                row = _splice(row, run_start, run_end, run, width)
            if row is not target[y]:
                self._set(y, row)

    # -- the bytes ---------------------------------------------------------------------------

    @property
    def pending(self) -> bool:
        """Whether rows were touched since the last render (there may be something to send)."""
        return bool(self._touched)

    def render(self, color_system: ColorSystem, rows: Collection[int] | None = None) -> str:
        """The terminal text that turns the sent screen into the target; the sent screen becomes the target.

        With `rows`, only those rows (and no scroll): the others stay pending for the next render.
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
        pen = _Pen(color_system, out)
        append = out.append
        width = self.width
        for y in changed:
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
            pen.write(row if start == 0 and end == width else _cut(row, start, end))
        pen.reset()
        if rows is None:
            self.sent = list(target)
            self._sent_hash = list(target_hash)
        else:
            for y in changed:
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
