"""Decisions through the whole app: approvals (modal), UI actions, shared state proposals and edits."""

from __future__ import annotations

from typing import Any

from tests.helpers.app_harness import Scripted, approval, delta, send, snapshot, started, text, tool_call, wait_for

from tandem.core import ApprovalBlock, Status, UIActionBlock
from tandem.tui.app.composer import Composer
from tandem.widgets import ApprovalModal, ApprovalView, StatePanel, UIActionView


def _approval_script(**fields: Any) -> Scripted:
    request = approval("req-1", "delete_file", arguments={"path": "/tmp/a.txt"}, message="Delete this file?", **fields)
    return Scripted([[text("I need approval."), request], [text("Done.", message_id="m2")]])


def _approval_block(app: Any) -> ApprovalBlock:
    return next(b for b in app.conversation.all_blocks if isinstance(b, ApprovalBlock))


def _proposal_button(panel: StatePanel, which: str, proposal_id: str) -> Any:
    for button in panel.query(f".state-panel--{which}"):
        if getattr(button, "proposal_id", None) == proposal_id and not button._pruning:
            return button
    return None


class TestApprovals:
    async def test_the_modal_opens_and_a_approves(self) -> None:
        script = _approval_script()
        async with script.app().run_test(size=(100, 30)) as pilot:
            app = await started(pilot)
            await send(pilot, "delete it")
            await wait_for(pilot, lambda: isinstance(app.screen, ApprovalModal), "the approval modal")
            assert app.main.composer.reason is not None and "delete_file" in app.main.composer.reason
            await pilot.press("a")
            await wait_for(pilot, lambda: app.main.status is Status.IDLE, "the continued turn")
            block = _approval_block(app)
            assert block.decision is not None and block.decision.outcome == "approved" and block.decision.who == "ada"
            assert not isinstance(app.screen, ApprovalModal)
            assert app.main.composer.reason is None

    async def test_reject_with_a_reason(self) -> None:
        script = _approval_script()
        async with script.app().run_test(size=(100, 30)) as pilot:
            app = await started(pilot)
            await send(pilot, "delete it")
            await wait_for(pilot, lambda: isinstance(app.screen, ApprovalModal), "the approval modal")
            await pilot.press("r")
            await pilot.press(*"not that one", "enter")
            await wait_for(pilot, lambda: app.main.status is Status.IDLE, "the continued turn")
            decision = _approval_block(app).decision
            assert decision is not None and decision.outcome == "rejected" and decision.reason == "not that one"

    async def test_edit_arguments_then_approve(self) -> None:
        script = _approval_script(allow_edits=True)
        async with script.app().run_test(size=(100, 30)) as pilot:
            app = await started(pilot)
            await send(pilot, "delete it")
            await wait_for(pilot, lambda: isinstance(app.screen, ApprovalModal), "the approval modal")
            await pilot.press("e")
            editor = app.screen.query_one(".approval-modal--editor")
            editor.text = '{"path": "/tmp/b.txt"}'  # type: ignore[attr-defined]
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: app.main.status is Status.IDLE, "the continued turn")
            decision = _approval_block(app).decision
            assert decision is not None and decision.edited_arguments == {"path": "/tmp/b.txt"}

    async def test_escape_decides_later_and_review_reopens(self) -> None:
        script = _approval_script()
        async with script.app().run_test(size=(100, 30)) as pilot:
            app = await started(pilot)
            await send(pilot, "delete it")
            await wait_for(pilot, lambda: isinstance(app.screen, ApprovalModal), "the approval modal")
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, ApprovalModal), "the modal closed")
            assert app.main.status is Status.AWAITING_INPUT
            # Put off: the composer takes a draft meanwhile (sending it is still refused).
            await wait_for(pilot, lambda: not app.main.query_one(Composer).input.disabled, "the composer taking a draft")
            view = app.main.query_one(ApprovalView)
            view.query_one(".approval-view--review").press()  # type: ignore[attr-defined]
            await wait_for(pilot, lambda: isinstance(app.screen, ApprovalModal), "the modal again")
            await pilot.press("a")
            await wait_for(pilot, lambda: app.main.status is Status.IDLE, "the continued turn")

    async def test_several_approvals_are_asked_one_after_the_other(self) -> None:
        first = approval("req-1", "delete_file", arguments={"path": "a"})
        second = approval("req-2", "delete_file", arguments={"path": "b"})
        script = Scripted([[first, second], [text("both done", message_id="m2")]])
        async with script.app().run_test(size=(100, 30)) as pilot:
            app = await started(pilot)
            await send(pilot, "delete both")
            await wait_for(pilot, lambda: isinstance(app.screen, ApprovalModal), "the first modal")
            assert app.screen.block.request_id == "req-1"  # type: ignore[attr-defined]
            await pilot.press("a")
            await wait_for(pilot, lambda: isinstance(app.screen, ApprovalModal) and app.screen.block.request_id == "req-2", "the second modal")  # type: ignore[attr-defined]
            await pilot.press("r", "enter")
            await wait_for(pilot, lambda: app.main.status is Status.IDLE, "the continued turn")
            outcomes = [b.decision.outcome for b in app.conversation.all_blocks if isinstance(b, ApprovalBlock) and b.decision]
            assert outcomes == ["approved", "rejected"]


