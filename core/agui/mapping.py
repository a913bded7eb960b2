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

**A history call streamed again.** ag-ui-langgraph streams the interrupted call again when
the run resumes: a `TOOL_CALL_START` under the id of a history call that has **no result**
yet is that call, shown and sent already; its events map to nothing and its result still finds
it. A history call that **has** its result is a new call under the same id (servers that number
their calls `call_1`, `call_2`… afresh in every run), mapped as any other, unless the result came
in the current turn (since the last user message with text) and the name is the same: that is
a server re-sending, in a continuation run, what it had answered, and a client tool must not
run twice. The handlers give the new call a card of its own (`core/handlers.py`).

**Predictive state.** While a call to a tool named by a `PredictStateMapping` (configured, or
announced by a `CUSTOM` `PredictState` event in the run) is unresolved, state writes touching
its `state_key` carry `proposal_id = toolCallId`; so does the approval request for that call.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ag_ui.core import BaseEvent, EventType, Interrupt, Message

from tandem.core.agui.adapter_state import adapter_keys, is_adapter_key
from tandem.core.agui.calls import KnownCall, PredictStateMapping
from tandem.core.agui.events import TANDEM_ROLES, AnyEvent, UnknownEvent
from tandem.core.agui.interrupts import ADK_CONFIRMATION_TOOL, ON_INTERRUPT, adk_confirmation, custom_interrupt, interrupt_part
from tandem.core.agui.snapshot_messages import SnapshotReconciler, answered_in_current_turn
from tandem.core.unvalidated import envelope as _envelope
from tandem.core.unvalidated import part as _part
from tandem.core.unvalidated import text_update as _text_update
from tandem.core.unvalidated import update as _update
from tandem.core.content import (
    ActivityContent,
    DebugContent,
    ErrorContent,
    FinishContent,
    ReasoningContent,
    StateDeltaContent,
    StateSnapshotContent,
    TextContent,
    ToolCallContent,
    ToolResultContent,
)
from tandem.core.messages import ChatUpdate, Role

__all__ = ["EventMapper"]

log = logging.getLogger(__name__)



