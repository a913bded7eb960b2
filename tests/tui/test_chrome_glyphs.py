"""Every character Tandem's own chrome can draw is one the fonts people have can show, per glyph set.

The chrome is what Tandem writes itself, never an agent's text: the string literals of core/ (its
cards and errors, the demo agent's scripts left out), widgets/ and tui/ (status lines, hints, cards,
glyph tables; docstrings left out), the stylesheets in themes/, and what Textual draws for them (the
borders the stylesheets name, scrollbars, toggle boxes, list bullets). With the `unicode` set each
non-ASCII character must be in DejaVu Sans Mono (Debian's default monospace font, read with
fontTools) and none may be an emoji; with `linux` each must reach the screen as a character of the
console font; with `ascii` as 7-bit ASCII; never as the translator's last resort `?` (but for U+FFFD,
the sanitiser's mark for a character it could not decode, whose ASCII is `?`).
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import unicodedata
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
from textual._border import BORDER_CHARS
from textual.scrollbar import ScrollBarRender
from textual.widgets import RadioButton

from tandem.tui.app.palette import TandemPalette
from tandem.tui.terminal.glyphs import LINUX_CONSOLE_CHARS, translator
from tandem.widgets.laid_out_once import StreamMarkdown
from tandem.widgets.marked_checkbox import MarkedCheckbox

ROOT = Path(__file__).resolve().parents[2]
CHROME = ("core", "widgets", "tui")
NOT_CHROME = (
    ROOT / "core" / "agui" / "demo",  # the demo agent: an agent's text, shown as any agent's is
    ROOT / "tui" / "terminal" / "glyphs.py",  # the translation tables: what may come in, checked below per set
    ROOT / "core" / "sanitize.py",  # the invisible characters `reveal` writes as <U+XXXX>: never drawn
)
FONT_FILES = ("/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf", "/usr/share/fonts/dejavu/DejaVuSansMono.ttf",
              "/usr/share/fonts/TTF/DejaVuSansMono.ttf")


def _literals(tree: ast.AST) -> Iterator[str]:
    """A module's string literals, its docstrings left out (never drawn)."""
    docstrings: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
        # An attribute docstring: a string statement right after an assignment.
        for body in (getattr(node, "body", None), getattr(node, "orelse", None)):
            if isinstance(body, list):
                for earlier, later in zip(body, body[1:], strict=False):
                    if isinstance(earlier, ast.Assign | ast.AnnAssign) and isinstance(later, ast.Expr) \
                            and isinstance(later.value, ast.Constant):
                        docstrings.add(id(later.value))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield node.value


def _textual_chrome(stylesheets: str) -> str:
    """What Textual draws for Tandem: the borders its rules name, scrollbars, toggles, bullets."""
    named = set(re.findall(r"border(?:-top|-bottom|-left|-right)?\s*:\s*([a-z]+)", stylesheets))
    borders = "".join("".join(row) for name in named if name in BORDER_CHARS for row in BORDER_CHARS[name])
    bars = "".join(ScrollBarRender.VERTICAL_BARS + ScrollBarRender.HORIZONTAL_BARS)
    toggles = MarkedCheckbox.BUTTON_LEFT + MarkedCheckbox.BUTTON_RIGHT + "✓" + RadioButton.BUTTON_INNER
    return borders + bars + toggles + "".join(StreamMarkdown.BULLETS) + TandemPalette.SEARCH_MARK


@cache
def chrome_chars() -> dict[str, str]:
    """Every non-ASCII character of the chrome, and where one of them comes from."""
    found: dict[str, str] = {}
    stylesheets = []
    for folder in CHROME:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if any(path == skip or skip in path.parents for skip in NOT_CHROME):
                continue
            for literal in _literals(ast.parse(path.read_text(encoding="utf-8"))):
                if "border" in literal:
                    stylesheets.append(literal)
                for char in literal:
                    if not char.isascii():
                        found.setdefault(char, str(path.relative_to(ROOT)))
    for path in sorted((ROOT / "themes").glob("*.tcss")):
        text = path.read_text(encoding="utf-8")
        stylesheets.append(text)
        for char in re.sub(r"/\*.*?\*/", "", text, flags=re.S):
            if not char.isascii():
                found.setdefault(char, str(path.relative_to(ROOT)))
    for char in _textual_chrome("\n".join(stylesheets)):
        if not char.isascii():
            found.setdefault(char, "Textual, for Tandem's stylesheets")
    return found


def _font_file() -> Path | None:
    if shutil.which("fc-match"):
        matched = subprocess.run(["fc-match", "-f", "%{file}", "DejaVu Sans Mono"], capture_output=True, text=True).stdout
        if matched and "DejaVuSansMono" in matched and Path(matched).is_file():
            return Path(matched)
    return next((Path(path) for path in FONT_FILES if Path(path).is_file()), None)


def test_the_collection_holds_what_the_chrome_draws() -> None:
    chars = chrome_chars()
    # A status glyph, a box of the composer's round frame, a scrollbar eighth, the checkbox's mark.
    assert {"✓", "╭", "▁", "▐"} <= chars.keys()
    assert "古" not in chars  # the demo agent's haiku is an agent's text


def test_unicode_draws_only_what_dejavu_sans_mono_has_and_no_emoji() -> None:
    ttlib = pytest.importorskip("fontTools.ttLib", reason="reading the font needs fontTools (the test extra)")
    font = _font_file()
    if font is None:
        pytest.skip("DejaVu Sans Mono is not installed (apt: fonts-dejavu-core); the font's coverage cannot be read")
    cmap = ttlib.TTFont(str(font)).getBestCmap()
    missing = {f"{char} U+{ord(char):04X} ({where})" for char, where in chrome_chars().items() if ord(char) not in cmap}
    emoji = {f"{char} U+{ord(char):04X} ({where})" for char, where in chrome_chars().items()
             if unicodedata.east_asian_width(char) in ("W", "F") or ord(char) >= 0x1F000}
    assert not missing, f"not in {font.name}: {sorted(missing)}"
    assert not emoji, f"emoji or double-width in the chrome: {sorted(emoji)}"


@pytest.mark.parametrize("glyphs", ["linux", "ascii"])
def test_the_console_sets_show_every_chrome_character_without_a_question_mark(glyphs: str) -> None:
    translate = translator(glyphs)
    assert translate is not None
    shown = frozenset(LINUX_CONSOLE_CHARS) if glyphs == "linux" else frozenset()
    lost = {f"{char} U+{ord(char):04X} → {translate(char)!r} ({where})" for char, where in chrome_chars().items()
            if (translate(char) == "?" and char != "\ufffd") or not all(c.isascii() or c in shown for c in translate(char))}
    assert not lost, f"the {glyphs} set loses: {sorted(lost)}"
