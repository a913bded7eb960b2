"""The approval modal: approve, reject with a reason, or edit the arguments of a tool call."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual import events
from textual.widgets import Button, Input, Static, TextArea

from tandem.core.blocks.approval import ApprovalBlock
from tandem.core.blocks.decisions import Approve, Reject
from tandem.widgets.key_line import KeyLine
from tandem.widgets.sanitize import agent_line, pretty_json, revealed_text
from tandem.core.agent_json import loads_agent_json

__all__ = ["ApprovalModal", "ApprovalResult"]


@dataclass(frozen=True)
class ApprovalResult:
    """What the human chose in the approval modal (the modal's dismiss value)."""

    choice: Literal["approve", "reject", "later"]
    """approve, reject, or later (closed without deciding)."""
    edited_arguments: dict[str, Any] | None = None
    """The edited arguments when the human edited them (approve only)."""
    reason: str | None = None
    """The optional reason given with a reject."""

    @property
    def command(self) -> Approve | Reject | None:
        """The decision to apply to the block; None for later."""
        if self.choice == "approve":
            return Approve(edited_arguments=self.edited_arguments)
        if self.choice == "reject":
            return Reject(reason=self.reason or None)
        return None


class ApprovalModal(ModalScreen[ApprovalResult]):
    """Asks the human to approve a tool call: tool name, pretty arguments, the agent's message.

    Owns its inputs only; it never touches the block's decision methods. The result (an
    `ApprovalResult`) goes to the `push_screen` callback, and the app turns it into the block's
    decision on the engine thread. Focus starts on "Decide later" (the safe choice), and for
    `guard_seconds` after it opens every key and button press is ignored, so keys typed into the
    composer at that moment cannot decide it. UI thread only; call `refresh_block()` when the
    block changes (it closes itself as "later" once the block was decided elsewhere).
    """

    DEFAULT_CSS: ClassVar[str] = """
    ApprovalModal {
        align: center middle;
        & > #approval-modal--dialog {
            width: 90%;
            max-width: 100;
            height: auto;
            max-height: 90%;
            padding: 1 2;
            border: thick $warning;
            background: $surface;
        }
        & .approval-modal--title { text-style: bold; color: $text-warning; }
        & .approval-modal--message { margin: 1 0 0 0; }
        & .approval-modal--refused { margin: 1 0 0 0; color: $text-error; }
        & .approval-modal--args-box { height: auto; max-height: 12; margin: 1 0 0 0; background: $boost; }
        & .approval-modal--editor { height: 10; margin: 1 0 0 0; display: none; }
        & .approval-modal--error { color: $text-error; display: none; }
        & .approval-modal--reason { margin: 1 0 0 0; display: none; }
        & .approval-modal--buttons { height: auto; margin: 1 0 0 0; }
        & .approval-modal--buttons > Button { margin: 0 1 0 0; min-width: 12; }
        &.-editing .approval-modal--editor { display: block; }
        &.-editing .approval-modal--args-box { display: none; }
        &.-invalid .approval-modal--error { display: block; }
        &.-invalid .approval-modal--editor { border: tall $error; }
        &.-rejecting .approval-modal--reason { display: block; }
        & .approval-modal--guard { color: $text-muted; display: none; }
        &.-guarded .approval-modal--guard { display: block; }
        &.-guarded .approval-modal--buttons { text-opacity: 50%; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "approve", "Approve", id="tandem.approve"),
        Binding("ctrl+s", "approve", "Approve", show=False),
        Binding("r", "reject", "Reject", id="tandem.reject"),
        Binding("e", "edit", "Edit arguments", id="tandem.edit"),
        Binding("escape", "later", "Decide later", id="tandem.later"),
    ]
    """
    | Key(s) | Description |
    | :- | :- |
    | a | Approve (with the edited arguments when editing). |
    | ctrl+s | Approve while typing in the editor or the reason. |
    | r | Reject: shows the reason field; Enter in it rejects. |
    | e | Edit the arguments as JSON (when the request allows edits). |
    | escape | Close without deciding (decide later). |
    """

    AUTO_FOCUS = "#approval-modal--later"

    def __init__(
        self,
        block: ApprovalBlock,
        *,
        guard_seconds: float = 0.3,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """
        Args:
            block: The approval to decide.
            guard_seconds: How long after opening keys and presses are ignored (0 in tests).
        """
        super().__init__(name=name, id=id, classes=classes)
        self.block = block
        self.guard_seconds = guard_seconds
        """Keys and button presses in this many seconds after mounting are ignored."""
        self._opened_at: float | None = None

    def compose(self) -> ComposeResult:
        block = self.block
        with Vertical(id="approval-modal--dialog"):
            yield Static(Content("⚠ Run tool ") + agent_line(block.tool_name).stylize("bold") + Content("?"), classes="approval-modal--title")
            if block.message:
                yield Static(revealed_text(block.message), classes="approval-modal--message")
            if block.refused is not None:
                yield Static(Content("✗ the agent refused the last answer: ") + revealed_text(block.refused),
                             classes="approval-modal--refused")
            with VerticalScroll(classes="approval-modal--args-box"):
                if block.arguments_text is not None:
                    # Not a JSON object: what the agent sent, as it sent it, never `{}`.
                    yield Static(Content("⚠ the arguments are not valid JSON; as sent:"), classes="approval-modal--args-note")
                    yield Static(revealed_text(block.arguments_text), classes="approval-modal--args")
                else:
                    yield Static(revealed_text(pretty_json(block.arguments)), classes="approval-modal--args")
            shown = block.arguments_text if block.arguments_text is not None else pretty_json(block.arguments)
            yield TextArea(shown, classes="approval-modal--editor", soft_wrap=True, show_line_numbers=False)
            yield Static(classes="approval-modal--error")
            if block.allow_reason:  # (a server whose answer schema forbids a reason gets none)
                yield Input(placeholder="Reason (optional) — Enter rejects", classes="approval-modal--reason")
            yield Static(Content("◷ keys open in a moment (so that typing cannot decide this)"), classes="approval-modal--guard")
            with Horizontal(classes="approval-modal--buttons"):
                yield Button(Content("Approve (a)"), variant="success", id="approval-modal--approve")
                yield Button(Content("Reject (r)"), variant="error", id="approval-modal--reject")
                if block.allow_edits:
                    yield Button(Content("Edit (e)"), variant="primary", id="approval-modal--edit")
                yield Button(Content("Decide later (Esc)"), variant="default", id="approval-modal--later")
        # The modal's own keys over the main screen's footer (which says "esc Cancel").
        yield KeyLine()

    def on_mount(self) -> None:
        self._opened_at = time.monotonic()
        if self.guard_seconds > 0:
            # The guard is visible (dimmed buttons and a line) and a key it swallows rings the bell,
            # so that a fast "a" is never dropped without a sign.
            self.add_class("-guarded")
            self.set_timer(self.guard_seconds, self._guard_over)

    def _guard_over(self) -> None:
        self.remove_class("-guarded")
        self.refresh_bindings()

    def on_key(self, event: events.Key) -> None:
        if self.guarded and event.key in ("a", "r", "e", "escape", "enter", "space", "ctrl+s"):
            event.stop()
            self.app.bell()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("approve", "reject", "edit", "later") and self.guarded:
            return False
        if action == "edit" and not self.block.allow_edits:
            return None
        return True

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if self.guarded:
            self.app.bell()
            return
        actions = {
            "approval-modal--approve": self.action_approve,
            "approval-modal--reject": self.action_reject,
            "approval-modal--edit": self.action_edit,
            "approval-modal--later": self.action_later,
        }
        action = actions.get(event.button.id or "")
        if action is not None:
            action()

    @on(Input.Submitted, ".approval-modal--reason")
    def _reason_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if not self.guarded:
            self._reject()

    @on(TextArea.Changed, ".approval-modal--editor")
    def _editor_changed(self) -> None:
        self.remove_class("-invalid")

    def action_approve(self) -> None:
        """Approve; with the edited arguments when the editor is open (refused while invalid)."""
        edited: dict[str, Any] | None = None
        if self.has_class("-editing"):
            edited, problem = self._edited_arguments()
            if problem is not None:
                self.query_one(".approval-modal--error", Static).update(Content(problem))
                self.add_class("-invalid")
                self.query_one(TextArea).focus()
                return
            if edited == self.block.arguments:
                edited = None
        self.dismiss(ApprovalResult("approve", edited_arguments=edited))

    def action_reject(self) -> None:
        """First press asks for an optional reason; the second (or Enter in the field) rejects."""
        if self.has_class("-rejecting") or not self.block.allow_reason:
            self._reject()
            return
        self.add_class("-rejecting")
        self.query_one(".approval-modal--reason", Input).focus()

    def action_edit(self) -> None:
        """Open the JSON editor on the arguments."""
        if not self.block.allow_edits:
            return
        self.add_class("-editing")
        self.query_one(TextArea).focus()

    def action_later(self) -> None:
        """Close without deciding; the approval stays pending."""
        self.dismiss(ApprovalResult("later"))

    @property
    def guarded(self) -> bool:
        """Whether the modal opened less than `guard_seconds` ago (input is ignored)."""
        if self.guard_seconds <= 0:
            return False
        return self._opened_at is None or time.monotonic() - self._opened_at < self.guard_seconds

    def refresh_block(self) -> None:
        """Close as "later" when the block was decided elsewhere (cancel, another view, expiry)."""
        if not self.block.actionable and self.is_current:
            self.dismiss(ApprovalResult("later"))

    def _reject(self) -> None:
        fields = self.query(".approval-modal--reason").results(Input)
        reason = next((field.value.strip() for field in fields), "")
        self.dismiss(ApprovalResult("reject", reason=reason or None))

    def _edited_arguments(self) -> tuple[dict[str, Any] | None, str | None]:
        text = self.query_one(TextArea).text
        try:
            value = loads_agent_json(text)
        except ValueError as exc:
            return None, f"✗ not valid JSON: {exc}"
        if not isinstance(value, dict):
            return None, "✗ the arguments must be a JSON object"
        return value, None
