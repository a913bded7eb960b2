"""Reading a request's message history: the demo agent's only memory of a thread.

The demo server is stateless, so everything a continuation needs (which tool
was called, with which arguments, what the user asked) is read back from the
``messages`` the client sends.
"""

from __future__ import annotations

import json
from typing import Any

from ag_ui.core import AssistantMessage, RunAgentInput, ToolCall, ToolMessage, UserMessage

__all__ = [
    "find_tool_call",
    "last_user_message",
    "message_text",
    "parse_json_object",
    "pending_tool_message",
    "tool_call_args",
]


def message_text(content: object) -> str:
    """Return the text of a message's content: a string, or the text parts of a list.

    Args:
        content: A message's ``content`` (a string, a list of parts or None).
    """
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(getattr(part, "text", "")) for part in content if getattr(part, "type", "") == "text")
    return ""


def last_user_message(run_input: RunAgentInput) -> UserMessage | None:
    """Return the last user message of the request, if any."""
    for message in reversed(run_input.messages):
        if isinstance(message, UserMessage):
            return message
    return None


def find_tool_call(run_input: RunAgentInput, call_id: str) -> ToolCall | None:
    """Find the assistant tool call with id ``call_id`` in the history."""
    for message in reversed(run_input.messages):
        if isinstance(message, AssistantMessage):
            for call in message.tool_calls or []:
                if call.id == call_id:
                    return call
    return None


def parse_json_object(text: str) -> dict[str, Any] | None:
    """Parse ``text`` as a JSON object; None when it is not valid JSON or not an object."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def tool_call_args(call: ToolCall) -> dict[str, Any]:
    """Return a tool call's arguments as a dict (empty when they are not a JSON object)."""
    return parse_json_object(call.function.arguments) or {}


def pending_tool_message(run_input: RunAgentInput) -> ToolMessage | None:
    """Return the last message when it is a tool result (a client tool answered)."""
    if run_input.messages and isinstance(run_input.messages[-1], ToolMessage):
        return run_input.messages[-1]
    return None
