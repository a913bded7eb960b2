"""`tui.app.stored_lines.paintable`: stored lines are painted only when they fit the terminal, and
nothing in them can reach the terminal but plain cells (they are agent text, and data on disk)."""

from __future__ import annotations

import copy
from types import SimpleNamespace
from typing import Any

import pytest
from rich.style import Style
from textual.geometry import Region

from tandem.tui.app.stored_lines import LINES_VERSION, look_of, paintable


def _app(width: int = 10, height: int = 4) -> Any:
    from textual.geometry import Size

    return SimpleNamespace(theme="tandem-dark", console=SimpleNamespace(color_system="truecolor"), ansi_color=False,
                           get_line_filters=lambda: [], size=Size(width, height))


def _lines(app: Any) -> dict[str, Any]:
    return {
        "version": LINES_VERSION,
        "look": look_of(app),
        "screen": [10, 4],
        "region": [0, 0, 10, 2],
        "styles": [["#ffffff", "#000000", 1], ["", "", 0]],
        "rows": [["hello", 0, " you ", 1], ["0123456789", 1]],
    }


def test_lines_that_fit_are_painted_as_they_were_kept() -> None:
    app = _app()
    found = paintable(_lines(app), app)
    assert found is not None
    region, strips = found
    assert region == Region(0, 0, 10, 2)
    assert [strip.text for strip in strips] == ["hello you ", "0123456789"]
    first = list(strips[0])[0]
    assert first.style == Style(color="#ffffff", bgcolor="#000000", bold=True)


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d.update(version=LINES_VERSION + 1),
        lambda d: d.update(look="tandem-light|truecolor|0|"),
        lambda d: d.update(screen=[11, 4]),  # another terminal size
        lambda d: d.update(region=[0, 0, 10, 5]),  # outside the screen
        lambda d: d["rows"][1].__setitem__(0, "012345678"),  # a row narrower than the region
        lambda d: d["rows"].pop(),  # fewer rows than the region
        lambda d: d["rows"][0].__setitem__(0, "\x1bhello"),  # a terminal control taking no cell
        lambda d: d["rows"][0].__setitem__(0, "\u202ehello"),  # a bidirectional override
        lambda d: d["rows"][0].__setitem__(0, "hel\tl"),
        lambda d: d["rows"][0].__setitem__(1, 7),  # no such style
        lambda d: d["rows"][0].__setitem__(1, True),
        lambda d: d["styles"][0].__setitem__(0, "link https://example.com"),  # only colours are styles
        lambda d: d["styles"][0].__setitem__(2, 1 << 12),
        lambda d: d["styles"].__setitem__(0, ["#fff"]),
        lambda d: d.update(rows="hello"),
    ],
)
def test_lines_that_do_not_fit_or_are_not_plain_cells_are_refused(change: Any) -> None:
    app = _app()
    lines = copy.deepcopy(_lines(app))
    change(lines)
    assert paintable(lines, app) is None


def test_anything_else_is_refused() -> None:
    app = _app()
    for junk in (None, [], "lines", {"version": LINES_VERSION}):
        assert paintable(junk, app) is None
