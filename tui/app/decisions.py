"""What widgets ask of the conversation: decisions, retry, proposals, state edits, cancelling a turn."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import App

if TYPE_CHECKING:
    from tandem.core.blocks import Block, DecisionCommand
    from tandem.core.context import AgentContext
    from tandem.tui.app.approvals import ApprovalQueue
    from tandem.tui.app.bridge import Bridge
    from tandem.tui.app.screens.main_screen import MainScreen
    from tandem.widgets import ApprovalView, BlockView, ErrorView, StateConflictView, StatePanel

__all__ = ["Decisions"]


class Decisions(App[None]):
    """Carries the human's decisions from the widgets' messages to the engine.

    Mixed into `TandemApp`; reads the app's attributes annotated below, owns none. UI thread:
    each call runs in a worker that awaits the engine through the bridge (never blocking the UI)
    and turns a refusal (`TandemError`) into a warning instead of a crash.
    """

    context: AgentContext | None
    bridge: Bridge
    approvals: ApprovalQueue

    if TYPE_CHECKING:

        @property
        def main(self) -> MainScreen: ...

    def on_block_view_decision_requested(self, message: BlockView.DecisionRequested) -> None:
        message.stop()
        self._decide(message.block, message.command)
        # What the person types next goes to the composer, not to the first focusable widget
        # Textual picks when the decided form's controls are disabled.
        self.main.composer.take_focus_when_ready()

    def on_error_view_retry_requested(self, message: ErrorView.RetryRequested) -> None:
        message.stop()
        self._run_on_engine(lambda context: context.retry(), "Retry failed")

    def on_state_panel_proposal_decided(self, message: StatePanel.ProposalDecided) -> None:
        message.stop()
        proposal_id, accept = message.proposal_id, message.accept
        self._run_on_engine(
            lambda context: context.agent.state.accept(proposal_id) if accept else context.agent.state.reject(proposal_id),
            "Could not apply your decision on the proposal",
        )

    def on_state_panel_edit_requested(self, message: StatePanel.EditRequested) -> None:
        message.stop()
        patch = message.patch
        self._run_on_engine(lambda context: context.agent.state.edit(patch), "Could not edit the state")

    def on_state_conflict_view_resolved(self, message: StateConflictView.Resolved) -> None:
        message.stop()
        conflict_id, resolution, value = message.conflict_id, message.resolution, message.value
        self._run_on_engine(
            lambda context: context.agent.state.resolve_conflict(conflict_id, resolution, value),
            "Could not settle the conflict",
        )

    def on_approval_view_review_requested(self, message: ApprovalView.ReviewRequested) -> None:
        message.stop()
        self.approvals.review(message.block)

    @work(exit_on_error=False, group="decisions")
    async def _decide(self, block: Block, command: DecisionCommand) -> None:
        from tandem.core.errors import TandemError
        from tandem.widgets.sanitize import sanitize

        try:
            await asyncio.wrap_future(self.bridge.decide(block, command))
        except TandemError as exc:
            self.notify(sanitize(str(exc)), title="Not applied", severity="warning", markup=False)

    @work(exit_on_error=False, group="engine-calls")
    async def _run_on_engine(self, call: Callable[[AgentContext], Any], failure: str) -> Any:
        from tandem.core.errors import TandemError
        from tandem.widgets.sanitize import sanitize

        context = self.context
        if context is None:
            self.notify("The conversation is not ready yet", severity="warning", markup=False)
            return None
        try:
            return await self.bridge.run_on_engine(lambda: call(context))
        except (TandemError, KeyError) as exc:
            self.notify(sanitize(str(exc)), title=failure, severity="warning", markup=False)
            return None

    def action_cancel_turn(self) -> None:
        self.bridge.expect_status()  # "stopped" at the next frame, not at the stream's pace
        self._run_on_engine(lambda context: context.cancel(), "Could not cancel")
