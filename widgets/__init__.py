"""Block widgets: one view per core block kind, the state panel, the approval modal.

`view_for(block)` picks the view for a block; every view is a `BlockView`. Widgets read blocks
and state on the UI thread and ask for decisions with messages; they never import a transport
or `tui`.

A2UI surfaces are the exception to "everything is exported here": `SurfaceView` lives in
`widgets.a2ui_surface`, which imports a2ui-core's component catalog (about 300 ms), so this
package does not import it; `view_for` imports a view's module when a block of that kind first
needs one.
"""

from __future__ import annotations

import importlib

from core.blocks import Block, ToolCallBlock
from widgets.activity import ActivityView
from widgets.approval import ApprovalView
from widgets.approval_modal import ApprovalModal, ApprovalResult
from widgets.block_view import BlockView
from widgets.debug import DebugView
from widgets.error import ErrorView
from widgets.generic import GenericView
from widgets.haiku import HaikuView
from widgets.interrupt import InterruptView
from widgets.marked_checkbox import MarkedCheckbox
from widgets.reasoning import ReasoningView
from widgets.sanitize import agent_text, safe_id, sanitize
from widgets.schema_form import SchemaForm
from widgets.state_panel import StatePanel
from widgets.text import TextView
from widgets.tool_call import ToolCallView
from widgets.ui_action import UIActionView
from widgets.unhandled import UnhandledView
from widgets.weather import WeatherView

__all__ = [
    "ActivityView",
    "ApprovalModal",
    "ApprovalResult",
    "ApprovalView",
    "BlockView",
    "DebugView",
    "ErrorView",
    "GenericView",
    "HaikuView",
    "InterruptView",
    "MarkedCheckbox",
    "ReasoningView",
    "SchemaForm",
    "StatePanel",
    "TextView",
    "ToolCallView",
    "UIActionView",
    "UnhandledView",
    "WeatherView",
    "agent_text",
    "safe_id",
    "sanitize",
    "view_for",
]

TOOL_VIEWS: dict[str, type[BlockView]] = {
    "get_weather": WeatherView,
    "generate_haiku": HaikuView,
}
"""Typed tool views, by tool name (the block's `name`)."""

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
    if isinstance(block, ToolCallBlock):
        typed = TOOL_VIEWS.get(block.name)
        if typed is not None:
            return typed(block, id=widget_id, classes=classes)
    for block_class in type(block).__mro__:
        found = _BLOCK_VIEWS.get(f"{block_class.__module__}.{block_class.__qualname__}")
        if found is not None:
            module, name = found
            view_class: type[BlockView] = getattr(importlib.import_module(module), name)
            return view_class(block, id=widget_id, classes=classes)
    return GenericView(block, id=widget_id, classes=classes)
