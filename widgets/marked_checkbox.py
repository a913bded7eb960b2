"""A checkbox whose state reads without colour (✓ or blank), for 16-colour and monochrome terminals."""

from __future__ import annotations

from textual.widgets import Checkbox

__all__ = ["MarkedCheckbox"]


class MarkedCheckbox(Checkbox):
    """A `Checkbox` that draws ✓ when checked and a blank when not.

    Textual's checkbox draws the same `X` in both states and tells them apart by colour only.
    Owns nothing beyond `Checkbox`; UI thread only.
    """

    @property
    def BUTTON_INNER(self) -> str:  # type: ignore[override]  # noqa: N802 - Textual's class constant
        """The mark inside the box: ✓ when checked, a space when not."""
        return "✓" if self.value else " "
