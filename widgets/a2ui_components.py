"""The A2UI basic catalog's display and layout renderers, plus the fallbacks, in one import.

Each renderer lives in its own module (`a2ui_text`, `a2ui_icon`, `a2ui_media`, `a2ui_layout`,
`a2ui_button`, `a2ui_modal`, `a2ui_fallback`) on the base in `a2ui_component_widget`; the
`SurfaceView` and the app import them from here. The inputs are in `a2ui_inputs`.
"""

from __future__ import annotations

from tandem.widgets.a2ui_button import ButtonComponent
from tandem.widgets.a2ui_component_widget import ComponentMessage, ComponentWidget
from tandem.widgets.a2ui_fallback import FallbackComponent, PlaceholderComponent
from tandem.widgets.a2ui_icon import ICON_GLYPHS, IconComponent, node_text
from tandem.widgets.a2ui_layout import CardComponent, DividerComponent, LayoutComponent, LayoutPage, PagedLayoutComponent, TabsComponent
from tandem.widgets.a2ui_media import MediaComponent
from tandem.widgets.a2ui_modal import ModalComponent, SurfaceModal
from tandem.widgets.a2ui_text import LINK_SCHEMES, TextComponent, inline_markdown

__all__ = [
    "ICON_GLYPHS",
    "ButtonComponent",
    "CardComponent",
    "ComponentMessage",
    "ComponentWidget",
    "DividerComponent",
    "FallbackComponent",
    "IconComponent",
    "LINK_SCHEMES",
    "LayoutComponent",
    "LayoutPage",
    "MediaComponent",
    "ModalComponent",
    "PagedLayoutComponent",
    "PlaceholderComponent",
    "SurfaceModal",
    "TabsComponent",
    "TextComponent",
    "inline_markdown",
    "node_text",
]
