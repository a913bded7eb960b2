"""The terminal layer: the only code that imports Textual's private modules or overrides its internals.

Row output, line mode, terminal keys, hang-up, glyphs, mouse, garbage and idle collection and the
render profile. A Textual upgrade has this one package to look at (tests/tui/test_textual_private.py).
"""

from __future__ import annotations

__all__: list[str] = []
