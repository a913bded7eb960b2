"""Shared state: the committed value, the agent's proposals over it, and the three-way merge of two writers.

`agent_state` holds `AgentState`; `merge` the field-by-field rules; `conflicts` the merge of an
agent's write onto the person's edits; `diff` the diffs shown for a proposal. Names load lazily.
"""

from __future__ import annotations

import typing

from tandem.core.lazy_exports import lazy_exports as _lazy_exports

if typing.TYPE_CHECKING:
    from tandem.core.state.agent_state import AgentState, Conflict, Proposal

__all__ = ["AgentState", "Conflict", "Proposal"]

__getattr__ = _lazy_exports(__name__, dict.fromkeys(__all__, "tandem.core.state.agent_state"))
