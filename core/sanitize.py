"""The one sanitiser for agent-supplied text: nothing an agent sends may drive the terminal.

Used by every output path (widgets, `tandem ask`, exports). Pure; any thread.
"""

from __future__ import annotations

import re

__all__ = ["CONTROL_CHARACTERS", "INVISIBLE_CHARACTERS", "LONE_SURROGATES", "reveal", "sanitize"]

CONTROL_CHARACTERS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""C0 controls except tab (0x09) and newline (0x0a) — ESC and CR included —, DEL and C1, and the
bidirectional controls: embeddings and overrides (U+202A–U+202E), isolates (U+2066–U+2069) and
the marks (U+200E, U+200F, U+061C)."""

LONE_SURROGATES = re.compile(r"[\ud800-\udfff]")
"""UTF-16 surrogates: JSON's `"\\ud800"` escape decodes to one. No encoding can write them to a
terminal (Python's stderr writes the six characters `\\ud800` in their place, a row six cells
wider than Rich measured) or store them in UTF-8."""


def sanitize(text: object) -> str:
    """Remove what could drive the terminal or reorder what is shown: C0 controls except newline
    and tab, ESC, DEL, C1 and the bidirectional controls.

    A carriage return is dropped too (it would let an agent overwrite a line). A lone surrogate
    becomes U+FFFD, the replacement character. Bidirectional
    controls are removed rather than shown: an override (U+202E) or an isolate lets an agent make
    a tool name or an argument read differently from what it is; without them the text shows in
    its logical order, which is what it is (right-to-left scripts still show right to left where
    the terminal supports it: that needs no control characters). Markup characters are left
    alone: callers insert the result as data, never as markup.

    Args:
        text: An agent-supplied string (anything else is turned into one with `str`).

    Returns:
        The text without terminal control characters.
    """
    cleaned = CONTROL_CHARACTERS.sub("", text if isinstance(text, str) else str(text))
    if cleaned.isascii():
        return cleaned
    return LONE_SURROGATES.sub("\ufffd", cleaned)


_INVISIBLE = (
    "\x00-\x08\x0b-\x1f\x7f-\x9f"  # C0 controls but tab and newline, DEL, C1
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f"  # soft hyphen, grapheme joiner, Arabic mark, fillers, Mongolian selectors
    "\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f"  # zero-width, marks, bidi embeddings and isolates, invisible operators
    "\u2800\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb"  # braille blank, fillers, variation selectors, BOM, annotations
    "\ud800-\udfff"  # lone surrogates
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"  # shorthand format controls, musical symbol formatting
    "\U000e0000-\U000e007f\U000e0100-\U000e01ef"  # the tag block, variation selectors 17-256
)
INVISIBLE_CHARACTERS = re.compile(f"[{_INVISIBLE}]")
"""What `reveal` shows as an escape: every control character but tab and newline, and the code
points that draw nothing (format characters, zero-width spaces and joiners, bidirectional
controls, fillers, variation selectors, the tag block U+E0000–U+E007F, lone surrogates)."""

_JOINERS = frozenset("\u200c\u200d")
"""Zero-width (non-)joiners: kept between two non-ASCII characters, where they shape a script
(Persian, Indic) or join an emoji sequence (👩‍💻); anywhere else they only hide."""
_PRESENTATION = frozenset("\ufe0e\ufe0f")
"""Text and emoji presentation selectors: kept after a non-ASCII character or a keycap base (❤️, 1️⃣)."""


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _JOINERS or char in _PRESENTATION:
        text, start = match.string, match.start()
        before = text[start - 1] if start else ""
        after = text[start + 1] if start + 1 < len(text) else ""
        if char in _JOINERS and before > "\x7f" and after > "\x7f" and not INVISIBLE_CHARACTERS.match(after):
            return char
        if char in _PRESENTATION and (before > "\x7f" or before in "#*0123456789") and before and not INVISIBLE_CHARACTERS.match(before):
            return char
    return f"<U+{ord(char):04X}>"


def reveal(text: object) -> str:
    """Show every invisible character of `text` as an escape such as `<U+200B>`: what a person
    decides on or identifies by (a tool name, an approval's prompt and arguments, a thread title,
    an agent's name, an error, an export) hides nothing and is changed in nothing but that.

    Where `sanitize` removes what could drive the terminal, `reveal` shows it: control characters
    (ESC, carriage return, DEL, C1) and the characters that draw nothing (`INVISIBLE_CHARACTERS`:
    zero-width spaces, bidirectional controls, the tag block that can carry a hidden ASCII copy of
    an instruction, variation selectors that can carry hidden bytes) become `<U+XXXX>`. Tab and
    newline stay. A zero-width joiner between two non-ASCII characters (an emoji sequence, a
    script's ligature) and an emoji presentation selector after a symbol stay too: they change
    how visible characters are drawn, not what is there. The result is as safe for a terminal as
    `sanitize`'s. Pure; any thread.
    """
    string = text if isinstance(text, str) else str(text)
    return INVISIBLE_CHARACTERS.sub(_escape, string)
