"""`MESSAGES_SNAPSHOT` reconciled with what the client already sent and showed.

The reference client (`@ag-ui/client`) treats a messages snapshot as the authoritative list of
the conversation's messages: it replaces its list, so a message it already had is updated in
place, never shown twice. Tandem's blocks are append-only, so it reconciles instead: every
message of a snapshot is either something the client already has — then it is skipped — or new,
and becomes an update (which becomes blocks, and history for the next request).

"Already has" is decided in this order, so that servers that re-issue ids still match:

1. **By id**: the ids of the request's messages (the user's message under the id Tandem gave
   it, tool results, history) and the ids of what this run streamed (text and reasoning
   messages, and the `parentMessageId` of streamed tool calls: ag-ui-langgraph streams a call
   under a message that has no text events, then snapshots that message with the call).
2. **By content**, for a message under an id the client never saw (Google ADK mints fresh ids
   for every snapshot; ag-ui-langgraph snapshots reasoning under another id than it streamed):
   a user, system, reasoning or assistant message whose role and text equal one the client sent
   or streamed (by the echo rule of `echoes.py`: whitespace at the ends set aside) and that no
   message of the snapshot matched by id. Each sent or streamed message
   matches at most one snapshot message, so a text the agent really says twice is kept twice.
   Consecutive reasoning messages whose texts joined equal one such thought are its pieces
   (ag-ui-langgraph snapshots each streamed reasoning chunk as its own message).
3. **Tool calls and results**: a tool call whose id is known (streamed, or in the history) is
   never emitted again, and neither is a result for a call that already has one. A call under
   a new id with the same name and arguments as a call **answered in the current turn** (since
   the last user message with text) is taken for a re-send of that call, not a new one: it is
   never shown or run again. A model that really repeats an identical call in one turn is rarer
   than a server that re-ids the call it already had answered, and running a client tool twice
   (a theme switch, a payment) is the worse mistake.

An assistant message with some new and some known parts is emitted with its new parts only.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from typing import Any

from ag_ui.core import (
    ActivityMessage,
    AssistantMessage,
    Message,
    ReasoningMessage,
    SystemMessage,
    ToolMessage,
    UserMessage,
)

from tandem.core.agui.calls import KnownCall
from tandem.core.agui.echoes import EchoText, echo_key
from tandem.core.agui.interrupts import ADK_CONFIRMATION_TOOL
from tandem.core.agui.events import TANDEM_ROLES
from tandem.core.unvalidated import update
from tandem.core.content import ActivityContent, ReasoningContent, TextContent, ToolCallContent, ToolResultContent
from tandem.core.messages import ChatUpdate
from tandem.core.tool_arguments import parse_arguments

__all__ = ["SnapshotReconciler", "text_of", "call_signature", "answered_in_current_turn"]


def call_signature(name: str | None, arguments: Any) -> tuple[str, str]:
    """A tool call's identity apart from its id: its name and its arguments as canonical JSON."""
    if isinstance(arguments, str):
        parsed = parse_arguments(arguments).value
        arguments = parsed if parsed is not None else arguments
    try:
        canonical = json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError):
        canonical = repr(arguments)
    return name or "", canonical


_MAX_PIECES = 64
"""The longest run of consecutive reasoning messages `_split_thoughts` joins (bounds its quadratic search)."""


