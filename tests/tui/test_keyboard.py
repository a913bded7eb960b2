"""The keyboard reaches everything: scrolling from the composer, F6, newline keys, the pending decision,
and where the cursor goes after a decision (issue 14, items 2, 3, 4 and 7)."""

from __future__ import annotations

from typing import Any

import pytest
from textual import events

from tests.helpers.app_harness import Scripted, approval, interrupt, send, started, text, wait_for

from tandem.core import Status
from tandem.core.blocks import ApprovalBlock, InterruptBlock, TextBlock
from tandem.tui.app.composer import ComposerInput
from tandem.tui.app.conversation import ConversationScroll
from tandem.widgets import ApprovalModal

LONG_ANSWER = "".join(f"paragraph {n}\n\n" for n in range(120))


def _pending(app: Any, kind: type) -> Any:
    context = app.context
    assert context is not None
    return next(block for block in context.blocks if isinstance(block, kind))


async def _followed_long_answer(pilot: Any) -> tuple[Any, ConversationScroll, float]:
    """Send, then wait until a long answer is shown and followed to its end: (app, scroller, bottom)."""
    app = await started(pilot)
    await send(pilot, "go")
    scroller = app.conversation.scroller
    await wait_for(pilot, lambda: scroller.max_scroll_y > 40 and scroller.scroll_y == scroller.max_scroll_y, "the end followed")
    await app.workers.wait_for_complete()  # the answer is built chunk by chunk: all of it, then its end
    await wait_for(pilot, lambda: scroller.scroll_y == scroller.max_scroll_y, "the end of the whole answer")
    return app, scroller, scroller.scroll_y


class TestScrollingFromTheComposer:
    async def test_page_up_in_the_empty_composer_scrolls_the_conversation(self) -> None:
        script = Scripted([[text(LONG_ANSWER)]])
        async with script.app().run_test(size=(80, 24)) as pilot:
            app, scroller, bottom = await _followed_long_answer(pilot)
            assert isinstance(app.focused, ComposerInput)
            await pilot.press("pageup")
            await wait_for(pilot, lambda: scroller.scroll_y < bottom, "a page up")
            assert isinstance(app.focused, ComposerInput)  # the composer keeps the cursor
            await pilot.press("home")
            await wait_for(pilot, lambda: scroller.scroll_y == 0, "the top")
            await pilot.press("end")
            await wait_for(pilot, lambda: app.conversation.following, "following the stream again")

    async def test_with_text_in_the_composer_page_up_stays_in_it(self) -> None:
        script = Scripted([[text(LONG_ANSWER)]])
        async with script.app().run_test(size=(80, 24)) as pilot:
            app, scroller, bottom = await _followed_long_answer(pilot)
            await pilot.press("h", "i", "pageup")
            await pilot.pause()
            assert scroller.scroll_y == bottom and app.main.composer.input.text == "hi"

    async def test_ctrl_end_follows_again_from_the_composer_holding_text(self) -> None:
        """The "new content below · End (ctrl+end) follows again" line's promise, from the composer."""
        script = Scripted([[text(LONG_ANSWER)]])
        async with script.app().run_test(size=(80, 24)) as pilot:
            app, scroller, bottom = await _followed_long_answer(pilot)
            await pilot.press("home")
            await wait_for(pilot, lambda: scroller.scroll_y == 0 and not app.conversation.following, "the top, not following")
            await pilot.press("h", "i", "ctrl+end")
            await wait_for(pilot, lambda: app.conversation.following and scroller.scroll_y == scroller.max_scroll_y,
                           "following the stream again")
            assert isinstance(app.focused, ComposerInput) and app.main.composer.input.text == "hi"

    async def test_f6_moves_focus_to_the_conversation(self) -> None:
        script = Scripted([[text("hello")]])
        async with script.app().run_test(size=(80, 24)) as pilot:
            app = await started(pilot)
            assert isinstance(app.focused, ComposerInput)
            await pilot.press("f6")
            assert isinstance(app.focused, ConversationScroll)


