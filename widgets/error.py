"""An error in the conversation, as a card with Retry when the turn can be retried."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.content import Content
from textual.message import Message
from textual.widgets import Button, Static

from tandem.core.blocks.misc import ErrorBlock
from tandem.widgets.block_view import BlockView
from tandem.widgets.sanitize import revealed_text

__all__ = ["ErrorView"]


class ErrorView(BlockView):
    """An error card: the message, the code, and a Retry button while `block.retryable`.

    Owns a Static and a Button. Retry posts `ErrorView.RetryRequested`; the app retries the turn.
    UI thread only.
    """

    DEFAULT_CSS: ClassVar[str] = """
    ErrorView {
        height: auto;
        margin: 0 0 1 0;
        padding: 0 1;
        border: round $error;
        background: $error-muted;
        & > .error-view--message { color: $text-error; }
        & > Button { margin: 0; }
    }
    """

    class RetryRequested(Message):
        """Posted when the human presses Retry; handled as `on_error_view_retry_requested`."""

        def __init__(self, view: ErrorView, block: ErrorBlock) -> None:
            super().__init__()
            self.view = view
            """The view that posted it."""
            self.block = block
            """The error block to retry."""

        @property
        def control(self) -> ErrorView:
            """The view (lets `@on(ErrorView.RetryRequested, "#id")` match)."""
            return self.view

    def compose(self) -> ComposeResult:
        yield Static(classes="error-view--message")
        yield Button(Content("Retry"), variant="error", compact=True, classes="error-view--retry")

    def update_from_block(self) -> None:
        block = self.block
        assert isinstance(block, ErrorBlock)
        message = Content("✗ ")
        if block.code:
            message = message + revealed_text(block.code) + Content(": ")
        self.query_one(".error-view--message", Static).update(message + revealed_text(block.message))
        self.query_one(Button).display = block.retryable

    @on(Button.Pressed, ".error-view--retry")
    def _retry(self, event: Button.Pressed) -> None:
        event.stop()
        block = self.block
        assert isinstance(block, ErrorBlock)
        if block.retryable:
            self.post_message(self.RetryRequested(self, block))
