"""Interrupt demo scenarios: approval (delete), input request (address) and predictive state (document).

Each run that needs an answer ends with ``RUN_FINISHED`` and an interrupt
outcome; the answer comes back in the next request's ``resume``. The server
is stateless, so interrupt ids carry what the continuation needs to find its
way: ``int-<toolCallId>`` for a tool approval (the call itself, with its
arguments, is read back from the message history) and ``int-address-<runId>``
for the address form.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from ag_ui.core import Interrupt, ResumeEntry, ToolCall, ToolCallArgsEvent, ToolCallEndEvent, ToolCallStartEvent

from .script import Hold, Pause, RunContext, Step, tokenize
from .scenarios_state import fenced

__all__ = [
    "ADDRESS_INTERRUPT_PREFIX",
    "ADDRESS_SCHEMA",
    "APPROVAL_SCHEMA",
    "TOOL_INTERRUPT_PREFIX",
    "address",
    "address_resume",
    "delete",
    "delete_path",
    "delete_resume",
    "document",
    "document_resume",
]

TOOL_INTERRUPT_PREFIX = "int-"
"""Prefix of a tool approval's interrupt id; the tool call id follows it."""
ADDRESS_INTERRUPT_PREFIX = "int-address-"
"""Prefix of the address form's interrupt id; the run id follows it."""

APPROVAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "approved": {"type": "boolean"},
        "editedArgs": {"type": "object"},
        "reason": {"type": "string"},
    },
    "required": ["approved"],
}
"""The response schema of every tool approval interrupt."""

COUNTRIES = ("Portugal", "Spain", "France", "Germany", "Japan", "United Kingdom", "United States")
ADDRESS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["name", "street", "city", "country"],
    "properties": {
        "name": {"type": "string", "title": "Full name"},
        "street": {"type": "string", "title": "Street and number"},
        "city": {"type": "string", "title": "City"},
        "postcode": {"type": "string", "title": "Postcode"},
        "country": {"type": "string", "title": "Country", "enum": list(COUNTRIES)},
        "speed": {"type": "string", "title": "Delivery", "enum": ["standard", "express"], "default": "standard"},
    },
}
"""The response schema of the address input request."""

DEFAULT_PATH = "/tmp/demo.txt"
_PATH_RE = re.compile(r"(?<![\w/])(~?/[\w.\-/]+|[\w\-]+(?:/[\w.\-]+)+|[\w\-]+\.[A-Za-z0-9]{1,8})\b")

DOCUMENT_STARTER = """\
# Meeting notes

The team agreed to ship the terminal client in two stages. First, the conversation view and \
the approval flow; then shared state with proposals a person can accept or reject.

## Actions

- Write the release notes.
- Record a short demo of the approval flow.
- Ask two users to try the shared-state panel."""

DOCUMENT_ADDITION = """\

## Follow-up (drafted by the agent)

Everything above was kept as you wrote it. Next step: review this draft together and \
agree on a date for the first stage."""


@dataclass(frozen=True)
class _Approval:
    """A validated answer to a tool approval interrupt."""

    decision: Literal["approved", "denied", "cancelled"]
    edited_args: dict[str, Any]
    reason: str


class _BadPayload(Exception):
    """A resume payload that does not match the interrupt's response schema."""


def _schema_error(entry: ResumeEntry, detail: str) -> str:
    return (
        f"Resume payload for interrupt '{entry.interrupt_id}' does not match the responseSchema "
        f"advertised on the interrupt ({detail})."
    )


def _read_approval(entry: ResumeEntry) -> _Approval:
    """Validate an approval answer against :data:`APPROVAL_SCHEMA`.

    Raises:
        _BadPayload: The payload is not an object or a field has the wrong type.
    """
    if entry.status == "cancelled":
        return _Approval("cancelled", {}, "")
    payload = entry.payload
    if not isinstance(payload, dict):
        raise _BadPayload(_schema_error(entry, "payload: must be an object"))
    if "approved" not in payload:
        raise _BadPayload(_schema_error(entry, "approved: missing"))
    if not isinstance(payload["approved"], bool):
        raise _BadPayload(_schema_error(entry, "approved: must be a boolean"))
    edited = payload.get("editedArgs", {})
    if not isinstance(edited, dict):
        raise _BadPayload(_schema_error(entry, "editedArgs: must be an object"))
    reason = payload.get("reason", "")
    if not isinstance(reason, str):
        raise _BadPayload(_schema_error(entry, "reason: must be a string"))
    return _Approval("approved" if payload["approved"] else "denied", edited, reason)


