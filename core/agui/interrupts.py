"""AG-UI interrupts (a run finished waiting for the human) as Tandem's request parts.

Interrupts arrive on two channels:

- the standard one: `RUN_FINISHED` with `outcome: {type: "interrupt", interrupts: [...]}`,
  answered with `RunAgentInput.resume[]`;
- the legacy one, the default of ag-ui-langgraph (0.0.47: `enable_legacy_on_interrupt_event=True`,
  `emit_interrupt_outcome=False`) and of ag-ui-crewai: a `CUSTOM` event named `on_interrupt`
  whose `value` is what the graph passed to `interrupt()` — a dict `{reason, toolCallId, message,
  responseSchema}` (snake_case keys too) or a plain string or any other JSON — followed by a
  plain `RUN_FINISHED`. ag-ui-langgraph puts the LangGraph interrupt (with its `id`) in
  `rawEvent`; ag-ui-crewai puts its id in the value (`{id, reason, message, metadata}`) and
  reads the answer from `resume[]` only. `custom_interrupt` turns such an event into an `Interrupt` marked with
  `metadata["tandem"]` (`channel: "on_interrupt"`, `serverId`: whether the id is the server's,
  `plain`: whether the value was a plain string), so the request builder answers it as the
  server expects (see `request.py`).

Google ADK (ag-ui-adk 0.11.0) asks to confirm a tool call (`tool_context.request_confirmation`)
with a call to its long-running tool `adk_request_confirmation`, arguments `{originalFunctionCall:
{id, name, args}, toolConfirmation: {hint, confirmed, payload?}}`. On its defaults the call is
left pending at `RUN_FINISHED` and the client answers it with a tool result `{"confirmed": bool}`;
with `emit_interrupt_outcome=True` it is an interrupt with reason `confirmation`.
`adk_confirmation` makes the pending call an interrupt (channel `adk_confirmation`) so both
become the same approval, answered the way each channel expects.

Mastra's bridge (@ag-ui/mastra 1.1.2) asks through a tool that suspends: reason
`mastra:tool_suspend`, the tool's `resumeSchema` as `responseSchema`, and in `metadata.mastra` the
tool's name, arguments and `suspendPayload` (the call itself is never streamed). `mastra_call`
reads them.

A `reason` of `tool_call` (with a `toolCallId`) or `confirmation` is an approval, and so is a
suspended call whose answer schema requires a boolean `approved` (Mastra's approval pattern); any
other interrupt is an input request.
"""

from __future__ import annotations

import re

import json
import logging
from collections.abc import Mapping, Sequence
from typing import Any
from datetime import UTC, datetime

from ag_ui.core import Interrupt
from pydantic import JsonValue

from tandem.core.agui.calls import KnownCall, PredictStateMapping
from tandem.core.content import ApprovalRequestContent, InputRequestContent
from tandem.core.agent_json import dumps_agent_json

__all__ = [
    "APPROVAL_REASONS",
    "ON_INTERRUPT",
    "LEGACY_CHANNEL",
    "ADK_CONFIRMATION_TOOL",
    "ADK_CHANNEL",
    "adk_confirmation",
    "custom_interrupt",
    "channel_of",
    "interrupt_part",
    "parse_expiry",
    "restored_interrupts",
]

PROTOCOL_KEY = "agui_interrupt"
"""The key of the interrupt (as received) in a request part's `protocol_data`."""
ON_INTERRUPT = "on_interrupt"
"""The `CUSTOM` event name of the legacy interrupt channel."""
LEGACY_CHANNEL = "on_interrupt"
"""`metadata["tandem"]["channel"]` of an interrupt that came as a `CUSTOM on_interrupt` event."""
ADK_CONFIRMATION_TOOL = "adk_request_confirmation"
"""Google ADK's long-running tool that asks the person to confirm a tool call."""
ADK_CHANNEL = "adk_confirmation"
"""`metadata["tandem"]["channel"]` of a pending `adk_request_confirmation` call taken as an interrupt."""
APPROVAL_REASONS = frozenset({"tool_call", "confirmation"})
"""Interrupt reasons that ask to approve a tool call."""
_DEFAULT_REASON = "input_required"

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


