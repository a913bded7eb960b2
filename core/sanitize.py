"""The one sanitiser for agent-supplied text: nothing an agent sends may drive the terminal.

Used by every output path (widgets, `tandem ask`, exports). Pure; any thread.
"""

from __future__ import annotations

import re

__all__ = ["CONTROL_CHARACTERS", "LONE_SURROGATES", "sanitize"]

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