class EventMapper:
    """Turns one stream's verified events into `ChatUpdate`s.

    Owns what the mapping needs to remember: the declared tool names, the calls and messages
    seen, subagent names, predictive-state mappings, and the interrupts of the last finished run
    (`interrupts`). One per stream; engine thread only.
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
        self._configured = tuple(predict_state)
        self._predict: list[PredictStateMapping] = list(self._configured)
        self.calls: dict[str, KnownCall] = dict(known_calls or {})
        """Every tool call known so far, by id."""
        self._history_calls = set(self.calls)  # until the run starts a new call under one of their ids
        self._replayed: set[str] = set()  # history calls the server streams again (a resumed run)
        self._sent = sent
        self._answered_in_turn: set[str] | None = None  # read from `sent` on the first history call streamed again
        self._run_calls: list[str] = []
        self._snapshots = SnapshotReconciler(sent, self.calls, self._declared)
        self._snapshots.known_ids.update(known_message_ids)
        self._texts: dict[str, list[str]] = {}  # message id → its text (or reasoning) deltas so far
        self._roles: dict[str, Role] = {}
        self._thoughts: list[str] = []  # the reasoning texts this stream completed
        self._held: dict[str, _Held] = {}  # reasoning message id → deltas held while they repeat a thought
        self._results: dict[str, ToolResultContent] = {}  # tool result message id → result
        self._subagents: dict[str, str] = {}
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
            EventType.REASONING_ENCRYPTED_VALUE: self._encrypted,
            EventType.TOOL_CALL_START: self._call_start,
            EventType.TOOL_CALL_ARGS: self._call_args,
            EventType.TOOL_CALL_END: self._call_end,
            EventType.TOOL_CALL_RESULT: self._call_result,
            EventType.STATE_SNAPSHOT: self._state_snapshot,
            EventType.STATE_DELTA: self._state_delta,
            EventType.MESSAGES_SNAPSHOT: self._messages_snapshot,
            EventType.ACTIVITY_SNAPSHOT: self._activity_snapshot,
            EventType.ACTIVITY_DELTA: self._activity_delta,
            EventType.RAW: self._raw,
            EventType.CUSTOM: self._custom,
            EventType.RUN_STARTED: self._run_started,
            EventType.RUN_FINISHED: self._run_finished,
            EventType.RUN_ERROR: self._run_error,
            EventType.STEP_STARTED: self._step,
            EventType.STEP_FINISHED: self._step,
            EventType.SUBAGENT_STARTED: self._subagent_started,
            EventType.SUBAGENT_FINISHED: self._subagent_ended,
            EventType.SUBAGENT_ERROR: self._subagent_ended,
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
                return self._hold(key, delta, raw, author)
            part = _part(ReasoningContent, {"kind": "reasoning", "text": delta, "encrypted_value": None}, {"text"})
            return _envelope([part], raw, "assistant", key, author)
        if key in self._replayed:
            return None
        call = self.calls[key]
        call.chunks.append(delta)
        arguments_part = _part(ToolCallContent, {
            "kind": "tool_call", "call_id": key, "name": call.name, "arguments_delta": delta, "arguments": None,
            "done": False, "informational_only": call.informational_only, "encrypted_value": None,
        }, {"call_id", "name", "arguments_delta", "informational_only"})
        return _envelope([arguments_part], raw, "assistant", call.parent_message_id, author)

    def delta_run(self, event_type: str, key: str, deltas: list[str], subagent_run_id: str | None,
                  raws: list[Any]) -> list[ChatUpdate]:
        """The updates of a run of non-empty content deltas of one type to one message or call,
        read together, with the checks `plain_delta` makes vouched for: one update whose delta is
        the run's deltas joined and whose `raw` is `_run_raw(raws)` (text: `text_run`), or for a
        reasoning message whose deltas may repeat a thought (`_hold` weighs each one),
        `delta_update`'s of each delta."""
        if event_type == "TEXT_MESSAGE_CONTENT":
            return [self.text_run(key, deltas, subagent_run_id, raws)]
        if key in self._held:
            return [update for delta, raw in zip(deltas, raws)
                    if (update := self.delta_update(event_type, key, delta, subagent_run_id, raw)) is not None]
        update = self.delta_update(event_type, key, "".join(deltas), subagent_run_id, _run_raw(raws))
        return [] if update is None else [update]

    def text_run(self, key: str, deltas: list[str], subagent_run_id: str | None, raws: list[Any]) -> ChatUpdate:
        """The one update of a run of non-empty TEXT_MESSAGE_CONTENT deltas to one message, read
        together (most of a stream), with the checks `plain_delta` makes vouched for: their text
        joined, and `raw` their events (`_run_raw`: the log keeps every one of them)."""
        text = deltas[0] if len(deltas) == 1 else "".join(deltas)
        texts = self._texts.get(key)
        if texts is not None:
            texts.append(text)
        author = None if subagent_run_id is None else self._subagents.get(subagent_run_id, subagent_run_id)
        return _text_update(text, self._roles.get(key, "assistant"), key, author, _run_raw(raws))

    # -- attribution -------------------------------------------------------------------------

    def _author(self, event: BaseEvent) -> str | None:
        run_id = getattr(event, "subagent_run_id", None)
        if run_id is None:
            return None
        return self._subagents.get(run_id, run_id)

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
        if self._thoughts:
            # It may be a thought of this run said again (see `_hold`): held until it differs.
            self._held[event.message_id] = _Held(list(range(len(self._thoughts))))
        return []

    def _reasoning_content(self, event: Any, raw: Any) -> list[ChatUpdate]:
        if not event.delta:
            return []
        texts = self._texts.get(event.message_id)
        if texts is not None:
            texts.append(event.delta)
        if event.message_id in self._held:
            update = self._hold(event.message_id, event.delta, raw, self._author(event))
            return [] if update is None else [update]
        part = ReasoningContent(text=event.delta)
        return [_update([part], raw, message_id=event.message_id, author=self._author(event))]

    def _hold(self, message_id: str, delta: str, raw: Any, author: str | None) -> ChatUpdate | None:
        """A delta of a reasoning message that may repeat a thought this stream already completed.

        Google ADK (ag-ui-adk 0.11.0) streams a thought, then sends it again, whole, under a new
        message id once the answer is under way (the model's final aggregated response repeats
        it). The deltas are held while their text is the beginning of a completed thought; the
        first that departs from every one releases the held text as one delta, and a message
        that ends equal to a completed thought is never shown (`_reasoning_end`). Each delta is
        compared where the held text ends, so holding costs what the deltas weigh, not more.
        """
        held = self._held[message_id]
        held.chunks.append(delta)
        held.raws.append(raw)
        held.candidates = [i for i in held.candidates if self._thoughts[i].startswith(delta, held.length)]
        held.length += len(delta)
        if held.candidates:
            return None
        del self._held[message_id]
        part = ReasoningContent(text="".join(held.chunks))
        return _update([part], held.raw(), message_id=message_id, author=author)

    def _reasoning_end(self, event: Any, raw: Any) -> list[ChatUpdate]:
        held = self._held.pop(event.message_id, None)
        if held is None:
            text = "".join(self._texts.get(event.message_id) or ())
            if text:
                self._thoughts.append(text)
            return []
        text = "".join(held.chunks)
        if any(len(self._thoughts[i]) == held.length for i in held.candidates):
            # A repeat: logged (the log keeps everything), shown only in the debug view.
            value = {"messageId": event.message_id, "text": text}
            return [_update([DebugContent(label="reasoning repeated", value=value)], raw, author=self._author(event))]
        # It ended as the beginning of an earlier thought: a shorter thought of its own.
        part = ReasoningContent(text=text)
        return [_update([part], held.raw(), message_id=event.message_id, author=self._author(event))] if text else []

    def _encrypted(self, event: Any, raw: Any) -> list[ChatUpdate]:
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

    # -- tool calls --------------------------------------------------------------------------

    def _call_start(self, event: Any, raw: Any) -> list[ChatUpdate]:
        if event.tool_call_id in self._history_calls:
            if self._streamed_again(event.tool_call_id, event.tool_call_name):
                # ag-ui-langgraph replays the interrupted call when it resumes. It is shown and
                # sent already; its result still finds it.
                self._replayed.add(event.tool_call_id)
                return []
            self._history_calls.discard(event.tool_call_id)  # a new call under an id used before
        informational = event.tool_call_name not in self._declared
        self.calls[event.tool_call_id] = KnownCall(
            event.tool_call_name, event.parent_message_id, informational_only=informational
        )
        self._run_calls.append(event.tool_call_id)
        self._snapshots.saw_message(event.parent_message_id)
        # Built unvalidated (`_part`): the event's fields are validated strings, as the part's.
        part = _part(ToolCallContent, {
            "kind": "tool_call", "call_id": event.tool_call_id, "name": event.tool_call_name, "arguments_delta": "",
            "arguments": None, "done": False, "informational_only": informational, "encrypted_value": None,
        }, {"call_id", "name", "informational_only"})
        return [_update([part], raw, message_id=event.parent_message_id, author=self._author(event))]

    def _streamed_again(self, call_id: str, name: str) -> bool:
        """Whether a start under the id of a history call is that call again (the module docstring)."""
        call = self.calls[call_id]
        if not call.resolved:
            return True
        if self._answered_in_turn is None:
            self._answered_in_turn = answered_in_current_turn(self._sent)
        return call_id in self._answered_in_turn and call.name == name

    def _call_args(self, event: Any, raw: Any) -> list[ChatUpdate]:
        if event.tool_call_id in self._replayed:
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

    def _call_end(self, event: Any, raw: Any) -> list[ChatUpdate]:
        if event.tool_call_id in self._replayed:
            return []
        call = self.calls[event.tool_call_id]
        arguments = call.parsed_arguments()
        if arguments is None:
            # Built unvalidated (`_part`): nothing here needs it (parsed arguments are validated below).
            part = _part(ToolCallContent, {
                "kind": "tool_call", "call_id": event.tool_call_id, "name": call.name, "arguments_delta": "",
                "arguments": None, "done": True, "informational_only": call.informational_only, "encrypted_value": None,
            }, {"call_id", "name", "done", "arguments", "informational_only"})
        else:
            part = ToolCallContent(
                call_id=event.tool_call_id, name=call.name, done=True, arguments=arguments,
                informational_only=call.informational_only,
            )
        return [_update([part], raw, message_id=call.parent_message_id, author=self._author(event))]

    def _call_result(self, event: Any, raw: Any) -> list[ChatUpdate]:
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

    # -- state and activity ------------------------------------------------------------------

    def _proposal_for(self, keys: Iterable[str]) -> str | None:
        if not self._predict:
            return None
        wanted = set(keys)
        if not wanted:
            return None
        for call_id in reversed(self._run_calls):
            call = self.calls[call_id]
            if call.resolved:
                continue
            if any(m.tool == call.name and m.state_key in wanted for m in self._predict):
                return call_id
        return None

    def _state_snapshot(self, event: Any, raw: Any) -> list[ChatUpdate]:
        snapshot = event.snapshot
        if isinstance(snapshot, dict):
            # The adapter's own keys are not shared state (see adapter_state.py); the raw event keeps them.
            aside = adapter_keys(snapshot, self.adapter_state_keys, thread_id=self._thread_id)
            if aside:
                self.adapter_state_keys.update(aside)
                snapshot = {key: value for key, value in snapshot.items() if key not in aside}
        keys = snapshot.keys() if isinstance(snapshot, dict) else ()
        part = StateSnapshotContent(snapshot=snapshot, proposal_id=self._proposal_for(keys))
        return [_update([part], raw, author=self._author(event))]

    def _state_delta(self, event: Any, raw: Any) -> list[ChatUpdate]:
        patch = [op.model_dump(mode="json", by_alias=True) for op in event.delta]
        known = self.adapter_state_keys
        kept = [op for op in patch if not is_adapter_key(_first_segment(op["path"]), known)
                and not (isinstance(op.get("from"), str) and is_adapter_key(_first_segment(op["from"]), known))]
        if len(kept) != len(patch):
            if not kept:
                # Only the adapter's keys changed: nothing shared did; logged for the debug view.
                return [_update([DebugContent(label="adapter state", value={"ops": len(patch)})], raw,
                                author=self._author(event))]
            patch = kept
        keys = [_first_segment(op["path"]) for op in patch]
        # Built unvalidated (`_part`): a fresh JSON-mode dump is what `patch` validates to.
        part = _part(StateDeltaContent, {"kind": "state_delta", "patch": patch, "proposal_id": self._proposal_for(keys)},
                     {"patch", "proposal_id"})
        return [_update([part], raw, author=self._author(event))]

    def _activity_snapshot(self, event: Any, raw: Any) -> list[ChatUpdate]:
        part = ActivityContent(
            activity_id=event.message_id, activity_type=event.activity_type, content=event.content,
            replace=True if event.replace is None else event.replace,
        )
        return [_update([part], raw, message_id=event.message_id, author=self._author(event))]

    def _activity_delta(self, event: Any, raw: Any) -> list[ChatUpdate]:
        patch = [op.model_dump(mode="json", by_alias=True) for op in event.patch]
        part = ActivityContent(activity_id=event.message_id, activity_type=event.activity_type, patch=patch, replace=False)
        return [_update([part], raw, message_id=event.message_id, author=self._author(event))]

    def _step(self, event: Any, raw: Any) -> list[ChatUpdate]:
        status = "running" if event.type is EventType.STEP_STARTED else "finished"
        part = ActivityContent(
            activity_id=f"step:{event.step_name}", activity_type="step",
            content={"name": event.step_name, "status": status},
        )
        return [_update([part], raw, author=self._author(event))]

    def _subagent_started(self, event: Any, raw: Any) -> list[ChatUpdate]:
        self._subagents[event.subagent_run_id] = event.name
        content = {"name": event.name, "status": "running", "description": event.description,
                   "parentToolCallId": event.parent_tool_call_id, "subagentRunId": event.subagent_run_id}
        part = ActivityContent(activity_id=f"subagent:{event.subagent_run_id}", activity_type="subagent",
                               content={k: v for k, v in content.items() if v is not None})
        return [_update([part], raw, author=event.name)]

    def _subagent_ended(self, event: Any, raw: Any) -> list[ChatUpdate]:
        # Merged into what SUBAGENT_STARTED showed (`replace=False`): the end event carries no
        # name or description, and the line must keep saying which subagent, doing what.
        known = self._subagents.get(event.subagent_run_id)
        content: dict[str, Any]
        if event.type is EventType.SUBAGENT_ERROR:
            content = {"status": "error", "message": event.message, "code": event.code}
        else:
            outcome = event.outcome
            if outcome is not None and outcome.type == "suspended":
                content = {"status": "suspended", "interruptIds": outcome.interrupt_ids}
            else:
                content = {"status": "finished"}
            content["result"] = event.result
        content["subagentRunId"] = event.subagent_run_id
        if known is not None:
            content["name"] = known
        part = ActivityContent(activity_id=f"subagent:{event.subagent_run_id}", activity_type="subagent",
                               content={k: v for k, v in content.items() if v is not None}, replace=False)
        return [_update([part], raw, author=known or event.subagent_run_id)]

    # -- snapshots and pass-through ----------------------------------------------------------

    def _messages_snapshot(self, event: Any, raw: Any) -> list[ChatUpdate]:
        updates = self._snapshots.reconcile(event.messages)
        summary: dict[str, Any] = {"messages": len(event.messages), "new": len(updates)}
        updates.append(_update([DebugContent(label="messages snapshot", value=summary)], raw))
        return updates

    def _raw(self, event: Any, raw: Any) -> list[ChatUpdate]:
        value = {"event": event.event, "source": event.source}
        return [_update([_debug("raw", value)], _without_held(raw, _RAW_HELD), author=self._author(event))]

    def _custom(self, event: Any, raw: Any) -> list[ChatUpdate]:
        if event.name == ON_INTERRUPT:
            # The legacy interrupt channel: the RUN_FINISHED that follows is an interrupt.
            fallback = f"{self._run_id}/on_interrupt/{len(self._announced)}"
            self._announced.append(custom_interrupt(event.value, event.raw_event, fallback))
        if event.name == "PredictState":
            entries = event.value if isinstance(event.value, list) else [event.value]
            for entry in entries:
                mapping = PredictStateMapping.parse(entry)
                if mapping is not None and mapping not in self._predict:
                    self._predict.append(mapping)
        return [_update([_debug(f"custom {event.name}", event.value)], _without_held(raw, _CUSTOM_HELD),
                        author=self._author(event))]

    # -- run lifecycle -----------------------------------------------------------------------

    def _run_started(self, event: Any, raw: Any) -> list[ChatUpdate]:
        self._run_calls = []
        self._predict = list(self._configured)
        self.interrupts = []
        self._announced = []
        self._thoughts = []
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
            parts.extend(interrupt_part(interrupt, self.calls, self._predict) for interrupt in interrupts)
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


