"""A2UI v0.9 in Tandem: surfaces as blocks, on top of a2ui-core.

a2ui-core does the protocol (message processing, the surface and data model, bindings and
their two-way setters, checks, the basic catalog's functions, capabilities); this package reads
A2UI out of AG-UI's carriers, turns each surface into a `SurfaceBlock`, resolves components
for the widgets, and builds what goes back to the agent.
"""

from __future__ import annotations

from core.a2ui.catalog import (
    BASIC_CATALOG_ALIASES,
    BASIC_CATALOG_ID,
    BASIC_COMPONENT_TYPES,
    BASIC_FUNCTIONS,
    COMPONENT_SCHEMA_DESCRIPTION,
    capabilities,
    capabilities_context_entry,
)
from core.a2ui.handler import A2UIHandler, find_outbox, install_a2ui
from core.a2ui.operations import ACTIVITY_TYPE, SurfaceStatus
from core.a2ui.outbound import A2UIChatClient, A2UIOutbox, DeliveryMode, a2ui_forwarded_props, action_message
from core.a2ui.resolved import CheckResult, ResolvedComponent
from core.a2ui.surface import ActionResult, ActionStatus, SurfaceBlock, SurfaceError, agent_display_name

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
