"""A UI action the agent asked to run: Run / Decline, or the steps picker for task steps."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Static

from tandem.core.blocks.decisions import Decline, Invoke
from tandem.core.blocks.ui_action import UIActionBlock
from tandem.widgets.block_view import BlockView
from tandem.widgets.marked_checkbox import MarkedCheckbox
from tandem.widgets.sanitize import agent_line, agent_text, pretty_json, reveal, revealed_text

if TYPE_CHECKING:
    from pydantic import JsonValue

__all__ = ["UIActionView"]

TASK_STEPS_ACTION = "generate_task_steps"
"""The action whose `steps` argument is shown as checkboxes."""

_OUTCOMES = {
    "completed": "✓ done",
    "declined": "⊘ declined",
    "failed": "✗ failed",
    "cancelled": "⊘ cancelled",
    "expired": "◷ expired",
}


def _steps(arguments: dict[str, Any]) -> list[dict[str, str]]:
    steps = arguments.get("steps")
    if not isinstance(steps, list):
        return []
    result = []
    for step in steps:
        if isinstance(step, dict):
            result.append({"description": str(step.get("description", "")), "status": str(step.get("status", "enabled"))})
        else:
            result.append({"description": str(step), "status": "enabled"})
    return result


class UIActionView(BlockView):
    """A client-side action waiting for the human.

    Generic actions show their name and arguments with Run (`Invoke()`) and Decline (`Decline()`).
    The `generate_task_steps` action shows one checkbox per step; Confirm sends
    `Invoke(arguments={"steps": [...each with status enabled/disabled...], "accepted": True})`,
    Reject sends `Invoke(arguments={"accepted": False, "steps": []})`.
    State classes: `-waiting`, `-decided`. UI thread only.
    """

    DEFAULT_CSS: ClassVar[str] = """
    UIActionView {
        height: auto;
        margin: 0 0 1 0;
        padding: 0 1;
        border: round $primary;
        & > .ui-action-view--title { text-style: bold; color: $text-primary; }
        & > .ui-action-view--args { color: $text-muted; }
        & > .ui-action-view--steps { height: auto; }
        & > .ui-action-view--steps > MarkedCheckbox { border: none; padding: 0; background: transparent; }
        & > .ui-action-view--buttons { height: auto; }
        & > .ui-action-view--buttons > Button { margin: 0 1 0 0; }
        & > .ui-action-view--status { color: $text-muted; }
        &.-waiting > .ui-action-view--status { color: $text-warning; text-style: bold; }
        &.-decided { border: round $panel; }
        &.-decided > .ui-action-view--buttons { display: none; }
    }
    """

    def __init__(self, block: UIActionBlock, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(block, name=name, id=id, classes=classes)
        self._shown_steps: list[dict[str, str]] | None = None

    @property
    def action(self) -> UIActionBlock:
        """The block, typed."""
        assert isinstance(self.block, UIActionBlock)
        return self.block

    @property
    def is_task_steps(self) -> bool:
        """Whether this is the steps picker."""
        return self.action.name == TASK_STEPS_ACTION

    def compose(self) -> ComposeResult:
        yield Static(classes="ui-action-view--title")
        yield Static(classes="ui-action-view--args")
        yield Vertical(classes="ui-action-view--steps")
        with Horizontal(classes="ui-action-view--buttons"):
            if self.is_task_steps:
                yield Button(Content("Confirm"), variant="success", compact=True, classes="ui-action-view--confirm")
                yield Button(Content("Reject"), variant="error", compact=True, classes="ui-action-view--reject")
            else:
                yield Button(Content("Run"), variant="success", compact=True, classes="ui-action-view--run")
                yield Button(Content("Decline"), variant="error", compact=True, classes="ui-action-view--decline")
        yield Static(classes="ui-action-view--status")

    def update_from_block(self) -> None:
        block = self.action
        self.query_one(".ui-action-view--title", Static).update(Content("▶ action: ") + agent_line(block.name))
        args = self.query_one(".ui-action-view--args", Static)
        if self.is_task_steps and block.arguments_complete:
            args.display = False
            self._show_steps(_steps(block.arguments))
        else:
            args.display = True
            args.update(revealed_text(pretty_json(block.arguments) if block.arguments_complete else reveal(block.arguments_text) or "…"))
        decision = block.decision
        waiting = decision is None and block.actionable
        self.set_class(waiting, "-waiting")
        self.set_class(decision is not None or block.expired, "-decided")
        for button in self.query(".ui-action-view--buttons > Button"):
            button.disabled = not waiting
        for checkbox in self.query(".ui-action-view--steps > MarkedCheckbox"):
            checkbox.disabled = not waiting
        status = self.query_one(".ui-action-view--status", Static)
        if decision is not None:
            text = Content(_OUTCOMES.get(decision.outcome, decision.outcome)) + Content(" by ") + agent_text(decision.who)
            if decision.error:
                text = text + Content(": ") + revealed_text(decision.error)
            elif decision.outcome == "completed" and decision.result is not None:
                # The result the agent was sent: it belongs on this card (a server's echo of it too).
                text = text + Content("\n  result: ") + agent_text(pretty_json(decision.result))
            status.update(text)
        elif block.expired:
            status.update(Content("◷ expired"))
        elif not block.arguments_complete:
            status.update(Content("… preparing"))
        else:
            status.update(Content("‖ waiting for you"))

    def selected_steps(self) -> list[JsonValue]:
        """The steps with status enabled/disabled from the checkboxes (each a description and a status)."""
        steps = self._shown_steps or []
        checkboxes = list(self.query(".ui-action-view--steps > MarkedCheckbox").results(MarkedCheckbox))
        return [
            {"description": step["description"], "status": "enabled" if box.value else "disabled"}
            for step, box in zip(steps, checkboxes)
        ]

    @on(Button.Pressed, ".ui-action-view--run")
    def _run(self, event: Button.Pressed) -> None:
        event.stop()
        if self.action.actionable:
            self.request_decision(Invoke())

    @on(Button.Pressed, ".ui-action-view--decline")
    def _decline(self, event: Button.Pressed) -> None:
        event.stop()
        if self.action.actionable:
            self.request_decision(Decline())

    @on(Button.Pressed, ".ui-action-view--confirm")
    def _confirm(self, event: Button.Pressed) -> None:
        event.stop()
        if self.action.actionable:
            self.request_decision(Invoke(arguments={"steps": self.selected_steps(), "accepted": True}))

    @on(Button.Pressed, ".ui-action-view--reject")
    def _reject(self, event: Button.Pressed) -> None:
        event.stop()
        if self.action.actionable:
            self.request_decision(Invoke(arguments={"accepted": False, "steps": []}))

    def _show_steps(self, steps: list[dict[str, str]]) -> None:
        """Build the checkboxes once per distinct steps list (keeps the human's ticks otherwise)."""
        if steps == self._shown_steps:
            return
        self._shown_steps = steps
        container = self.query_one(".ui-action-view--steps", Vertical)
        container.remove_children()
        container.mount_all(
            MarkedCheckbox(revealed_text(step["description"]), value=step["status"] != "disabled") for step in steps
        )