def _first(value: Mapping[str, Any], *keys: str) -> Any:
    return next((value[key] for key in keys if value.get(key) is not None), None)


def custom_interrupt(value: Any, raw_event: Any, fallback_id: str) -> Interrupt:
    """The interrupt a `CUSTOM on_interrupt` event announces (see the module docstring).

    Args:
        value: the event's `value`.
        raw_event: the event's `rawEvent` (ag-ui-langgraph: the LangGraph interrupt, with `id`).
        fallback_id: the id to use when the server gave none (stable within the stream).
    """
    if isinstance(value, str) and value.startswith("{"):
        # ag-ui-langgraph sends the interrupt's value JSON-encoded (`dump_json_safe`).
        try:
            decoded = json.loads(value)
        except ValueError:
            decoded = None
        if isinstance(decoded, dict):
            value = decoded
    server_id = raw_event.get("id") if isinstance(raw_event, Mapping) else None
    if not (isinstance(server_id, str) and server_id) and isinstance(value, Mapping):
        # ag-ui-crewai puts the interrupt's id in the value itself (and reads only `resume[]`).
        server_id = value.get("id")
    has_server_id = isinstance(server_id, str) and bool(server_id)
    fields: dict[str, Any] = {}
    if isinstance(value, Mapping):
        reason = _first(value, "reason")
        message = _first(value, "message", "question", "prompt")
        call_id = _first(value, "toolCallId", "tool_call_id")
        schema = _first(value, "responseSchema", "response_schema")
        expires = _first(value, "expiresAt", "expires_at")
        fields = {
            "reason": reason if isinstance(reason, str) and reason else _DEFAULT_REASON,
            "message": message if isinstance(message, str) else None,
            "tool_call_id": call_id if isinstance(call_id, str) else None,
            "response_schema": schema if isinstance(schema, dict) else None,
            "expires_at": expires if isinstance(expires, str) else None,
        }
        if fields["message"] is None and not fields["response_schema"]:
            # A dict with neither message nor schema: show what the agent sent.
            fields["message"] = json.dumps(value, ensure_ascii=False, default=str)
    else:
        fields = {"reason": _DEFAULT_REASON,
                  "message": value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)}
    metadata = {"tandem": {"channel": LEGACY_CHANNEL, "serverId": has_server_id, "plain": isinstance(value, str)}}
    interrupt_id = server_id if isinstance(server_id, str) and server_id else fallback_id
    return Interrupt(id=interrupt_id, metadata=metadata, **fields)


ADK_DEFAULT_HINT = re.compile(r"Please approve or reject the tool call \S*\(\) by responding with a FunctionResponse")
"""google-adk's own hint for a tool with `require_confirmation=True`: addressed to the model's
developer (it names a FunctionResponse), never shown; a hint the tool set itself is the question."""


def adk_confirmation(call_id: str, arguments: Mapping[str, Any] | None) -> Interrupt:
    """The interrupt a pending `adk_request_confirmation` call stands for (see the module docstring)."""
    arguments = arguments or {}
    confirmation = arguments.get("toolConfirmation")
    hint = confirmation.get("hint") if isinstance(confirmation, Mapping) else None
    original = arguments.get("originalFunctionCall")
    return Interrupt(
        id=call_id, reason="confirmation", tool_call_id=call_id,
        message=hint if isinstance(hint, str) and hint and not ADK_DEFAULT_HINT.match(hint) else None,
        metadata={"tandem": {"channel": ADK_CHANNEL, "serverId": True},
                  "adk": {"originalFunctionCall": original if isinstance(original, Mapping) else None}},
    )


