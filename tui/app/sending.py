"""What the person types, on its way to the conversation, and where the cursor goes while the agent waits."""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

from textual import work
from textual.app import App

from tandem.tui.app.attention import need_of
from tandem.tui.app.composer import Composer, waiting_reason

if TYPE_CHECKING:
    from tandem.core.blocks import Block
    from tandem.core.context import AgentContext
    from tandem.tui.app.approvals import ApprovalQueue
    from tandem.tui.app.attention import Attention
    from tandem.tui.app.bridge import Bridge
    from tandem.tui.app.screens.main_screen import MainScreen

__all__ = ["READY_WAIT_SECONDS", "Sending"]

READY_WAIT_SECONDS = 30.0
"""How long a message typed before the conversation is ready waits for it (start-up imports the
runtime and may restore a long thread; a failed start gives the message back at once)."""


class Sending(App[None]):
    """Sends what the composer posts (or queues it while a turn runs) and moves the cursor into
    the form the agent waits on.

    Mixed into `TandemApp`; reads the app's attributes annotated below, owns none. A message
    typed before the conversation is ready waits for it and is never dropped: if it cannot be
    sent, it goes back into the composer.
    """

    context: AgentContext | None
    bridge: Bridge
    approvals: ApprovalQueue
    attention: Attention
    ready: asyncio.Event
    _main: MainScreen | None
    _startup_failed: bool

    if TYPE_CHECKING:

        @property
        def main(self) -> MainScreen: ...

    def on_composer_sent(self, message: Composer.Sent) -> None:
        message.stop()
        self._send(message.text)

    @work(exit_on_error=False, group="send")
    async def _send(self, text: str) -> None:
        from tandem.core.errors import TandemError
        from tandem.widgets.sanitize import sanitize

        # Typed while the conversation starts (or another thread opens): it goes once ready.
        context = self.context if self.ready.is_set() else await self._wait_until_ready()
        if context is None:
            composer = self.main.composer
            if not composer.input.text:
                composer.input.insert(text)  # not lost: back where it was typed
            self.notify("The conversation is not ready, so the message was not sent; it is back in the composer",
                        severity="warning", markup=False)
            return

        async def send_or_queue() -> int:
            if context.busy:
                context.queue(text)
                return len(context.queued)
            await context.send(text)
            return 0

        try:
            queued = await self.bridge.run_on_engine(send_or_queue)
        except TandemError as exc:
            self.notify(sanitize(str(exc)), title="Not sent", severity="warning", markup=False)
            return
        self.main.composer.queued = queued

    async def _wait_until_ready(self) -> AgentContext | None:
        """The conversation once it is ready; None if its start failed or it took too long."""
        for _ in range(int(READY_WAIT_SECONDS / 0.1)):
            if self.ready.is_set() or self._startup_failed:
                break
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(0.1):
                    await self.ready.wait()
        return self.context if self.ready.is_set() else None

    def _update_waiting(self) -> None:
        from tandem.core.turns import Status

        context = self.context
        if context is None:
            return
        self.main.composer.queued = len(context.queued)
        if context.status is not Status.AWAITING_INPUT:
            self.main.set_waiting(None)
            self.attention.update(None)
            return
        pending = context.pending_blocks
        # The terminal's title and the bell: an approval, question or action waits on the person.
        self.attention.update(need_of(pending) if pending else None)
        self.main.set_waiting(waiting_reason(pending))
        self.call_after_refresh(self._focus_waiting_form, pending)

    def _focus_waiting_form(self, pending: list[Block], attempts: int = 50) -> None:
        """Put the cursor in the form the agent waits on, if the composer's disabling left it nowhere.

        Approvals have their modal; an input request or UI action is answered inline, and without
        this the keys a person types after the question appears go nowhere. Only a field takes
        the cursor, never a button (a UI action of Run/Decline alone keeps none). A form whose fields
        are still being mounted (its view, or the view's children, mount over the next frames) is
        tried again after each refresh, `attempts` times at most.
        """
        from textual.widgets import Button

        from tandem.core.blocks import ApprovalBlock
        from tandem.widgets.schema_form import SchemaForm

        main = self._main
        if main is None or self.screen is not main:
            return
        focused = main.focused
        composer = main.composer
        if focused is not None and focused is not composer.input and focused is not composer.moved_focus_to:
            return  # the person is working somewhere on purpose
        for block in pending:
            if isinstance(block, ApprovalBlock) or not getattr(block, "actionable", False):
                continue
            view = self.main.conversation.view_of(block)
            if view is None or not view.is_mounted:
                # Its view is still being mounted (a loaded machine: the status came first).
                if attempts > 1:
                    self.call_after_refresh(self._focus_waiting_form, pending, attempts - 1)
                    return
                continue
            if attempts > 1 and any(form.composing for form in view.query(SchemaForm)):
                # Its submit button may be focusable already; the first field is where typing goes.
                self.call_after_refresh(self._focus_waiting_form, pending, attempts - 1)
                return
            # Never a button: the Enter that ends what the person was typing would press it
            # (run a UI action, submit a form) without their having read the question.
            targets = [w for w in view.query("*") if w.focusable and not isinstance(w, Button)]
            if targets:
                targets[0].focus()
                return

    def pending_decisions(self) -> list[Block]:
        """The interactive blocks the agent waits on (empty before the conversation is ready)."""
        context = self.context
        return list(context.pending_blocks) if context is not None else []

    def action_go_to_decision(self) -> None:
        """Reach the decision the agent waits on from anywhere (F4, or the command palette).

        An approval reopens its modal; a question, UI action or form is scrolled into view and
        its first control takes the cursor (a button too: the person asked to go there).
        """
        from tandem.core.blocks import ApprovalBlock

        pending = self.pending_decisions()
        if not pending:
            self.notify("Nothing is waiting for your decision.", title="Decide", markup=False)
            return
        block = pending[0]
        if isinstance(block, ApprovalBlock):
            self.approvals.review(block)
            return
        # Wherever it is: a question asked early in a long answer is far above the mounted views.
        # The cursor goes there once the view is laid out and scrolled into view.
        self.main.conversation.reveal(block, then=lambda _view: self._focus_decision_view(block))

    def _focus_decision_view(self, block: Block, attempts: int = 20) -> None:
        view = self.main.conversation.view_of(block)
        if view is None:
            return
        targets = [widget for widget in view.query("*") if widget.focusable]
        if not targets and attempts > 1:
            # Just mounted (`reveal`): its form's fields come over the next frames.
            self.call_after_refresh(self._focus_decision_view, block, attempts - 1)
            return
        view.scroll_visible(animate=False)
        if targets:
            targets[0].focus()

    def focus_review_button(self, block: Block) -> None:
        """After "Decide later", put the cursor on the approval's Review button (Enter reopens it).

        Without this nothing has focus (the composer is disabled while the agent waits) and
        what the person types next goes nowhere.
        """
        view = self.main.conversation.view_of(block)
        if view is None:
            return
        for button in view.query(".approval-view--review"):
            if button.focusable:
                view.scroll_visible(animate=False)
                # On the main screen, not the app: the modal may still be on top while it closes,
                # and the screen gives its remembered focus back when it resumes.
                self.main.set_focus(button)
                return
