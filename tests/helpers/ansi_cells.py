"""The cells of a tmux `capture-pane -e` screen: each character with the ANSI colours it was drawn in.

For the 16-colour checks: `cells` reads the SGR codes (and fails on a colour beyond the 16 ANSI
ones), `invisible` lists letters drawn in their own background colour, `inside_modal` keeps only
the modal around a marker.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_SGR = re.compile(r"\x1b\[([0-9;]*)m")


@dataclass(frozen=True)
class Cell:
    """One character on screen and the ANSI colours it was drawn with (None: the default)."""

    x: int
    y: int
    char: str
    fg: int | None
    bg: int | None


def cells(styled: str) -> list[Cell]:
    """The cells of a `capture-pane -e` screen.

    Raises:
        AssertionError: a colour outside the 16 ANSI colours was used.
    """
    fg: int | None = None
    bg: int | None = None
    reverse = False
    out: list[Cell] = []

    def put(text: str, x: int, y: int) -> int:
        for char in text:
            front, back = (bg, fg) if reverse else (fg, bg)
            out.append(Cell(x, y, char, front, back))
            x += 1
        return x

    for y, line in enumerate(styled.split("\n")):
        x, position = 0, 0
        for match in _SGR.finditer(line):
            x = put(line[position:match.start()], x, y)
            position = match.end()
            for code in [int(c) if c else 0 for c in match.group(1).split(";")]:
                assert code not in (38, 48), f"a colour beyond the 16 ANSI ones at row {y}: {match.group(0)!r}"
                if code == 0:
                    fg, bg, reverse = None, None, False
                elif code in (7, 27):
                    reverse = code == 7
                elif 30 <= code <= 37 or 90 <= code <= 97:
                    fg = code - 30 if code < 90 else code - 82
                elif code == 39:
                    fg = None
                elif 40 <= code <= 47 or 100 <= code <= 107:
                    bg = code - 40 if code < 100 else code - 92
                elif code == 49:
                    bg = None
        put(line[position:], x, y)
    return out


def invisible(styled: str) -> list[Cell]:
    """Letters and digits drawn in the colour of their own background."""
    return [c for c in cells(styled) if c.char.isalnum() and c.fg is not None and c.fg == c.bg]


def inside_modal(styled: str, marker: str) -> str:
    """Only the modal around `marker` (its tall border is drawn with █): what is behind a modal is
    dimmed on purpose, and in 16 colours some of it fades to its background."""
    lines = [line for line in _SGR.sub("", styled).split("\n")]
    y = next(i for i, line in enumerate(lines) if marker in line)
    x = lines[y].index(marker)
    left, right = lines[y].rindex("█", 0, x), lines[y].index("█", x)
    top, bottom = y, y
    while top > 0 and lines[top - 1][left:left + 1] == "█":
        top -= 1
    while bottom + 1 < len(lines) and lines[bottom + 1][left:left + 1] == "█":
        bottom += 1
    kept = [c for c in cells(styled) if top <= c.y <= bottom and left < c.x < right]
    rows: dict[int, list[Cell]] = {}
    for cell in kept:
        rows.setdefault(cell.y, []).append(cell)
    return "\n".join(
        "".join(f"\x1b[{_code(c.fg, 30)};{_code(c.bg, 40)}m{c.char}" for c in row) for _y, row in sorted(rows.items())
    )


def _code(colour: int | None, base: int) -> int:
    if colour is None:
        return base + 9
    return base + colour if colour < 8 else base + 60 + colour - 8
