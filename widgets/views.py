"""Which view shows which block: the block kind → view table and `view_for`.

Names, not classes: a view's module (and what it imports: Markdown, jsonschema, a2ui-core) is
loaded when a block of its kind is first shown.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from tandem.core.blocks import Block, ToolCallBlock
from tandem.widgets.sanitize import safe_id

if TYPE_CHECKING:
    from tandem.widgets.block_view import BlockView

__all__ = ["TOOL_VIEWS", "view_for"]

TOOL_VIEWS: dict[str, tuple[str, str]] = {
    "get_weather": ("tandem.widgets.weather", "WeatherView"),
    "generate_haiku": ("tandem.widgets.haiku", "HaikuView"),
}
"""Typed tool views, by tool name (the block's `name`): (view module, view class)."""

_BLOCK_VIEWS: dict[str, tuple[str, str]] = {
    "tandem.core.blocks.text.ReasoningBlock": ("tandem.widgets.reasoning", "ReasoningView"),
    "tandem.core.blocks.text.TextBlock": ("tandem.widgets.text", "TextView"),
    "tandem.core.blocks.tool_call.ToolCallBlock": ("tandem.widgets.tool_call", "ToolCallView"),
    "tandem.core.blocks.approval.ApprovalBlock": ("tandem.widgets.approval", "ApprovalView"),
    "tandem.core.blocks.interrupt.InterruptBlock": ("tandem.widgets.interrupt", "InterruptView"),
    "tandem.core.blocks.ui_action.UIActionBlock": ("tandem.widgets.ui_action", "UIActionView"),
    "tandem.core.blocks.misc.ActivityBlock": ("tandem.widgets.activity", "ActivityView"),
    "tandem.core.a2ui.surface.SurfaceBlock": ("tandem.widgets.a2ui_surface", "SurfaceView"),
    "tandem.core.blocks.misc.ErrorBlock": ("tandem.widgets.error", "ErrorView"),
    "tandem.core.blocks.attachments.AttachmentsBlock": ("tandem.widgets.attachments", "AttachmentsView"),
    "tandem.core.blocks.misc.UnhandledContentBlock": ("tandem.widgets.unhandled", "UnhandledView"),
    "tandem.core.handlers.DebugBlock": ("tandem.widgets.debug", "DebugView"),
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
    module, name = found or ("tandem.widgets.generic", "GenericView")
    view_class: type[BlockView] = getattr(importlib.import_module(module), name)
    return view_class(block, id=widget_id, classes=classes)
