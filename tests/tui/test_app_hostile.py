"""Hostile agent and server data through the whole app (issue 12): it never crashes, never obeys."""

from __future__ import annotations

from typing import Any

from _tui_harness import Scripted, started, text, wait_for

from tandem.tui.app import TandemApp


def _toast_texts(app: TandemApp) -> list[str]:
    from textual.widgets._toast import Toast

    return [str(toast.render()) for toast in app.screen.query(Toast)]


class TestNotificationsArePlainText:
    """Item 2: a toast shows what it was given, literally; markup in it is neither parsed nor live."""

    async def test_click_markup_and_a_lone_bracket_are_shown_literally(self) -> None:
        script = Scripted([[text("hi")]])
        async with script.app().run_test(size=(100, 30), notifications=True) as pilot:
            app = await started(pilot)
            app.notify("[@click=app.quit]quit[/] and a lone [", title="[b]bold[/b] [")
            app.main.notify("a widget's [ too \x1b[31m")  # widgets and screens delegate to the app
            await wait_for(pilot, lambda: len(_toast_texts(app)) == 2, "both toasts")
            shown = "\n".join(_toast_texts(app))
            assert "[@click=app.quit]quit[/] and a lone [" in shown
            assert "[b]bold[/b] [" in shown
            assert "a widget's [ too [31m" in shown and "\x1b" not in shown
            # Clicking the toast where the would-be link is must not quit (it only dismisses).
            from textual.widgets._toast import Toast

            toast: Any = app.screen.query(Toast).first()
            await pilot.click(toast, offset=(2, 1))
            await pilot.pause()
            assert app.is_running
            assert app.return_code is None