def _approval_interrupt(call_id: str, message: str) -> Interrupt:
    return Interrupt(
        id=f"{TOOL_INTERRUPT_PREFIX}{call_id}",
        reason="tool_call",
        message=message,
        tool_call_id=call_id,
        response_schema=APPROVAL_SCHEMA,
    )


def _quote(text: str) -> str:
    """Quote a person's free text as a Markdown block quote."""
    return "\n".join(f"> {line}" for line in text.splitlines() or [""])


def delete_path(request: str) -> str:
    """Return the first path-like word of ``request``, or a default path."""
    match = _PATH_RE.search(request)
    return match.group(1) if match else DEFAULT_PATH


def delete(ctx: RunContext, request: str) -> Iterator[Step]:
    """Approval: ``delete_file`` waits behind a tool-call interrupt."""
    s = ctx.script
    path = delete_path(request)
    parent = s.message_id()
    yield from s.text(f"I'll delete `{path}`. That needs your approval first.", message_id=parent)
    call_id = s.tool_call_id()
    args = {"path": path}
    yield from s.tool_call("delete_file", args, parent_message_id=parent, call_id=call_id)
    yield s.interrupted(_approval_interrupt(call_id, f"Approve delete_file({json.dumps(args)})?"))


def delete_resume(ctx: RunContext, entry: ResumeEntry, call: ToolCall, args: dict[str, Any]) -> Iterator[Step]:
    """Continue ``delete`` with the person's decision (a malformed one is a RUN_ERROR)."""
    s = ctx.script
    try:
        approval = _read_approval(entry)
    except _BadPayload as exc:
        yield s.error(str(exc), code="INVALID_RESUME_PAYLOAD")
        return
    path = str(args.get("path") or DEFAULT_PATH)
    if approval.decision == "approved":
        edited = approval.edited_args.get("path")
        path = edited if isinstance(edited, str) and edited else path
        yield s.tool_result(call.id, json.dumps({"deleted": path}))
        yield from s.text(f"Deleted `{path}`.\n\n*(Demo agent: no file was touched.)*")
    elif approval.decision == "denied":
        yield s.tool_result(call.id, json.dumps({"denied": True, "reason": approval.reason}))
        why = f" You said:\n\n{_quote(approval.reason)}" if approval.reason else " You gave no reason."
        yield from s.text(f"Okay, I did not delete `{path}`.{why}")
    else:
        yield s.tool_result(call.id, json.dumps({"cancelled": True}))
        yield from s.text(f"The approval was cancelled, so `{path}` was not deleted.")
    yield s.finished()


def address(ctx: RunContext) -> Iterator[Step]:
    """Input request: a generic interrupt whose response schema is a shipping address form."""
    s = ctx.script
    yield from s.text("I can ship your order as soon as I have an address.")
    yield s.interrupted(
        Interrupt(
            id=f"{ADDRESS_INTERRUPT_PREFIX}{ctx.run_input.run_id}",
            reason="input_required",
            message="Where should we ship your order?",
            response_schema=ADDRESS_SCHEMA,
        )
    )


def _read_address(entry: ResumeEntry) -> dict[str, str]:
    """Validate an address answer against :data:`ADDRESS_SCHEMA`.

    Raises:
        _BadPayload: A required field is missing or a value is not allowed.
    """
    payload = entry.payload
    if not isinstance(payload, dict):
        raise _BadPayload(_schema_error(entry, "payload: must be an object"))
    for key in ADDRESS_SCHEMA["required"]:
        if not isinstance(payload.get(key), str) or not payload[key].strip():
            raise _BadPayload(_schema_error(entry, f"{key}: missing"))
    for key, spec in ADDRESS_SCHEMA["properties"].items():
        value = payload.get(key)
        if value is None:
            continue
        if not isinstance(value, str):
            raise _BadPayload(_schema_error(entry, f"{key}: must be a string"))
        if "enum" in spec and value not in spec["enum"]:
            raise _BadPayload(_schema_error(entry, f"{key}: must be one of {', '.join(spec['enum'])}"))
    return {key: payload[key] for key in ADDRESS_SCHEMA["properties"] if isinstance(payload.get(key), str)}


