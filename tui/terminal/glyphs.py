"""Glyph fallbacks for terminals whose font lacks what Tandem and Textual draw (the Linux console, VT100s).

The app's output is translated on its way to the terminal, in the driver, so that no widget (nor
Textual's own borders and scrollbars) needs to know: each character the terminal cannot show
becomes one it can, of the same width (one cell), chosen to keep its meaning (✓ → +, ⚠ → !).
Escape sequences are ASCII and pass unchanged. Chosen by `--glyphs` / `$TANDEM_GLYPHS`
(`unicode`, `linux`, `ascii`), else by `$TERM` (`linux` → linux; vt100-family and `dumb` → ascii).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Any

__all__ = ["GLYPH_ENV", "GLYPH_SETS", "LINUX_CONSOLE_CHARS", "choose_glyphs", "fallback_driver", "translator"]

GLYPH_ENV = "TANDEM_GLYPHS"
"""The environment variable that chooses the glyph set when `--glyphs` is not given."""

GLYPH_SETS = ("unicode", "linux", "ascii")
"""`unicode`: draw everything; `linux`: only what Debian's Linux console font has; `ascii`: 7-bit only."""

LINUX_CONSOLE_CHARS = (
    "¡¢£¤¥¦§¨©ª«¬®¯°±²³´µ¶·¸¹º»¼½¾¿ÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏÐÑÒÓÔÕÖ×ØÙÚÛÜÝÞßàáâãäåæç"
    "èéêëìíîïðñòóôõö÷øùúûüýþÿĐĞğİıŒœŞşŠšŸŽžƒˆˉ˜ΑΒΕΖΗΙΚΜΝΟΡΤΧμπЁЅІЇЈАВЕКМНОР"
    "СТХаеорсухёѕіїјҮ‐‑‒–—―‘’‚“”„†‡•…‰‹›‼ⁿ₧€₮№™KÅ←↑→↓∅∈−∞∩≈≠≡≤≥≪≫⊕⊖⊘⊙⊛⊜①②③④"
    "⑤⑥⑦⑧⑨ⒶⒷⒸⒹⒺⒻⒼⒽⒾⒿⓀⓁⓂⓃⓄⓅⓆⓇⓈⓉⓊⓋⓌⓍⓎⓏⓐⓑⓒⓓⓔⓕⓖⓗⓘⓙⓚⓛⓜⓝⓞⓟⓠⓡⓢⓣⓤⓥⓦⓧⓨⓩ⓪─━│┃┄┅┆┇┈┉┊┋"
    "┌┍┎┏┐┑┒┓└┕┖┗┘┙┚┛├┝┞┟┠┡┢┣┤┥┦┧┨┩┪┫┬┭┮┯┰┱┲┳┴┵┶┷┸┹┺┻┼┽┾┿╀╁╂╃╄╅╆╇╈╉╊╋╌╍╎╏═║"
    "╒╓╔╕╖╗╘╙╚╛╜╝╞╟╠╡╢╣╤╥╦╧╨╩╪╫╬╭╮╯╰╱╲╳╴╵╶╷╸╹╺╻╼╽╾╿█░▒■▮▲▴▶▸▼▾◀◂◈●☐☑☒♦✗✘⮽�"
)
"""The non-ASCII characters of Debian's default console font (console-setup's Lat15-Fixed16.psf,
read from its Unicode table): what a Linux virtual console can show."""

FALLBACKS: Mapping[str, str] = {
    # Textual's borders, scrollbars and Tandem's pills: eighth blocks and half blocks.
    "▔": "¯", "▀": "¯", "▁": "_", "▂": "_", "▃": "_", "▄": "_", "▅": "█", "▆": "█", "▇": "█",
    "▊": "│", "▋": "│", "▌": "│", "▍": "│", "▎": "│", "▏": "│", "▐": "│", "▕": "│", "▉": "█",
    # Status and outcome symbols.
    "✓": "+", "✔": "+", "✖": "×", "⚠": "!", "◐": "»", "◑": "»", "◒": "»", "◓": "»", "☀": "*",
    "◆": "♦", "⟳": "~", "◌": "·", "○": "o", "◯": "o", "⏹": "■", "⌛": "×", "‖": "║", "⧗": "…",
    "★": "*", "☆": "*", "⏵": "▶", "⏸": "║", "◷": "…", "↻": "~", "✕": "×", "⊗": "×", "☁": "≈",
    # List bullets and the A2UI icons (`widgets.a2ui_icon`): the nearest shape the console has.
    "‣": "▸", "▪": "■", "▤": "■", "↵": "→", "◦": "·", "⇤": "←", "⇥": "→", "⇧": "↑", "⇩": "↓", "⇪": "↑", "⊏": "[", "⊔": "u",
    "⊟": "⊖", "⊠": "■", "⊡": "⊙", "⋯": "…", "⌂": "^", "⌕": "/", "⌫": "←", "▣": "■", "▦": "#", "▭": "■",
    "◉": "●", "◎": "o", "◘": "■", "☎": "T", "☺": "@", "♡": "o", "♥": "♦", "♪": "~", "♫": "~", "⚐": ">",
    "⚑": "▸", "⚙": "*", "✉": "@", "✎": "/", "✬": "*", "➤": "▶",
    # Textual's `outer`/`panel` border corners (quadrant blocks).
    "▙": "█", "▛": "█", "▜": "█", "▟": "█",
}
"""What a character missing from the Linux console font becomes there (one cell each)."""

