"""Mapping AG-UI's tool-call events (TOOL_CALL_START / ARGS / END / RESULT) and
REASONING_ENCRYPTED_VALUE to parts.

**A history call streamed again.** ag-ui-langgraph streams the interrupted call again when
the run resumes: a `TOOL_CALL_START` under the id of a history call that has **no result**
yet is that call, shown and sent already; its events map to nothing and its result still finds
it. A history call that **has** its result is a new call under the same id (servers that number
their calls `call_1`, `call_2`… afresh in every run), mapped as any other, unless the result came
in the current turn (since the last user message with text) and the name is the same: that is
a server re-sending, in a continuation run, what it had answered, and a client tool must not
run twice. The handlers give the new call a card of its own (`core/tool_call_handlers.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ag_ui.core import BaseEvent, Message

from tandem.core.agui.calls import KnownCall
from tandem.core.agui.snapshot_messages import SnapshotReconciler, answered_in_current_turn
from tandem.core.agui.interrupts import ADK_CONFIRMATION_TOOL
from tandem.core.content import ReasoningContent, ToolCallContent, ToolResultContent
from tandem.core.messages import ChatUpdate
from tandem.core.unvalidated import part as _part
from tandem.core.unvalidated import update as _update

__all__ = ["CallMapping"]


class CallMapping:
    """Tool calls and their results as `ToolCallContent` / `ToolResultContent`, and encrypted values.

    Owns the history calls the server streams again (`replayed`, read on the hot path), the
    results by tool message id, and what tells a new call from one of the history. Adds to the
    mapper's `calls` and the ids of the calls this run started (both shared, never rebound), and
    tells the snapshot reconciler what it saw. Owned by one `EventMapper`; engine thread only.
    """

    def __init__(self, calls: dict[str, KnownCall], run_calls: list[str], declared: frozenset[str],
                 sent: Sequence[Message], snapshots: SnapshotReconciler,
                 author: Callable[[BaseEvent], str | None]) -> None:
        self.calls = calls
        self.run_calls = run_calls
        self._declared = declared
        self._history_calls = set(calls)  # until the run starts a new call under one of their ids
        self.replayed: set[str] = set()  # history calls the server streams again (a resumed run)
        self._sent = sent
        self._answered_in_turn: set[str] | None = None  # read from `sent` on the first history call streamed again
        self._results: dict[str, ToolResultContent] = {}  # tool result message id → result
        self._snapshots = snapshots
        self._author = author

    def encrypted(self, event: Any, raw: Any) -> list[ChatUpdate]:
        author = self._author(event)
        if event.subtype == "tool-call":
            call = self.calls.get(event.entity_id)
            part: Any = ToolCallContent(
                call_id=event.entity_id,
                name=call.name if call else None,
                encrypted_value=event.encrypted_value,
                informational_only=call.informational_only if call else False,
            )
            return [_update([part], raw, message_id=call.parent_message_id if call else None, author=author)]
        result = self._results.get(event.entity_id)
        if result is not None:
            # The value belongs to a tool message: repeat the result with it, so the history
            # sends it back on the ToolMessage (the request builder keeps the last result per call).
            part = result.model_copy(update={"encrypted_value": event.encrypted_value})
            self._results[event.entity_id] = part
            return [_update([part], raw, role="tool", message_id=event.entity_id, author=author)]
        part = ReasoningContent(encrypted_value=event.encrypted_value)
        return [_update([part], raw, message_id=event.entity_id, author=author)]

    def start(self, event: Any, raw: Any) -> list[ChatUpdate]:
        if event.tool_call_id in self._history_calls:
            if self._streamed_again(event.tool_call_id, event.tool_call_name):
                # ag-ui-langgraph replays the interrupted call when it resumes. It is shown and
                # sent already; its result still finds it.
                self.replayed.add(event.tool_call_id)
                return []
            self._history_calls.discard(event.tool_call_id)  # a new call under an id used before
        informational = event.tool_call_name not in self._declared
        internal = event.tool_call_name == ADK_CONFIRMATION_TOOL  # shown through its approval
        self.calls[event.tool_call_id] = KnownCall(
            event.tool_call_name, event.parent_message_id, informational_only=informational
        )
        self.run_calls.append(event.tool_call_id)
        self._snapshots.saw_message(event.parent_message_id)
        # Built unvalidated (`_part`): the event's fields are validated strings, as the part's.
        part = _part(ToolCallContent, {
            "kind": "tool_call", "call_id": event.tool_call_id, "name": event.tool_call_name, "arguments_delta": "",
            "arguments": None, "done": False, "informational_only": informational, "internal": internal,
            "encrypted_value": None,
        }, {"call_id", "name", "informational_only", "internal"})
        return [_update([part], raw, message_id=event.parent_message_id, author=self._author(event))]

    def _streamed_again(self, call_id: str, name: str) -> bool:
        """Whether a start under the id of a history call is that call again (the module docstring)."""
        call = self.calls[call_id]
        if not call.resolved:
            return True
        if self._answered_in_turn is None:
            self._answered_in_turn = answered_in_current_turn(self._sent)
        return call_id in self._answered_in_turn and call.name == name

    def args(self, event: Any, raw: Any) -> list[ChatUpdate]:
        if event.tool_call_id in self.replayed:
            return []
        call = self.calls[event.tool_call_id]
        call.chunks.append(event.delta)
        if not event.delta:
            return []
        part = ToolCallContent(
            call_id=event.tool_call_id, name=call.name, arguments_delta=event.delta,
            informational_only=call.informational_only,
        )
        return [_update([part], raw, message_id=call.parent_message_id, author=self._author(event))]

    def end(self, event: Any, raw: Any) -> list[ChatUpdate]:
        if event.tool_call_id in self.replayed:
            return []
        call = self.calls[event.tool_call_id]
        arguments = call.parsed_arguments()
        if arguments is None:
            # Built unvalidated (`_part`): nothing here needs it (parsed arguments are validated below).
            part = _part(ToolCallContent, {
                "kind": "tool_call", "call_id": event.tool_call_id, "name": call.name, "arguments_delta": "",
                "arguments": None, "done": True, "informational_only": call.informational_only, "internal": False,
                "encrypted_value": None,
            }, {"call_id", "name", "done", "arguments", "informational_only"})
        else:
            part = ToolCallContent(
                call_id=event.tool_call_id, name=call.name, done=True, arguments=arguments,
                informational_only=call.informational_only,
            )
        return [_update([part], raw, message_id=call.parent_message_id, author=self._author(event))]

    def result(self, event: Any, raw: Any) -> list[ChatUpdate]:
        call = self.calls.get(event.tool_call_id)
        if call is not None:
            call.resolved = True
        self._snapshots.saw_result(event.tool_call_id, call.name if call else None,
                                   call.parsed_arguments() if call else None)
        content = event.content
        if content.__class__ is str:
            # Built unvalidated (`_part`): a string result is what validation would keep.
            part = _part(ToolResultContent, {
                "kind": "tool_result", "call_id": event.tool_call_id, "result": content, "error": None,
                "encrypted_value": None,
            }, {"call_id", "result"})
        else:
            if not isinstance(content, str):
                content = [part.model_dump(mode="json", by_alias=True) for part in content]
            part = ToolResultContent(call_id=event.tool_call_id, result=content)
        self._results[event.message_id] = part
        self._snapshots.saw_message(event.message_id)
        return [_update([part], raw, role="tool", message_id=event.message_id, author=self._author(event))]
