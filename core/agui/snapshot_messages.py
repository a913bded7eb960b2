"""The messages of an AG-UI `MESSAGES_SNAPSHOT` as updates: history the client had not seen."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from ag_ui.core import ActivityMessage, Message, ReasoningMessage, ToolMessage

from tandem.core.agui.calls import KnownCall
from tandem.core.agui.events import TANDEM_ROLES
from tandem.core.agui.unvalidated import update
from tandem.core.content import ActivityContent, ReasoningContent, TextContent, ToolCallContent, ToolResultContent
from tandem.core.messages import ChatUpdate
from tandem.core.tool_arguments import parse_arguments

__all__ = ["snapshot_message", "text_of"]


def snapshot_message(message: Message, calls: dict[str, KnownCall], declared: Collection[str]) -> ChatUpdate | None:
    """The update for one message of a `MESSAGES_SNAPSHOT` (None: nothing to show); its tool calls join `calls`."""
    raw = {"type": "MESSAGES_SNAPSHOT", "message": message.model_dump(mode="json", by_alias=True)}
    role = message.role
    parts: list[Any] = []
    if isinstance(message, ToolMessage):
        parts.append(ToolResultContent(call_id=message.tool_call_id, result=text_of(message.content),
                                       error=message.error, encrypted_value=message.encrypted_value))
        return update(parts, raw, role="tool", message_id=message.id)
    if isinstance(message, ReasoningMessage):
        parts.append(ReasoningContent(text=message.content, encrypted_value=message.encrypted_value))
    elif isinstance(message, ActivityMessage):
        parts.append(ActivityContent(activity_id=message.id, activity_type=message.activity_type,
                                     content=message.content))
    else:
        text = text_of(message.content)
        if text:
            parts.append(TextContent(text=text))
        for call in getattr(message, "tool_calls", None) or []:
            arguments = parse_arguments(call.function.arguments or "").preserved()
            informational = call.function.name not in declared
            calls.setdefault(call.id, KnownCall(call.function.name, message.id, arguments=arguments,
                                                informational_only=informational))
            parts.append(ToolCallContent(call_id=call.id, name=call.function.name, arguments=arguments, done=True,
                                         informational_only=informational, encrypted_value=call.encrypted_value))
    if not parts:
        return None
    return update(parts, raw, role=TANDEM_ROLES.get(role, "assistant"), message_id=message.id)


def text_of(content: Any) -> str:
    """The text of a message's content: a string, or the text parts of a list joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(getattr(part, "text", "") or "" for part in content)
    return ""