class SnapshotReconciler:
    """Decides which messages of a `MESSAGES_SNAPSHOT` are new to the client (see the module docstring).

    Owns the ids and texts the client sent and streamed, the results it has, and the signatures
    of the calls answered in the current turn. One per stream, fed by `EventMapper`; engine
    thread only.

    Args:
        sent: the request's messages, as sent.
        calls: the mapper's known calls by id (shared, updated by the mapper and by snapshots).
        declared: the tools the request declared (calls to others are informational).
    """

    def __init__(self, sent: Sequence[Message], calls: dict[str, KnownCall], declared: Collection[str]) -> None:
        self.calls = calls
        self._declared = declared
        # What the request sent is read only when a snapshot comes (most runs bring none): a
        # turn then costs nothing per history message here. Until then the sets below hold only
        # what the stream added; `_read_sent` unites them with what was sent.
        self._sent: Sequence[Message] | None = sent
        self.known_ids: set[str] = set()
        self._sent_texts: Counter[tuple[str, bytes]] = Counter()
        # message id → (role, its deltas): a text message's as the digest echoes compare (not
        # kept whole: a flood of text would be held here a second time), reasoning's as the
        # strings, which the mapper joins to weigh repeated thoughts.
        self._streamed: dict[str, tuple[str, EchoText | list[str]]] = {}
        self.answered: set[str] = set()
        """Call ids that have a result (sent, streamed or snapshotted)."""
        self._answered_in_turn: set[tuple[str, str]] = set()
        self._pieces: set[str] = set()  # this snapshot's reasoning messages that are pieces of one known thought

    def _read_sent(self) -> None:
        """Add what the request sent to the ids, results, texts and signatures known (once)."""
        sent, self._sent = self._sent, None
        if sent is None:
            return
        self.known_ids.update(m.id for m in sent)
        for message in sent:
            if isinstance(message, ToolMessage):
                self.answered.add(message.tool_call_id)
            text = text_of(getattr(message, "content", None))
            if isinstance(message, (UserMessage, SystemMessage, AssistantMessage, ReasoningMessage)) and text:
                self._sent_texts[echo_key(message.role, text)] += 1
        self._answered_in_turn |= _answered_in_current_turn(sent)

    # -- what the stream showed ------------------------------------------------------------------

    def streamed_text(self, message_id: str, role: str) -> EchoText | list[str]:
        """What this run's deltas of a text message (an `EchoText`) or of a reasoning message
        (`role` "reasoning": a list) are appended to."""
        entry = self._streamed.get(message_id)
        if entry is None:
            entry = self._streamed[message_id] = (role, [] if role == "reasoning" else EchoText())
            self.known_ids.add(message_id)
        return entry[1]

    def saw_message(self, message_id: str | None) -> None:
        """A message id the stream used (a tool call's parent, a tool result message)."""
        if message_id:
            self.known_ids.add(message_id)

    def saw_result(self, call_id: str, name: str | None, arguments: Any) -> None:
        """A call got its result in this run."""
        self.answered.add(call_id)
        self._answered_in_turn.add(call_signature(name, arguments))

    # -- the snapshot ------------------------------------------------------------------------------

    def reconcile(self, messages: Iterable[Message]) -> list[ChatUpdate]:
        """The updates for the messages of one snapshot the client does not have yet."""
        self._read_sent()
        messages = list(messages)
        available = Counter(self._sent_texts)
        for role, chunks in self._streamed.values():
            if isinstance(chunks, EchoText):
                if not chunks.empty:
                    available[chunks.key(role)] += 1
            elif text := "".join(chunks):
                available[echo_key(role, text)] += 1
        # Messages matched by id use up their text first: an unknown-id message with the same
        # text is then a second message, not an echo.
        for message in messages:
            if message.id in self.known_ids:
                key = echo_key(message.role, text_of(getattr(message, "content", None)))
                if available[key] > 0:
                    available[key] -= 1
        self._pieces = self._split_thoughts(messages, available)
        updates: list[ChatUpdate] = []
        for message in messages:
            new = self._reconcile_one(message, available)
            self.known_ids.add(message.id)
            if new is not None:
                updates.append(new)
        return updates

    def _reconcile_one(self, message: Message, available: Counter[tuple[str, bytes]]) -> ChatUpdate | None:
        raw = {"type": "MESSAGES_SNAPSHOT", "message": message.model_dump(mode="json", by_alias=True)}
        known_id = message.id in self.known_ids
        if isinstance(message, ToolMessage):
            if known_id or message.tool_call_id in self.answered:
                return None
            self.answered.add(message.tool_call_id)
            call = self.calls.get(message.tool_call_id)
            if call is not None:
                call.resolved = True
                self._answered_in_turn.add(call_signature(call.name, call.parsed_arguments()))
            part = ToolResultContent(call_id=message.tool_call_id, result=text_of(message.content),
                                     error=message.error, encrypted_value=message.encrypted_value)
            return update([part], raw, role="tool", message_id=message.id)
        if isinstance(message, ActivityMessage):
            if known_id:
                return None
            activity = ActivityContent(activity_id=message.id, activity_type=message.activity_type,
                                       content=message.content)
            return update([activity], raw, role="assistant", message_id=message.id)
        text = text_of(getattr(message, "content", None))
        text_known = known_id or message.id in self._pieces or not text or self._take(available, message.role, text)
        parts: list[Any] = []
        if isinstance(message, ReasoningMessage):
            if not text_known or (not known_id and not text and message.encrypted_value):
                parts.append(ReasoningContent(text=message.content, encrypted_value=message.encrypted_value))
        else:
            if not text_known:
                parts.append(TextContent(text=text))
            for call in getattr(message, "tool_calls", None) or []:
                call_part = self._new_call(call, message.id)
                if call_part is not None:
                    parts.append(call_part)
        if not parts:
            return None
        return update(parts, raw, role=TANDEM_ROLES.get(message.role, "assistant"), message_id=message.id)

    def _new_call(self, call: Any, message_id: str) -> ToolCallContent | None:
        """The part for a snapshot tool call, or None when the client already has the call."""
        if call.id in self.calls or call.id in self.answered:
            return None
        arguments = parse_arguments(call.function.arguments or "").preserved()
        if call_signature(call.function.name, arguments) in self._answered_in_turn:
            # A re-send, under a new id, of a call answered in this turn: never again.
            self.calls[call.id] = KnownCall(call.function.name, message_id, arguments=arguments,
                                            informational_only=True, resolved=True)
            return None
        informational = call.function.name not in self._declared
        self.calls[call.id] = KnownCall(call.function.name, message_id, arguments=arguments,
                                        informational_only=informational)
        return ToolCallContent(call_id=call.id, name=call.function.name, arguments=arguments, done=True,
                               informational_only=informational, encrypted_value=call.encrypted_value,
                               internal=call.function.name == ADK_CONFIRMATION_TOOL)

    def _split_thoughts(self, messages: Sequence[Message], available: Counter[tuple[str, bytes]]) -> set[str]:
        """Ids of consecutive reasoning messages whose texts, joined, are one thought the client has.

        ag-ui-langgraph streams a model's reasoning chunks as one reasoning message, then
        snapshots each chunk as its own message (`<id>-reasoning-0`, `-1`, …). Within each run of
        consecutive reasoning messages of unknown id, the longest stretch (of two or more) whose
        joined text is available is taken as that one thought.
        """
        pieces: set[str] = set()
        run: list[Message] = []
        for message in [*messages, None]:
            if isinstance(message, ReasoningMessage) and message.id not in self.known_ids and len(run) < _MAX_PIECES:
                run.append(message)
                continue
            start = 0
            while start < len(run) - 1:
                for end in range(len(run), start + 1, -1):
                    joined = "".join(text_of(m.content) for m in run[start:end])
                    if joined and self._take(available, "reasoning", joined):
                        pieces.update(m.id for m in run[start:end])
                        start = end
                        break
                else:
                    start += 1
            run = [message] if isinstance(message, ReasoningMessage) and message.id not in self.known_ids else []
        return pieces

    @staticmethod
    def _take(available: Counter[tuple[str, bytes]], role: str, text: str) -> bool:
        key = echo_key(role, text)
        if available[key] > 0:
            available[key] -= 1
            return True
        return False


