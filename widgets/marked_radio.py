"""A radio button whose state reads without colour (● chosen, ○ not), for 16-colour and monochrome terminals."""

from __future__ import annotations

from textual.widgets import RadioButton

__all__ = ["MarkedRadioButton"]


class MarkedRadioButton(RadioButton):
    """A `RadioButton` that draws ● when chosen and ○ when not.

    Textual's radio button draws the same ● for every option and tells the chosen one by colour
    only: in 16 colours, monochrome, or to a colour-blind person, every option looks chosen.
    Owns nothing beyond `RadioButton`; UI thread only.
    """

    @property
    def BUTTON_INNER(self) -> str:  # type: ignore[override]  # noqa: N802 - Textual's class constant
        """The mark inside the button: ● when chosen, ○ when not."""
        return "●" if self.value else "○"
