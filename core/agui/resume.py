"""The `resume` of a run: the entries that answer the interrupts the previous run left open.

Resume payloads: an approval becomes `{"approved": bool, "reason"?, "editedArgs"?}` (a reason only
where the interrupt's response schema allows one: Microsoft Agent Framework's forbids it); an input
response sends its payload (a string for a question asked without a schema).

Interrupts that came on the legacy channel (`CUSTOM on_interrupt`, see `interrupts.py`) are also
answered the legacy way, `forwardedProps.command.resume` — the value itself for one interrupt, a
map `{interrupt id: value}` for several; a cancelled one as ag-ui-langgraph's own sentinel
`{"__agui_cancelled__": true, "interrupt_id": id}`. ag-ui-langgraph 0.0.47 reads both channels and
prefers `resume[]` (it logs that both came); older ag-ui-langgraph versions read only the legacy
one and ag-ui-crewai 1.0.0 only `resume[]`, so both are sent. A `resume[]` entry is sent only for an interrupt whose id the server gave
(ag-ui-langgraph puts it in the event's `rawEvent`); an id Tandem made up would mean nothing to it. Payloads are validated against the interrupt's `responseSchema`
with the bounded schema check (`core.agent_schema`) first; an invalid payload or an answer to an expired interrupt raises
`DecisionError` and nothing is sent.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any

from ag_ui.core import Interrupt, ResumeEntry

from tandem.core.agui.interrupts import LEGACY_CHANNEL, channel_of, parse_expiry, schema_allows
from tandem.core.content import ApprovalResponseContent, InputResponseContent
from tandem.core.errors import DecisionError

__all__ = ["CANCELLED_SENTINEL", "Response", "legacy_resume", "resume_entries"]

log = logging.getLogger(__name__)

Response = ApprovalResponseContent | InputResponseContent
"""A decision the person made on an interrupt."""

CANCELLED_SENTINEL = "__agui_cancelled__"
"""ag-ui-langgraph's resume value for a cancelled interrupt (`DEFAULT_RESUME_SENTINEL_CANCELLED`)."""


def legacy_resume(entries: list[ResumeEntry], open_interrupts: Sequence[Interrupt],
                   forwarded_props: Any) -> tuple[list[ResumeEntry], Any]:
    """Answer legacy-channel interrupts in `forwardedProps.command.resume` too (see the module docstring)."""
    legacy = {interrupt.id: server_id for interrupt in open_interrupts
              for channel, server_id in [channel_of(interrupt)] if channel == LEGACY_CHANNEL}
    if not legacy:
        return entries, forwarded_props
    values: dict[str, Any] = {}
    for entry in entries:
        if entry.interrupt_id in legacy:
            values[entry.interrupt_id] = (
                entry.payload if entry.status == "resolved"
                else {CANCELLED_SENTINEL: True, "interrupt_id": entry.interrupt_id}
            )
    if not values:
        return entries, forwarded_props
    value: Any = next(iter(values.values())) if len(values) == 1 else values
    props = dict(forwarded_props) if isinstance(forwarded_props, dict) else {}
    command = props.get("command")
    props["command"] = {**(command if isinstance(command, dict) else {}), "resume": value}
    kept = [entry for entry in entries if legacy.get(entry.interrupt_id, True)]
    return kept, props


def resume_entries(responses: Sequence[Response], open_interrupts: Sequence[Interrupt] | None,
                   *, now: float | None = None) -> list[ResumeEntry]:
    """One resume entry per open interrupt, answered or cancelled.

    Raises:
        DecisionError: see `build_run_input`.
    """
    answers = {r.request_id: r for r in responses}
    if open_interrupts is None:
        return [_entry(answer, None, now) for answer in answers.values()]
    entries: list[ResumeEntry] = []
    for interrupt in open_interrupts:
        answer = answers.pop(interrupt.id, None)
        if answer is None:
            entries.append(ResumeEntry(interrupt_id=interrupt.id, status="cancelled"))
        else:
            entries.append(_entry(answer, interrupt, now))
    if answers:
        raise DecisionError(f"no open interrupt {sorted(answers)[0]!r} to answer")
    return entries


def _entry(answer: Response, interrupt: Interrupt | None, now: float | None) -> ResumeEntry:
    if answer.status == "cancelled":
        return ResumeEntry(interrupt_id=answer.request_id, status="cancelled")
    if interrupt is not None:
        expires_at = parse_expiry(interrupt.expires_at)
        if expires_at is not None and (now if now is not None else time.time()) > expires_at:
            raise DecisionError(f"interrupt {interrupt.id!r} expired and can no longer be answered")
    if isinstance(answer, ApprovalResponseContent):
        payload: Any = {"approved": answer.approved}
        if answer.reason is not None and (interrupt is None or schema_allows(interrupt.response_schema, "reason")):
            payload["reason"] = answer.reason  # (a reason the schema forbids stays in the log only)
        if answer.edited_arguments is not None:
            payload["editedArgs"] = answer.edited_arguments
    else:
        payload = answer.payload
    if interrupt is not None and interrupt.response_schema:
        _validate(payload, interrupt.response_schema, interrupt.id)
    return ResumeEntry(interrupt_id=answer.request_id, status="resolved", payload=payload)


def _validate(payload: Any, schema: dict[str, Any], interrupt_id: str) -> None:
    from tandem.core.agent_schema import schema_problem, validate_payload

    if schema_problem(schema) is not None:
        log.warning("interrupt %s has a responseSchema that cannot be used; sending the answer unchecked", interrupt_id)
        return
    problems = validate_payload(schema, payload, _checked=True)
    if problems:
        raise DecisionError(f"the answer to interrupt {interrupt_id!r} is invalid: {'; '.join(problems)[:500]}")
