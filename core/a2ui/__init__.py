"""A2UI v0.9 in Tandem: surfaces as blocks, on top of a2ui-core.

a2ui-core does the protocol (message processing, the surface and data model, bindings and
their two-way setters, checks, the basic catalog's functions, capabilities); this package reads
A2UI out of AG-UI's carriers, turns each surface into a `SurfaceBlock`, resolves components
for the widgets, and builds what goes back to the agent.
"""

from __future__ import annotations

import typing

from tandem.core.a2ui.catalog import (
    BASIC_CATALOG_ALIASES,
    BASIC_CATALOG_ID,
    BASIC_COMPONENT_TYPES,
    BASIC_FUNCTIONS,
    COMPONENT_SCHEMA_DESCRIPTION,
    capabilities,
    capabilities_context_entry,
)
from tandem.core.a2ui.handler import A2UIHandler, find_outbox, install_a2ui
from tandem.core.a2ui.operations import ACTIVITY_TYPE, SurfaceStatus
from tandem.core.a2ui.outbound import A2UIChatClient, A2UIOutbox, DeliveryMode, a2ui_forwarded_props, action_message
from tandem.core.lazy_exports import lazy_exports as _lazy_exports

if typing.TYPE_CHECKING:
    from tandem.core.a2ui.resolved import CheckResult, ResolvedComponent, ResolveStopped
    from tandem.core.a2ui.actions import ActionResult, ActionStatus
    from tandem.core.a2ui.surface import SurfaceBlock, SurfaceError, agent_display_name

# These modules import a2ui-core (its catalog: ~0.25 s); they load on first use, so installing
# A2UI on an agent (every `tandem` start, every resume) costs nothing until a surface arrives.
_LAZY = {
    "CheckResult": "tandem.core.a2ui.resolved",
    "ResolvedComponent": "tandem.core.a2ui.resolved",
    "ResolveStopped": "tandem.core.a2ui.resolved",
    "ActionResult": "tandem.core.a2ui.actions",
    "ActionStatus": "tandem.core.a2ui.actions",
    "SurfaceBlock": "tandem.core.a2ui.surface",
    "SurfaceError": "tandem.core.a2ui.surface",
    "agent_display_name": "tandem.core.a2ui.surface",
}

__getattr__ = _lazy_exports(__name__, _LAZY)

__all__ = [
    "A2UIChatClient",
    "A2UIHandler",
    "A2UIOutbox",
    "ACTIVITY_TYPE",
    "ActionResult",
    "ActionStatus",
    "BASIC_CATALOG_ALIASES",
    "BASIC_CATALOG_ID",
    "BASIC_COMPONENT_TYPES",
    "BASIC_FUNCTIONS",
    "COMPONENT_SCHEMA_DESCRIPTION",
    "CheckResult",
    "DeliveryMode",
    "ResolveStopped",
    "ResolvedComponent",
    "SurfaceBlock",
    "SurfaceError",
    "SurfaceStatus",
    "a2ui_forwarded_props",
    "action_message",
    "agent_display_name",
    "capabilities",
    "capabilities_context_entry",
    "find_outbox",
    "install_a2ui",
]
