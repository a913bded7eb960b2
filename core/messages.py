"""Messages (history) and updates (the stream), the two envelopes around content parts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from tandem.core.content import Content

__all__ = ["Role", "ChatMessage", "ChatUpdate", "ToolDeclaration", "ChatOptions", "as_messages"]

Role = Literal["system", "user", "assistant", "tool"]


class ChatMessage(BaseModel):
    """One message of the history sent to the model.

    Owns its role, its author and its content parts. Immutable once built.
    """

    model_config = ConfigDict(frozen=True)

    role: Role
    contents: list[Content] = Field(default_factory=list)
    message_id: str | None = None
    author: str | None = None

    @classmethod
    def user(cls, text: str, *, message_id: str | None = None, author: str | None = None) -> ChatMessage:
        """A user message holding one text part."""
        from tandem.core.content import TextContent

        return cls(role="user", contents=[TextContent(text=text)], message_id=message_id, author=author)

    @property
    def text(self) -> str:
        """The concatenated text parts."""
        return "".join(getattr(part, "text", "") for part in self.contents if part.kind == "text")


class ChatUpdate(BaseModel):
    """One streamed update: an envelope (role, message id, author) around content parts.

    `raw` keeps the original protocol event as JSON-ready data, so the log never loses what
    the neutral vocabulary cannot name; where the whole payload is the update's one debug part
    (AG-UI's RAW and CUSTOM events, and unknown ones), `raw` keeps only the envelope the part
    does not (type, timestamp…), so that the log holds the payload once: the event is the
    envelope plus the part's value (`event`/`source` of a RAW event, `value` of a CUSTOM one,
    the whole of an unknown one). An update standing for a run of AG-UI content deltas (text,
    reasoning, tool-call arguments) to one message or call, read together, holds their joined
    delta, and `raw` the list of their events, in order.
    Immutable; round-trips through JSON losslessly.
    """

    model_config = ConfigDict(frozen=True)

    role: Role = "assistant"
    contents: list[Content] = Field(default_factory=list)
    message_id: str | None = None
    author: str | None = None
    raw: JsonValue = None


def _empty_object_schema() -> dict[str, JsonValue]:
    return {"type": "object", "properties": {}}


class ToolDeclaration(BaseModel):
    """A tool the client offers the model: client-side tools and UI actions, declarations only."""

    model_config = ConfigDict(frozen=True)

    name: str
    description: str = ""
    parameters: dict[str, JsonValue] = Field(default_factory=_empty_object_schema)


class ChatOptions(BaseModel):
    """Per-request options: tools, shared state, context and pass-through properties."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    tools: list[ToolDeclaration] = Field(default_factory=list)
    state: JsonValue = None
    context: list[dict[str, str]] = Field(default_factory=list)
    """Context entries ({"description", "value"}) for the agent."""
    forwarded_props: dict[str, Any] = Field(default_factory=dict)
    conversation_id: str | None = None
    """A client-side id stable for the conversation (AG-UI's thread id)."""


def as_messages(message: str | ChatMessage | Sequence[ChatMessage]) -> list[ChatMessage]:
    """`message` as a list of messages (a string is one user message)."""
    if isinstance(message, str):
        return [ChatMessage.user(message)]
    if isinstance(message, ChatMessage):
        return [message]
    return list(message)
