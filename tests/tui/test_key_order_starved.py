"""Keys typed ahead keep their order when the UI loop is starved (`tui.app.key_order`).

The type-ahead tmux test lost `thanks` (typed with Enter on a form's Book button, in one read) 3
runs in 6 on a machine at load 11: the keys behind Enter waited for focus to move for at most
`HOLD_LIMIT` seconds of wall time, and one pass of a starved loop took longer than that, so they
went to the button before the message that moves focus had been handled. Here one handler on the
way blocks the loop for longer than the limit, which is what starvation looks like from inside:
time passes while the loop makes no progress.
"""

from __future__ import annotations

import time

from tests.helpers.app_harness import wait_for
from textual import events
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.widgets import Button, Input

from tandem.tui.app.key_order import KeyOrder


class _Slow(Vertical):
    """Passes the button's press on, after blocking the loop longer than `HOLD_LIMIT`."""

    def on_button_pressed(self, _message: Button.Pressed) -> None:
        time.sleep(KeyOrder.HOLD_LIMIT + 0.3)


class _Form(App[None]):
    """A button whose press, once it bubbled up here, moves focus to the input (as Book does).
    Its keys go through a `KeyOrder`, as the Tandem app's do."""

    def __init__(self) -> None:
        super().__init__()
        self.keys = KeyOrder(self, self._route)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded:
            await self.keys.key_read(event)
            return
        await super().on_event(event)

    async def _route(self, event: events.Key) -> None:
        await super().on_event(event)

    def on_key(self, event: events.Key) -> None:
        self.keys.key_bubbled(event)

    def compose(self) -> ComposeResult:
        with Vertical():
            with _Slow():
                yield Button("Book", id="book")
        yield Input(id="composer")

    def on_button_pressed(self, _message: Button.Pressed) -> None:
        self.query_one("#composer", Input).focus()


async def test_keys_behind_a_binding_wait_for_the_focus_it_moves_however_slow_the_loop() -> None:
    app = _Form()
    async with app.run_test() as pilot:
        app.query_one("#book", Button).focus()
        await wait_for(pilot, lambda: app.focused is app.query_one("#book"), "the button focused")
        # One read's worth of keys, all posted before any is handled (Pilot.press would wait in between).
        app.post_message(events.Key("enter", "\r"))
        for character in "thanks":
            app.post_message(events.Key(character, character))
        composer = app.query_one("#composer", Input)
        await wait_for(pilot, lambda: composer.value == "thanks", "the keys typed after Enter in the input")
        assert app.focused is composer