ASCII_FALLBACKS: Mapping[str, str] = {
    **{char: "-" for char in "─━┄┅┈┉╌╍═¯‾"}, **{char: "|" for char in "│┃┆┇┊┋╎╏║"},
    **{char: "+" for char in "┌┍┎┏┐┑┒┓└┕┖┗┘┙┚┛├┝┞┟┠┡┢┣┤┥┦┧┨┩┪┫┬┭┮┯┰┱┲┳┴┵┶┷┸┹┺┻┼╋╔╗╚╝╠╣╦╩╬╒╓╕╖╘╙╛╜"},
    "╭": "+", "╮": "+", "╯": "+", "╰": "+", "█": "#", "░": ":", "▒": "#", "■": "#", "●": "*", "•": "*",
    "×": "x", "·": ".", "…": ".", "»": ">", "«": "<", "▶": ">", "▸": ">", "▼": "v", "▾": "v",
    "←": "<", "→": ">", "↑": "^", "↓": "v", "—": "-", "–": "-", "‘": "'", "’": "'", "“": '"', "”": '"',
    "✗": "x", "✘": "x", "⊘": "/", "☐": " ", "☑": "x", "☒": "x", "⊖": "-", "⊙": "o", "≈": "~", "¤": "$",
    "°": "o", "−": "-", "≡": "=", "♦": "*", "›": ">", "‹": "<",
}
"""The further step for a 7-bit terminal (VT100 family): box drawing as + - |, symbols as letters."""

_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def choose_glyphs(flag: str | None, environ: Mapping[str, str]) -> str:
    """The glyph set: `--glyphs`, else `$TANDEM_GLYPHS`, else what `$TERM` can show.

    Raises:
        SystemExit: an unknown set was asked for (one line naming the choices).
    """
    chosen = flag or environ.get(GLYPH_ENV, "").strip().lower() or None
    if chosen is not None:
        if chosen not in GLYPH_SETS:
            source = "--glyphs" if flag else f"${GLYPH_ENV}"
            raise SystemExit(f"tandem: {source} must be one of {', '.join(GLYPH_SETS)} (got {chosen[:20]!r})")
        return chosen
    term = environ.get("TERM", "")
    if term == "linux" or term.startswith("linux-"):
        return "linux"
    if term == "dumb" or term.startswith(("vt1", "vt2", "vt52", "ansi")):
        return "ascii"
    return "unicode"


def translator(glyphs: str):  # type: ignore[no-untyped-def]
    """A function mapping text written to the terminal onto what the glyph set can show (None: unicode)."""
    if glyphs == "unicode":
        return None
    shown = frozenset(LINUX_CONSOLE_CHARS) if glyphs == "linux" else frozenset()

    def replace(match: re.Match[str]) -> str:
        char = match.group()
        if char in shown:
            return char
        if unicodedata.east_asian_width(char) in ("W", "F"):
            return "??"  # two cells: keep the layout
        fallback = FALLBACKS.get(char, char)
        if glyphs == "ascii":
            fallback = ASCII_FALLBACKS.get(fallback, fallback)
            return fallback if fallback.isascii() else "?"
        return fallback if fallback in shown or fallback.isascii() else "?"

    def translate(text: str) -> str:
        return _NON_ASCII.sub(replace, text) if not text.isascii() else text

    return translate


def fallback_driver(driver_class: type[Any], glyphs: str) -> type[Any]:
    """A subclass of Textual's terminal driver whose output is translated to `glyphs`."""
    translate = translator(glyphs)
    if translate is None:
        return driver_class

    class GlyphFallbackDriver(driver_class):  # type: ignore[valid-type,misc]
        """Textual's driver, writing only characters the terminal's font has."""

        def write(self, data: str) -> None:
            super().write(translate(data))

    return GlyphFallbackDriver
