"""Block widgets: one view per core block kind, the state panel, the approval modal.

`view_for(block)` picks the view for a block; every view is a `BlockView`. Widgets read blocks
and state on the UI thread and ask for decisions with messages; they never import a transport
or `tui`.

A2UI surfaces are the exception to "everything is exported here": `SurfaceView` lives in
`widgets.a2ui_surface`, which imports a2ui-core's component catalog (about 300 ms), so this
package does not import it; `view_for` imports a view's module when a block of that kind first
needs one. Every name here loads its module on first use.
"""

from __future__ import annotations

import typing

from core.lazy_exports import lazy_exports as _lazy_exports

# Eager, and light: `sanitize` is also the submodule's name, which would shadow a lazy export.
from widgets.sanitize import agent_text, safe_id, sanitize

if typing.TYPE_CHECKING:
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
    from widgets.schema_form import SchemaForm
    from widgets.state_panel import StatePanel
    from widgets.text import TextView
    from widgets.tool_call import ToolCallView
    from widgets.ui_action import UIActionView
    from widgets.unhandled import UnhandledView
    from widgets.views import view_for
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

# Each name loads its module on first use: `widgets.state_panel` (mounted once the engine is
# up) must not pull in every view, the Markdown parser and jsonschema before a resumed thread's
# first frame.
_LAZY = {
    "ActivityView": "widgets.activity",
    "ApprovalModal": "widgets.approval_modal",
    "ApprovalResult": "widgets.approval_modal",
    "ApprovalView": "widgets.approval",
    "BlockView": "widgets.block_view",
    "DebugView": "widgets.debug",
    "ErrorView": "widgets.error",
    "GenericView": "widgets.generic",
    "HaikuView": "widgets.haiku",
    "InterruptView": "widgets.interrupt",
    "MarkedCheckbox": "widgets.marked_checkbox",
    "ReasoningView": "widgets.reasoning",
    "SchemaForm": "widgets.schema_form",
    "StatePanel": "widgets.state_panel",
    "TextView": "widgets.text",
    "ToolCallView": "widgets.tool_call",
    "UIActionView": "widgets.ui_action",
    "UnhandledView": "widgets.unhandled",
    "WeatherView": "widgets.weather",
    "view_for": "widgets.views",
}

__getattr__ = _lazy_exports(__name__, _LAZY)
