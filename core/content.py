"""Content parts: the neutral vocabulary carried by messages and streamed updates.

Every part is a pydantic model with a `kind` discriminator, so a list of parts round-trips
through JSON losslessly. Protocol code (core/agui, core/a2ui) translates into these; the rest of
core never sees a protocol type.
"""

from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, FieldSerializationInfo, JsonValue, field_serializer

__all__ = [
    "Content",
    "ContentPart",
    "TextContent",
    "ReasoningContent",
    "ToolCallContent",
    "ToolResultContent",
    "ApprovalRequestContent",
    "ApprovalResponseContent",
    "InputRequestContent",
    "InputResponseContent",
    "StateSnapshotContent",
    "StateDeltaContent",
    "ActivityContent",
    "A2UIMessageContent",
    "ErrorContent",
    "FinishContent",
    "DebugContent",
    "AttachmentContent",
    "MediaKind",
]


class ContentPart(BaseModel):
    """Base of every content part: frozen data with a `kind` tag."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class TextContent(ContentPart):
    """A piece of assistant or user text (Markdown). Streamed as deltas."""

    kind: Literal["text"] = "text"
    text: str


class ReasoningContent(ContentPart):
    """A piece of the model's reasoning, or an encrypted reasoning value to echo back unread."""

    kind: Literal["reasoning"] = "reasoning"
    text: str = ""
    encrypted_value: str | None = None
    """Opaque provider value: stored and sent back untouched, never displayed."""


class ToolCallContent(ContentPart):
    """A tool call, or a streamed piece of one (same `call_id`).

    The first part names the tool; later parts carry `arguments_delta` chunks of the JSON
    arguments; the part with `done=True` ends the argument stream. A part may instead carry
    the complete `arguments` at once (history messages do).
    """

    kind: Literal["tool_call"] = "tool_call"
    call_id: str
    name: str | None = None
    arguments_delta: str = ""
    arguments: dict[str, JsonValue] | None = None
    done: bool = False
    informational_only: bool = False
    internal: bool = False
    """A call the adapter makes to ask the person (Google ADK's `adk_request_confirmation`): it
    stays in the history, and views show it through the approval it becomes, not as a card."""
    """The server already ran (or will run) this call; the client must not run it."""
    encrypted_value: str | None = None
    """Opaque provider value attached to the call: stored and sent back untouched, never displayed."""

    @property
    def starts_call(self) -> bool:
        """Whether this part starts a streamed call: it names the tool and carries nothing else.

        That is what AG-UI's `TOOL_CALL_START` maps to. A whole call (a snapshot's or a
        history's), a piece of the arguments, their end and an encrypted value all belong to a
        call already started. Under the id of a call that has its result, a start is another
        call (`core/handlers.py`).
        """
        return (self.name is not None and self.arguments is None and not self.arguments_delta and not self.done
                and self.encrypted_value is None)


class ToolResultContent(ContentPart):
    """The result of a tool call, matched to it by `call_id`."""

    kind: Literal["tool_result"] = "tool_result"
    call_id: str
    result: JsonValue = None
    error: str | None = None
    encrypted_value: str | None = None
    """Opaque provider value attached to the result: stored and sent back untouched, never displayed."""


class ApprovalRequestContent(ContentPart):
    """The agent asks the human to approve a tool call before it runs."""

    kind: Literal["approval_request"] = "approval_request"
    request_id: str
    call_id: str | None = None
    tool_name: str
    arguments: dict[str, JsonValue] = Field(default_factory=dict)
    message: str | None = None
    allow_edits: bool = False
    """The human may approve with edited arguments."""
    arguments_text: str | None = None
    """The arguments as the agent sent them, when they are not a JSON object (`arguments` is then
    empty): what the person is asked to approve, shown as it is."""
    allow_reason: bool = True
    """The answer may carry a reason (False where the server's response schema forbids one)."""
    requires_confirmation: bool = True
    """False: approved automatically, without suspending the conversation."""
    proposal_id: str | None = None
    """A state proposal that approval commits and rejection rolls back."""
    expires_at: float | None = None
    """Unix time after which the request can no longer be answered."""
    protocol_data: dict[str, JsonValue] | None = None
    """What the chat client needs to answer this request as its server expects (AG-UI: the
    interrupt as received). Opaque above the chat client: logged with the request, copied onto
    the answer (so a restored thread answers as the live one would), never displayed."""


class ApprovalResponseContent(ContentPart):
    """The human's answer to an approval request."""

    kind: Literal["approval_response"] = "approval_response"
    request_id: str
    call_id: str | None = None
    approved: bool
    status: Literal["resolved", "cancelled"] = "resolved"
    reason: str | None = None
    edited_arguments: dict[str, JsonValue] | None = None
    protocol_data: dict[str, JsonValue] | None = None
    """The request's `protocol_data`, handed back to the chat client."""


