"""Where the keyboard goes: after an approval, and when leaving the state panel.

Both were found by hand in tmux: after approving in the modal, focus sat in the state panel
(even a hidden one) so typed text went nowhere; Tab out of the panel's tree stopped on the
panel's own scroll area, which shows no focus.
"""

from __future__ import annotations

from typing import Any

from tests.helpers.app_harness import Scripted, approval, send, snapshot, started, text, tool_call, wait_for

from tandem.core import ApprovalBlock, Status
from textual.widgets import Button, Tree
from tandem.widgets import ApprovalModal

SIZE = (120, 40)


def _approval_script(state: Any = None) -> Scripted:
    request = approval("req-1", "delete_file", arguments={"path": "/tmp/a.txt"})
    return Scripted([[text("I need approval."), request], [text("Done.", message_id="m2")]], state=state)


class TestFocusAfterApproving:
    async def test_the_composer_takes_focus_back_and_typed_text_lands_there(self) -> None:
        for state in (None, {"file": "/tmp/a.txt"}):  # panel hidden, then shown with a tree
            script = _approval_script(state)
            async with script.app().run_test(size=SIZE) as pilot:
                app = await started(pilot)
                await send(pilot, "delete it")
                await wait_for(pilot, lambda: isinstance(app.screen, ApprovalModal), "the approval modal")  # noqa: B023 (awaited in this iteration)
                await pilot.press("a")
                await wait_for(pilot, lambda: app.main.status is Status.IDLE, "the continued turn")  # noqa: B023 (awaited in this iteration)
                await pilot.pause()
                assert app.focused is app.main.composer.input, state
                await pilot.press(*"thanks")
                assert app.main.composer.input.text == "thanks"

    async def test_focus_moved_on_purpose_while_waiting_stays_where_it_was_put(self) -> None:
        script = _approval_script({"file": "/tmp/a.txt"})
        async with script.app().run_test(size=SIZE) as pilot:
            app = await started(pilot)
            await send(pilot, "delete it")
            await wait_for(pilot, lambda: isinstance(app.screen, ApprovalModal), "the approval modal")
            await pilot.press("escape")  # decide later
            await wait_for(pilot, lambda: not isinstance(app.screen, ApprovalModal), "the modal closed")
            tree = app.main.state_panel.query_one(Tree)
            tree.focus()  # the person goes to the panel while the approval waits
            await pilot.pause()
            assert app.focused is tree
            block = next(b for b in app.conversation.all_blocks if isinstance(b, ApprovalBlock))
            await app.bridge.run_on_engine(lambda: block.approve())  # decided elsewhere (another client)
            await wait_for(pilot, lambda: app.main.status is Status.IDLE, "the continued turn")
            await pilot.pause()
            assert app.focused is tree


class TestLeavingTheStatePanel:
    async def test_tab_from_the_tree_goes_to_the_composer(self) -> None:
        script = Scripted([[snapshot({"title": "Soup", "servings": 2}), text("ok")]])
        async with script.app().run_test(size=SIZE) as pilot:
            app = await started(pilot)
            await send(pilot, "go")
            await wait_for(pilot, lambda: app.main.status is Status.IDLE and app.main.panel_visible, "the panel")
            panel, tree = app.main.state_panel, app.main.state_panel.query_one(Tree)
            # The panel's scroll area is no stop of its own (it shows no focus): only the tree is.
            assert [widget for widget in app.main.focus_chain if panel in widget.ancestors] == [tree]
            tree.focus()
            await pilot.press("down", "tab")
            assert app.focused is app.main.composer.input
            await pilot.press("shift+tab")
            assert app.focused is tree
            await pilot.press(*"x")  # keys in the tree stay there (no edit started by a letter)
            await pilot.press("tab")
            assert app.focused is app.main.composer.input

    async def test_hiding_the_panel_gives_its_focus_to_the_composer(self) -> None:
        script = Scripted([[snapshot({"title": "Soup"}), text("ok")]])
        async with script.app().run_test(size=SIZE) as pilot:
            app = await started(pilot)
            await send(pilot, "go")
            await wait_for(pilot, lambda: app.main.status is Status.IDLE and app.main.panel_visible, "the panel")
            app.main.state_panel.query_one(Tree).focus()
            await pilot.press("f2")
            assert not app.main.panel_visible
            assert app.focused is app.main.composer.input


class TestWhileAUIActionWaits:
    async def test_typing_on_and_pressing_enter_does_not_run_it(self) -> None:
        """Found in tmux: the cursor was put on the card's Run button, so the Enter that ended
        the next message ran the action (here: switched the theme) unread."""
        ran: list[Any] = []
        script = Scripted(
            [[tool_call("c1", "change_theme", {"theme": "light"})], [text("Switched.", message_id="m2")]],
            ui_actions={"change_theme": lambda arguments: ran.append(arguments) or {"applied": True}},
        )
        async with script.app().run_test(size=SIZE) as pilot:
            app = await started(pilot)
            await send(pilot, "go light")
            await wait_for(pilot, lambda: app.main.status is Status.AWAITING_INPUT, "the UI action waits")
            await pilot.pause(0.2)
            assert not isinstance(app.focused, Button)
            await pilot.press(*"and also", "enter")
            await pilot.pause(0.2)
            assert ran == [] and app.main.status is Status.AWAITING_INPUT