def _current_turn_start(sent: Sequence[Message]) -> int:
    """The index of the last user message with text (0 without one): where the current turn starts."""
    start = 0
    for index, message in enumerate(sent):
        if isinstance(message, UserMessage) and text_of(message.content):
            start = index
    return start


def answered_in_current_turn(sent: Sequence[Message]) -> set[str]:
    """Ids of the calls a tool message answered since the last user message with text."""
    return {m.tool_call_id for m in sent[_current_turn_start(sent):] if isinstance(m, ToolMessage)}


def _answered_in_current_turn(sent: Sequence[Message]) -> set[tuple[str, str]]:
    """Signatures of the calls answered since the last user message with text."""
    start = _current_turn_start(sent)
    calls: dict[str, tuple[str, str]] = {}
    answered: set[tuple[str, str]] = set()
    for message in sent[start:]:
        for call in getattr(message, "tool_calls", None) or []:
            calls[call.id] = call_signature(call.function.name, call.function.arguments or "")
        if isinstance(message, ToolMessage) and message.tool_call_id in calls:
            answered.add(calls[message.tool_call_id])
    return answered


def text_of(content: Any) -> str:
    """The text of a message's content: a string, or the text parts of a list joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(getattr(part, "text", "") or "" for part in content)
    return ""
