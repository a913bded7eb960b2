"""Shared-state keys that belong to an AG-UI adapter, not to the application.

The framework adapters keep their own bookkeeping in the graph's or session's state and send it
in `STATE_SNAPSHOT` with the application's fields. Those keys are not shared state: the adapter
fills them from the request's own fields (or its internals) on every run and ignores or strips
what a client sends for them, so showing them in the state panel is noise, merging the person's
edits into them is meaningless, and echoing them back costs a copy of the conversation per
request (or, for ADK, overwrites the session's live bookkeeping with a stale copy).

The rule: **a key is the adapter's when the adapter documents it as reserved** — filled by the
adapter and winning over what the client sends. Tandem sets such keys aside in the AG-UI client
(`EventMapper`): the state update carries the application's keys only, so nothing above
`core/agui` ever holds them and the next request never sends them; the raw event in the log
still has them. An adapter is recognised by its own bookkeeping, so a server that happens to
use one of these names for application data keeps it:

| adapter | recognised by | keys set aside |
| --- | --- | --- |
| ag-ui-langgraph, ag-ui-crewai (the CopilotKit state shape) | `messages` holds chat messages (LangChain `type` or AG-UI `role`, with `content`) | `messages`, `tools`, `context`, `copilotkit`, `ag-ui` |
| ag-ui-crewai | the CopilotKit shape with `id` equal to the run's `threadId` | `id` (the flow's state id, which the adapter sets to the thread id on every run) |
| ag-ui-adk | a key prefixed `_ag_ui_` | every `_ag_ui_…` key, `pending_tool_calls`, `lro_tool_call_id_remap` |

Sources: ag-ui-langgraph 0.0.47 (`constant_schema_keys = ['messages', 'tools']`; `messages` is
replaced from the checkpoint and `tools` merged from the request, `ag-ui` holds the request's
context); ag-ui-crewai 1.0.0 (`messages`, `tools`, `context`, `copilotkit` are "reserved AG-UI
keys (spread last, always win)", `ag-ui` is "an adapter-owned namespace", and `inputs["id"] =
input_data.thread_id` is "the thread linkage": the flow state's `id`); ag-ui-adk 0.11.0
(`_INTERNAL_STATE_KEYS`, stripped from client state "so stale frontend state cannot overwrite
internal metadata", and `pending_tool_calls`, its HITL ledger, which it merges from client state
unprotected). The reference client (`@ag-ui/client`) applies snapshots whole and sends them back;
CopilotKit's runtime separates `messages` from the state it shows (`const { messages,
...stateWithoutMessages } = state`). Tandem follows the adapters' own contract instead of the
reference client's indifference, because it shows state to a person and merges their edits.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["COPILOTKIT_KEYS", "ADK_KEYS", "ADK_PREFIX", "adapter_keys", "is_adapter_key"]

COPILOTKIT_KEYS = frozenset({"messages", "tools", "context", "copilotkit", "ag-ui"})
"""Reserved by ag-ui-langgraph and ag-ui-crewai (see the module docstring)."""
ADK_PREFIX = "_ag_ui_"
"""The prefix of ag-ui-adk's session bookkeeping keys."""
ADK_KEYS = frozenset({"pending_tool_calls", "lro_tool_call_id_remap"})
"""ag-ui-adk's unprefixed bookkeeping keys."""

_LANGCHAIN_TYPES = frozenset({"human", "ai", "system", "tool", "function", "chat", "remove", "developer",
                              "HumanMessageChunk", "AIMessageChunk", "SystemMessageChunk", "ToolMessageChunk",
                              "FunctionMessageChunk", "ChatMessageChunk"})
_ROLES = frozenset({"user", "assistant", "system", "tool", "developer", "reasoning", "activity", "function"})


def _chat_message(value: Any) -> bool:
    if not isinstance(value, Mapping) or "content" not in value:
        return False
    return value.get("type") in _LANGCHAIN_TYPES or value.get("role") in _ROLES


def _copilotkit_shape(snapshot: Mapping[str, Any]) -> bool:
    """Whether `messages` is the conversation (ag-ui-langgraph, ag-ui-crewai), not application data."""
    messages = snapshot.get("messages")
    return isinstance(messages, list) and bool(messages) and all(_chat_message(m) for m in messages)


def adapter_keys(snapshot: Any, known: Iterable[str] = (), *, thread_id: str | None = None) -> frozenset[str]:
    """The keys of a state snapshot that are an adapter's (see the module docstring).

    Args:
        snapshot: the `STATE_SNAPSHOT`'s value (anything; only an object has keys).
        known: keys already recognised as an adapter's on this thread (an adapter's shape may be
            missing from one snapshot, say before the first message, and its keys stay its own).
        thread_id: the running run's `threadId`: ag-ui-crewai's flow state holds it as `id`.
    """
    if not isinstance(snapshot, Mapping):
        return frozenset()
    known = frozenset(known)
    prefixed = {key for key in snapshot if isinstance(key, str) and key.startswith(ADK_PREFIX)}
    found: set[str] = prefixed | {key for key in snapshot if key in known}
    if prefixed:
        found.update(key for key in ADK_KEYS if key in snapshot)
    if _copilotkit_shape(snapshot):
        found.update(key for key in COPILOTKIT_KEYS if key in snapshot)
        if thread_id and snapshot.get("id") == thread_id:
            found.add("id")
    return frozenset(found)


def is_adapter_key(key: str, known: Iterable[str]) -> bool:
    """Whether a state delta's top-level key is an adapter's: recognised on this thread, or ADK-prefixed."""
    return key.startswith(ADK_PREFIX) or key in frozenset(known)
