"""The composer: where the human writes; says why it waits when it cannot send."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static, TextArea

from tandem.tui.app.attachments_bar import AttachmentsBar, outgoing, pasted_files
from tandem.tui.app.mention_completion import complete_mention

if TYPE_CHECKING:
    from tandem.core.blocks import InteractiveBlock

__all__ = ["COMPOSER_HINT", "NEWLINE_KEYS", "SCROLL_KEYS", "Composer", "ComposerInput", "waiting_reason"]


NEWLINE_KEYS = ("ctrl+j", "alt+enter", "shift+enter")
"""Keys that insert a newline. Ctrl+J (a line feed) reaches the app in every terminal, over SSH and
in the browser. Alt+Enter arrives as ESC CR in xterm, GNOME Terminal, PuTTY, tmux and xterm.js,
which Textual 8.2.8 did not name (it arrived as a plain Enter): `tui.terminal.terminal_keys` teaches it.
Shift+Enter only where the terminal reports it (the kitty keyboard protocol); elsewhere it arrives
as a plain Enter. The hint names Ctrl+J, which works everywhere."""

SCROLL_KEYS = {"pageup": "page_up", "pagedown": "page_down", "home": "scroll_home", "end": "scroll_end"}
"""Keys that scroll the conversation while the composer is focused and empty (with text in it
they move the cursor), so that a person without a mouse can read back without leaving it."""

COMPOSER_HINT = "Message the agent — Enter sends, Ctrl+J for a new line"
"""The composer's placeholder: names only newline keys that work in every terminal."""


class ComposerInput(TextArea):
    """A multi-line input where Enter sends and Ctrl+J inserts a newline.

    | Key | Description |
    | :- | :- |
    | enter | Send the message (or queue it while the agent answers). |
    | ctrl+j | Insert a newline (Shift+Enter and Alt+Enter too, where the terminal reports them). |
    | pageup, pagedown, home, end | Scroll the conversation while the composer is empty. |
    | f6 | Move focus to the conversation (TextArea's own F6 selects a line). |
    | f7 | The previous conversation, as everywhere in the app (TextArea's own F7 selects all). |
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f6", "screen.focus_conversation", "Focus conversation", show=False),
        Binding("f7", "app.conversation('step', -1)", "Previous conversation", show=False),
    ]

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

    class ScrollRequested(Message):
        """A scroll key was pressed in the empty composer; handled by the screen."""

        def __init__(self, action: str) -> None:
            super().__init__()
            self.action = action
            """The conversation scroller's action: `page_up`, `page_down`, `scroll_home` or `scroll_end`."""

    refuses_sending: bool = False
    """Enter is refused (with a bell) and the text kept: the agent waits on a decision (set by `Composer`)."""

    def on_key(self, event: events.Key) -> None:
        # Runs before `TextArea`'s own key handler (this class comes first in the MRO); a key
        # taken here prevents that default, any other goes on to it.
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            # Cleared at once, not by a handler of the message: keys typed right after Enter
            # (in the same read over SSH) are the next message (`a` Enter `b` Enter sent "a" and
            # "ab" when the composer cleared itself later).
            composer = self.parent
            assert isinstance(composer, Composer)
            text = self.text.strip("\n")
            if self.refuses_sending:
                self.app.bell()
            elif text.strip() or composer.query_one(AttachmentsBar).attachments:
                self.clear()
                self.history.clear()  # sent: its undo steps would keep every sent text (a paste too) alive
                # `/attach`, `@path`s and attachments go their own way (tui.app.attachments_bar).
                if not outgoing(composer, text):
                    self.post_message(Composer.Sent(text))  # bubbles through the composer to the screen
            return
        if event.key in NEWLINE_KEYS:
            event.stop()
            event.prevent_default()
            if not self.read_only:
                start, end = self.selection
                self.replace("\n", start, end, maintain_selection_offset=False)
            return
        if event.key == "tab" and complete_mention(self):  # `@path` completion (tui.app.mention_completion)
            event.stop()
            event.prevent_default()
            return
        if event.key in SCROLL_KEYS and not self.text:
            event.stop()
            event.prevent_default()
            self.post_message(self.ScrollRequested(SCROLL_KEYS[event.key]))

    def on_paste(self, event: events.Paste) -> None:
        if pasted_files(self, event.text):  # a pasted (dropped) file path attaches the file (tui.app.attachments_bar)
            event.stop()
            event.prevent_default()


