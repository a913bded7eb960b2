"""Which view shows which block: the block kind → view table and `view_for`.

Names, not classes: a view's module (and what it imports: Markdown, jsonschema, a2ui-core) is
loaded when a block of its kind is first shown.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from core.blocks import Block, ToolCallBlock
from widgets.sanitize import safe_id

if TYPE_CHECKING:
    from widgets.block_view import BlockView

__all__ = ["TOOL_VIEWS", "view_for"]

TOOL_VIEWS: dict[str, tuple[str, str]] = {
    "get_weather": ("widgets.weather", "WeatherView"),
    "generate_haiku": ("widgets.haiku", "HaikuView"),
}
"""Typed tool views, by tool name (the block's `name`): (view module, view class)."""

_BLOCK_VIEWS: dict[str, tuple[str, str]] = {
    "core.blocks.text.ReasoningBlock": ("widgets.reasoning", "ReasoningView"),
    "core.blocks.text.TextBlock": ("widgets.text", "TextView"),
    "core.blocks.tool_call.ToolCallBlock": ("widgets.tool_call", "ToolCallView"),
    "core.blocks.approval.ApprovalBlock": ("widgets.approval", "ApprovalView"),
    "core.blocks.interrupt.InterruptBlock": ("widgets.interrupt", "InterruptView"),
    "core.blocks.ui_action.UIActionBlock": ("widgets.ui_action", "UIActionView"),
    "core.blocks.misc.ActivityBlock": ("widgets.activity", "ActivityView"),
    "core.a2ui.surface.SurfaceBlock": ("widgets.a2ui_surface", "SurfaceView"),
    "core.blocks.misc.ErrorBlock": ("widgets.error", "ErrorView"),
    "core.blocks.misc.UnhandledContentBlock": ("widgets.unhandled", "UnhandledView"),
    "core.handlers.DebugBlock": ("widgets.debug", "DebugView"),
}
"""Block class (`module.QualName`) → (view module, view class). `view_for` walks the block's
MRO, so the most specific kind wins (a ReasoningBlock is a TextBlock) and subclasses (typed
tool blocks) find their base's view. Names, not classes, so a kind's module (A2UI) is imported
only when such a block is shown."""


def view_for(block: Block, *, id: str | None = None, classes: str | None = None) -> BlockView:
    """Build the view for `block` (UI thread).

    Tool calls named in `TOOL_VIEWS` get their typed view; unknown block kinds get a
    `GenericView` showing kind and JSON content. The first view of a kind imports its module.

    Args:
        block: The core block to show.
        id: The widget id (encode agent ids with `safe_id`; by default `safe_id(block.id)`).
        classes: Extra CSS classes.
    """
    widget_id = id if id is not None else safe_id(block.id)
    found: tuple[str, str] | None = TOOL_VIEWS.get(block.name) if isinstance(block, ToolCallBlock) else None
    for block_class in type(block).__mro__:
        if found is not None:
            break
        found = _BLOCK_VIEWS.get(f"{block_class.__module__}.{block_class.__qualname__}")
    module, name = found or ("widgets.generic", "GenericView")
    view_class: type[BlockView] = getattr(importlib.import_module(module), name)
    return view_class(block, id=widget_id, classes=classes)
