"""What one turn of a conversation did, read from its blocks: the same reading for a recording and a replay.

A turn is observed from the blocks it made (tool calls, the decisions it waited on, the
assistant's text, errors) and the committed shared state when it ended. Nothing that names a run
(call ids, message ids, run ids) is kept: two runs of the same conversation against the same
agent observe equal, whatever ids the server chose.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import JsonValue

from tandem.core.blocks.approval import ApprovalBlock
from tandem.core.blocks.base import Block
from tandem.core.blocks.decisions import Approve, Cancel, DecisionCommand, Decline, Invoke, Reject, Respond
from tandem.core.blocks.interactive import Decision, InteractiveBlock
from tandem.core.blocks.interrupt import InterruptBlock
from tandem.core.blocks.misc import ErrorBlock
from tandem.core.blocks.text import ReasoningBlock, TextBlock
from tandem.core.blocks.tool_call import ToolCallBlock
from tandem.core.blocks.ui_action import UIActionBlock

__all__ = ["Ask", "AskKind", "ToolUse", "TurnRecord", "ask_of", "command_for", "json_copy", "observe_turn"]

AskKind = Literal["approval", "question", "ui_action"]
"""What the agent waited on: a tool approval, an input request, a client-side UI action."""


def json_copy(value: Any) -> JsonValue:
    """A deep, JSON-only copy of `value` (state and arguments are kept past later writes)."""
    return json.loads(json.dumps(value, default=str)) if value is not None else None


@dataclass(frozen=True)
class ToolUse:
    """A tool the agent called in a turn."""

    name: str
    arguments: JsonValue
    status: str
    """How it ended: succeeded, failed, denied, cancelled, running (never answered), …"""


@dataclass(frozen=True)
class Ask:
    """A decision the agent waited on, and the answer it got (None while unanswered)."""

    kind: AskKind
    name: str
    """The tool's name (approval), the request's reason (question) or the UI action's name."""
    arguments: JsonValue
    """What it asked about: the call's arguments; a question's response schema."""
    message: str | None = None
    answer: Decision | None = None

    def label(self) -> str:
        """One line naming it: `approval of delete_file`, `question (input_required)`, `UI action change_theme`."""
        if self.kind == "approval":
            return f"approval of {self.name}"
        if self.kind == "question":
            return f"question ({self.name})"
        return f"UI action {self.name}"

    def to_json(self) -> dict[str, JsonValue]:
        answer = None
        if self.answer is not None:
            answer = {k: v for k, v in self.answer.model_dump(mode="json", exclude={"who", "at"}).items() if v is not None}
        return {"kind": self.kind, "name": self.name, "arguments": self.arguments, "message": self.message, "answer": answer}


@dataclass
class TurnRecord:
    """What one turn did. Built by `observe_turn`; compared by `core.rerun.compare`."""

    index: int
    """The turn's position in the conversation (0-based)."""
    request: str
    """The person's message (or what started the turn: a form's event)."""
    status: str
    """completed, error or cancelled."""
    tools: list[ToolUse] = field(default_factory=list)
    asks: list[Ask] = field(default_factory=list)
    text: str = ""
    """The assistant's answer: its text blocks joined by blank lines."""
    errors: list[str] = field(default_factory=list)
    state: JsonValue = None
    """The committed shared state when the turn ended."""


def ask_of(block: InteractiveBlock) -> Ask | None:
    """The `Ask` an interactive block stands for (None for kinds a replay does not answer: A2UI waits)."""
    answer = block.decision
    if isinstance(block, ApprovalBlock):
        return Ask("approval", block.tool_name, json_copy(block.arguments), block.message, answer)
    if isinstance(block, InterruptBlock):
        return Ask("question", block.reason, json_copy(block.response_schema), block.message, answer)
    if isinstance(block, UIActionBlock):
        return Ask("ui_action", block.name, json_copy(block.arguments), None, answer)
    return None


def observe_turn(blocks: Iterable[Block], *, index: int, turn_id: str, request: str, status: str,
                 state: JsonValue, skip: frozenset[str] = frozenset()) -> TurnRecord:
    """What the turn `turn_id` did, from the conversation's blocks (its own are picked out; the
    ids in `skip` left out: the error of a segment the person retried)."""
    record = TurnRecord(index=index, request=request, status=status, state=json_copy(state))
    texts: list[str] = []
    for block in blocks:
        if block.turn_id != turn_id or block.id in skip:
            continue
        if isinstance(block, ToolCallBlock):
            record.tools.append(ToolUse(block.name or "?", json_copy(block.arguments), block.status.value))
        elif isinstance(block, InteractiveBlock):
            ask = ask_of(block)
            if ask is not None:
                record.asks.append(ask)
        elif isinstance(block, ErrorBlock):
            record.errors.append(block.message)
        elif isinstance(block, TextBlock) and not isinstance(block, ReasoningBlock) and block.role == "assistant":
            if block.text.strip():
                texts.append(block.text.strip())
    record.text = "\n\n".join(texts)
    return record


def command_for(answer: Decision) -> DecisionCommand:
    """The command that gives a block the same answer again (`apply_decision`)."""
    match answer.outcome:
        case "approved":
            return Approve(edited_arguments=answer.edited_arguments, reason=answer.reason)
        case "rejected":
            return Reject(reason=answer.reason)
        case "resolved":
            return Respond(payload=answer.payload)
        case "completed" | "failed":
            return Invoke(arguments=answer.edited_arguments)
        case "declined":
            return Decline(reason=answer.reason)
        case _:
            return Cancel()
