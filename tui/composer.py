"""The composer: where the human writes; says why it waits when it cannot send."""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Static, TextArea

__all__ = ["Composer", "ComposerInput"]


class ComposerInput(TextArea):
    """A multi-line input where Enter sends and Shift+Enter or Ctrl+J insert a newline.

    | Key | Description |
    | :- | :- |
    | enter | Send the message (or queue it while the agent answers). |
    | shift+enter, ctrl+j | Insert a newline. |
    """

    DEFAULT_CSS: ClassVar[str] = """
    ComposerInput {
        height: auto;
        min-height: 3;
        max-height: 10;
        border: round $border-blurred;
        &:focus {
            border: round $border;
        }
    }
    """

    class Submitted(Message):
        """Enter was pressed; handled by `Composer`."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text
            """The text written, as typed."""

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self.post_message(self.Submitted(self.text))
            return
        if event.key in ("shift+enter", "ctrl+j"):
            event.stop()
            event.prevent_default()
            if not self.read_only:
                start, end = self.selection
                self._replace_via_keyboard("\n", start, end)
            return
        await super()._on_key(event)


class Composer(Vertical):
    """The input plus a line saying why it waits (awaiting a decision) or what is queued.

    Owns the text being written and the reason line. The app sets `reason` (None = ready) and
    `queued`; the composer posts `Composer.Sent` with the text and clears itself. UI thread only.
    """

    DEFAULT_CSS: ClassVar[str] = """
    Composer {
        height: auto;
        & > .composer--reason {
            height: auto;
            padding: 0 1;
            color: $text-warning;
            display: none;
        }
        &.-waiting > .composer--reason, &.-queued > .composer--reason {
            display: block;
        }
        &.-queued > .composer--reason {
            color: $text-muted;
        }
    }
    """

    reason: reactive[str | None] = reactive(None)
    """Why the composer cannot send now (None: it can)."""
    queued: reactive[int] = reactive(0)
    """Follow-ups queued while the agent answers."""

    class Sent(Message):
        """The human sent text; handled by the screen as `on_composer_sent`."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text
            """What was written (stripped of surrounding blank lines)."""

    def __init__(self, *, placeholder: str = "", id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._placeholder = placeholder

    def compose(self) -> ComposeResult:
        yield Static(classes="composer--reason")
        yield ComposerInput(placeholder=self._placeholder, soft_wrap=True, show_line_numbers=False)

    @property
    def input(self) -> ComposerInput:
        """The text area."""
        return self.query_one(ComposerInput)

    def watch_reason(self) -> None:
        self._update()

    def watch_queued(self) -> None:
        self._update()

    def on_composer_input_submitted(self, message: ComposerInput.Submitted) -> None:
        message.stop()
        if self.reason is not None:
            self.app.bell()
            return
        text = message.text.strip("\n")
        if not text.strip():
            return
        self.input.clear()
        self.post_message(self.Sent(text))

    def focus_input(self) -> None:
        """Focus the text area (when it accepts input)."""
        if not self.input.disabled:
            self.input.focus()

    def _update(self) -> None:
        if not self.is_mounted:
            return
        waiting = self.reason is not None
        self.set_class(waiting, "-waiting")
        self.set_class(not waiting and self.queued > 0, "-queued")
        self.input.disabled = waiting
        label = self.query_one(".composer--reason", Static)
        if waiting:
            label.update(Content(f"‖ {self.reason}"))
        elif self.queued:
            plural = "s" if self.queued > 1 else ""
            label.update(Content(f"⧗ queued: {self.queued} follow-up{plural}, sent when the agent finishes"))

    def on_mount(self) -> None:
        self._update()
