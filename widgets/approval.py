"""An approval inline in the conversation: pending with a Review button, or decided (who, when)."""

from __future__ import annotations

import datetime
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.content import Content
from textual.message import Message
from textual.widgets import Button, Static

from tandem.core.blocks.approval import ApprovalBlock
from tandem.core.blocks.decisions import Cancel
from tandem.widgets.block_view import BlockView
from tandem.widgets.sanitize import agent_line, agent_text, pretty_json, revealed_text

__all__ = ["ApprovalView"]

_OUTCOMES = {
    "approved": ("✓", "approved"),
    "rejected": ("✗", "rejected"),
    "cancelled": ("⊘", "cancelled"),
    "expired": ("◷", "expired"),
}


class ApprovalView(BlockView):
    """An approval request in the conversation.

    Shows the tool name, the agent's message and either "waiting for your decision" with a
    "Review…" button (which posts `ApprovalView.ReviewRequested`; the app opens the
    `ApprovalModal`) or the decision with who and when (and the reason, or "with edited
    arguments"). An approval whose answer the agent refused (open again, `block.refused`) says
    why and offers "Decide again…" (the modal) and "Drop" (a `Cancel` decision, posted as
    `BlockView.DecisionRequested`). State classes: `-pending`, `-refused`, `-approved`,
    `-rejected`, `-cancelled`, `-expired`.
    UI thread only.
    """

    DEFAULT_CSS: ClassVar[str] = """
    ApprovalView {
        height: auto;
        margin: 0 0 1 0;
        padding: 0 1;
        border: round $warning;
        & > .approval-view--title { text-style: bold; }
        & > .approval-view--status { color: $text-muted; }
        & > Button { margin: 0; }
        &.-approved { border: round $success; }
        &.-approved > .approval-view--status { color: $text-success; }
        &.-rejected, &.-cancelled, &.-expired { border: round $error; }
        &.-rejected > .approval-view--status { color: $text-error; }
        &.-refused { border: round $error; }
        &.-refused > .approval-view--status { color: $text-error; }
    }
    """

    class ReviewRequested(Message):
        """The human wants to decide now; handled as `on_approval_view_review_requested`."""

        def __init__(self, view: ApprovalView, block: ApprovalBlock) -> None:
            super().__init__()
            self.view = view
            """The view that posted it."""
            self.block = block
            """The approval to review."""

        @property
        def control(self) -> ApprovalView:
            """The view (lets `@on(ApprovalView.ReviewRequested, "#id")` match)."""
            return self.view

    def compose(self) -> ComposeResult:
        yield Static(classes="approval-view--title")
        yield Static(classes="approval-view--message")
        yield Static(classes="approval-view--status")
        yield Button(Content("Review…"), variant="warning", compact=True, classes="approval-view--review")
        yield Button(Content("Drop"), compact=True, classes="approval-view--drop")

    def update_from_block(self) -> None:
        block = self.block
        assert isinstance(block, ApprovalBlock)
        self.query_one(".approval-view--title", Static).update(Content("⚠ approval: ") + agent_line(block.tool_name))
        message = self.query_one(".approval-view--message", Static)
        message.display = bool(block.message)
        message.update(revealed_text(block.message or ""))
        decision = block.decision
        for outcome in ("pending", *_OUTCOMES):
            self.set_class(False, f"-{outcome}")
        status = self.query_one(".approval-view--status", Static)
        review = self.query_one(".approval-view--review", Button)
        drop = self.query_one(".approval-view--drop", Button)
        refused = decision is None and block.refused is not None
        self.set_class(refused, "-refused")
        drop.display = refused and not block.expired
        if decision is None:
            self.add_class("-pending")
            expired = block.expired
            if expired:
                status.update(Content("◷ expired"))
            elif block.refused is not None:
                # The answer never got through: say why, and offer to decide again or drop it.
                status.update(Content("✗ the agent refused the answer: ") + revealed_text(block.refused)
                              + Content("\n  decide again, or drop it (the next message cancels it)"))
            else:
                status.update(Content("… waiting for your decision"))
            review.label = Content("Decide again…" if refused else "Review…")
            review.display = not expired
            return
        review.display = False
        symbol, word = _OUTCOMES.get(decision.outcome, ("•", decision.outcome))
        self.add_class(f"-{decision.outcome}")
        when = datetime.datetime.fromtimestamp(decision.at).strftime("%H:%M")
        text = Content(f"{symbol} {word} by ") + agent_text(decision.who) + Content(f" at {when}")
        if decision.reason:
            text = text + Content(": ") + revealed_text(decision.reason)
        if decision.edited_arguments is not None:
            text = text + Content("\n  with edited arguments ") + agent_text(pretty_json(decision.edited_arguments))
        status.update(text)

    @on(Button.Pressed, ".approval-view--drop")
    def _drop(self, event: Button.Pressed) -> None:
        event.stop()
        if isinstance(self.block, ApprovalBlock) and self.block.actionable:
            self.request_decision(Cancel())

    @on(Button.Pressed, ".approval-view--review")
    def _review(self, event: Button.Pressed) -> None:
        event.stop()
        block = self.block
        assert isinstance(block, ApprovalBlock)
        if block.actionable:
            self.post_message(self.ReviewRequested(self, block))
