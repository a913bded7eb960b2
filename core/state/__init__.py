"""Shared state: the committed value, the agent's proposals over it, and the three-way merge of two writers.

`AgentState` (`agent_state`) is what the rest of Tandem holds; it owns a `Committed` value
(`committed`), the agent's frame (`frame`), the pending proposals (`proposals`) and the person's
writes and conflicts (`edits`). The merge underneath: `fields` (what a field is), `identity`
(arrays of elements with ids), `paths` (pointers and fields), `owned` (copy-on-write), `patch`
(RFC 6902 operations), `writes` (field writes), `changes` (field changes), `merge` (the rules),
`conflicts` (conflicts and merge records), `diff` (what a write changed). Names load lazily.
"""

from __future__ import annotations

import typing

from tandem.core.lazy_exports import lazy_exports as _lazy_exports

if typing.TYPE_CHECKING:
    from tandem.core.state.agent_state import AgentState
    from tandem.core.state.conflicts import FieldConflict, MergeRecord, Resolution
    from tandem.core.state.fields import MISSING, ORDER, ById, FieldPath, MergeError, path_label
    from tandem.core.state.paths import pointer_of
    from tandem.core.state.proposals import Conflict, Proposal

__all__ = [
    "AgentState",
    "ById",
    "Conflict",
    "FieldConflict",
    "FieldPath",
    "MISSING",
    "MergeError",
    "MergeRecord",
    "ORDER",
    "Proposal",
    "Resolution",
    "path_label",
    "pointer_of",
]

_MODULES = {
    "AgentState": "tandem.core.state.agent_state",
    **dict.fromkeys(["Conflict", "Proposal"], "tandem.core.state.proposals"),
    **dict.fromkeys(["FieldConflict", "MergeRecord", "Resolution"], "tandem.core.state.conflicts"),
    **dict.fromkeys(["MISSING", "ORDER", "ById", "FieldPath", "MergeError", "path_label"], "tandem.core.state.fields"),
    "pointer_of": "tandem.core.state.paths",
}

__getattr__ = _lazy_exports(__name__, _MODULES)
