"""Rows of the screen as Rich segments: measuring, cutting, splicing and comparing them by cells.

A row is a tuple of `Segment`s exactly as many cells wide as the screen. Pure functions, any thread.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from rich.cells import cell_len, get_character_cell_size
from rich.segment import Segment

__all__ = ["Row", "blank_row", "cell_count", "changed_span", "cut", "fit", "splice", "uncertain_row"]

Row = tuple[Segment, ...]
"""One row of the screen: segments whose cells add up to the screen's width."""


def blank_row(width: int) -> Row:
    """What a row shows after the terminal scrolled it in or cleared it (default colours)."""
    return (Segment(" " * width),)



def cell_count(segment: Segment) -> int:
    """How many cells `segment` takes (a control segment none)."""
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


def cut(row: Sequence[Segment], start: int, end: int) -> list[Segment]:
    """The segments of `row` between cells `start` and `end` (both on character boundaries)."""
    out: list[Segment] = []
    position = 0
    for segment in row:
        if position >= end:
            break
        length = cell_count(segment)
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


def splice(row: Row, start: int, end: int, middle: list[Segment], width: int) -> Row:
    """`row` with cells [start, end) replaced by `middle` (end - start cells; past `width`: clamped)."""
    if end > width:
        middle = list(_clamped(middle, width - start))
        end = width
    if start <= 0 and end >= width:
        return tuple(middle)
    return (*cut(row, 0, start), *middle, *cut(row, end, width))


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
        return (*cut(segments, 0, width - size), Segment(last, segment.style))
    return tuple(cut(segments, 0, width))


def fit(segments: list[Segment], width: int) -> Row:
    """The segments as a row of exactly `width` cells, as a terminal shows them written from column 0."""
    length = sum(cell_count(segment) for segment in segments)
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
        start += cell_count(new[index])
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
        end -= cell_count(new[-1 - index])
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
