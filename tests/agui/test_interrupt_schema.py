"""An approval offers only what its interrupt's response schema allows, and the answer is checked before it is sent."""

from __future__ import annotations

from typing import Any

import pytest
from ag_ui.core import Interrupt

from tandem.core.agui.interrupts import interrupt_part, schema_allows
from tandem.core.agui.resume import resume_entries
from tandem.core.content import ApprovalRequestContent, ApprovalResponseContent
from tandem.core.errors import DecisionError

# agent-framework-ag-ui 1.7.0's approval schema (`_approval_response_schema`), for a call with `path`.
MAF_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"approved": {"type": "boolean"}, "accepted": {"type": "boolean"}, "path": {"type": "string"},
                   "editedArgs": {"type": "object", "properties": {"path": {"type": "string"}},
                                  "required": ["path"], "additionalProperties": False}},
    "anyOf": [{"required": ["approved"]}, {"required": ["accepted"]}],
    "additionalProperties": False,
}


def _interrupt(schema: dict[str, Any] | None) -> Interrupt:
    return Interrupt.model_validate({"id": "af-1", "reason": "tool_call", "toolCallId": "c1", "responseSchema": schema})


def _answer(approved: bool, reason: str | None) -> ApprovalResponseContent:
    return ApprovalResponseContent(request_id="af-1", call_id="c1", approved=approved, reason=reason)


def test_a_closed_schema_without_reason_offers_no_reason() -> None:
    part = interrupt_part(_interrupt(MAF_SCHEMA), {}, [])
    assert isinstance(part, ApprovalRequestContent)
    assert part.allow_reason is False and part.allow_edits is True
    for schema in (None, {"type": "object"}, {"type": "object", "properties": {"reason": {"type": "string"}},
                                              "additionalProperties": False}):
        part = interrupt_part(_interrupt(schema), {}, [])
        assert isinstance(part, ApprovalRequestContent) and part.allow_reason is True, schema
    assert schema_allows({"additionalProperties": False}, "reason") is False


def test_a_rejection_under_a_closed_schema_is_sent_without_its_reason_and_passes_the_schema() -> None:
    [entry] = resume_entries([_answer(False, "keep it")], [_interrupt(MAF_SCHEMA)])
    assert entry.payload == {"approved": False}
    open_schema = {**MAF_SCHEMA, "properties": {**MAF_SCHEMA["properties"], "reason": {"type": "string"}}}
    [entry] = resume_entries([_answer(False, "keep it")], [_interrupt(open_schema)])
    assert entry.payload == {"approved": False, "reason": "keep it"}


def test_an_answer_the_schema_refuses_is_never_sent() -> None:
    schema = {"type": "object", "properties": {"approved": {"type": "boolean"}}, "required": ["approved", "token"]}
    with pytest.raises(DecisionError, match="invalid"):
        resume_entries([_answer(True, None)], [_interrupt(schema)])
