"""Block widgets: one view per core block kind, the state panel, the approval modal.

`view_for(block)` picks the view for a block; every view is a `BlockView`. Widgets read blocks
and state on the UI thread and ask for decisions with messages; they never import a transport
or `tui`.
"""

from __future__ import annotations

from core.blocks import (
    ActivityBlock,
    ApprovalBlock,
    Block,
    ErrorBlock,
    InterruptBlock,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    UIActionBlock,
    UnhandledContentBlock,
)
from core.a2ui import SurfaceBlock as _SurfaceBlock
from core.handlers import DebugBlock
from widgets.a2ui_surface import SurfaceView
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
    "SurfaceView",
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

# Most specific first: ReasoningBlock is a TextBlock.
_BLOCK_VIEWS: list[tuple[type[Block], type[BlockView]]] = [
    (ReasoningBlock, ReasoningView),
    (TextBlock, TextView),
    (ToolCallBlock, ToolCallView),
    (ApprovalBlock, ApprovalView),
    (InterruptBlock, InterruptView),
    (UIActionBlock, UIActionView),
    (ActivityBlock, ActivityView),
    (_SurfaceBlock, SurfaceView),
    (ErrorBlock, ErrorView),
    (UnhandledContentBlock, UnhandledView),
    (DebugBlock, DebugView),
]


def view_for(block: Block, *, id: str | None = None, classes: str | None = None) -> BlockView:
    """Build the view for `block` (UI thread).

    Tool calls named in `TOOL_VIEWS` get their typed view; unknown block kinds get a
    `GenericView` showing kind and JSON content.

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
    for block_class, view_class in _BLOCK_VIEWS:
        if isinstance(block, block_class):
            return view_class(block, id=widget_id, classes=classes)
    return GenericView(block, id=widget_id, classes=classes)