class TestNewlineKeys:
    async def test_ctrl_j_and_alt_enter_insert_a_newline_and_enter_sends(self) -> None:
        script = Scripted([[text("ok")]])
        async with script.app().run_test(size=(80, 24)) as pilot:
            app = await started(pilot)
            await pilot.press("a", "ctrl+j", "b", "alt+enter", "c")
            assert app.main.composer.input.text == "a\nb\nc"
            await pilot.press("enter")
            await wait_for(pilot, lambda: app.main.composer.input.text == "", "the message sent")

    async def test_keys_read_together_after_enter_are_the_next_message(self) -> None:
        # Over SSH "a" Enter "b" Enter can come in one read: the keys were handed to the input
        # before the composer cleared it for the first send, and "a" then "ab" were sent.
        script = Scripted([[text("one", message_id="m1")], [text("two", message_id="m2")]])
        async with script.app().run_test(size=(80, 24)) as pilot:
            app = await started(pilot)
            for key, character in [("a", "a"), ("enter", "\r"), ("b", "b"), ("enter", "\r")]:
                app.post_message(events.Key(key, character))  # posted at once, as one read is
            await wait_for(pilot, lambda: app.context is not None and len(app.context.turns) == 2
                           and app.context.status is Status.IDLE, "both messages sent")
            assert app.context is not None
            sent = [block.text for block in app.context.blocks if isinstance(block, TextBlock) and block.role == "user"]
            assert sent == ["a", "b"] and app.main.composer.input.text == ""

    async def test_the_hint_promises_only_keys_every_terminal_sends(self) -> None:
        script = Scripted([[text("ok")]])
        async with script.app().run_test(size=(80, 24)) as pilot:
            app = await started(pilot)
            hint = str(app.main.composer.input.placeholder)
            assert "Ctrl+J" in hint and "Shift+Enter" not in hint and "Alt+Enter" not in hint


def _approval_script() -> Scripted:
    request = approval("req-1", "delete_file", arguments={"path": "/tmp/a.txt"}, message="Delete this file?")
    return Scripted([[text("I need approval."), request], [text("Done.", message_id="m2")]])


async def _approval_asked(pilot: Any) -> None:
    """Send the approval script's message and wait for its modal."""
    app = await started(pilot)
    await send(pilot, "delete it")
    await wait_for(pilot, lambda: isinstance(app.screen, ApprovalModal), "the approval modal")