def address_resume(ctx: RunContext, entry: ResumeEntry) -> Iterator[Step]:
    """Continue ``address`` with the values the person entered."""
    s = ctx.script
    if entry.status == "cancelled":
        yield from s.text("No address, no shipment: your order is on hold.")
        yield s.finished()
        return
    try:
        values = _read_address(entry)
    except _BadPayload as exc:
        yield s.error(str(exc), code="INVALID_RESUME_PAYLOAD")
        return
    lines = [values["name"], values["street"], " ".join(filter(None, [values.get("postcode"), values["city"]]))]
    lines.append(values["country"])
    speed = values.get("speed", "standard")
    days = "1–2 days" if speed == "express" else "3–5 days"
    yield from s.text(
        f"Thanks! Your order goes out by **{speed}** delivery ({days}) to:\n\n"
        f"{fenced(chr(10).join(lines))}\n\n*(Demo agent: nothing will actually be shipped.)*"
    )
    yield s.finished()


def document(ctx: RunContext) -> Iterator[Step]:
    """Predictive state: ``write_document`` streams a draft that the client previews.

    A ``PredictState`` custom event tells the client that the ``document``
    argument of ``write_document`` predicts the state key ``document``; each
    argument chunk is mirrored by a STATE_DELTA holding the text so far. The run
    then waits for approval of the whole draft.
    """
    s = ctx.script
    yield s.custom("PredictState", [{"state_key": "document", "tool": "write_document", "tool_argument": "document"}])
    original = ctx.state.get("document")
    has_original = isinstance(original, str) and bool(original.strip())
    draft = f"{str(original).rstrip()}{DOCUMENT_ADDITION}" if has_original else DOCUMENT_STARTER
    parent = s.message_id()
    verb = "extend your document" if has_original else "draft a document"
    yield from s.text(f"I'll {verb}. Watch it appear, then apply or discard the changes.", message_id=parent)
    call_id = s.tool_call_id()
    yield from _stream_document(ctx, call_id, parent, draft, key_exists="document" in ctx.state)
    yield s.interrupted(_approval_interrupt(call_id, "Apply these changes to the document?"))


def _stream_document(ctx: RunContext, call_id: str, parent: str, draft: str, key_exists: bool) -> Iterator[Step]:
    """Stream ``{"document": draft}`` as tool arguments, with a state delta per chunk."""
    s = ctx.script
    yield ToolCallStartEvent(tool_call_id=call_id, tool_call_name="write_document", parent_message_id=parent)
    tokens = tokenize(draft)
    chunks = ["".join(tokens[start : start + 4]) for start in range(0, len(tokens), 4)]
    so_far = ""
    for index, chunk in enumerate(chunks):
        # Escaping a piece on its own is valid: JSON string escapes are per character.
        delta = json.dumps(chunk, ensure_ascii=False)[1:-1]
        if index == 0:
            delta = '{"document": "' + delta
        if index == len(chunks) - 1:
            delta += '"}'
        yield ToolCallArgsEvent(tool_call_id=call_id, delta=delta)
        so_far += chunk
        # "replace" needs the key to exist; the first write adds it when the state had none.
        op = "replace" if key_exists or index > 0 else "add"
        yield s.delta({"op": op, "path": "/document", "value": so_far})
        yield Pause(0.03)
    yield ToolCallEndEvent(tool_call_id=call_id)


def document_resume(ctx: RunContext, entry: ResumeEntry, call: ToolCall, args: dict[str, Any]) -> Iterator[Step]:
    """Continue ``document``: apply the draft (or the person's edit), or restore the original."""
    s = ctx.script
    try:
        approval = _read_approval(entry)
    except _BadPayload as exc:
        yield s.error(str(exc), code="INVALID_RESUME_PAYLOAD")
        return
    draft = args.get("document")
    if approval.decision == "approved":
        edited = approval.edited_args.get("document")
        final = edited if isinstance(edited, str) else draft
        if not isinstance(final, str):
            yield s.error(f"Tool call '{call.id}' in the history has no 'document' argument.", code="MISSING_TOOL_CALL")
            return
        yield s.tool_result(call.id, json.dumps({"applied": True, "edited": isinstance(edited, str)}))
        # Saving takes a moment: the person may edit the state meanwhile, and this snapshot
        # (computed from the request's state) is merged as its diff, not as a replacement.
        yield Hold(2.0, name="document")
        yield s.snapshot({**ctx.state, "document": final})
        which = "your edited version of the draft" if isinstance(edited, str) else "the draft"
        yield from s.text(f"Applied {which} to the document ({len(final)} characters).")
    else:
        # The request state is the document as it was before the draft: send it back as is.
        yield s.tool_result(call.id, json.dumps({"applied": False}))
        yield s.snapshot(ctx.state)
        if approval.decision == "cancelled":
            yield from s.text("Cancelled: the document is back to how it was.")
        else:
            why = f" You said:\n\n{_quote(approval.reason)}" if approval.reason else ""
            yield from s.text(f"Discarded the draft: the document is back to how it was.{why}")
    yield s.finished()
