"""Whether a screen's interactive elements can be seen in 256 and 16 colours: read from its rendered cells.

Textual composes a screen in true colour; a terminal with fewer colours gets each colour downgraded
the way Rich downgrades it on the way out (`Color.downgrade`: the nearest of xterm's 256, or of the
16 ANSI colours). `frame_problems` reads the composed cells of a screen, downgrades them and asks,
for every focusable widget on screen, whether its frame (its border, or its own background where it
has none; the palette's input, its row's) stands out from the background around it, and whether its text stands out from the cells
behind the text. Contrast is WCAG's ratio of relative luminances, the 16 ANSI colours taken at Rich's
default terminal palette (xterm's).
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.color import Color, ColorSystem
from rich.segment import Segment
from rich.style import Style
from textual.command import CommandInput
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, Input, TextArea
from textual.widgets._toggle_button import ToggleButton

__all__ = ["FRAME_RATIO", "TEXT_RATIO", "Cell", "contrast", "frame_problems", "screen_cells"]

FRAME_RATIO = 3.0
"""WCAG 2.1's minimum (1.4.11, non-text contrast) for what shows where an input or a button is."""

TEXT_RATIO = 3.0
"""The least a label, a typed value or a placeholder may have against the cells behind it."""


CONTROLS = (Input, TextArea, Button, ToggleButton)
"""Where a person types or presses: fields, the composer, buttons, checkboxes and radio buttons."""

EDGES = frozenset("▐▌")
"""A toggle button's half-block ends: drawn in the colour of its box, for shape, not read as text."""


@dataclass(frozen=True)
class Cell:
    """One composed cell: its character and its colours, downgraded to the terminal's colour system."""

    char: str
    fg: tuple[int, int, int]
    bg: tuple[int, int, int]


def _rgb(color: Color | None, system: ColorSystem, default: tuple[int, int, int]) -> tuple[int, int, int]:
    if color is None or color.is_default:
        return default
    triplet = color.downgrade(system).get_truecolor()
    return (triplet.red, triplet.green, triplet.blue)


def screen_cells(screen: Screen[object], system: ColorSystem) -> list[list[Cell]]:
    """The screen as composed for the terminal (modal screens over the ones below), cell by cell."""
    rows: list[list[Cell]] = []
    for strip in screen._compositor.render_strips():
        row: list[Cell] = []
        for segment in strip:
            if not isinstance(segment, Segment) or segment.control:
                continue
            style = segment.style or Style()
            fg = _rgb(style.color, system, (229, 229, 229))
            bg = _rgb(style.bgcolor, system, (0, 0, 0))
            if style.reverse:
                fg, bg = bg, fg
            row.extend(Cell(char, fg, bg) for char in segment.text)
        rows.append(row)
    return rows


def _luminance(rgb: tuple[int, int, int]) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    """WCAG's contrast ratio, 1 (the same) to 21 (black on white)."""
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _outside(cells: list[list[Cell]], widget: Widget) -> Cell | None:
    """A cell of the background around the widget: beside its middle row, else above or below it."""
    region = widget.region
    y = region.y + region.height // 2
    for x, row in ((region.x - 1, y), (region.right, y)):
        if 0 <= row < len(cells) and 0 <= x < len(cells[row]):
            return cells[row][x]
    for row in (region.y - 1, region.bottom):
        if 0 <= row < len(cells) and region.x < len(cells[row]):
            return cells[row][region.x]
    return None


def frame_problems(screen: Screen[object], system: ColorSystem, where: str) -> list[str]:
    """What cannot be seen of the screen's enabled focusable widgets in `system`, one line each."""
    cells = screen_cells(screen, system)
    problems: list[str] = []
    for widget in screen.focus_chain:
        if widget.disabled or not widget.region or not widget.display or not isinstance(widget, CONTROLS):
            continue
        name = f"{where}: {type(widget).__name__}#{widget.id or '-'} in {system.name}"
        region = widget.region.intersection(screen.region)
        framed = widget.parent if isinstance(widget, CommandInput) and isinstance(widget.parent, Widget) else widget
        around = _outside(cells, framed)
        if around is None or not region:
            continue
        inside = [cells[y][x] for y in range(region.y, region.bottom) for x in range(region.x, region.right)
                  if y < len(cells) and x < len(cells[y])]
        bordered = any(edge for edge, _ in framed.styles.border)
        if isinstance(widget, ToggleButton):
            # Its box: the half-block ends, drawn in the box's colour on the button's background.
            frame = max((contrast(cell.fg, cell.bg) for cell in inside if cell.char in EDGES), default=1.0)
        elif bordered:
            corner = cells[framed.region.y][framed.region.x]
            frame = max(contrast(corner.fg, around.bg), contrast(corner.bg, around.bg))
        else:
            frame = max(contrast(cell.bg, around.bg) for cell in inside)
        if frame < FRAME_RATIO:
            problems.append(f"{name}: its frame {frame:.2f}:1 against the background around it {around.bg}")
        content = widget.content_region.intersection(screen.region)
        text = [cells[y][x] for y in range(content.y, content.bottom) for x in range(content.x, content.right)
                if y < len(cells) and x < len(cells[y]) and cells[y][x].char.strip() and cells[y][x].char not in EDGES]
        faint = [cell for cell in text if contrast(cell.fg, cell.bg) < TEXT_RATIO]
        if faint:
            worst = min(faint, key=lambda cell: contrast(cell.fg, cell.bg))
            problems.append(f"{name}: {len(faint)} of {len(text)} text cells faint, {worst.char!r} at"
                            f" {contrast(worst.fg, worst.bg):.2f}:1 ({worst.fg} on {worst.bg})")
    return problems
