"""The Markdown transcript of a thread's log (what `tandem export` and the in-app Export write).

A readable transcript: the human's messages, the assistant's text, tool calls with their
arguments and results, approvals and other decisions with who and when, state changes
summarised, errors and cancellations. Nothing is left out, but every string is made safe for a
terminal or a viewer (control characters and escape sequences' ESC removed, code fences longer
than any backtick run they hold). Pure functions; `core.export` is the entry point.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from tandem.core.content import (
    ActivityContent,
    A2UIMessageContent,
    ApprovalRequestContent,
    ApprovalResponseContent,
    AttachmentContent,
    DebugContent,
    ErrorContent,
    FinishContent,
    InputRequestContent,
    InputResponseContent,
    ReasoningContent,
    StateDeltaContent,
    StateSnapshotContent,
    TextContent,
    ToolCallContent,
    ToolResultContent,
)
from tandem.core.log_entries import (
    HumanWrite,
    HumanWriteLogged,
    StateMerged,
    LogEntry,
    SegmentEnded,
    SegmentStarted,
    TurnEnded,
    TurnStarted,
    UpdateLogged,
)
from tandem.core.messages import ChatMessage

from tandem.core.sanitize import reveal
from tandem.core.transcript_attachments import attachment_markdown
from tandem.core.agent_json import dumps_agent_json, loads_agent_json

__all__ = ["ExportHeader", "markdown_safe", "to_markdown"]

_SUMMARY_LIMIT = 200


def markdown_safe(text: str) -> str:
    """`text` with its control and invisible characters shown as escapes (`reveal`: tab and
    newline kept): an export hides nothing of what was said or decided."""
    return reveal(text)


@dataclass(frozen=True)
class ExportHeader:
    """What the transcript says about the thread before its turns."""

    thread_id: str
    title: str | None = None
    server_url: str | None = None
    created_at: float | None = None
    updated_at: float | None = None


def to_markdown(entries: Sequence[LogEntry], header: ExportHeader | None = None) -> str:
    """A readable Markdown transcript of a thread's log."""
    writer = _Transcript()
    if header is not None:
        writer.header(header)
    for entry in entries:
        writer.entry(entry)
    return writer.render()


def _when(at: float | None) -> str:
    if at is None:
        return "?"
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(at))


def _inline(text: object, limit: int | None = None) -> str:
    """One line of safe text in an inline code span."""
    value = " ".join(markdown_safe(str(text)).split())
    if limit is not None and len(value) > limit:
        value = value[: limit - 1] + "…"
    ticks = "`" * (max((len(run) for run in re.findall(r"`+", value)), default=0) + 1)
    pad = " " if value.startswith("`") or value.endswith("`") else ""
    return f"{ticks}{pad}{value}{pad}{ticks}"


def _fenced(value: Any, language: str = "json") -> str:
    if isinstance(value, str) and language != "json":
        body = value
    else:
        body = dumps_agent_json(value, indent=2, ensure_ascii=False)
    body = markdown_safe(body)
    fence = "`" * max(3, max((len(run) for run in re.findall(r"`+", body)), default=0) + 1)
    return f"{fence}{language}\n{body}\n{fence}"


def _quote(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in markdown_safe(text).splitlines() or [""])


@dataclass
class _Run:
    """Text or reasoning streamed into one message."""

    label: str
    message_id: str | None
    kind: str
    parts: list[str] = field(default_factory=list)

    def render(self) -> str:
        text = markdown_safe("".join(self.parts))
        if self.kind == "reasoning":
            return f"**{self.label} (reasoning):**\n\n{_quote(text)}"
        return f"**{self.label}:**\n\n{text}"


