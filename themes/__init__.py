"""Tandem's themes and screen stylesheets: Theme objects and paths to `.tcss` files only.

Register the themes with `App.register_theme` (see `THEMES`); load a screen's stylesheet by
setting the screen's `CSS_PATH` to its constant. Every rule in a screen stylesheet is nested
under the screen's type selector, because a Screen's `CSS_PATH` applies to the whole app.
"""

from __future__ import annotations

from pathlib import Path

from textual.theme import Theme

__all__ = [
    "CONTROLS_TCSS",
    "MAIN_SCREEN_TCSS",
    "TANDEM_DARK",
    "TANDEM_HIGH_CONTRAST",
    "TANDEM_LIGHT",
    "THEMES",
    "THEMES_DIR",
]

THEMES_DIR = Path(__file__).parent
"""Where the `.tcss` files live."""

MAIN_SCREEN_TCSS = THEMES_DIR / "main_screen.tcss"
"""Layout of `MainScreen`: `#conversation`, `#composer`, `#state-panel`, `#status-line`."""

CONTROLS_TCSS = THEMES_DIR / "controls.tcss"
"""The look of fields, buttons and checkboxes on every screen (app-wide): visible without focus in 16 colours."""

TANDEM_DARK = Theme(
    name="tandem-dark",
    primary="#5FA8D3",
    secondary="#9D8DF1",
    accent="#F2A65A",
    warning="#E9C46A",
    error="#E76F51",
    success="#6CC08B",
    foreground="#E0E6EB",
    background="#14181C",
    surface="#1C2126",
    panel="#262D33",
    dark=True,
    variables={
        # What shows where to type or press while it has no focus, and a field's placeholder: both
        # must stay visible in xterm's 256 colours and in 16, where Textual's defaults (a shade off
        # the surface, text at 38%) fall onto the background's own grey.
        "border-blurred": "#7A8691",
        "text-disabled": "#8C96A0",
    },
)
"""The default theme: calm blues on near-black."""

TANDEM_LIGHT = Theme(
    name="tandem-light",
    primary="#1F6FA3",
    secondary="#6A4FC7",
    accent="#B5561B",
    warning="#9A6A00",
    error="#B3261E",
    success="#2E7D32",
    foreground="#1B1F23",
    background="#F7F8FA",
    surface="#FFFFFF",
    panel="#E8ECF0",
    dark=False,
    variables={"border-blurred": "#6F7781", "text-disabled": "#6A737D"},  # as in TANDEM_DARK
)
"""The light theme, for bright terminals."""

TANDEM_HIGH_CONTRAST = Theme(
    name="tandem-high-contrast",
    primary="#FFFF00",
    secondary="#FFFFFF",
    accent="#FFFF00",
    warning="#FFFF00",
    error="#FF0000",
    success="#00FF00",
    foreground="#FFFFFF",
    background="#000000",
    surface="#000000",
    panel="#000000",
    boost="#FFFFFF",
    dark=True,
    luminosity_spread=0.0,
    text_alpha=1.0,
    variables={
        "text-muted": "#FFFFFF",
        "text-primary": "#FFFF00",
        "border": "#FFFFFF",
        "border-blurred": "#FFFFFF",
        "block-cursor-foreground": "#000000",
        "block-cursor-background": "#FFFF00",
        "block-cursor-blurred-foreground": "#000000",
        "block-cursor-blurred-background": "#FFFFFF",
        "footer-key-foreground": "#FFFF00",
        "text-disabled": "#C0C0C0",
        "input-selection-background": "#FFFF00 40%",
    },
)
"""Black, white and yellow only (plus pure red/green for errors and success): reads in 16 colours."""

THEMES: tuple[Theme, ...] = (TANDEM_DARK, TANDEM_LIGHT, TANDEM_HIGH_CONTRAST)
"""Every Tandem theme, in the order the palette lists them."""