class Composer(Vertical):
    """The input plus a line saying why it waits (awaiting a decision) or what is queued.

    Owns the text being written and the reason line. The app sets `reason` (None = ready) and
    `queued`; on Enter the input clears itself and posts `Composer.Sent` with the text. While it waits
    the input is disabled, which makes Textual move focus elsewhere; when it is enabled again it
    takes focus back, unless the person has moved focus somewhere on purpose meanwhile. UI thread only.
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

    FOCUS_PROMISE_SECONDS: ClassVar[float] = 2.0
    """After a decision, how long keys typed while the input is still disabled wait for it."""

    reason: reactive[str | None] = reactive(None)
    """Why the composer cannot send now (None: it can)."""
    queued: reactive[int] = reactive(0)
    """Follow-ups queued while the agent answers."""
    drafting: reactive[bool] = reactive(False)
    """The person put the decision off ("Decide later"): while the agent waits, the input takes
    a draft (Enter is still refused). Over once the agent no longer waits."""

    class Sent(Message):
        """The human sent text; handled by the screen as `on_composer_sent`."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text
            """What was written (stripped of surrounding blank lines)."""

    def __init__(self, *, placeholder: str = "", id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._placeholder = placeholder
        self._focus_taken: bool = False
        self._focus_moved_to: Widget | None = None
        self._focus_promised_until = 0.0

    def compose(self) -> ComposeResult:
        yield Static(classes="composer--reason")
        yield AttachmentsBar(id="attachments")
        yield ComposerInput(placeholder=self._placeholder, soft_wrap=True, show_line_numbers=False)

    @property
    def input(self) -> ComposerInput:
        """The text area."""
        return self.query_one(ComposerInput)

    def watch_reason(self) -> None:
        self._update()

    def watch_queued(self) -> None:
        self._update()

    def watch_drafting(self) -> None:
        self._update()

    def take_typed(self, event: events.Key) -> bool:
        """Put a printable key that nothing else took into the input as a draft, and focus it.

        For the keys typed on after "Decide later" (the cursor on the card's Review… button,
        which takes Enter only): they were lost. Returns whether the key was taken.
        """
        if not self.drafting or self.input.disabled or not event.is_printable or not event.character:
            return False
        self.input.focus()
        self.input.insert(event.character)
        return True

    @property
    def moved_focus_to(self) -> Widget | None:
        """Where disabling the input sent the focus (None if it did not hold the focus)."""
        return self._focus_moved_to

    @property
    def focus_promised(self) -> bool:
        """Whether the input, disabled now, was promised the focus moments ago (after a decision)."""
        return self._focus_taken and time.monotonic() < self._focus_promised_until and self.input.disabled

    def focus_input(self) -> None:
        """Focus the text area (when it accepts input)."""
        if not self.input.disabled:
            self.input.focus()

    def take_focus_when_ready(self) -> None:
        """Focus the text area now, or as soon as it accepts input again.

        Called after the person decided or submitted a form: what they type next goes here,
        not to the first focusable widget Textual picks when the form's button is disabled.
        """
        if self.input.disabled:
            self._focus_taken = True
            self._focus_moved_to = self.screen.focused
            # The input is enabled when the engine has the decision, a moment later (longer on a
            # loaded machine): the app holds the keys typed meanwhile (`tui.app.key_order`).
            self._focus_promised_until = time.monotonic() + self.FOCUS_PROMISE_SECONDS
        else:
            self.input.focus()

    def _update(self) -> None:
        if not self.is_mounted:
            return
        waiting = self.reason is not None
        if not waiting and self.drafting:
            self.drafting = False  # the wait is over (its watcher runs this again)
        self.set_class(waiting, "-waiting")
        self.set_class(not waiting and self.queued > 0, "-queued")
        self.input.refuses_sending = waiting
        blocked = waiting and not self.drafting
        if blocked != self.input.disabled:
            self._disable_input() if blocked else self._enable_input()
        label = self.query_one(".composer--reason", Static)
        if waiting:
            label.update(Content(f"‖ {self.reason}"))
        elif self.queued:
            plural = "s" if self.queued > 1 else ""
            label.update(Content(f"◷ queued: {self.queued} follow-up{plural}, sent when the agent finishes"))

    def _disable_input(self) -> None:
        screen = self.screen
        self._focus_taken = screen.focused is self.input
        self.input.disabled = True  # Textual blurs it and focuses another widget (or none)
        self._focus_moved_to = screen.focused if self._focus_taken else None

    def _enable_input(self) -> None:
        self.input.disabled = False
        self._focus_promised_until = 0.0
        if not self._focus_taken:
            return
        self._focus_taken = False
        screen = self.screen
        focused, moved_to = screen.focused, self._focus_moved_to
        self._focus_moved_to = None
        # Focus still where the disabling put it (or somewhere that cannot take keys): take it back.
        if focused is None or focused is moved_to or focused not in screen.focus_chain:
            self.input.focus()

    def on_mount(self) -> None:
        self._update()


def waiting_reason(pending: list[InteractiveBlock]) -> str:
    """Why the composer waits, naming what the agent waits for (agent names sanitised)."""
    from tandem.core.blocks import ApprovalBlock, InterruptBlock, UIActionBlock
    from tandem.widgets.sanitize import sanitize

    if not pending:
        return "waiting for the agent to continue"
    block = pending[0]
    more = f" (+{len(pending) - 1} more)" if len(pending) > 1 else ""
    if isinstance(block, ApprovalBlock):
        what = f"approve or reject {sanitize(block.tool_name)!r}"
    elif isinstance(block, UIActionBlock):
        what = f"run or decline the action {sanitize(block.name)!r}"
    elif isinstance(block, InterruptBlock):
        what = "answer the agent's question above"
    else:
        what = "answer the request above"
    return f"The agent waits for you to {what}{more}."
