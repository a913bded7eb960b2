"""ErrorView: the message as data, Retry only while retryable."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Button, Static

from tandem.core.blocks import ErrorBlock
from tandem.widgets import ErrorView, view_for


class _Host(App[None]):
    def __init__(self, view: ErrorView) -> None:
        super().__init__()
        self.view = view
        self.retries: list[ErrorBlock] = []

    def compose(self) -> ComposeResult:
        yield self.view

    def on_error_view_retry_requested(self, message: ErrorView.RetryRequested) -> None:
        self.retries.append(message.block)


async def test_retry_posts_retry_requested() -> None:
    block = ErrorBlock("error-1", message="server said [/x\x1b[31m", code="502", retryable=True)
    view = view_for(block)
    assert isinstance(view, ErrorView)
    app = _Host(view)
    async with app.run_test() as pilot:
        assert str(view.query_one(".error-view--message", Static).render()) == "✗ 502: server said [/x<U+001B>[31m"
        await pilot.click(Button)
        assert app.retries == [block]


async def test_no_retry_once_not_retryable() -> None:
    block = ErrorBlock("error-1", message="boom", retryable=True)
    view = ErrorView(block)
    async with _Host(view).run_test() as pilot:
        block.set_retryable(False)
        view.refresh_block()
        await pilot.pause()
        assert not view.query_one(Button).display
