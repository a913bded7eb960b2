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

from tandem.core.lazy_exports import lazy_exports as _lazy_exports

# Eager, and light: `sanitize` is also the submodule's name, which would shadow a lazy export.
from tandem.widgets.sanitize import agent_text, safe_id, sanitize

if typing.TYPE_CHECKING:
    from tandem.widgets.activity import ActivityView
    from tandem.widgets.approval import ApprovalView
    from tandem.widgets.approval_modal import ApprovalModal, ApprovalResult
    from tandem.widgets.block_view import BlockView
    from tandem.widgets.debug import DebugView
    from tandem.widgets.error import ErrorView
    from tandem.widgets.generic import GenericView
    from tandem.widgets.haiku import HaikuView
    from tandem.widgets.interrupt import InterruptView
    from tandem.widgets.marked_checkbox import MarkedCheckbox
    from tandem.widgets.marked_radio import MarkedRadioButton
    from tandem.widgets.reasoning import ReasoningView
    from tandem.widgets.schema_form import SchemaForm
    from tandem.widgets.state_conflict import StateConflictList, StateConflictView
    from tandem.widgets.state_panel import StatePanel
    from tandem.widgets.text import TextView
    from tandem.widgets.tool_call import ToolCallView
    from tandem.widgets.ui_action import UIActionView
    from tandem.widgets.unhandled import UnhandledView
    from tandem.widgets.value_viewer import ValueViewer
    from tandem.widgets.views import view_for
    from tandem.widgets.weather import WeatherView

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
    "MarkedRadioButton",
    "ReasoningView",
    "SchemaForm",
    "StateConflictList",
    "StateConflictView",
    "StatePanel",
    "TextView",
    "ToolCallView",
    "UIActionView",
    "UnhandledView",
    "ValueViewer",
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
    "ActivityView": "tandem.widgets.activity",
    "ApprovalModal": "tandem.widgets.approval_modal",
    "ApprovalResult": "tandem.widgets.approval_modal",
    "ApprovalView": "tandem.widgets.approval",
    "BlockView": "tandem.widgets.block_view",
    "DebugView": "tandem.widgets.debug",
    "ErrorView": "tandem.widgets.error",
    "GenericView": "tandem.widgets.generic",
    "HaikuView": "tandem.widgets.haiku",
    "InterruptView": "tandem.widgets.interrupt",
    "MarkedCheckbox": "tandem.widgets.marked_checkbox",
    "MarkedRadioButton": "tandem.widgets.marked_radio",
    "ValueViewer": "tandem.widgets.value_viewer",
    "ReasoningView": "tandem.widgets.reasoning",
    "SchemaForm": "tandem.widgets.schema_form",
    "StateConflictList": "tandem.widgets.state_conflict",
    "StateConflictView": "tandem.widgets.state_conflict",
    "StatePanel": "tandem.widgets.state_panel",
    "TextView": "tandem.widgets.text",
    "ToolCallView": "tandem.widgets.tool_call",
    "UIActionView": "tandem.widgets.ui_action",
    "UnhandledView": "tandem.widgets.unhandled",
    "WeatherView": "tandem.widgets.weather",
    "view_for": "tandem.widgets.views",
}

__getattr__ = _lazy_exports(__name__, _LAZY)
