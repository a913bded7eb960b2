"""The one sanitiser for agent-supplied text: nothing an agent sends may drive the terminal.

Used by every output path (widgets, `tandem ask`, exports). Pure; any thread.
"""

from __future__ import annotations

import re

__all__ = ["CONTROL_CHARACTERS", "sanitize"]

CONTROL_CHARACTERS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""C0 controls except tab (0x09) and newline (0x0a) — ESC and CR included —, DEL and C1."""


def sanitize(text: object) -> str:
    """Remove what could drive the terminal: C0 controls except newline and tab, ESC, DEL and C1.

    A carriage return is dropped too (it would let an agent overwrite a line). Markup characters
    are left alone: callers insert the result as data, never as markup.

    Args:
        text: An agent-supplied string (anything else is turned into one with `str`).

    Returns:
        The text without terminal control characters.
    """
    return CONTROL_CHARACTERS.sub("", text if isinstance(text, str) else str(text))