class InputRequestContent(ContentPart):
    """A generic interrupt: the agent asks the human for input shaped by a JSON schema."""

    kind: Literal["input_request"] = "input_request"
    request_id: str
    reason: str = "input_required"
    message: str | None = None
    response_schema: dict[str, JsonValue] | None = None
    call_id: str | None = None
    expires_at: float | None = None
    """Unix time after which the request can no longer be answered."""
    protocol_data: dict[str, JsonValue] | None = None
    """What the chat client needs to answer this request as its server expects (AG-UI: the
    interrupt as received). Opaque above the chat client: logged with the request, copied onto
    the answer (so a restored thread answers as the live one would), never displayed."""


class InputResponseContent(ContentPart):
    """The human's answer to an input request: a payload, or a cancellation."""

    kind: Literal["input_response"] = "input_response"
    request_id: str
    status: Literal["resolved", "cancelled"] = "resolved"
    payload: JsonValue = None
    protocol_data: dict[str, JsonValue] | None = None
    """The request's `protocol_data`, handed back to the chat client."""


class StateSnapshotContent(ContentPart):
    """The agent replaces the shared state."""

    kind: Literal["state_snapshot"] = "state_snapshot"
    snapshot: JsonValue
    proposal_id: str | None = None
    """Set when this write is a proposal (predictive state) rather than a commit."""


class StateDeltaContent(ContentPart):
    """The agent patches the shared state with RFC 6902 operations."""

    kind: Literal["state_delta"] = "state_delta"
    patch: list[dict[str, JsonValue]]
    proposal_id: str | None = None
    """Set when this write is a proposal (predictive state) rather than a commit."""


class ActivityContent(ContentPart):
    """Progress or plan information: a snapshot, or a patch over the last snapshot."""

    kind: Literal["activity"] = "activity"
    activity_id: str
    activity_type: str
    content: JsonValue = None
    patch: list[dict[str, JsonValue]] | None = None
    replace: bool = True


class A2UIMessageContent(ContentPart):
    """One A2UI message (createSurface, updateComponents, ...) for a declarative surface."""

    kind: Literal["a2ui_message"] = "a2ui_message"
    surface_id: str | None = None
    message: dict[str, JsonValue]
    status: str | None = None
    """Lifecycle status of the surface's generation (building, retrying, failed)."""


class ErrorContent(ContentPart):
    """The agent or the transport reports an error inside the stream."""

    kind: Literal["error"] = "error"
    message: str
    code: str | None = None


class FinishContent(ContentPart):
    """The segment ended; `reason` says how."""

    kind: Literal["finish"] = "finish"
    reason: Literal["stop", "tool_calls", "interrupt", "cancelled"] = "stop"


DEBUG_VALUES_KEPT = 20
"""How many of the latest values of a label and segment a debug block keeps (the log keeps them all)."""


class DebugContent(ContentPart):
    """Protocol traffic with no neutral meaning (custom or raw events, unknown event types).

    Kept whole in the log, never dropped; the debug view shows a segment's parts of one label as one
    block with the latest values (`handlers.DebugBlock`).
    """

    kind: Literal["debug"] = "debug"
    label: str
    value: JsonValue = None
    folded: int = Field(default=0, ge=0)
    """How many earlier parts of this label (and segment) this one also stands for: a thread's
    compacted copy keeps only the latest values a debug block shows (`compaction.fold_debug_parts`)."""


MediaKind = Literal["image", "audio", "video", "document", "text"]
"""What an attachment is sent as: AG-UI's media part of that kind, or text."""

ATTACHMENTS_APART = "attachments_apart"
"""Serialisation context key: when true, an attachment's `data` is written empty (its bytes are
kept apart, by `sha256`: the thread store keeps each content once, `core/store/attachment_blobs.py`)."""


class AttachmentContent(ContentPart):
    """A file the person attached to a message: its name (never its path), what it is and its bytes.

    Built by `core.attachments` (which sniffs `media_type` from the content and enforces the
    size limits); sent by the chat client as the protocol's part of its `media_kind`. Frozen.
    """

    kind: Literal["attachment"] = "attachment"
    name: str
    """The file's base name as the person sees it (a path never leaves the machine)."""
    media_type: str
    """The MIME type, sniffed from the content (the name only refines a text type)."""
    media_kind: MediaKind
    size: int = Field(ge=0)
    """Bytes of the content."""
    sha256: str
    """The content's SHA-256 (hex): how the store keeps one copy of it."""
    data: str = ""
    """The content, base64. Empty in a stored entry whose content is kept apart, until the store
    puts it back; empty on a part whose content was lost (it is then sent as a note, not bytes)."""

    @field_serializer("data")
    def _serialize_data(self, value: str, info: FieldSerializationInfo) -> str:
        context = info.context
        if isinstance(context, dict) and context.get(ATTACHMENTS_APART):
            return ""
        return value


Content = Annotated[
    Union[
        TextContent,
        ReasoningContent,
        ToolCallContent,
        ToolResultContent,
        ApprovalRequestContent,
        ApprovalResponseContent,
        InputRequestContent,
        InputResponseContent,
        StateSnapshotContent,
        StateDeltaContent,
        ActivityContent,
        A2UIMessageContent,
        ErrorContent,
        FinishContent,
        DebugContent,
        AttachmentContent,
    ],
    Field(discriminator="kind"),
]
"""Any content part, discriminated by `kind`."""

