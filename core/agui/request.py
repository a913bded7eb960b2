"""Building a `RunAgentInput` from Tandem's history, options and decisions.

Servers are stateless, so every run carries the **full** history:

- user and system messages become `UserMessage` / `SystemMessage` (text; a user message with
  attachments carries AG-UI 1.0 content parts, `media_parts.py`);
- an assistant message becomes a `ReasoningMessage` for its reasoning (with `encryptedValue`
  echoed untouched) and an `AssistantMessage` for its text and tool calls;
- each tool result becomes a `ToolMessage` (the last result per call wins, which is how an
  encrypted value that arrived after its result is sent back; a call under an id an earlier
  call had, from a server that numbers its calls afresh in every run, has its own);
- a user message holding `ApprovalResponseContent` / `InputResponseContent` parts is not a
  message at all: the last one becomes `resume` entries, one per **open** interrupt (an open
  interrupt without an answer is sent as cancelled), earlier ones are dropped — except answers
  to Google ADK's `adk_request_confirmation` calls: those are tool results `{"confirmed": bool}`
  (what ag-ui-adk reads on its defaults), sent in place every time.

Resume entries and payloads, and the legacy channel: `resume.py`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence

from ag_ui.core import (
    AssistantMessage,
    Context,
    FunctionCall,
    Interrupt,
    Message,
    ReasoningMessage,
    RunAgentInput,
    SystemMessage,
    Tool,
    ToolCall,
    ToolMessage,
    UserMessage,
)

from tandem.core.agui.calls import KnownCall
from tandem.core.agui.interrupts import (
    ADK_CHANNEL,
    ADK_CONFIRMATION_TOOL,
    channel_of,
    restored_interrupts,
)
from tandem.core.agui.media_parts import user_content
from tandem.core.content import (
    ApprovalResponseContent,
    AttachmentContent,
    InputResponseContent,
    ReasoningContent,
    TextContent,
    ToolCallContent,
    ToolResultContent,
)
from tandem.core.agui.request_cache import CallsCache, ConversionCache
from tandem.core.agui.resume import Response, legacy_resume, resume_entries
from tandem.core.messages import ChatMessage, ChatOptions

__all__ = ["PROTOCOL_VERSION", "build_run_input", "to_agui_messages", "resume_entries", "known_calls"]

log = logging.getLogger(__name__)

PROTOCOL_VERSION = "1.0"
"""The AG-UI protocol version this client speaks."""

_RESPONSE_KINDS = (ApprovalResponseContent, InputResponseContent)


def _refused_answers(history: Sequence[ChatMessage]) -> list[Interrupt] | None:
    """For a fresh client's new message: the interrupts of answers that nothing followed (their run
    was refused or failed, so the server still holds them open), to be cancelled; else None.

    A resumed run the server accepted leaves what it said after the answers; answers followed only
    by the new user message never got through.
    """
    if len(history) < 2 or history[-1].role != "user" or history[-2].role != "user":
        return None
    answers = [p for p in history[-2].contents if isinstance(p, _RESPONSE_KINDS)]
    if not answers or any(isinstance(p, TextContent) for p in history[-2].contents):
        return None
    interrupts = restored_interrupts([r.protocol_data for r in answers])
    return [i for i in interrupts or () if channel_of(i)[0] != ADK_CHANNEL] or None


def build_run_input(
    messages: Sequence[ChatMessage],
    options: ChatOptions,
    *,
    thread_id: str,
    run_id: str,
    open_interrupts: Sequence[Interrupt] | None,
    cache: ConversionCache | None = None,
) -> RunAgentInput:
    """The request body for one run.

    Args:
        messages: the full history; a trailing user message of decisions becomes `resume`.
        options: tools, state, context and forwarded properties.
        thread_id: the conversation's stable id.
        run_id: a new id for this run.
        open_interrupts: the interrupts the previous run left open, or None when unknown (a
            fresh client after a restore: the answers' `protocol_data` brings them back, else
            entries are built from the answers alone).
        cache: the caller's conversions of the previous request's messages (see `to_agui_messages`).

    Raises:
        DecisionError: a payload does not match its interrupt's schema, or answers an
            expired or unknown interrupt.
    """
    history = list(messages)
    responses: list[Response] = []
    if history and history[-1].role == "user" and any(isinstance(p, _RESPONSE_KINDS) for p in history[-1].contents):
        last = history.pop()
        responses = [p for p in last.contents if isinstance(p, _RESPONSE_KINDS)]
        if any(isinstance(p, (TextContent, AttachmentContent)) for p in last.contents):
            history.append(last)  # its text is still a user message; its answers are stripped below
    if open_interrupts is None and responses:
        # A fresh client (the app restarted): the answers carry the interrupts they answer.
        open_interrupts = restored_interrupts([r.protocol_data for r in responses])
    elif open_interrupts is None:
        open_interrupts = _refused_answers(history)
    # Google ADK's pending confirmations are answered with a tool result, not a resume entry.
    if open_interrupts is not None:
        adk = {i.id for i in open_interrupts if channel_of(i)[0] == ADK_CHANNEL}
        open_interrupts = [i for i in open_interrupts if i.id not in adk]
    else:
        adk = _confirmation_calls(history) if responses else set()
    confirmations = [r for r in responses if r.request_id in adk]
    if confirmations:
        responses = [r for r in responses if r.request_id not in adk]
        history.append(ChatMessage(role="user", contents=list(confirmations)))
    resume = resume_entries(responses, open_interrupts)
    forwarded_props = options.forwarded_props
    if open_interrupts:
        resume, forwarded_props = legacy_resume(resume, open_interrupts, forwarded_props)
    messages_out = to_agui_messages(history, cache)
    run_input = RunAgentInput(
        thread_id=thread_id,
        run_id=run_id,
        protocol_version=PROTOCOL_VERSION,
        state=options.state if options.state is not None else {},
        messages=[],
        tools=[Tool(name=t.name, description=t.description, parameters=t.parameters) for t in options.tools],
        context=[Context(description=c.get("description", ""), value=c.get("value", "")) for c in options.context],
        forwarded_props=forwarded_props,
        resume=resume or None,
    )
    # The messages are put in after validation: each was validated as it was built, and
    # validating the list again would cost every turn a pass over the whole history (2.7–5 ms
    # at 2,000 messages). Validation would keep the same objects, so the input is the same.
    return run_input.model_copy(update={"messages": messages_out})


def _confirmation_calls(messages: Sequence[ChatMessage]) -> set[str]:
    """Ids of Google ADK `adk_request_confirmation` calls in the history."""
    return {part.call_id for message in messages for part in message.contents
            if isinstance(part, ToolCallContent) and part.name == ADK_CONFIRMATION_TOOL}


def _confirmation_result(answer: Response) -> ToolMessage:
    """The tool result that answers an ADK confirmation: `{"confirmed": bool}` (ADK's ToolConfirmation)."""
    confirmed = isinstance(answer, ApprovalResponseContent) and answer.status == "resolved" and answer.approved
    return ToolMessage(id=f"tool-{answer.request_id}", tool_call_id=answer.request_id,
                       content=json.dumps({"confirmed": confirmed}))


def to_agui_messages(messages: Sequence[ChatMessage], cache: ConversionCache | None = None) -> list[Message]:
    """Convert Tandem history to AG-UI messages (see the module docstring for the rules).

    With `cache`, the messages the previous call converted are not converted again when
    `messages` starts with them (the AG-UI messages are the same objects); the output is the
    same either way.
    """
    start = 0
    out: list[Message] = []
    results: dict[str, int] = {}  # call id → index in `out` (or REUSED), so a later result replaces an earlier one
    confirmations: set[str] | None = None  # computed only when a message holds answers (or for the cache)
    resumed = cache.resume(messages, lambda kept: _confirmation_calls(messages[kept:])) if cache is not None else None
    if resumed is not None:
        start, out, results, confirmations = resumed
    elif cache is not None:
        confirmations = _confirmation_calls(messages)
    answered = False
    for index in range(start, len(messages)):
        message = messages[index]
        if any(isinstance(p, _RESPONSE_KINDS) for p in message.contents):
            answered = True
            if confirmations is None:
                confirmations = _confirmation_calls(messages)
            _convert_answers(message, index, confirmations, out, results)
            continue
        head, tool_results = _convert(message, index)
        out.extend(head)
        _forget_answered(head, results)
        for call_id, tool_message in tool_results:
            _add_result(out, results, call_id, tool_message)
    if cache is not None:
        assert confirmations is not None
        cache.keep(messages, out, results, confirmations, answered or (resumed is not None and cache.answered))
    return out


REUSED = -1
"""In the result positions: the id's call was answered, and a later call under the same id is not yet."""


def _forget_answered(messages: Sequence[Message], results: dict[str, int]) -> None:
    """The calls of `messages` are new: a result for one of their ids is theirs, added after
    them, not in place of the result of an earlier call under the same id."""
    for message in messages:
        for call in getattr(message, "tool_calls", None) or ():
            if call.id in results:
                results[call.id] = REUSED


def _add_result(out: list[Message], results: dict[str, int], call_id: str, tool_message: Message) -> None:
    index = results.get(call_id)
    if index is not None and index != REUSED:
        out[index] = tool_message
        return
    if index == REUSED and tool_message.id == f"tool-{call_id}":
        # The result of a later call under an id used before: a message id of its own, or a
        # server that merges messages by id (LangGraph's `add_messages`) replaces the first
        # call's result with it and never sees the new one. Its position makes it stable
        # across requests (the history only grows).
        tool_message = tool_message.model_copy(update={"id": f"tool-{call_id}~{len(out)}"})
    results[call_id] = len(out)
    out.append(tool_message)


def _convert(message: ChatMessage, index: int) -> tuple[tuple[Message, ...], tuple[tuple[str, Message], ...]]:
    """One message without answers: its AG-UI messages and its tool results (call id, message)."""
    message_id = message.message_id or f"{message.role}-{index}"
    head: list[Message] = []
    if message.role == "user":
        head.append(UserMessage(id=message_id, content=user_content(message.contents)))
    elif message.role == "system":
        head.append(SystemMessage(id=message_id, content="".join(p.text for p in message.contents if isinstance(p, TextContent))))
    elif message.role == "assistant":
        head.extend(_assistant_messages(message, message_id))
    tool_id = message.message_id if message.role == "tool" else None
    results = tuple((part.call_id, _tool_message(part, tool_id)) for part in message.contents
                    if isinstance(part, ToolResultContent))
    return tuple(head), results


def _convert_answers(message: ChatMessage, index: int, confirmations: set[str], out: list[Message],
                     results: dict[str, int]) -> None:
    """A message holding answers: what it sends depends on the confirmation calls of the whole history."""
    message_id = message.message_id or f"{message.role}-{index}"
    if message.role in ("user", "system"):
        text = "".join(p.text for p in message.contents if isinstance(p, TextContent))
        if message.role == "user" and any(isinstance(p, AttachmentContent) for p in message.contents):
            out.append(UserMessage(id=message_id, content=user_content(message.contents)))
        elif text:
            cls = UserMessage if message.role == "user" else SystemMessage
            out.append(cls(id=message_id, content=text))
        # else: an earlier run's decisions, already sent as resume entries, except the answers
        # to ADK confirmations, which are tool results and stay in the history:
        for part in message.contents:
            if (isinstance(part, _RESPONSE_KINDS) and part.request_id in confirmations
                    and results.get(part.request_id, REUSED) == REUSED):
                results[part.request_id] = len(out)
                out.append(_confirmation_result(part))
    elif message.role == "assistant":
        head = _assistant_messages(message, message_id)
        out.extend(head)
        _forget_answered(head, results)
    for part in message.contents:
        if isinstance(part, ToolResultContent):
            _add_result(out, results, part.call_id,
                        _tool_message(part, message.message_id if message.role == "tool" else None))


def _assistant_messages(message: ChatMessage, message_id: str) -> list[Message]:
    reasoning: list[str] = []
    encrypted: str | None = None
    text: list[str] = []
    calls: list[ToolCall] = []
    for part in message.contents:
        if isinstance(part, ReasoningContent):
            reasoning.append(part.text)
            encrypted = part.encrypted_value or encrypted
        elif isinstance(part, TextContent):
            text.append(part.text)
        elif isinstance(part, ToolCallContent):
            arguments = json.dumps(part.arguments) if part.arguments is not None else (part.arguments_delta or "{}")
            calls.append(
                ToolCall(id=part.call_id, function=FunctionCall(name=part.name or "", arguments=arguments),
                         encrypted_value=part.encrypted_value)
            )
    has_reasoning_text = any(reasoning)
    has_answer = bool(text or calls)
    out: list[Message] = []
    if has_reasoning_text or (encrypted is not None and not has_answer):
        reasoning_id = f"{message_id}-reasoning" if has_answer else message_id
        out.append(ReasoningMessage(id=reasoning_id, content="".join(reasoning), encrypted_value=encrypted))
        encrypted = None
    if has_answer:
        out.append(AssistantMessage(id=message_id, content="".join(text), tool_calls=calls or None,
                                    encrypted_value=encrypted))
    return out


def _tool_message(part: ToolResultContent, message_id: str | None) -> ToolMessage:
    result = part.result
    content = result if isinstance(result, str) else json.dumps(result)
    return ToolMessage(id=message_id or f"tool-{part.call_id}", tool_call_id=part.call_id, content=content,
                       error=part.error, encrypted_value=part.encrypted_value)


def known_calls(messages: Sequence[ChatMessage], declared: frozenset[str],
                cache: CallsCache | None = None) -> dict[str, KnownCall]:
    """The tool calls in the history, by id, so an approval can show a call from an earlier run.

    With `cache`, only the messages after those the previous call folded are read when
    `messages` starts with them. The calls returned are the caller's own either way.
    """
    start, calls = cache.resume(messages, declared) if cache is not None else (0, {})
    for message in messages[start:] if start else messages:
        for part in message.contents:
            if isinstance(part, ToolCallContent):
                call = calls.get(part.call_id)
                if call is None or call.resolved:
                    # Under the id of an answered call, a new call: what the mapper checks is the latest.
                    call = calls[part.call_id] = KnownCall(part.name, message.message_id,
                                                           informational_only=part.name not in declared)
                call.name = part.name or call.name
                if part.arguments is not None:
                    call.arguments = dict(part.arguments)
                elif part.arguments_delta:
                    call.chunks.append(part.arguments_delta)
            elif isinstance(part, ToolResultContent) and part.call_id in calls:
                calls[part.call_id].resolved = True
    if cache is None:
        return calls
    cache.keep(messages, declared, calls)
    return {call_id: _copy_call(call) for call_id, call in calls.items()}


def _copy_call(call: KnownCall) -> KnownCall:
    return KnownCall(call.name, call.parent_message_id, list(call.chunks),
                     None if call.arguments is None else dict(call.arguments), call.informational_only, call.resolved)
