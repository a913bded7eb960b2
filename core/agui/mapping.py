"""Mapping verified AG-UI events to Tandem's neutral updates.

Every update carries `raw`: the event as JSON-ready camelCase data (the received object, or
the dump of an event the client synthesised when expanding chunks). Not every event yields an
update: starts and ends of messages carry no content and map to nothing.

| AG-UI event | update contents |
| --- | --- |
| TEXT_MESSAGE_CONTENT | `TextContent` (message id, role from the start event) |
| REASONING_MESSAGE_CONTENT | `ReasoningContent`; a message that repeats, whole, a thought the run already completed is not shown (a `DebugContent` at its end) |
| REASONING_ENCRYPTED_VALUE | `ReasoningContent(encrypted_value)`; on a tool call `ToolCallContent(encrypted_value)`; on a tool result message the result again, with the value |
| TOOL_CALL_START / ARGS / END | `ToolCallContent` (name, argument deltas, `done` with parsed arguments); calls to tools the request did not declare are `informational_only`; a call of the history streamed again is mapped to nothing when it is that call again (see below) |
| TOOL_CALL_RESULT | `ToolResultContent`, role `tool` |
| STATE_SNAPSHOT / STATE_DELTA | `StateSnapshotContent` / `StateDeltaContent`, with `proposal_id` when predictive; keys an adapter reserves for itself (`adapter_state.py`) are set aside |
| ACTIVITY_SNAPSHOT / DELTA | `ActivityContent` |
| STEP_* / SUBAGENT_* | `ActivityContent` (`step` / `subagent`); events of a subagent carry its name as `author` |
| MESSAGES_SNAPSHOT | one update per message the client does not have yet (`SnapshotReconciler`), then a `DebugContent` |
| RUN_STARTED, RAW, CUSTOM, unknown types | `DebugContent` (a `CUSTOM on_interrupt` also announces an interrupt) |
| RUN_FINISHED | approval / input requests for interrupts (its outcome's, else those announced by `CUSTOM on_interrupt`), then `FinishContent` |
| RUN_ERROR | `ErrorContent` (the client raises `AgentRunError` after yielding it) |

**A history call streamed again** (`call_mapping.py`) maps to nothing when it is that call again.

**Predictive state** (`state_mapping.py`): while a call to a tool named by a
`PredictStateMapping` is unresolved, state writes touching its `state_key` carry
`proposal_id = toolCallId`; so does the approval request for that call. Repeated reasoning:
`reasoning_repeats.py`; activity, step, subagent, RAW and CUSTOM parts: `activity_mapping.py`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ag_ui.core import EventType, Interrupt, Message

from tandem.core.agui.activity_mapping import CUSTOM_HELD, RAW_HELD, Activities, debug_part, without_held
from tandem.core.agui.call_mapping import CallMapping
from tandem.core.agui.calls import KnownCall, PredictStateMapping
from tandem.core.agui.echoes import EchoText
from tandem.core.agui.events import TANDEM_ROLES, AnyEvent, UnknownEvent
from tandem.core.agui.interrupts import ADK_CONFIRMATION_TOOL, ON_INTERRUPT, adk_confirmation, custom_interrupt, interrupt_part
from tandem.core.agui.reasoning_repeats import ReasoningRepeats, run_raw
from tandem.core.agui.snapshot_messages import SnapshotReconciler
from tandem.core.agui.state_mapping import StateMapping
from tandem.core.unvalidated import envelope as _envelope
from tandem.core.unvalidated import part as _part
from tandem.core.unvalidated import text_update as _text_update
from tandem.core.unvalidated import update as _update
from tandem.core.content import (
    DebugContent,
    ErrorContent,
    FinishContent,
    ReasoningContent,
    TextContent,
    ToolCallContent,
)
from tandem.core.messages import ChatUpdate, Role

__all__ = ["EventMapper"]

log = logging.getLogger(__name__)


class EventMapper:
    """Turns one stream's verified events into `ChatUpdate`s.

    Owns what the mapping needs to remember: the declared tool names, the calls and messages
    seen, the interrupts of the last finished run (`interrupts`), and the parts that map one kind
    of event (`StateMapping`: predictive state; `ReasoningRepeats`; `Activities`: subagent
    names). One per stream; engine thread only.
    """

    def __init__(
        self,
        *,
        declared_tools: Iterable[str] = (),
        predict_state: Iterable[PredictStateMapping] = (),
        known_calls: dict[str, KnownCall] | None = None,
        known_message_ids: Iterable[str] = (),
        sent: Sequence[Message] = (),
        adapter_state_keys: set[str] | None = None,
    ) -> None:
        self._declared = frozenset(declared_tools)
        self.adapter_state_keys: set[str] = adapter_state_keys if adapter_state_keys is not None else set()
        """State keys recognised as the adapter's on this thread (`adapter_state.py`); shared with the client."""
        self.calls: dict[str, KnownCall] = dict(known_calls or {})
        """Every tool call known so far, by id."""
        self._run_calls: list[str] = []  # the calls this run started (cleared, never rebound: shared)
        self._state = StateMapping(predict_state, self.adapter_state_keys, self.calls, self._run_calls)
        self._snapshots = SnapshotReconciler(sent, self.calls, self._declared)
        self._snapshots.known_ids.update(known_message_ids)
        self._texts: dict[str, EchoText | list[str]] = {}  # message id → its text's digest (or reasoning's deltas) so far
        self._roles: dict[str, Role] = {}
        self._repeats = ReasoningRepeats()
        self._held = self._repeats.held  # read per reasoning delta
        self._activities = Activities()
        self._subagents = self._activities.subagents  # read per delta of a subagent
        self._author = self._activities.author
        self._calls = CallMapping(self.calls, self._run_calls, self._declared, sent, self._snapshots, self._author)
        self._replayed = self._calls.replayed  # read per argument delta
        self.interrupts: list[Interrupt] = []
        """The interrupts the last RUN_FINISHED left open."""
        self._announced: list[Interrupt] = []  # `CUSTOM on_interrupt` events of the running run
        self._run_id = "run"
        self._thread_id: str | None = None  # the running run's threadId (ag-ui-crewai copies it into the state)
        self.run_error: Any = None
        """The RUN_ERROR event that ended the stream, if one did."""
        self._handlers: dict[EventType, Callable[[Any, Any], list[ChatUpdate]]] = {
            EventType.TEXT_MESSAGE_START: self._text_start,
            EventType.TEXT_MESSAGE_CONTENT: self._text_content,
            EventType.TEXT_MESSAGE_END: _nothing,
            EventType.REASONING_START: _nothing,
            EventType.REASONING_END: _nothing,
            EventType.REASONING_MESSAGE_START: self._reasoning_start,
            EventType.REASONING_MESSAGE_CONTENT: self._reasoning_content,
            EventType.REASONING_MESSAGE_END: self._reasoning_end,
            EventType.REASONING_ENCRYPTED_VALUE: self._calls.encrypted,
            EventType.TOOL_CALL_START: self._calls.start,
            EventType.TOOL_CALL_ARGS: self._calls.args,
            EventType.TOOL_CALL_END: self._calls.end,
            EventType.TOOL_CALL_RESULT: self._calls.result,
            EventType.STATE_SNAPSHOT: self._state_snapshot,
            EventType.STATE_DELTA: self._state_delta,
            EventType.MESSAGES_SNAPSHOT: self._messages_snapshot,
            EventType.ACTIVITY_SNAPSHOT: self._activities.snapshot,
            EventType.ACTIVITY_DELTA: self._activities.delta,
            EventType.RAW: self._raw,
            EventType.CUSTOM: self._custom,
            EventType.RUN_STARTED: self._run_started,
            EventType.RUN_FINISHED: self._run_finished,
            EventType.RUN_ERROR: self._run_error,
            EventType.STEP_STARTED: self._activities.step,
            EventType.STEP_FINISHED: self._activities.step,
            EventType.SUBAGENT_STARTED: self._activities.subagent_started,
            EventType.SUBAGENT_FINISHED: self._activities.subagent_ended,
            EventType.SUBAGENT_ERROR: self._activities.subagent_ended,
        }

    def map(self, event: AnyEvent, raw: Any) -> list[ChatUpdate]:
        """The updates one event produces (often none or one).

        Args:
            event: a verified event.
            raw: its JSON-ready form.
        """
        if isinstance(event, UnknownEvent):
            envelope = {"type": raw.get("type")} if isinstance(raw, dict) else raw
            return [_update([DebugContent(label=f"unknown event {event.type}", value=raw)], envelope)]
        return self._handlers[event.type](event, raw)

    def map_delta(self, event_type: str, key: str, delta: str, subagent_run_id: str | None, raw: Any) -> list[ChatUpdate]:
        """The updates of a content delta recognised by `plain_delta` (same result as `map`)."""
        update = self.delta_update(event_type, key, delta, subagent_run_id, raw)
        return [] if update is None else [update]

    def delta_update(self, event_type: str, key: str, delta: str, subagent_run_id: str | None,
                     raw: Any) -> ChatUpdate | None:
        """`map_delta` for the hot path: the one update of a content delta, or None for an empty one.

        The caller vouches for the types `plain_delta` checks (`key`, `delta` and
        `subagent_run_id` are strings or None as annotated), so the parts are built unvalidated:
        text deltas are most of a stream, and validating the part and the envelope would double
        their cost. The parts equal what validation builds, down to their set fields.
        """
        if not delta:
            if event_type == "TOOL_CALL_ARGS":
                self.calls[key].chunks.append(delta)
            return None
        author = None if subagent_run_id is None else self._subagents.get(subagent_run_id, subagent_run_id)
        if event_type != "TOOL_CALL_ARGS":
            texts = self._texts.get(key)
            if texts is not None:
                texts.append(delta)
        if event_type == "TEXT_MESSAGE_CONTENT":
            return _text_update(delta, self._roles.get(key, "assistant"), key, author, raw)
        if event_type == "REASONING_MESSAGE_CONTENT":
            if key in self._held:
                return self._repeats.hold(key, delta, raw, author)
            part = _part(ReasoningContent, {"kind": "reasoning", "text": delta, "encrypted_value": None}, {"text"})
            return _envelope([part], raw, "assistant", key, author)
        if key in self._replayed:
            return None
        call = self.calls[key]
        call.chunks.append(delta)
        arguments_part = _part(ToolCallContent, {
            "kind": "tool_call", "call_id": key, "name": call.name, "arguments_delta": delta, "arguments": None,
            "done": False, "informational_only": call.informational_only, "internal": False, "encrypted_value": None,
        }, {"call_id", "name", "arguments_delta", "informational_only"})
        return _envelope([arguments_part], raw, "assistant", call.parent_message_id, author)

    def delta_run(self, event_type: str, key: str, deltas: list[str], subagent_run_id: str | None,
                  raws: list[Any]) -> list[ChatUpdate]:
        """The updates of a run of non-empty content deltas of one type to one message or call,
        read together, with the checks `plain_delta` makes vouched for: one update whose delta is
        the run's deltas joined and whose `raw` is `run_raw(raws)` (text: `text_run`), or for a
        reasoning message whose deltas may repeat a thought (`ReasoningRepeats` weighs each one),
        `delta_update`'s of each delta."""
        if event_type == "TEXT_MESSAGE_CONTENT":
            return [self.text_run(key, deltas, subagent_run_id, raws)]
        if key in self._held:
            return [update for delta, raw in zip(deltas, raws)
                    if (update := self.delta_update(event_type, key, delta, subagent_run_id, raw)) is not None]
        update = self.delta_update(event_type, key, "".join(deltas), subagent_run_id, run_raw(raws))
        return [] if update is None else [update]

    def text_run(self, key: str, deltas: list[str], subagent_run_id: str | None, raws: list[Any]) -> ChatUpdate:
        """The one update of a run of non-empty TEXT_MESSAGE_CONTENT deltas to one message, read
        together (most of a stream), with the checks `plain_delta` makes vouched for: their text
        joined, and `raw` their events (`run_raw`: the log keeps every one of them)."""
        text = deltas[0] if len(deltas) == 1 else "".join(deltas)
        texts = self._texts.get(key)
        if texts is not None:
            texts.append(text)
        author = None if subagent_run_id is None else self._subagents.get(subagent_run_id, subagent_run_id)
        return _text_update(text, self._roles.get(key, "assistant"), key, author, run_raw(raws))

    # -- text and reasoning ------------------------------------------------------------------

    def _text_start(self, event: Any, raw: Any) -> list[ChatUpdate]:
        self._roles[event.message_id] = TANDEM_ROLES.get(event.role or "assistant", "assistant")
        self._texts[event.message_id] = self._snapshots.streamed_text(event.message_id, event.role or "assistant")
        return []

    def _text_content(self, event: Any, raw: Any) -> list[ChatUpdate]:
        if not event.delta:
            return []
        texts = self._texts.get(event.message_id)
        if texts is not None:
            texts.append(event.delta)
        role = self._roles.get(event.message_id, "assistant")
        part = TextContent(text=event.delta)
        return [_update([part], raw, role=role, message_id=event.message_id, author=self._author(event))]

    def _reasoning_start(self, event: Any, raw: Any) -> list[ChatUpdate]:
        self._texts[event.message_id] = self._snapshots.streamed_text(event.message_id, "reasoning")
        self._repeats.started(event.message_id)  # held while it may repeat a thought of this run
        return []

    def _reasoning_content(self, event: Any, raw: Any) -> list[ChatUpdate]:
        if not event.delta:
            return []
        texts = self._texts.get(event.message_id)
        if texts is not None:
            texts.append(event.delta)
        if event.message_id in self._held:
            update = self._repeats.hold(event.message_id, event.delta, raw, self._author(event))
            return [] if update is None else [update]
        part = ReasoningContent(text=event.delta)
        return [_update([part], raw, message_id=event.message_id, author=self._author(event))]

    def _reasoning_end(self, event: Any, raw: Any) -> list[ChatUpdate]:
        if event.message_id in self._held:
            return self._repeats.ended(event.message_id, raw, self._author(event))
        deltas = self._texts.get(event.message_id)
        self._repeats.completed("".join(deltas) if isinstance(deltas, list) else "")
        return []

    # -- state and activity ------------------------------------------------------------------

    def _state_snapshot(self, event: Any, raw: Any) -> list[ChatUpdate]:
        return self._state.snapshot(event, raw, self._author(event), self._thread_id)

    def _state_delta(self, event: Any, raw: Any) -> list[ChatUpdate]:
        return self._state.delta(event, raw, self._author(event))

    # -- snapshots and pass-through ----------------------------------------------------------

    def _messages_snapshot(self, event: Any, raw: Any) -> list[ChatUpdate]:
        updates = self._snapshots.reconcile(event.messages)
        summary: dict[str, Any] = {"messages": len(event.messages), "new": len(updates)}
        updates.append(_update([DebugContent(label="messages snapshot", value=summary)], raw))
        return updates

    def _raw(self, event: Any, raw: Any) -> list[ChatUpdate]:
        value = {"event": event.event, "source": event.source}
        return [_update([debug_part("raw", value)], without_held(raw, RAW_HELD), author=self._author(event))]

    def _custom(self, event: Any, raw: Any) -> list[ChatUpdate]:
        if event.name == ON_INTERRUPT:
            # The legacy interrupt channel: the RUN_FINISHED that follows is an interrupt.
            fallback = f"{self._run_id}/on_interrupt/{len(self._announced)}"
            self._announced.append(custom_interrupt(event.value, event.raw_event, fallback))
        if event.name == "PredictState":
            self._state.announce(event.value if isinstance(event.value, list) else [event.value])
        return [_update([debug_part(f"custom {event.name}", event.value)], without_held(raw, CUSTOM_HELD),
                        author=self._author(event))]

    # -- run lifecycle -----------------------------------------------------------------------

    def _run_started(self, event: Any, raw: Any) -> list[ChatUpdate]:
        self._run_calls.clear()
        self._state.run_started()
        self._repeats.run_started()
        self.interrupts = []
        self._announced = []
        self._run_id = event.run_id
        self._thread_id = event.thread_id
        value = {"threadId": event.thread_id, "runId": event.run_id}
        return [_update([DebugContent(label="run started", value=value)], raw)]

    def _run_error(self, event: Any, raw: Any) -> list[ChatUpdate]:
        self.run_error = event
        return [_update([ErrorContent(message=event.message, code=event.code)], raw)]

    def _run_finished(self, event: Any, raw: Any) -> list[ChatUpdate]:
        outcome = event.outcome
        kind = outcome.type if outcome is not None else "success"
        parts: list[Any] = []
        if kind == "cancelled":
            parts.append(FinishContent(reason="cancelled"))
        elif kind == "interrupt" or self._announced or self._pending_confirmations():
            # The structured outcome wins when a server sends both channels (ag-ui-langgraph
            # with `emit_interrupt_outcome=True` does): its interrupts are answered by `resume[]`.
            if kind == "interrupt":
                interrupts = list(outcome.interrupts)
            else:
                interrupts = self._announced or self._pending_confirmations()
            self.interrupts = interrupts
            parts.extend(interrupt_part(interrupt, self.calls, self._state.predict) for interrupt in interrupts)
            parts.append(FinishContent(reason="interrupt"))
        else:
            pending = list(outcome.pending_tool_call_ids or []) if outcome is not None else []
            if not pending:
                pending = [
                    call_id for call_id in self._run_calls
                    if not self.calls[call_id].resolved and not self.calls[call_id].informational_only
                ]
            parts.append(FinishContent(reason="tool_calls" if pending else "stop"))
        return [_update(parts, raw)]

    def _pending_confirmations(self) -> list[Interrupt]:
        """Google ADK's pending `adk_request_confirmation` calls of this run, as interrupts."""
        return [adk_confirmation(call_id, self.calls[call_id].parsed_arguments())
                for call_id in self._run_calls
                if self.calls[call_id].name == ADK_CONFIRMATION_TOOL and not self.calls[call_id].resolved]


def _nothing(event: Any, raw: Any) -> list[ChatUpdate]:
    return []
