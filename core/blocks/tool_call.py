"""Tool call blocks, their status, and typed tool blocks bound to a tool name."""

from __future__ import annotations

import enum
import json
from typing import TYPE_CHECKING, Any, ClassVar

from tandem.core.blocks.base import Block
from tandem.core.blocks.growing_text import GrowingText
from tandem.core.tool_arguments import parse_arguments
from tandem.core.agent_json import loads_agent_json

if TYPE_CHECKING:
    # Annotations only: the block views' module imports this kind before a resume paints its
    # stored text blocks (`core.store.tail`), and pydantic is not needed for that.
    from pydantic import JsonValue

__all__ = ["ToolStatus", "ToolCallBlock"]


class ToolStatus(str, enum.Enum):
    """Where a tool call is."""

    STREAMING_ARGUMENTS = "streaming_arguments"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    DENIED = "denied"
    CANCELLED = "cancelled"


_FINAL = {ToolStatus.SUCCEEDED, ToolStatus.FAILED, ToolStatus.DENIED, ToolStatus.CANCELLED}


class ToolCallBlock(Block):
    """One tool call: its streamed arguments, its status and its result.

    Owns the argument text, the parsed arguments, the result or error. Subclasses made with
    `@tool_block` (core.tool_blocks) map arguments and result onto typed attributes.
    """

    kind = "tool_call"
    tool_name: ClassVar[str | None] = None
    argument_map: ClassVar[dict[str, str]] = {}
    result_attribute: ClassVar[str | None] = None

    def __init__(self, id: str, *, call_id: str, name: str, informational_only: bool = False, **kwargs: Any) -> None:
        super().__init__(id, **kwargs)
        self.call_id = call_id
        self.name = name
        self.informational_only = informational_only
        self.hidden = False
        """Views leave the card out: a call the adapter makes to ask the person, shown through the
        approval it becomes (`ToolCallContent.internal`). Set once, when the block is made."""
        self._arguments_text = GrowingText()
        self.arguments: dict[str, JsonValue] | None = None
        self.arguments_error: str | None = None
        self.status = ToolStatus.STREAMING_ARGUMENTS
        self.result: JsonValue = None
        self.error: str | None = None
        self.has_result = False
        """Whether a result (or error) was recorded: the call is answered, and a later start of a
        call under the same id is another call (`ToolCallHandler`)."""
        for attribute in self.argument_map.values():
            setattr(self, attribute, None)
        if self.result_attribute:
            setattr(self, self.result_attribute, None)

    @property
    def finished(self) -> bool:
        """Whether the call reached a final status."""
        return self.status in _FINAL

    @property
    def arguments_text(self) -> str:
        """The JSON arguments as streamed so far (O(1) to read between appends: see `GrowingText`)."""
        return self._arguments_text.value

    def append_arguments(self, delta: str) -> None:
        """Add a streamed chunk of the JSON arguments."""
        self._arguments_text.append(delta)
        self.changed()

    def finish_arguments(self, arguments: dict[str, JsonValue] | None = None) -> None:
        """The arguments are complete: parse them and start running."""
        if arguments is not None:
            self.arguments = dict(arguments)
            self._arguments_text.replace(json.dumps(arguments))
        else:
            parsed = parse_arguments(self.arguments_text)
            self.arguments = parsed.value or {}
            if parsed.error is not None:
                self.arguments_error = f"arguments are not a JSON object: {parsed.error}"
        for key, attribute in self.argument_map.items():
            setattr(self, attribute, (self.arguments or {}).get(key))
        if self.status is ToolStatus.STREAMING_ARGUMENTS:
            self.status = ToolStatus.RUNNING
        self.changed()

    def set_result(self, result: JsonValue, error: str | None = None) -> None:
        """Record the result (or error) and finish the call."""
        if self.arguments is None:
            self.finish_arguments()
        self.result = result
        self.error = error
        self.has_result = True
        if self.result_attribute:
            setattr(self, self.result_attribute, _decode_result(result))
        if self.status not in (ToolStatus.DENIED, ToolStatus.CANCELLED):
            # A human's refusal stands: the server's report on a refused call is not a success.
            self.status = ToolStatus.FAILED if error else ToolStatus.SUCCEEDED
        self.changed()

    def set_status(self, status: ToolStatus) -> None:
        """Force a status (denied by a decision, cancelled by the human)."""
        if self.status is not status and not self.finished:
            self.status = status
            self.changed()

    def reopen(self, status: ToolStatus) -> None:
        """Put back the status a decision overrode: the agent refused the run carrying the decision."""
        if self.status is not status:
            self.status = status
            self.changed()

    def content(self) -> dict[str, Any]:
        content = {
            "call_id": self.call_id,
            "name": self.name,
            "status": self.status.value,
            "arguments": self.arguments if self.arguments is not None else self.arguments_text,
            "result": self.result,
            "error": self.error,
            "informational_only": self.informational_only,
        }
        if self.arguments_error:
            content["arguments_error"] = self.arguments_error  # only when there is one: shape unchanged otherwise
        return content


def _decode_result(result: JsonValue) -> JsonValue:
    """Tool results often arrive as JSON text; typed blocks want the value."""
    if isinstance(result, str):
        try:
            decoded: JsonValue = loads_agent_json(result)
            return decoded
        except ValueError:
            return result
    return result
