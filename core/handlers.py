"""The built-in handlers: one per kind of content the runtime understands.

A tool call's card and a UI action's come from `core/tool_call_handlers.py` (with the rule for
tool call ids used again).
"""

from __future__ import annotations

from collections import deque

from collections.abc import Mapping

from tandem.core.blocks.approval import ApprovalBlock
from tandem.core.blocks.base import Block
from tandem.core.blocks.interrupt import InterruptBlock
from tandem.core.blocks.misc import ActivityBlock, ErrorBlock
from tandem.core.blocks.text import ReasoningBlock, TextBlock
from tandem.core.blocks.tool_call import ToolCallBlock
from tandem.core.blocks.ui_action import UIActionFunction
from tandem.core.content import (
    DEBUG_VALUES_KEPT,
    ActivityContent,
    ApprovalRequestContent,
    DebugContent,
    ErrorContent,
    FinishContent,
    InputRequestContent,
    ReasoningContent,
    TextContent,
)
from tandem.core.pipeline import PASS, Complete, Emit, Transition, Update, UpdateContext
from tandem.core.tool_blocks import ToolBlockRegistry
from tandem.core.tool_call_handlers import ToolCallHandler, UIActionHandler

__all__ = [
    "TextHandler",
    "ReasoningHandler",
    "UIActionHandler",
    "ToolCallHandler",
    "ApprovalHandler",
    "InterruptHandler",
    "ActivityHandler",
    "ErrorHandler",
    "DebugBlock",
    "DebugHandler",
    "SegmentEndHandler",
    "builtin_handlers",
]


_UPDATED = Update()
"""The transition of a part a streaming block took (one per text delta: built once)."""


def _role(context: UpdateContext) -> str:
    return "assistant" if context.update.role == "tool" else context.update.role


class TextHandler:
    """Text parts: accumulate into the newest text block of the same message, else start one."""

    block_class: type[TextBlock] = TextBlock
    content_class: type = TextContent

    def handle(self, context: UpdateContext, block: Block | None) -> Transition:
        part = context.part
        if type(part) is not self.content_class:
            return PASS
        if block is not None:
            same_message = block.message_id == context.update.message_id
            if type(block) is self.block_class and block is context.newest and same_message:
                self._append(block, part)  # type: ignore[arg-type]
                return _UPDATED
            return PASS
        new = self.block_class(
            context.block_id(f"{context.message_key()}/{self.block_class.kind}"),
            role=_role(context),  # type: ignore[arg-type]
            author=context.update.author,
            message_id=context.update.message_id,
        )
        self._append(new, part)  # type: ignore[arg-type]
        return Emit(new)

    def _append(self, block: TextBlock, part: TextContent) -> None:
        if part.text:
            block.append(part.text)


class ReasoningHandler(TextHandler):
    """Reasoning parts: like text, into reasoning blocks; encrypted values are kept, not shown."""

    block_class = ReasoningBlock
    content_class = ReasoningContent

    def _append(self, block: TextBlock, part: ReasoningContent) -> None:  # type: ignore[override]
        assert isinstance(block, ReasoningBlock)
        if part.encrypted_value is not None:
            block.encrypted_values.append(part.encrypted_value)
            block.changed()
        if part.text:
            block.append(part.text)


def _stray_cards(context: UpdateContext, *skip: str | None) -> list[ToolCallBlock]:
    """The cards of this turn's informational tool calls still running when the run ended with an
    interrupt: calls the adapter made to ask (Microsoft Agent Framework's `confirm_changes`) and
    never finishes. They end with the interrupt's decision."""
    stray: list[ToolCallBlock] = []
    for block in reversed(context.pipeline.blocks):
        if block.kind == "text" and block.role == "user":
            break  # the turn's start
        if (isinstance(block, ToolCallBlock) and block.informational_only and not block.finished
                and block.call_id not in skip):
            stray.append(block)
    return stray


class ApprovalHandler:
    """Approval requests become approval blocks; those not requiring confirmation decide at once."""

    def handle(self, context: UpdateContext, block: Block | None) -> Transition:
        part = context.part
        if block is not None or not isinstance(part, ApprovalRequestContent):
            return PASS
        tool = context.pipeline.newest(f"tool/{part.call_id}") if part.call_id else None
        # A request that was itself a streamed tool call (Google ADK's confirmation tool) has a card too.
        asking = context.pipeline.newest(f"tool/{part.request_id}") if part.request_id != part.call_id else None
        new = ApprovalBlock(
            context.block_id(f"approval/{part.request_id}"),
            request_id=part.request_id,
            tool_name=part.tool_name,
            arguments=dict(part.arguments),
            arguments_text=part.arguments_text,
            call_id=part.call_id,
            message=part.message,
            allow_edits=part.allow_edits,
            allow_reason=part.allow_reason,
            proposal_id=part.proposal_id,
            tool_block=tool if isinstance(tool, ToolCallBlock) else None,
            expires_at=part.expires_at,
            protocol_data=part.protocol_data,
            request_block=asking if isinstance(asking, ToolCallBlock) else None,
            stray_blocks=_stray_cards(context, part.call_id, part.request_id),
            role="assistant",
            author=context.update.author,
        )
        if not part.requires_confirmation:
            new.env = context.pipeline.env
            new.resolve("approved", who="auto", record=False, reason="no confirmation required")
        return Emit(new)


