"""UI actions: client-side functions the agent asks to run, run by the human at most once."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from pydantic import JsonValue

from tandem.core.blocks.growing_text import GrowingText
from tandem.core.blocks.interactive import Decision, InteractiveBlock
from tandem.core.blocks.tool_call import ToolStatus
from tandem.core.content import ToolResultContent
from tandem.core.messages import ChatMessage
from tandem.core.tool_arguments import parse_arguments

if TYPE_CHECKING:
    from tandem.core.blocks.tool_call import ToolCallBlock

__all__ = ["UIActionFunction", "UIActionBlock"]

log = logging.getLogger(__name__)

UIActionFunction = Callable[[dict[str, Any]], Awaitable[JsonValue] | JsonValue]


class UIActionBlock(InteractiveBlock):
    """A client-side action the agent requested (a tool call to a registered UI action).

    Owns the call's arguments and the decision. `invoke()` runs the function at most once,
    however often it is called (double clicks, replays); `decline()` refuses it. The result
    goes back to the agent as a tool-role message.
    """

    kind = "ui_action"

    def __init__(
        self,
        id: str,
        *,
        call_id: str,
        name: str,
        arguments: dict[str, JsonValue],
        function: UIActionFunction | None,
        tool_block: ToolCallBlock | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(id, **kwargs)
        self.call_id = call_id
        self.name = name
        self.arguments = dict(arguments)
        self.function = function
        self.tool_block = tool_block
        self.invocations = 0
        """How many times the function actually ran (0 or 1)."""
        self.echoed_result: JsonValue = None
        """The result the server reported for this call (its echo of what the client sent), if any."""
        self.echoed_error: str | None = None
        self._arguments_text = GrowingText()
        self.arguments_complete = bool(arguments)
        self._started = False

    @property
    def actionable(self) -> bool:
        """Decidable once the arguments finished streaming."""
        return self.arguments_complete and super().actionable

    @property
    def arguments_text(self) -> str:
        """The JSON arguments as streamed so far (O(1) to read between appends: see `GrowingText`)."""
        return self._arguments_text.value

    def append_arguments(self, delta: str) -> None:
        """Add a streamed chunk of the JSON arguments."""
        self._arguments_text.append(delta)
        self.changed()

    def finish_arguments(self, arguments: dict[str, JsonValue] | None = None) -> None:
        """The arguments are complete; the action can now be run."""
        if arguments is None:
            arguments = parse_arguments(self.arguments_text).preserved()
        self.arguments = dict(arguments)
        self.arguments_complete = True
        self.changed()

    async def invoke(self, arguments: dict[str, JsonValue] | None = None, *, who: str | None = None) -> Decision | None:
        """Run the action with its (or the human's adjusted) arguments, once.

        Returns:
            The decision, or None if another invocation is still running.
        """
        if self.decision is not None:
            return self.decision
        if self._started:
            return None
        self._check_actionable()
        self._started = True
        args = dict(self.arguments if arguments is None else arguments)
        if self.function is None:
            self.resolve("failed", who=who, error=f"no UI action named {self.name!r} is registered", edited_arguments=args)
            return self.decision
        self.invocations += 1
        try:
            outcome = self.function(args)
            if inspect.isawaitable(outcome):
                outcome = await outcome
        except Exception as exc:  # the action's failure is the agent's to hear about, not a crash
            log.warning("UI action %s failed: %s", self.name, exc)
            self.resolve("failed", who=who, error=f"{type(exc).__name__}: {exc}", edited_arguments=args)
        else:
            self.resolve("completed", who=who, result=outcome, edited_arguments=args)
        return self.decision

    def decline(self, *, reason: str | None = None, who: str | None = None) -> bool:
        """Refuse to run the action. Returns whether this call decided."""
        if self.decision is not None or self._started:
            return False
        self._check_actionable()
        return self.resolve("declined", who=who, reason=reason)

    def echo_result(self, result: JsonValue, error: str | None = None) -> None:
        """The server reported this call's result: the one the client sent, echoed back.

        Kept as `echoed_result`/`echoed_error` for inspection; the decision (the action ran, or
        not, here) stands, and nothing runs again.
        """
        self.echoed_result = result
        self.echoed_error = error
        self.changed()

    def _on_decided(self, decision: Decision) -> None:
        if self.tool_block is None:
            return
        if decision.outcome == "completed":
            self.tool_block.set_result(decision.result)
        elif decision.outcome == "failed":
            self.tool_block.set_result(None, error=decision.error)
        elif decision.outcome == "declined":
            self.tool_block.set_status(ToolStatus.DENIED)
        else:
            self.tool_block.set_status(ToolStatus.CANCELLED)

    def continuation(self) -> ChatMessage:
        decision = self.decision
        assert decision is not None, "continuation() before a decision"
        if decision.outcome == "completed":
            part = ToolResultContent(call_id=self.call_id, result=decision.result)
        elif decision.outcome == "failed":
            part = ToolResultContent(call_id=self.call_id, error=decision.error or "failed")
        else:
            reason = f": {decision.reason}" if decision.reason else ""
            part = ToolResultContent(call_id=self.call_id, error=f"the user {decision.outcome} this action{reason}")
        return ChatMessage(role="tool", contents=[part])

    def content(self) -> dict[str, Any]:
        return {**super().content(), "call_id": self.call_id, "name": self.name, "arguments": self.arguments}