class TestThePendingDecision:
    async def test_decide_later_leaves_the_cursor_on_review_and_enter_reopens(self) -> None:
        app = _approval_script().app(approval_guard_seconds=0)
        async with app.run_test(size=(100, 30)) as pilot:
            await _approval_asked(pilot)
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.focused is not None and app.focused.has_class("approval-view--review"),
                           "the cursor on Review…")
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, ApprovalModal), "the modal again")
            await pilot.press("a")
            await wait_for(pilot, lambda: _pending(app, ApprovalBlock).decision is not None, "the approval")
            await wait_for(pilot, lambda: isinstance(app.focused, ComposerInput), "the cursor back in the composer")
            await pilot.press("o", "k")
            assert app.main.composer.input.text == "ok"

    async def test_typing_right_after_decide_later_reaches_the_composer(self) -> None:
        """After "Decide later" the cursor is on Review… (Enter reopens), and the text typed next
        goes to the composer as a draft: it was lost on the button, the composer disabled."""
        app = _approval_script().app(approval_guard_seconds=0)
        async with app.run_test(size=(100, 30)) as pilot:
            await _approval_asked(pilot)
            await pilot.press("escape", *"why?")  # at once, as a person types on
            await wait_for(pilot, lambda: app.main.composer.input.text == "why?", "the keys in the composer")
            assert isinstance(app.focused, ComposerInput) and not isinstance(app.screen, ApprovalModal)
            assert app.main.status is Status.AWAITING_INPUT
            await pilot.press("enter")  # refused while the agent waits: the draft stays
            assert app.main.composer.input.text == "why?" and app.main.status is Status.AWAITING_INPUT
            await pilot.press("f4")
            await wait_for(pilot, lambda: isinstance(app.screen, ApprovalModal), "the modal again (F4)")
            await pilot.press("a")
            await wait_for(pilot, lambda: app.main.status is Status.IDLE, "the continued turn")
            await wait_for(pilot, lambda: isinstance(app.focused, ComposerInput), "the cursor back in the composer")
            await pilot.press("!")
            assert app.main.composer.input.text == "why?!"

    async def test_typing_right_after_approving_reaches_the_composer_while_the_engine_catches_up(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """The composer is disabled while the agent waits and enabled when the engine has the
        decision: keys typed in between (a loaded machine, a slow engine) went nowhere."""
        import threading

        from tandem.tui.app.composer import Composer

        monkeypatch.setattr(Composer, "FOCUS_PROMISE_SECONDS", 30.0)  # the mechanism, not its bound, on a loaded machine
        app = _approval_script().app(approval_guard_seconds=0)
        async with app.run_test(size=(100, 30)) as pilot:
            await _approval_asked(pilot)
            busy, go_on = threading.Event(), threading.Event()

            def slow_engine() -> None:
                busy.set()
                go_on.wait(10)  # the engine thread is busy: the decision waits behind this

            app.engine.loop.call_soon_threadsafe(slow_engine)
            busy.wait(5)
            try:
                await pilot.press("a", "o", "k")
                assert app.main.composer.input.disabled  # the engine has not taken the decision yet
            finally:
                go_on.set()
            await wait_for(pilot, lambda: app.main.composer.input.text == "ok", "the keys in the composer")
            assert isinstance(app.focused, ComposerInput)

    async def test_f4_reopens_the_approval_from_anywhere(self) -> None:
        app = _approval_script().app(approval_guard_seconds=0)
        async with app.run_test(size=(100, 30)) as pilot:
            await _approval_asked(pilot)
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, ApprovalModal), "the modal closed")
            await pilot.press("f6")  # somewhere else entirely
            await pilot.press("f4")
            await wait_for(pilot, lambda: isinstance(app.screen, ApprovalModal), "the modal reopened by F4")

    async def test_f4_puts_the_cursor_in_the_question(self) -> None:
        schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
        script = Scripted([[text("Which city?"), interrupt("q-1", schema, message="Which city?")], [text("Thanks.", message_id="m2")]])
        app = script.app()
        async with app.run_test(size=(100, 30)) as pilot:
            await started(pilot)
            await send(pilot, "weather")
            await wait_for(pilot, lambda: any(isinstance(b, InterruptBlock) for b in app.context.blocks), "the question")
            # Shown first (the engine has it before the UI does: F4 earlier rightly finds nothing).
            await wait_for(pilot, lambda: app.conversation.view_of(_pending(app, InterruptBlock)) is not None, "the question shown")
            await pilot.press("f6")
            await pilot.press("f4")
            view = app.conversation.view_of(_pending(app, InterruptBlock))
            await wait_for(pilot, lambda: app.focused is not None and view in app.focused.ancestors, "the cursor in the question")

    async def test_f4_with_nothing_pending_says_so(self) -> None:
        script = Scripted([[text("hello")]])
        app = script.app()
        async with app.run_test(size=(80, 24)) as pilot:
            await started(pilot)
            await send(pilot, "hi")
            await pilot.pause()
            app.action_go_to_decision()
            await pilot.pause()
            assert any("Nothing is waiting" in str(n.message) for n in app._notifications)