def channel_of(interrupt: Interrupt) -> tuple[str, bool]:
    """`(channel, server_id)`: "outcome", `LEGACY_CHANNEL` or `ADK_CHANNEL`, and whether the id is the server's."""
    metadata = interrupt.metadata if isinstance(interrupt.metadata, dict) else {}
    tandem = metadata.get("tandem") if isinstance(metadata.get("tandem"), dict) else None
    if tandem is None or tandem.get("channel") not in (LEGACY_CHANNEL, ADK_CHANNEL):
        return "outcome", True
    return str(tandem["channel"]), bool(tandem.get("serverId"))


def _original_call(interrupt: Interrupt) -> tuple[str | None, str | None, dict[str, Any] | None]:
    """ADK's confirmation names the call it guards: `(id, name, arguments)`, or Nones."""
    metadata = interrupt.metadata if isinstance(interrupt.metadata, dict) else {}
    adk = metadata.get("adk")
    original = adk.get("originalFunctionCall") if isinstance(adk, dict) else None
    if not isinstance(original, dict):
        return None, None, None
    call_id, name, arguments = original.get("id"), original.get("name"), original.get("args")
    return (call_id if isinstance(call_id, str) else None, name if isinstance(name, str) else None,
            arguments if isinstance(arguments, dict) else None)


def interrupt_part(
    interrupt: Interrupt, calls: Mapping[str, KnownCall], predict: Sequence[PredictStateMapping]
) -> ApprovalRequestContent | InputRequestContent:
    """The request part for an interrupt of a finished run: an approval for a tool call, else an input request.

    The interrupt rides along whole as the part's `protocol_data` (see `restored_interrupts`).
    """
    expires_at = parse_expiry(interrupt.expires_at)
    protocol_data: dict[str, JsonValue] = {PROTOCOL_KEY: interrupt.model_dump(mode="json", by_alias=True, exclude_none=True)}
    call = calls.get(interrupt.tool_call_id) if interrupt.tool_call_id else None
    suspended_name, suspended_arguments, suspended_message = mastra_call(interrupt)
    if ((interrupt.reason in APPROVAL_REASONS and (interrupt.tool_call_id or interrupt.reason == "confirmation"))
            or (interrupt.tool_call_id and _requires_approved(interrupt.response_schema))):
        schema = interrupt.response_schema or {}
        properties = schema.get("properties") if isinstance(schema, dict) else None
        original_id, original_name, original_arguments = _original_call(interrupt)
        if original_name is not None:
            # ADK: approve the call the confirmation guards, not the confirmation tool itself.
            original = calls.get(original_id) if original_id else None
            call_id = original_id if original is not None else interrupt.tool_call_id
            return ApprovalRequestContent(
                request_id=interrupt.id, call_id=call_id, tool_name=original_name,
                arguments=original_arguments or {}, arguments_text=_unparsed_original(interrupt), message=interrupt.message,
                allow_edits=False, expires_at=expires_at, protocol_data=protocol_data,
            )
        predictive = call is not None and any(m.tool == call.name for m in predict)
        arguments = call.parsed_arguments() if call else None
        return ApprovalRequestContent(
            request_id=interrupt.id,
            call_id=interrupt.tool_call_id,
            tool_name=(call.name if call else None) or suspended_name or "unknown tool",
            arguments=arguments or (suspended_arguments if call is None else None) or {},
            # Not a JSON object: the person approves what was sent, not an empty object.
            arguments_text="".join(call.chunks) if call is not None and arguments is None and call.chunks else None,
            message=interrupt.message or suspended_message,
            allow_edits=isinstance(properties, dict) and "editedArgs" in properties,
            allow_reason=schema_allows(schema, "reason"),
            proposal_id=interrupt.tool_call_id if predictive else None,
            expires_at=expires_at,
            protocol_data=protocol_data,
        )
    return InputRequestContent(
        request_id=interrupt.id,
        reason=suspended_name or interrupt.reason,  # (Mastra's reason names the mechanism; the tool says more)
        message=interrupt.message or _metadata_question(interrupt.metadata) or suspended_message,
        response_schema=interrupt.response_schema,
        call_id=interrupt.tool_call_id,
        expires_at=expires_at,
        protocol_data=protocol_data,
    )