class InterruptHandler:
    """Generic input requests become interrupt blocks with a JSON-schema form."""

    def handle(self, context: UpdateContext, block: Block | None) -> Transition:
        part = context.part
        if block is not None or not isinstance(part, InputRequestContent):
            return PASS
        return Emit(
            InterruptBlock(
                context.block_id(f"interrupt/{part.request_id}"),
                request_id=part.request_id,
                reason=part.reason,
                message=part.message,
                response_schema=dict(part.response_schema) if part.response_schema else None,
                call_id=part.call_id,
                expires_at=part.expires_at,
                protocol_data=part.protocol_data,
                role="assistant",
                author=context.update.author,
            )
        )


class ActivityHandler:
    """Activity snapshots and deltas update one block per activity id, across segments; a step is
    one block per turn (a step an earlier turn ran gets its own progress again when it runs again)."""

    def handle(self, context: UpdateContext, block: Block | None) -> Transition:
        part = context.part
        if block is not None or not isinstance(part, ActivityContent):
            return PASS  # its blocks are emitted `offered=False`: phase 1 never offers them a part
        earlier = context.pipeline.newest(f"activity/{part.activity_id}")
        if isinstance(earlier, ActivityBlock) and not (
                part.activity_type == "step" and earlier.turn_id != context.pipeline.turn_id):
            earlier.apply(part.content, part.patch, part.replace)
            return Update(earlier)
        new = ActivityBlock(
            context.block_id(f"activity/{part.activity_id}"),
            activity_type=part.activity_type,
            role="assistant",
            author=context.update.author,
        )
        new.apply(part.content, part.patch, part.replace)
        # Found again by id above (in this segment or a later one): never offered parts in phase 1.
        return Emit(new, offered=False)


class ErrorHandler:
    """Errors the agent reports in the stream become error blocks."""

    def handle(self, context: UpdateContext, block: Block | None) -> Transition:
        part = context.part
        if block is not None or not isinstance(part, ErrorContent):
            return PASS
        new = ErrorBlock(
            context.block_id(f"error/{context.message_key()}"),
            message=part.message,
            code=part.code,
            role="assistant",
            author=context.update.author,
        )
        return Emit(new)


class DebugBlock(Block):
    """Protocol traffic with no neutral meaning, for a debug view (hidden by default): the parts
    of one label (`raw`, `custom NAME`…) in one segment.

    Owns the label, how many parts it took and the latest `DEBUG_VALUES_KEPT` of their values.
    One block per label and segment, not one per part: ag-ui-langgraph on its defaults sends a RAW
    event (~1 KB: the whole LangChain event) beside every token, and a block each kept them all
    in memory for the life of the conversation (10,000 tokens: 20,000 blocks) and gave every view
    and output a block to add per token. The update log still keeps every part whole.
    """

    kind = "debug"
    marker = True

    def __init__(self, id: str, *, label: str, value: object, folded: int = 0, **kwargs: object) -> None:
        super().__init__(id, **kwargs)  # type: ignore[arg-type]
        self.label = label
        self.count = 1 + folded
        """How many parts the block took (the values of all but the latest few are in the log only)."""
        self._values: deque[object] = deque((value,), maxlen=DEBUG_VALUES_KEPT)

    @property
    def value(self) -> object:
        """The latest part's value."""
        return self._values[-1]

    @property
    def values(self) -> list[object]:
        """The latest parts' values (at most `DEBUG_VALUES_KEPT`), oldest first."""
        return list(self._values)

    def add(self, value: object, folded: int = 0) -> None:
        """Take one more part of the same label (standing for `folded` earlier ones too)."""
        self.count += 1 + folded
        self._values.append(value)
        self.changed()

    def content(self) -> dict[str, object]:
        return {"label": self.label, "value": self.value, "count": self.count, "values": self.values}


class DebugHandler:
    """Debug parts (custom or raw protocol events) become debug blocks, completed at once: the
    first of a label in a segment makes one, the rest of the segment's are added to it."""

    def handle(self, context: UpdateContext, block: Block | None) -> Transition:
        part = context.part
        if block is not None or not isinstance(part, DebugContent):
            return PASS
        pipeline = context.pipeline
        key = f"debug/{pipeline.turn_id or 'turn'}.{pipeline.segment_index}/{part.label}"
        earlier = pipeline.by_id.get(key)
        if isinstance(earlier, DebugBlock):
            earlier.add(part.value, part.folded)
            return Update(earlier)
        new = DebugBlock(context.block_id(key), label=part.label, value=part.value, folded=part.folded)
        pipeline.add_block(new)
        return Update(new)


class SegmentEndHandler:
    """Finish parts record how the segment ended; they produce no block."""

    def __init__(self) -> None:
        self.last_reason: str | None = None

    def handle(self, context: UpdateContext, block: Block | None) -> Transition:
        part = context.part
        if block is not None or not isinstance(part, FinishContent):
            return PASS
        self.last_reason = part.reason
        return Complete(None)


def builtin_handlers(registry: ToolBlockRegistry, ui_actions: Mapping[str, UIActionFunction]) -> list:
    """The built-in handlers, in the order phase 2 offers them content."""
    return [
        TextHandler(),
        ReasoningHandler(),
        UIActionHandler(ui_actions),
        ToolCallHandler(registry),
        ApprovalHandler(),
        InterruptHandler(),
        ActivityHandler(),
        ErrorHandler(),
        DebugHandler(),
        SegmentEndHandler(),
    ]
