"""The conversation's last screen, kept as its lines when a thread closes and painted as they are
by the next `tandem --resume`, in its first frame.

A resume first paints the thread's stored last blocks (`core.store.tail`). Built as views, they
cost what any view costs before it shows (Markdown parsed, highlighted, laid out: most of the
time from start to the last message painted); yet on the same terminal they only ever show what
the screen showed when the thread was closed. So at that close (`capture`, UI thread) the cells
of the conversation's region are kept with the tail, and a resume whose terminal has the same
size and look paints them in its first frame (`StoredLines`, above the conversation, which goes
on starting beneath it) and removes them once the replayed blocks are drawn there. Anything else
(another size or theme, a screen that was scrolled up or covered) falls back to the views of
the stored blocks.

Derived data, hostile like everything an agent wrote: `paintable` rebuilds each cell from its
text and the few style fields kept (colours by name, attributes as bits: no links, no meta, no
control segments) and refuses the whole screen if any text is not what the views' sanitiser
lets through, if a row is not exactly the region's width, or anything else does not parse; the
views are then built instead.

Textual's private seam used (Textual 8.2.8, pinned): `Screen._compositor.render_strips`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.color import Color, ColorParseError
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget

from tandem.tui.terminal.screen_compositor import composed_lines

if TYPE_CHECKING:
    from textual.app import App

__all__ = ["LINES_VERSION", "StoredLines", "capture", "look_of", "paintable"]

LINES_VERSION = 1
"""Bumped whenever what `capture` keeps changes: lines of another version are not painted."""

_ATTRIBUTES = ("bold", "dim", "italic", "underline", "blink", "reverse", "strike", "overline")
"""The text attributes kept, by bit (1 << index)."""

_MAX_COLOR_NAME = 24
"""Longer colour names are refused (rich's names are at most "color(255)" or "#rrggbb" long)."""

_MAX_CHARACTERS_PER_CELL = 4
"""More characters than this per cell on average (combining marks take no cell) are refused."""


def look_of(app: App[Any]) -> str:
    """What, besides the size, decides how the same blocks are drawn: the theme, the colours the
    terminal takes, the app's line filters (no colour, dimmed when unfocused...)."""
    filters = ",".join(sorted(type(line_filter).__name__ for line_filter in app.get_line_filters()))
    return f"{app.theme}|{app.console.color_system}|{int(bool(app.ansi_color))}|{filters}"


def capture(app: App[Any], region: Region) -> dict[str, Any] | None:
    """The lines the screen shows in `region` (the conversation's, on the main screen being
    shown), as `paintable` reads them; None when the compositor cannot render them.

    The caller decides that the region shows what the stored tail ends with (the conversation
    follows its end, nothing covers it).
    """
    screen = app.screen
    size = screen.size
    if not region or not size.region.contains_region(region):
        return None
    strips = composed_lines(screen)
    if len(strips) < region.bottom:
        return None
    styles: dict[tuple[str, str, int], int] = {}
    rows: list[list[Any]] = []
    for y in range(region.y, region.bottom):
        row: list[Any] = []
        for segment in strips[y].crop(region.x, region.right):
            if segment.control or not segment.text:
                continue
            key = _style_key(segment.style)
            index = styles.setdefault(key, len(styles))
            if row and row[-1] == index:
                row[-2] += segment.text  # the same style as the segment before: one cell run
            else:
                row += [segment.text, index]
        rows.append(row)
    return {
        "version": LINES_VERSION,
        "look": look_of(app),
        "screen": [size.width, size.height],
        "region": [region.x, region.y, region.width, region.height],
        "styles": [list(key) for key in styles],
        "rows": rows,
    }


def _style_key(style: Style | None) -> tuple[str, str, int]:
    if style is None:
        return ("", "", 0)
    bits = 0
    for bit, attribute in enumerate(_ATTRIBUTES):
        if getattr(style, attribute):
            bits |= 1 << bit
    return (style.color.name if style.color else "", style.bgcolor.name if style.bgcolor else "", bits)


def paintable(lines: object, app: App[Any]) -> tuple[Region, list[Strip]] | None:
    """The region and strips of `lines` (what `capture` kept) if they can be painted on `app`'s
    screen as it is now: same version, screen size and look, and every cell checked (see the
    module docstring). None otherwise: the caller then builds the views."""
    from tandem.core.sanitize import sanitize

    try:
        if not isinstance(lines, dict) or lines.get("version") != LINES_VERSION or lines.get("look") != look_of(app):
            return None
        if lines.get("screen") != [app.size.width, app.size.height]:
            return None
        x, y, width, height = _ints(lines.get("region"), 4)
        region = Region(x, y, width, height)
        if width <= 0 or height <= 0 or not app.size.region.contains_region(region):
            return None
        styles = [_style(entry) for entry in _list(lines.get("styles"))]
        rows = _list(lines.get("rows"))
        if len(rows) != height:
            return None
        texts: list[str] = []
        strips: list[Strip] = []
        for row in rows:
            cells = _list(row)
            if len(cells) % 2:
                return None
            segments = []
            for index in range(0, len(cells), 2):
                text, style = cells[index], cells[index + 1]
                if not isinstance(text, str) or type(style) is not int or not 0 <= style < len(styles):
                    return None
                texts.append(text)
                segments.append(Segment(text, styles[style]))
            strip = Strip(segments)
            if strip.cell_length != width:
                return None
            strips.append(strip)
        text = "".join(texts)
        if len(text) > _MAX_CHARACTERS_PER_CELL * width * height:
            return None
        # Cells never hold a line break or a tab (the views expand them), nor anything the
        # views' sanitiser removes (terminal controls, bidirectional overrides).
        if "\n" in text or "\t" in text or sanitize(text) != text:
            return None
    except (TypeError, ValueError, ColorParseError):
        return None
    return region, strips


def _list(value: object) -> list[Any]:
    if not isinstance(value, list):
        raise TypeError("not a list")
    return value


def _ints(value: object, count: int) -> list[int]:
    values = _list(value)
    if len(values) != count or any(type(item) is not int for item in values):
        raise TypeError("not ints")
    return values


def _color(name: object) -> Color | None:
    if not isinstance(name, str) or len(name) > _MAX_COLOR_NAME:
        raise TypeError("not a colour name")
    return Color.parse(name) if name else None


def _style(entry: object) -> Style:
    values = _list(entry)
    if len(values) != 3:
        raise TypeError("not a style")
    fg, bg, bits = values
    if type(bits) is not int or not 0 <= bits < 1 << len(_ATTRIBUTES):
        raise TypeError("not a style")
    on = [True if bits & 1 << bit else None for bit in range(len(_ATTRIBUTES))]
    return Style(color=_color(fg), bgcolor=_color(bg), bold=on[0], dim=on[1], italic=on[2], underline=on[3],
                 blink=on[4], reverse=on[5], strike=on[6], overline=on[7])


class StoredLines(Widget):
    """The stored lines of the conversation's last screen (`paintable`), drawn as they are over the
    conversation's region until the replayed blocks are drawn beneath (then the screen removes it).

    Owns its strips only: no focus, no Markdown, nothing laid out inside it. Placed over the
    screen (not in the layout), at the region they were taken from, so the conversation beneath
    starts, and is laid out, as it would without it.
    """

    DEFAULT_CSS = """
    StoredLines {
        overlay: screen;
        position: absolute;
    }
    """

    can_focus = False

    def __init__(self, region: Region, strips: Sequence[Strip], *, screen_size: Size, id: str | None = None) -> None:
        super().__init__(id=id)
        self._strips = list(strips)
        self.screen_size = screen_size
        """The terminal's size the lines fit (another size shows the conversation instead)."""
        self.styles.offset = (region.x, region.y)
        self.styles.width = region.width
        self.styles.height = region.height

    @property
    def text(self) -> list[str]:
        """The text of each line, without styles."""
        return [strip.text for strip in self._strips]

    def render_lines(self, crop: Region) -> list[Strip]:
        # The strips are the screen's own cells (theme and filters applied when they were taken):
        # not passed through the styles cache again, which would apply the filters twice.
        blank = Strip.blank(crop.width)
        return [
            self._strips[y].crop(crop.x, crop.right) if y < len(self._strips) else blank
            for y in range(crop.y, crop.bottom)
        ]