class _Held:
    """A reasoning message held while it repeats a completed thought: its deltas and their
    events, their length, and the indices of the thoughts it still matches."""

    __slots__ = ("chunks", "raws", "length", "candidates")

    def __init__(self, candidates: list[int]) -> None:
        self.chunks: list[str] = []
        self.raws: list[Any] = []
        self.length = 0
        self.candidates = candidates

    def raw(self) -> Any:
        """The held deltas' events as the released update's `raw` (`_run_raw`)."""
        return _run_raw(self.raws)  # (released once: the list is not appended to again)


def _run_raw(raws: list[Any]) -> Any:
    """The `raw` of an update standing for a run of delta events: the event of a run of one, else
    their list (in order), so the log keeps every one."""
    return raws[0] if len(raws) == 1 else raws


def _nothing(event: Any, raw: Any) -> list[ChatUpdate]:
    return []


def _first_segment(path: str) -> str:
    segment = path.split("/", 2)[1] if path.startswith("/") else path
    return segment.replace("~1", "/").replace("~0", "~")


_RAW_HELD = frozenset({"event", "source"})
"""A RAW event's fields its debug part holds (its value)."""
_CUSTOM_HELD = frozenset({"value"})
"""A CUSTOM event's field its debug part holds (its value)."""


def _without_held(raw: Any, held: frozenset[str]) -> Any:
    """`raw` without the fields the update's debug part holds: the log stores them once, not twice.

    ag-ui-langgraph (on its defaults) sends a RAW event of 1-5 KB beside every token; kept whole
    in `raw` as well as in the part, each was serialised and written twice. The event is the
    envelope plus the part's value (`ChatUpdate.raw`).
    """
    if not isinstance(raw, dict):
        return raw
    return {key: value for key, value in raw.items() if key not in held}


def _debug(label: str, value: Any) -> DebugContent:
    """A debug part around `value`, parsed JSON, built without validating it again: ag-ui-langgraph
    sends a ~1 KB RAW event beside every token, and validating it as `JsonValue` walked all of it."""
    part: DebugContent = _part(DebugContent, {"kind": "debug", "label": label, "value": value, "folded": 0},
                                {"label", "value"})
    return part
