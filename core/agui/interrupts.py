"""AG-UI interrupts (a run finished waiting for the human) as Tandem's request parts."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from datetime import datetime, UTC

from ag_ui.core import Interrupt

from tandem.core.agui.calls import KnownCall, PredictStateMapping
from tandem.core.content import ApprovalRequestContent, InputRequestContent

__all__ = ["interrupt_part", "parse_expiry"]

log = logging.getLogger(__name__)


def parse_expiry(value: str | None) -> float | None:
    """An interrupt's `expiresAt` (ISO 8601, or seconds since the epoch) as Unix time, or None."""
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        log.warning("ignoring an interrupt expiry that is not ISO 8601")
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def interrupt_part(
    interrupt: Interrupt, calls: Mapping[str, KnownCall], predict: Sequence[PredictStateMapping]
) -> ApprovalRequestContent | InputRequestContent:
    """The request part for an interrupt of a finished run: an approval for a tool call, else an input request."""
    expires_at = parse_expiry(interrupt.expires_at)
    call = calls.get(interrupt.tool_call_id) if interrupt.tool_call_id else None
    if interrupt.reason == "tool_call" and interrupt.tool_call_id:
        schema = interrupt.response_schema or {}
        properties = schema.get("properties") if isinstance(schema, dict) else None
        predictive = call is not None and any(m.tool == call.name for m in predict)
        return ApprovalRequestContent(
            request_id=interrupt.id,
            call_id=interrupt.tool_call_id,
            tool_name=(call.name if call else None) or "unknown tool",
            arguments=(call.parsed_arguments() if call else None) or {},
            message=interrupt.message,
            allow_edits=isinstance(properties, dict) and "editedArgs" in properties,
            proposal_id=interrupt.tool_call_id if predictive else None,
            expires_at=expires_at,
        )
    return InputRequestContent(
        request_id=interrupt.id,
        reason=interrupt.reason,
        message=interrupt.message,
        response_schema=interrupt.response_schema,
        call_id=interrupt.tool_call_id,
        expires_at=expires_at,
    )
