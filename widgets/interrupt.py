"""A generic input request: the agent's message and a form built from its schema, or a text field."""

from __future__ import annotations

from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import Static

from tandem.core.blocks.decisions import Decline, Respond
from tandem.core.blocks.interrupt import InterruptBlock
from tandem.widgets.block_view import BlockView
from tandem.widgets.sanitize import agent_line, agent_text, pretty_json, revealed_text
from tandem.widgets.schema_form import SchemaForm

__all__ = ["InterruptView", "is_text_question"]

TEXT_SCHEMA: dict[str, Any] = {"type": "string"}
"""The form of a question that names no schema: one text field, the typed string is the answer."""

TEXT_PLACEHOLDER = "type your answer · Enter sends"


def is_text_question(schema: dict[str, Any] | None) -> bool:
    """Whether the answer is typed text: no schema (a plain question), or a schema that is just a string.

    Strands' `tool_context.interrupt`, LangGraph's `interrupt("Which colour?")` and CrewAI's human
    feedback send no schema and expect a string back.
    """
    if not schema:
        return True
    if schema.get("type") != "string":
        return False
    # A string with constraints of its own (enum, format, …) is still one text field; the form checks it.
    return "enum" not in schema


class InterruptView(BlockView):
    """An interrupt: a title, the agent's message and, while pending, a form with Send and Decline.

    A question without a schema (or with a bare string schema) gets one text field: typing and
    Enter sends the text as the answer (`Respond(payload="...")`), Decline sends `Decline()`.
    Other schemas get a `SchemaForm`; its valid submit becomes `Respond` with the form's payload. Once decided the form hides and the status says who answered
    what. State classes: `-pending`, `-decided`, `-text`. UI thread only.
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
        /* A plain question: the message asks it, the field needs no label of its own. */
        &.-text .schema-form--label { display: none; }
        &.-decided { border: round $panel; }
    }
    """

    @property
    def text_question(self) -> bool:
        """Whether the answer is one typed text."""
        block = self.block
        assert isinstance(block, InterruptBlock)
        return is_text_question(block.response_schema)

    def compose(self) -> ComposeResult:
        block = self.block
        assert isinstance(block, InterruptBlock)
        text = self.text_question
        self.set_class(text, "-text")
        yield Static(classes="interrupt-view--title")
        yield Static(classes="interrupt-view--message")
        schema = (block.response_schema or TEXT_SCHEMA) if text else block.response_schema
        yield SchemaForm(schema, submit_label="Send", decline_label="Decline", placeholder=TEXT_PLACEHOLDER)
        yield Static(classes="interrupt-view--status")

    def update_from_block(self) -> None:
        block = self.block
        assert isinstance(block, InterruptBlock)
        title = self.query_one(".interrupt-view--title", Static)
        if self.text_question:
            title.update(Content("? the agent asks") + (Content(" · ") + agent_line(block.reason) if block.reason else Content("")))
        else:
            title.update(Content("? input requested: ") + agent_line(block.reason))
        message = self.query_one(".interrupt-view--message", Static)
        message.display = bool(block.message)
        message.update(revealed_text(block.message or ""))
        decision = block.decision
        pending = decision is None and not block.expired
        self.set_class(pending, "-pending")
        self.set_class(not pending, "-decided")
        status = self.query_one(".interrupt-view--status", Static)
        if decision is None:
            if block.expired:
                status.update(Content("◷ expired"))
            elif block.refused is not None:
                status.update(Content("✗ the agent refused the answer: ") + revealed_text(block.refused)
                              + Content("\n  answer again, or Decline"))
            elif self.text_question:
                status.update(Content("… waiting for your answer: Enter sends it, Decline refuses"))
            else:
                status.update(Content("… waiting for you"))
        elif decision.outcome == "resolved":
            payload = decision.payload
            answer = agent_text(payload) if isinstance(payload, str) else agent_text(pretty_json(payload))
            status.update(Content("✓ answered by ") + agent_text(decision.who) + Content(": ") + answer)
        elif decision.outcome == "declined":
            status.update(Content("⊘ declined by ") + agent_text(decision.who))
        else:
            status.update(Content(f"⊘ {decision.outcome}"))

    @on(SchemaForm.Submitted)
    def _submitted(self, event: SchemaForm.Submitted) -> None:
        event.stop()
        block = self.block
        assert isinstance(block, InterruptBlock)
        if block.actionable:
            self.request_decision(Respond(payload=event.payload))

    @on(SchemaForm.Declined)
    def _declined(self, event: SchemaForm.Declined) -> None:
        event.stop()
        block = self.block
        assert isinstance(block, InterruptBlock)
        if block.actionable:
            self.request_decision(Decline())