class TestUIActions:
    async def test_run_button_invokes_the_action_once(self) -> None:
        calls: list[dict[str, Any]] = []

        def highlight(arguments: dict[str, Any]) -> dict[str, Any]:
            calls.append(arguments)
            return {"ok": True}

        script = Scripted(
            [[tool_call("call-1", "highlight", {"word": "tandem"})], [text("highlighted", message_id="m2")]],
            ui_actions={"highlight": highlight},
        )
        async with script.app().run_test(size=(100, 30)) as pilot:
            app = await started(pilot)
            await send(pilot, "highlight it")
            await wait_for(pilot, lambda: bool(app.main.query(UIActionView)), "the action card")
            await wait_for(pilot, lambda: app.main.composer.reason is not None, "the composer waits")
            assert "highlight" in (app.main.composer.reason or "")
            app.main.query_one(UIActionView).query_one(".ui-action-view--run").press()  # type: ignore[attr-defined]
            await wait_for(pilot, lambda: app.main.status is Status.IDLE, "the continued turn")
            assert calls == [{"word": "tandem"}]
            block = next(b for b in app.conversation.all_blocks if isinstance(b, UIActionBlock))
            assert block.decision is not None and block.decision.outcome == "completed"


class TestSharedState:
    async def test_panel_shows_by_default_with_state_and_f2_toggles_it(self) -> None:
        script = Scripted([[snapshot({"title": "Soup"}), text("set")]])
        async with script.app().run_test(size=(120, 30)) as pilot:
            app = await started(pilot)
            panel = app.main.query_one(StatePanel)
            assert panel.has_class("-hidden")
            await send(pilot, "go")
            await wait_for(pilot, lambda: not panel.has_class("-hidden"), "the panel shown")
            await pilot.press("f2")
            assert panel.has_class("-hidden")
            await pilot.press("f2")
            assert not panel.has_class("-hidden")

    async def test_accept_and_reject_proposals_while_the_turn_waits(self) -> None:
        first = delta([{"op": "replace", "path": "/title", "value": "Stew"}], proposal_id="p1")
        second = delta([{"op": "replace", "path": "/servings", "value": 8}], proposal_id="p2")
        hold = approval("req-1", "save_recipe", arguments={})
        script = Scripted([[first, second, hold], [text("ok", message_id="m2")]], state={"title": "Soup", "servings": 2})
        async with script.app().run_test(size=(120, 30)) as pilot:
            app = await started(pilot)
            await send(pilot, "improve")
            await wait_for(pilot, lambda: isinstance(app.screen, ApprovalModal), "the approval")
            await pilot.press("escape")
            panel = app.main.query_one(StatePanel)
            await wait_for(pilot, lambda: bool(panel.query(".state-panel--accept")), "the proposal cards")
            _proposal_button(panel, "accept", "p1").press()
            await wait_for(pilot, lambda: app.context is not None and app.context.agent.state.committed["title"] == "Stew", "accepted")
            # The cards are remounted: wait until the old ones are gone and the new one is there.
            await wait_for(pilot, lambda: _proposal_button(panel, "accept", "p1") is None
                           and _proposal_button(panel, "reject", "p2") is not None, "the accepted card gone")
            _proposal_button(panel, "reject", "p2").press()
            await wait_for(pilot, lambda: app.context is not None and not app.context.agent.state.proposals, "rejected")
            assert app.context is not None and app.context.agent.state.committed == {"title": "Stew", "servings": 2}

    async def test_editing_a_field_commits_a_human_edit(self) -> None:
        script = Scripted([[text("hi")]], state={"title": "Soup"})
        async with script.app().run_test(size=(120, 30)) as pilot:
            app = await started(pilot)
            panel = app.main.query_one(StatePanel)
            await wait_for(pilot, lambda: not panel.has_class("-hidden"), "the panel")
            panel.post_message(StatePanel.EditRequested(panel, [{"op": "replace", "path": "/title", "value": "Stew"}]))
            await wait_for(pilot, lambda: app.context is not None and app.context.agent.state.committed == {"title": "Stew"}, "the edit")
            writes = [e for e in app.context.thread.entries() if getattr(e, "entry", "") == "human_write"]  # type: ignore[union-attr]
            assert writes
