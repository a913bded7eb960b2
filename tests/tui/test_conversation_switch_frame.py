"""A switch of conversations paints once, the other conversation laid out: no frame in between
shows the emptied conversation (its welcome, a "starting" status) while the engine hands over."""

from __future__ import annotations

from typing import Any

from tests.helpers.app_harness import Scripted, send, shown_text, started, text
from tests.helpers.waits import wait_for

SIZE = (100, 30)


async def test_no_frame_goes_out_between_leaving_one_conversation_and_showing_the_other() -> None:
    script = Scripted([[text("Hello from one.", message_id="m1")], [text("Hello from two.", message_id="m2")]])
    app = script.app()
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await send(pilot, "hi")
        await wait_for(pilot, lambda: "Hello from one." in shown_text(app), "the first answer")
        first = app.session
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: app.session is not first and app.ready.is_set(), "the second conversation")
        await send(pilot, "hi")
        await wait_for(pilot, lambda: "Hello from two." in shown_text(app), "the second answer")

        held: list[tuple[str, bool]] = []
        main = app.main
        clear, show = main.conversation.clear, first.show

        def clear_held() -> None:
            held.append(("clear", main.frames_held))
            clear()

        async def show_held() -> Any:
            held.append(("show", main.frames_held))
            await show()
            held.append(("shown", main.frames_held))

        main.conversation.clear = clear_held  # type: ignore[method-assign]
        first.show = show_held  # type: ignore[method-assign]
        await pilot.press("alt+1")
        await wait_for(pilot, lambda: app.session is first and "Hello from one." in shown_text(app), "conversation 1")
        assert held == [("clear", True), ("show", True), ("shown", True)]
        # Released once the shown conversation's views are mounted: frames go out again.
        await wait_for(pilot, lambda: not main.frames_held, "the frames released")
        assert "Hello from two." not in shown_text(app)