def _requires_approved(schema: Any) -> bool:
    """Whether an answer schema is an approval's: an object that requires a boolean `approved`."""
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return False
    approved = schema["properties"].get("approved")
    required = schema.get("required")
    return isinstance(approved, dict) and approved.get("type") == "boolean" and isinstance(required, list) and "approved" in required


def mastra_call(interrupt: Interrupt) -> tuple[str | None, dict[str, Any] | None, str | None]:
    """The suspended call a Mastra interrupt names: `(tool name, arguments, the question or message
    of its suspend payload)`, Nones where absent (see the module docstring)."""
    metadata = interrupt.metadata if isinstance(interrupt.metadata, dict) else {}
    mastra = metadata.get("mastra")
    if not isinstance(mastra, dict):
        return None, None, None
    name, arguments, payload = mastra.get("toolName"), mastra.get("args"), mastra.get("suspendPayload")
    message = None
    if isinstance(payload, str) and payload.strip():
        message = payload
    elif isinstance(payload, dict):
        message = next((v for k in ("question", "message", "prompt", "text", "title", "description")
                        if isinstance(v := payload.get(k), str) and v.strip()), None)
    return (name if isinstance(name, str) and name else None, arguments if isinstance(arguments, dict) else None, message)


def _unparsed_original(interrupt: Interrupt) -> str | None:
    """ADK's guarded call's `args` when they are not an object, as JSON text (None when they are)."""
    metadata = interrupt.metadata if isinstance(interrupt.metadata, dict) else {}
    adk = metadata.get("adk")
    original = adk.get("originalFunctionCall") if isinstance(adk, dict) else None
    if not isinstance(original, dict) or original.get("args") is None or isinstance(original.get("args"), dict):
        return None
    arguments = original["args"]
    return arguments if isinstance(arguments, str) else dumps_agent_json(arguments)


def schema_allows(schema: Any, name: str) -> bool:
    """Whether an object answer may carry the property `name` under a response schema: no schema,
    a schema naming it, or one that does not close its properties (`additionalProperties: false`)."""
    if not isinstance(schema, dict) or not schema:
        return True
    properties = schema.get("properties")
    if isinstance(properties, dict) and name in properties:
        return True
    return schema.get("additionalProperties", True) is not False


def _metadata_question(metadata: Any) -> str | None:
    """The question an interrupt without a `message` carries in its metadata, or None.

    ag-ui-strands (1.0.2) maps `tool_context.interrupt("colour", reason="Which colour?")` to
    `reason: "colour"`, no `message`, and `metadata: {"reason": "Which colour?"}` — the
    question the person must answer. A Strands reason may be any JSON: a dict's question (or
    message, prompt, text, title, description) is shown; anything else compact JSON.
    """
    if not isinstance(metadata, dict):
        return None
    value = metadata.get("reason")
    if value is None or value == "":
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        # A structured reason usually names its question: `{"question": "Which colour?", …}`.
        for key in ("question", "message", "prompt", "text", "title", "description"):
            text = value.get(key)
            if isinstance(text, str) and text.strip():
                return text
    try:
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    except (TypeError, ValueError):
        return None


def restored_interrupts(protocol_data: Sequence[Mapping[str, Any] | None]) -> list[Interrupt] | None:
    """The interrupts that answers carry back (`protocol_data`), or None if any answer has none.

    A client that restarted has no interrupts of the thread's last run in memory; the answers,
    replayed from the log, bring them back, so the next request answers each one on the channel
    its server reads, exactly as the client that received it would have. An answer without
    (a log written before this existed, or tampered with) means: build from the answers alone.
    """
    interrupts = []
    for data in protocol_data:
        value = data.get(PROTOCOL_KEY) if isinstance(data, Mapping) else None
        try:
            interrupts.append(Interrupt.model_validate(value))
        except ValueError:
            log.warning("an answer's interrupt could not be read back; answering from the answers alone")
            return None
    return interrupts