@dataclass
class _Call:
    """A tool call assembled from streamed chunks, and its result."""

    call_id: str
    name: str | None = None
    chunks: list[str] = field(default_factory=list)
    arguments: dict[str, Any] | None = None
    server_side: bool = False
    result: list[str] = field(default_factory=list)

    def render(self) -> str:
        where = " (run by the agent)" if self.server_side else ""
        lines = [f"**Tool call {_inline(self.name or '?')}**{where} — call {_inline(self.call_id)}", ""]
        if self.arguments is not None:
            lines.append(_fenced(self.arguments))
        elif self.chunks:
            text = "".join(self.chunks)
            try:
                lines.append(_fenced(loads_agent_json(text)))
            except ValueError:
                lines.append(_fenced(text, "text"))
        else:
            lines.append("(no arguments)")
        lines.extend(self.result)
        return "\n".join(lines)


class _Transcript:
    """Folds log entries into Markdown sections, in log order."""

    def __init__(self) -> None:
        self.items: list[str | _Run | _Call] = []
        self.calls: dict[str, _Call] = {}
        self.turns = 0
        self.run: _Run | None = None

    def header(self, header: ExportHeader) -> None:
        self.items.append(f"# {markdown_safe(header.title or 'Untitled thread').strip() or 'Untitled thread'}")
        facts = [f"- Thread: {_inline(header.thread_id)}"]
        if header.server_url:
            facts.append(f"- Server: {_inline(header.server_url)}")
        if header.created_at is not None:
            facts.append(f"- Created: {_when(header.created_at)}")
        if header.updated_at is not None:
            facts.append(f"- Updated: {_when(header.updated_at)}")
        self.items.append("\n".join(facts))

    def render(self) -> str:
        out = [item if isinstance(item, str) else item.render() for item in self.items]
        return "\n\n".join(part for part in out if part) + "\n"

    def add(self, text: str) -> None:
        self.run = None
        self.items.append(text)

    # -- entries -----------------------------------------------------------------------------

    def entry(self, entry: LogEntry) -> None:
        if isinstance(entry, TurnStarted):
            self.turns += 1
            self.add(f"## Turn {self.turns}\n\n_{_when(entry.at)} · turn {_inline(entry.turn_id)}_")
            for message in entry.messages:
                self.message(message)
        elif isinstance(entry, SegmentStarted):
            # Its continuation repeats the turn's request (first segment) or the decisions,
            # which the transcript shows where they were taken.
            self.run = None
            if entry.retry:
                self.add("_Retried._")
        elif isinstance(entry, UpdateLogged):
            label = "Assistant" if entry.update.role in ("assistant", "tool") else entry.update.role.capitalize()
            if entry.update.author:
                label += f" ({markdown_safe(entry.update.author)})"
            for part in entry.update.contents:
                self.part(part, label, entry.update.message_id)
        elif isinstance(entry, SegmentEnded):
            self.run = None
            if entry.outcome == "error":
                self.add(f"**Error:** {markdown_safe(entry.error or 'the segment failed')}")
            elif entry.outcome == "cancelled":
                self.add("_Stopped._")
        elif isinstance(entry, HumanWriteLogged):
            self.human(entry.write)
        elif isinstance(entry, StateMerged):
            self.merge(entry)
        elif isinstance(entry, TurnEnded):
            self.add(f"_Turn ended: {entry.status}._")

    def message(self, message: ChatMessage) -> None:
        label = "You" if message.role == "user" else message.role.capitalize()
        if message.author:
            label += f" ({markdown_safe(message.author)})"
        text = message.text
        if text:
            self.add(f"**{label}:**\n\n{_quote(text)}")
        for part in message.contents:
            if not isinstance(part, TextContent):
                self.part(part, label, message.message_id)

    def part(self, part: BaseModel, label: str, message_id: str | None) -> None:
        if isinstance(part, (TextContent, ReasoningContent)):
            kind = part.kind
            run = self.run
            if run is None or run.kind != kind or run.message_id != message_id or run.label != label:
                run = _Run(label, message_id, kind)
                self.items.append(run)
                self.run = run
            run.parts.append(part.text)
        elif isinstance(part, ToolCallContent):
            self.tool_call(part)
        elif isinstance(part, ToolResultContent):
            self.tool_result(part)
        elif isinstance(part, ApprovalRequestContent):
            text = f"**Approval requested** for {_inline(part.tool_name)} — request {_inline(part.request_id)}"
            if part.message:
                text += f"\n\n{_quote(part.message)}"
            if part.arguments_text is not None:
                text += "\n\nArguments (not valid JSON, as sent):\n\n" + _fenced(part.arguments_text, "text")
            else:
                text += "\n\n" + _fenced(part.arguments)
            if not part.requires_confirmation:
                text += "\n\n(approved automatically: no confirmation required)"
            if part.expires_at is not None:
                text += f"\n\nExpires {_when(part.expires_at)}."
            self.add(text)
        elif isinstance(part, ApprovalResponseContent):
            verdict = "approved" if part.approved else "rejected" if part.status == "resolved" else "cancelled"
            self.add(f"**Approval answer** for request {_inline(part.request_id)}: {verdict}"
                     + (f" — {_inline(part.reason, _SUMMARY_LIMIT)}" if part.reason else ""))
        elif isinstance(part, InputRequestContent):
            text = f"**Input requested** ({_inline(part.reason)}) — request {_inline(part.request_id)}"
            if part.message:
                text += f"\n\n{_quote(part.message)}"
            if part.response_schema:
                text += "\n\n" + _fenced(part.response_schema)
            if part.expires_at is not None:
                text += f"\n\nExpires {_when(part.expires_at)}."
            self.add(text)
        elif isinstance(part, InputResponseContent):
            self.add(f"**Input answer** for request {_inline(part.request_id)}: {part.status}\n\n{_fenced(part.payload)}")
        elif isinstance(part, StateSnapshotContent):
            what = "proposed replacing" if part.proposal_id else "replaced"
            keys = list(part.snapshot) if isinstance(part.snapshot, dict) else None
            summary = f"keys {', '.join(_inline(k) for k in keys[:10])}" + ("…" if keys and len(keys) > 10 else "") if keys else _inline(dumps_agent_json(part.snapshot), _SUMMARY_LIMIT)
            self.add(f"**State** {what} by the agent{self._proposal(part.proposal_id)}: {summary}")
        elif isinstance(part, StateDeltaContent):
            verb = "proposed" if part.proposal_id else "changed"
            self.add(f"**State** {verb} by the agent{self._proposal(part.proposal_id)}: {self._ops(part.patch)}")
        elif isinstance(part, ActivityContent):
            self.add(f"**Activity** {_inline(part.activity_type)} {_inline(part.activity_id)}: "
                     + _inline(dumps_agent_json(part.content if part.patch is None else part.patch), _SUMMARY_LIMIT))
        elif isinstance(part, A2UIMessageContent):
            kinds = ", ".join(_inline(k) for k in part.message)
            self.add(f"**Surface** {_inline(part.surface_id or '?')}: {kinds}")
        elif isinstance(part, ErrorContent):
            code = f" ({_inline(part.code)})" if part.code else ""
            self.add(f"**Agent error**{code}: {markdown_safe(part.message)}")
        elif isinstance(part, DebugContent):
            self.add(f"_Protocol event {_inline(part.label)}: {_inline(dumps_agent_json(part.value), _SUMMARY_LIMIT)}_")
        elif isinstance(part, FinishContent):
            self.run = None
        elif isinstance(part, AttachmentContent):
            self.run = None
            self.add(attachment_markdown(part))

    def tool_call(self, part: ToolCallContent) -> None:
        call = self.calls.get(part.call_id)
        if call is None or (call.result and part.starts_call):
            # A start under the id of an answered call is another call (servers that number
            # their calls afresh in every run): its own entry, as it has its own card.
            call = self.calls[part.call_id] = _Call(part.call_id)
            self.run = None
            self.items.append(call)
        call.name = part.name or call.name
        call.server_side = call.server_side or part.informational_only
        if part.arguments is not None:
            call.arguments = dict(part.arguments)
        if part.arguments_delta:
            call.chunks.append(part.arguments_delta)

    def tool_result(self, part: ToolResultContent) -> None:
        lines = ["", "Error: " + markdown_safe(part.error)] if part.error else ["", "Result:", "", _fenced(part.result)]
        call = self.calls.get(part.call_id)
        if call is not None and not call.result:
            call.result = lines
        else:
            self.add(f"**Tool result** for call {_inline(part.call_id)}" + "\n".join(lines))

    def human(self, write: HumanWrite) -> None:
        by = f"by {_inline(write.who)}, {_when(write.at)}"
        payload = write.payload
        if write.kind == "decision":
            outcome = str(payload.get("outcome", "decided"))
            lines = [f"**Decision** on {_inline(write.target)}: **{markdown_safe(outcome)}** {by}"]
            if payload.get("reason"):
                lines.append(f"- Reason: {_inline(payload['reason'], _SUMMARY_LIMIT)}")
            if payload.get("edited_arguments") is not None:
                lines.append("- Edited arguments:\n\n" + _fenced(payload["edited_arguments"]))
            if payload.get("payload") is not None:
                lines.append("- Answer:\n\n" + _fenced(payload["payload"]))
            if payload.get("result") is not None:
                lines.append("- Result:\n\n" + _fenced(payload["result"]))
            if payload.get("error"):
                lines.append(f"- Error: {_inline(payload['error'], _SUMMARY_LIMIT)}")
            self.add("\n".join(lines))
        elif write.kind == "proposal_accept":
            self.add(f"**Proposal** {_inline(write.target)} accepted {by}")
        elif write.kind == "proposal_reject":
            self.add(f"**Proposal** {_inline(write.target)} rejected {by}")
        elif write.kind == "state_edit":
            patch = payload.get("patch")
            ops = self._ops(patch) if isinstance(patch, list) else "(no changes)"
            self.add(f"**State edited** {by}: {ops}")
        elif write.kind == "state_resolve":
            outcomes = {"mine": "kept their own value", "agent": "took the agent's value", "edit": "wrote a new value"}
            chosen = outcomes.get(str(payload.get("resolution")), "settled it")
            self.add(f"**State conflict** at {_inline(payload.get('field', write.target))}: {markdown_safe(chosen)} {by}")
        elif write.kind == "cancel":
            self.add(f"**Cancelled** {by}")
        elif write.kind == "queue":
            # Shown where it was typed; the turn that sends it shows it again as its request.
            self.add(f"_Follow-up queued {by} (sent with the next turn):_")
            self.message(ChatMessage.model_validate(payload.get("message")))
        elif write.kind == "withdraw":
            self.add(f"**Message taken back** after the agent refused it {by}")

    def merge(self, entry: StateMerged) -> None:
        conflicts = entry.merge.get("conflicts")
        for conflict in conflicts if isinstance(conflicts, list) else []:
            if isinstance(conflict, dict):
                mine, agent = conflict.get("mine"), conflict.get("agent")
                self.add(
                    f"**State conflict** at {_inline(conflict.get('field', '?'))}: the person's "
                    f"{_inline(json.dumps(mine, default=str), 60)}, the agent's {_inline(json.dumps(agent, default=str), 60)}"
                )

    @staticmethod
    def _proposal(proposal_id: str | None) -> str:
        return f" (proposal {_inline(proposal_id)})" if proposal_id else ""

    @staticmethod
    def _ops(patch: Iterable[Any]) -> str:
        ops = [op for op in patch if isinstance(op, dict)]
        shown = []
        for op in ops[:10]:
            value = f" = {_inline(dumps_agent_json(op['value']), 60)}" if "value" in op else ""
            shown.append(f"{markdown_safe(str(op.get('op', '?')))} {_inline(op.get('path', ''))}{value}")
        more = f" (+{len(ops) - 10} more)" if len(ops) > 10 else ""
        return "; ".join(shown) + more if shown else "(no changes)"
