"""The terminal layer: the only code of tui/ that imports Textual's private modules or overrides its internals.

Row output (`wire_output`, `screen_rows`, `row_segments`, `row_pen`), the frame of one flush
(`flush_frame`), typed input painted first (`input_paint`), the screen's compositor
(`screen_compositor`), writes past the screen (`driver_write`), line mode, terminal keys, hang-up,
glyphs, mouse, garbage and idle collection and the render profile. A Textual upgrade has this
package to look at, and the list in tests/tui/test_textual_private.py (which also names the
modules of widgets/ and tui/app/ that still use Textual's internals, and why).
"""

from __future__ import annotations

__all__: list[str] = []
