"""Tool approval blocks."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import JsonValue

from tandem.core.blocks.interactive import Decision, InteractiveBlock
from tandem.core.blocks.tool_call import ToolStatus
from tandem.core.content import ApprovalResponseContent
from tandem.core.messages import ChatMessage

if TYPE_CHECKING:
    from tandem.core.blocks.tool_call import ToolCallBlock

__all__ = ["ApprovalBlock"]


class ApprovalBlock(InteractiveBlock):
    """The agent asks to run a tool: approve (optionally with edited arguments) or reject.

    Owns the request and the decision; applies the decision to the tool call it names and to
    the state proposal it guards (approve commits, reject rolls back).
    """

    kind = "approval"

    def __init__(
        self,
        id: str,
        *,
        request_id: str,
        tool_name: str,
        arguments: dict[str, JsonValue],
        call_id: str | None = None,
        message: str | None = None,
        allow_edits: bool = False,
        allow_reason: bool = True,
        proposal_id: str | None = None,
        tool_block: ToolCallBlock | None = None,
        protocol_data: dict[str, JsonValue] | None = None,
        request_block: ToolCallBlock | None = None,
        arguments_text: str | None = None,
        stray_blocks: list[ToolCallBlock] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(id, **kwargs)
        self.request_id = request_id
        self.tool_name = tool_name
        self.arguments = dict(arguments)
        self.arguments_text = arguments_text
        """The arguments as the agent sent them when they are not a JSON object (`arguments` is
        then empty): shown to the person instead of `{}`."""
        self.call_id = call_id
        self.message = message
        self.allow_edits = allow_edits
        self.allow_reason = allow_reason
        """The answer may carry a reason (the server's response schema decides)."""
        self.stray_blocks = list(stray_blocks or ())
        """Cards of calls the adapter made to ask and never finishes: they end with the decision."""
        self.proposal_id = proposal_id
        self._settled: list[tuple[ToolCallBlock, ToolStatus]] = []  # cards a decision ended, as they were
        self.tool_block = tool_block
        self.protocol_data = protocol_data
        self.request_block = request_block
        """The card of the call through which the agent asked (Google ADK asks with a call to its
        confirmation tool): the decision settles it, so it never stays "running"."""
        """Opaque to blocks: the chat client's data for answering (see `ApprovalRequestContent`)."""

    def approve(self, *, edited_arguments: dict[str, JsonValue] | None = None, reason: str | None = None, who: str | None = None) -> bool:
        """Approve, optionally with edited arguments. Returns whether this call decided.

        Raises:
            DecisionError: the request expired, or edits were given where none are allowed.
        """
        if self.decision is not None:
            return False
        self._check_actionable()
        if edited_arguments is not None and not self.allow_edits:
            from tandem.core.errors import DecisionError

            raise DecisionError(f"approval {self.id!r} does not allow edited arguments")
        return self.resolve("approved", who=who, reason=reason, edited_arguments=edited_arguments)

    def reject(self, *, reason: str | None = None, who: str | None = None) -> bool:
        """Reject, with an optional reason. Returns whether this call decided."""
        if self.decision is not None:
            return False
        self._check_actionable()
        return self.resolve("rejected", who=who, reason=reason)

    def _on_decided(self, decision: Decision) -> None:
        state = self.env.state
        self._settled = [(card, card.status) for card in (self.tool_block, self.request_block, *self.stray_blocks)
                         if card is not None and not card.finished]
        if self.tool_block is not None and decision.outcome != "approved":
            self.tool_block.set_status(ToolStatus.CANCELLED if decision.outcome in ("cancelled", "expired") else ToolStatus.DENIED)
        for card in (self.request_block, *self.stray_blocks):
            if card is not None and not card.finished:
                card.set_status(
                    ToolStatus.SUCCEEDED if decision.outcome == "approved"
                    else ToolStatus.CANCELLED if decision.outcome in ("cancelled", "expired") else ToolStatus.DENIED)
        if state is not None and self.proposal_id is not None and state.has_proposal(self.proposal_id):
            if decision.outcome == "approved":
                state.accept(self.proposal_id, record=False)
            else:
                state.reject(self.proposal_id, record=False)

    def _on_reopened(self, decision: Decision) -> None:
        # The cards go back to waiting; a proposal the refused approval committed stays committed
        # (a person's state is never rolled back behind their back; the next answer reads it).
        for card, status in self._settled:
            card.reopen(status)
        self._settled = []

    def continuation(self) -> ChatMessage:
        decision = self.decision
        assert decision is not None, "continuation() before a decision"
        content = ApprovalResponseContent(
            request_id=self.request_id,
            call_id=self.call_id,
            approved=decision.outcome == "approved",
            status="resolved" if decision.outcome in ("approved", "rejected") else "cancelled",
            reason=decision.reason,
            edited_arguments=decision.edited_arguments,
            protocol_data=self.protocol_data,
        )
        return ChatMessage(role="user", contents=[content])

    def content(self) -> dict[str, Any]:
        return {
            **super().content(),
            "request_id": self.request_id,
            "tool_name": self.tool_name,
            "arguments": self.arguments,
            "message": self.message,
            "allow_edits": self.allow_edits,
            **({"arguments_text": self.arguments_text} if self.arguments_text is not None else {}),
            "allow_reason": self.allow_reason,
        }
