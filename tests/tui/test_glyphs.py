"""Glyph sets: the choice from flag, environment and TERM, and the translation of what is written."""

from __future__ import annotations

import pytest

from tandem.tui.terminal.glyphs import LINUX_CONSOLE_CHARS, choose_glyphs, translator


@pytest.mark.parametrize(("flag", "environ", "expected"), [
    (None, {"TERM": "xterm-256color"}, "unicode"),
    (None, {"TERM": "linux"}, "linux"),
    (None, {"TERM": "vt100"}, "ascii"),
    (None, {"TERM": "vt220"}, "ascii"),
    (None, {"TERM": "linux", "TANDEM_GLYPHS": "unicode"}, "unicode"),
    ("ascii", {"TERM": "linux", "TANDEM_GLYPHS": "unicode"}, "ascii"),
])
def test_the_set_comes_from_the_flag_then_the_environment_then_term(flag: str | None, environ: dict[str, str], expected: str) -> None:
    assert choose_glyphs(flag, environ) == expected


def test_an_unknown_set_is_one_line() -> None:
    with pytest.raises(SystemExit, match=r"TANDEM_GLYPHS must be one of unicode, linux, ascii"):
        choose_glyphs(None, {"TANDEM_GLYPHS": "emoji"})


def test_linux_keeps_what_the_font_has_and_replaces_the_rest_cell_for_cell() -> None:
    translate = translator("linux")
    assert translate is not None
    written = "\x1b[1;2H▐●▌ ✓ approved ⚠ ◐ streaming ╭─╮ é 漢"
    shown = translate(written)
    assert shown == "\x1b[1;2H│●│ + approved ! » streaming ╭─╮ é ??"
    assert all(char.isascii() or char in LINUX_CONSOLE_CHARS for char in shown)


def test_ascii_writes_seven_bits_only() -> None:
    translate = translator("ascii")
    assert translate is not None
    shown = translate("╭─╮ │✓│ ● ⚠ → «é»")
    assert shown.isascii() and shown.startswith("+-+ |+| * !")


def test_unicode_translates_nothing() -> None:
    assert translator("unicode") is None
