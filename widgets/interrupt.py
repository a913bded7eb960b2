"""A generic input request: the agent's message and a form built from its schema."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import Button, Static

from tandem.core.blocks.interrupt import InterruptBlock
from tandem.widgets.block_view import BlockView
from tandem.widgets.sanitize import agent_text, pretty_json
from tandem.widgets.schema_form import SchemaForm

__all__ = ["InterruptView"]


class InterruptView(BlockView):
    """An interrupt: reason, message and a `SchemaForm` while pending; the answer once decided.

    A valid form submit becomes `request_decision("respond", payload=...)`. State classes:
    `-pending`, `-decided`. UI thread only.
    """

    DEFAULT_CSS: ClassVar[str] = """
    InterruptView {
        height: auto;
        margin: 0 0 1 0;
        padding: 0 1;
        border: round $accent;
        & > .interrupt-view--title { text-style: bold; color: $text-accent; }
        & > .interrupt-view--status { color: $text-muted; }
        &.-decided > SchemaForm { display: none; }
        & > .interrupt-view--decline { margin: 0; }
        &.-decided { border: round $panel; }
    }
    """

    def compose(self) -> ComposeResult:
        block = self.block
        assert isinstance(block, InterruptBlock)
        yield Static(classes="interrupt-view--title")
        yield Static(classes="interrupt-view--message")
        form = SchemaForm(block.response_schema, submit_label="Send")
        yield form
        # A schema that cannot be used leaves the person two answers: raw JSON, or this.
        decline = Button(Content("Decline"), compact=True, classes="interrupt-view--decline")
        decline.display = False  # see update_from_block
        yield decline
        yield Static(classes="interrupt-view--status")

    def update_from_block(self) -> None:
        block = self.block
        assert isinstance(block, InterruptBlock)
        self.query_one(".interrupt-view--title", Static).update(Content("? input requested: ") + agent_text(block.reason))
        message = self.query_one(".interrupt-view--message", Static)
        message.display = bool(block.message)
        message.update(agent_text(block.message or ""))
        decision = block.decision
        pending = decision is None and not block.expired
        self.set_class(pending, "-pending")
        self.set_class(not pending, "-decided")
        self.query_one(".interrupt-view--decline", Button).display = pending and self.query_one(SchemaForm).problem is not None
        status = self.query_one(".interrupt-view--status", Static)
        if decision is None:
            status.update(Content("⌛ expired" if block.expired else "… waiting for you"))
        elif decision.outcome == "resolved":
            status.update(Content("✓ answered by ") + agent_text(decision.who) + Content(": ") + agent_text(pretty_json(decision.payload)))
        else:
            status.update(Content(f"⊘ {decision.outcome}"))

    @on(Button.Pressed, ".interrupt-view--decline")
    def _declined(self, event: Button.Pressed) -> None:
        event.stop()
        block = self.block
        assert isinstance(block, InterruptBlock)
        if block.actionable:
            self.request_decision("cancel")

    @on(SchemaForm.Submitted)
    def _submitted(self, event: SchemaForm.Submitted) -> None:
        event.stop()
        block = self.block
        assert isinstance(block, InterruptBlock)
        if block.actionable:
            self.request_decision("respond", payload=event.payload)
