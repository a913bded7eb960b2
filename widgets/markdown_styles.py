"""Markdown blocks whose component styles (em, strong, s, code_inline) are worked out when first used."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.dom import DOMNode

__all__ = ["LazyComponentStyles"]

if TYPE_CHECKING:
    from textual.css.styles import RenderStyles
    from textual.widget import Widget

    _WidgetBase = Widget
else:
    _WidgetBase = object

# (Textual's, cached per class: an lru_cache'd classmethod, which mypy cannot see through)
_component_classes = DOMNode._get_component_classes.__func__  # type: ignore[attr-defined]


class LazyComponentStyles(_WidgetBase):
    """Mixin for a Markdown block class: a component style is resolved on first use, not at mount.

    Owns the component styles it resolved (in Textual's own `_component_styles`). On Textual
    8.2.8 (pinned) mounting a widget matches the whole stylesheet once for the widget and once
    per component class; a Markdown block has four (`em`, `strong`, `s`, `code_inline`) that
    most paragraphs never use. Here the stylesheet sees no component classes;
    `get_component_styles` resolves the ones asked for as the stylesheet would have, and a
    restyle of the block (a new theme, a class change) drops them, to be resolved again, and
    repaints a block that used them (as the stylesheet does when they change).
    """

    @classmethod
    def _get_component_classes(cls) -> frozenset[str]:  # type: ignore[override]  # (Textual's is lru_cache'd)
        return frozenset()  # (what `Stylesheet.apply` asks: none at mount)

    def get_component_styles(self, *names: str) -> RenderStyles:
        styles = self._component_styles
        missing = [name for name in names if name not in styles]
        if missing:
            known = _component_classes(type(self))
            stylesheet = self.app.stylesheet
            for name in missing:
                if name in known:  # (an unknown name raises in Textual's method, as before)
                    virtual_node = DOMNode(classes=name)
                    virtual_node._attach(self)
                    stylesheet.apply(virtual_node, animate=False)
                    styles[name] = virtual_node.styles
        return super().get_component_styles(*names)

    def notify_style_update(self) -> None:
        if self._component_styles:
            # Restyled: what was resolved may be stale; the lines drawn with it are redrawn.
            self._component_styles.clear()
            self.refresh()
        super().notify_style_update()