class TestTheApprovalModal:
    async def test_the_guard_is_visible_and_a_swallowed_key_rings(self) -> None:
        app = _approval_script().app(approval_guard_seconds=5)
        bells: list[None] = []
        app.bell = lambda: bells.append(None)  # type: ignore[method-assign]
        async with app.run_test(size=(100, 30)) as pilot:
            await _approval_asked(pilot)
            modal = app.screen
            # The guard starts when the modal is mounted, which may be a moment after it is pushed.
            await wait_for(pilot, lambda: modal.has_class("-guarded"), "the modal's guard")
            assert modal.query_one(".approval-modal--guard").display
            await pilot.press("a")
            assert bells and _pending(app, ApprovalBlock).decision is None

    @pytest.mark.parametrize("theme", ["dark", "light", "high-contrast"])
    async def test_the_guarded_modal_stays_legible_in_sixteen_colours(self, theme: str) -> None:
        """While the guard holds, the dialog's letters differ from their background once mapped to
        the 16 ANSI colours (as Rich maps them for such a terminal): dimmed by blending, a label
        can land on its own background's colour."""
        from rich.color import ColorSystem

        app = _approval_script().app(approval_guard_seconds=60, theme=theme)
        async with app.run_test(size=(100, 30)) as pilot:
            app.add_class("-sixteen-colours")  # what a 16-colour terminal gets (headless never does)
            await _approval_asked(pilot)
            modal = app.screen
            await wait_for(pilot, lambda: modal.has_class("-guarded"), "the modal's guard")
            await pilot.pause()
            dialog = modal.query_one("#approval-modal--dialog").region
            hidden: list[str] = []
            for y, strip in enumerate(modal._compositor.render_strips()):
                if not dialog.y <= y < dialog.bottom:
                    continue
                x = 0
                for segment in strip:
                    style, text = segment.style, segment.text
                    inside = dialog.x <= x and x + len(text) <= dialog.right
                    x += len(text)
                    if not inside or style is None or not any(c.isalnum() for c in text):
                        continue
                    front, back = style.color, style.bgcolor
                    if style.reverse:
                        front, back = back, front
                    if front is None or back is None:
                        continue
                    if front.downgrade(ColorSystem.STANDARD) == back.downgrade(ColorSystem.STANDARD):
                        hidden.append(f"row {y}: {text.strip()!r} {front.name} on {back.name}")
            assert hidden == []

    async def test_the_guard_ends_and_the_modal_keys_work(self) -> None:
        app = _approval_script().app(approval_guard_seconds=0.05)
        async with app.run_test(size=(100, 30)) as pilot:
            await _approval_asked(pilot)
            modal = app.screen
            # `guarded` holds until the modal is mounted (a moment after it is pushed), and the class
            # is only added then: waiting for the class alone can end before the guard began.
            await wait_for(pilot, lambda: not modal.guarded and not modal.has_class("-guarded"), "the guard over")
            await pilot.press("a")
            await wait_for(pilot, lambda: _pending(app, ApprovalBlock).decision is not None, "approved")


    async def test_the_footer_says_what_the_modal_keys_do(self) -> None:
        from textual.widgets import Footer

        from tandem.widgets.key_line import KeyLine

        app = _approval_script().app(approval_guard_seconds=0)
        async with app.run_test(size=(100, 30)) as pilot:
            await _approval_asked(pilot)
            modal = app.screen
            line = modal.query_one(KeyLine)
            await wait_for(pilot, lambda: line.region.y == 29 and line.region.width == 100, "a line over the main footer")
            await wait_for(pilot, lambda: "esc Decide later" in str(line.render()), "the modal's keys")
            shown = str(line.render())
            assert "a Approve" in shown and "r Reject" in shown and "Cancel" not in shown
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, ApprovalModal), "the modal closed")
            assert not app.screen.query(KeyLine) and app.screen.query(Footer)  # the main footer again


async def test_the_palette_offers_the_pending_decision() -> None:
    app = _approval_script().app(approval_guard_seconds=0)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        titles = [command.title for command in app.get_system_commands(app.screen)]
        assert "Go to the pending decision" in titles
