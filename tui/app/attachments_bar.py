"""The files waiting to go with the next message: chips above the composer, `/attach` and `@path`.

`AttachmentsBar` lives in the composer. It reads a file when it is attached (so a missing,
unreadable or too-large file is refused at once, with a notification naming the file and the
limit, and never later), shows each as a chip (name, type, size) that can be removed, and hands
them over when the message goes. `outgoing` is what the composer calls on Enter:
`/attach PATH` attaches instead of sending, each `@path` of an existing file in the text
attaches it (the text keeps the file's name, never its path), and a message with attachments
goes to the screen as `AttachmentsBar.SendRequested` instead of `Composer.Sent`. UI thread only.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

if TYPE_CHECKING:
    from tandem.core.attachment_limits import AttachmentLimits
    from tandem.core.content import AttachmentContent
    from tandem.tui.app.composer import Composer

__all__ = ["ATTACH_COMMAND", "AttachmentChip", "AttachmentsBar", "chip_label", "outgoing", "pasted_files"]

ATTACH_COMMAND = "/attach"
"""Typed alone on a line with a path (`/attach ~/shot.png`), attaches the file instead of sending."""

MENTION = re.compile(r"(?<![\w@])@((?:[^\s\\]|\\.)+)")
"""`@path` in the text: a path without spaces (or with them escaped `\\ `), after a space or at the start."""


def chip_label(part: AttachmentContent) -> str:
    """What a chip says: the name (made safe when it was read), the type and the size."""
    from tandem.core.attachment_limits import format_size

    return f"▤ {part.name} · {part.media_type} · {format_size(part.size)}"


class AttachmentChip(Widget, can_focus=True):
    """One attached file, removable before sending (Delete or Backspace when focused, or a click on ✕).

    | Key | Description |
    | :- | :- |
    | delete, backspace | Remove this attachment. |
    """

    DEFAULT_CSS: ClassVar[str] = """
    AttachmentChip {
        layout: horizontal;
        width: auto;
        height: 1;
        padding: 0 1;
        margin: 0 1 0 0;
        background: $boost;
        color: $text;
        &:focus { background: $primary 40%; }
        & > .attachment-chip--label { width: auto; }
        & > .attachment-chip--remove { width: auto; color: $text-muted; padding: 0 0 0 1; }
        & > .attachment-chip--remove:hover { color: $text-error; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("delete,backspace", "remove", "Remove attachment", id="tandem.remove_attachment"),
    ]

    class RemoveRequested(Message):
        """The person removes this chip's attachment; handled by `AttachmentsBar`."""

        def __init__(self, chip: AttachmentChip) -> None:
            super().__init__()
            self.chip = chip
            """The chip whose attachment goes."""

    def __init__(self, part: AttachmentContent, *, removable: bool = True) -> None:
        super().__init__(classes="-removable" if removable else "")
        self.part = part
        """The attachment shown (frozen)."""
        self._removable = removable

    def compose(self) -> ComposeResult:
        # Content, not markup: a file name may hold `[`; the name was sanitised when read.
        yield Static(Content(chip_label(self.part)), classes="attachment-chip--label")
        if self._removable:
            yield Static(Content("✕"), classes="attachment-chip--remove")

    def on_click(self, event: object) -> None:
        widget = getattr(event, "widget", None)
        if self._removable and widget is not None and widget.has_class("attachment-chip--remove"):
            self.action_remove()

    def action_remove(self) -> None:
        if self._removable:
            self.post_message(self.RemoveRequested(self))


class AttachmentsBar(Horizontal):
    """The attachments of the message being written, as chips; hidden while there are none.

    Owns the pending attachments (in the order attached) and the limits they are held to
    (`limits`, set by the app from its settings). UI thread only.
    """

    DEFAULT_CSS: ClassVar[str] = """
    AttachmentsBar {
        height: auto;
        max-height: 3;
        padding: 0 1;
        display: none;
        &.-some { display: block; }
    }
    """

    class Changed(Message):
        """The pending attachments changed (attached, removed, sent)."""

        def __init__(self, bar: AttachmentsBar) -> None:
            super().__init__()
            self.bar = bar

    class SendRequested(Message):
        """A message with attachments is to be sent; handled by the screen (bubbles from the composer)."""

        def __init__(self, text: str, attachments: list[AttachmentContent]) -> None:
            super().__init__()
            self.text = text
            """The typed text, its `@path`s replaced by the files' names."""
            self.attachments = attachments
            """The files, in the order attached."""

    def __init__(self, *, limits: AttachmentLimits | None = None, id: str | None = None) -> None:
        super().__init__(id=id)
        # Core is imported when the first file is attached, not for the app's first frame.
        self._limits = limits
        self._pending: list[AttachmentContent] = []

    @property
    def limits(self) -> AttachmentLimits:
        """How large a file, and all of a message's files, may be (the app's, else the defaults)."""
        if self._limits is None:
            from tandem.core.attachment_limits import AttachmentLimits

            self._limits = AttachmentLimits()
        return self._limits

    @property
    def attachments(self) -> list[AttachmentContent]:
        """The pending attachments, in order (a copy)."""
        return list(self._pending)

    def attach_path(self, path: str | os.PathLike[str]) -> AttachmentContent | None:
        """Read the file at `path` and add it; a refusal is notified (naming the file and the limit)
        and returns None. Reading happens here, once: what is sent is what was read now."""
        from tandem.core.attachments import check_message_size, read_attachment
        from tandem.core.errors import AttachmentError

        where = Path(os.path.expanduser(os.fspath(path)))
        try:
            part = read_attachment(where, self.limits)
            check_message_size([*self._pending, part], self.limits)
        except AttachmentError as exc:
            self.app.notify(str(exc), title="Not attached", severity="error", markup=False)
            return None
        self.add(part)
        return part

    def add(self, part: AttachmentContent) -> None:
        """Add an attachment already read (a pasted or restored one)."""
        self._pending.append(part)
        self._refresh_chips()

    def take(self) -> list[AttachmentContent]:
        """Hand over every pending attachment and empty the bar."""
        taken, self._pending = self._pending, []
        self._refresh_chips()
        return taken

    def put_back(self, attachments: Sequence[AttachmentContent]) -> None:
        """Restore attachments that could not be sent, before any attached since."""
        self._pending = [*attachments, *self._pending]
        self._refresh_chips()

    @on(AttachmentChip.RemoveRequested)
    def _remove(self, message: AttachmentChip.RemoveRequested) -> None:
        message.stop()
        if message.chip.part in self._pending:
            self._pending.remove(message.chip.part)
        self._refresh_chips()

    def _refresh_chips(self) -> None:
        self.set_class(bool(self._pending), "-some")
        if self.is_mounted:
            self.remove_children()
            self.mount_all([AttachmentChip(part) for part in self._pending])
        self.post_message(self.Changed(self))

    def on_mount(self) -> None:
        configured = getattr(self.app, "attachment_limits", None)  # TandemApp's settings; a host app has none
        if self._limits is None and configured is not None:
            self._limits = configured
        if self._pending:
            self._refresh_chips()


def pasted_files(area: Widget, text: str) -> bool:
    """Attach the files a paste names, when it names only existing files (a terminal's drag and
    drop pastes their paths, quoted or as `file://` URLs); returns whether it did (the paste is then
    not typed). Anything else is text and is typed as pasted."""
    from urllib.parse import unquote, urlsplit

    line = text.strip()
    if not line or "\n" in line or len(line) > 4096:
        return False
    try:
        words = shlex.split(line)
    except ValueError:
        return False
    paths = [Path(unquote(urlsplit(w).path)) if w.startswith("file://") else Path(os.path.expanduser(w)) for w in words]
    if not paths or not all(path.is_absolute() or path.parts[:1] == (".",) or "/" in str(path) for path in paths):
        return False  # a bare word is text, even where a file of that name exists
    if not all(path.is_file() for path in paths):
        return False
    parent = area.parent
    bar = parent.query_one(AttachmentsBar) if parent is not None else None
    if bar is None:
        return False
    for path in paths:
        bar.attach_path(path)
    return True


def _unescape(path: str) -> str:
    return re.sub(r"\\(.)", r"\1", path)


def outgoing(composer: Composer, text: str) -> bool:
    """What the composer does with text sent by Enter: `/attach`, `@path`s, and sending with
    attachments. Whether it took the text: it posted `AttachmentsBar.SendRequested` (the message
    has attachments), ran `/attach`, or gave the text back (an `@path` refused); when it did not,
    the composer posts `Composer.Sent` (the screen sends the text).
    """
    bar = composer.query_one(AttachmentsBar)
    sent = text
    stripped = text.strip()
    if stripped == ATTACH_COMMAND or stripped.startswith(ATTACH_COMMAND + " "):
        try:
            paths = shlex.split(stripped[len(ATTACH_COMMAND):])
        except ValueError:
            paths = [stripped[len(ATTACH_COMMAND):].strip()]
        if not paths:
            composer.app.notify("Name a file: /attach PATH (or use the palette's Attach file…)", severity="warning",
                                markup=False)
        for path in paths:
            bar.attach_path(path)
        return True

    before = bar.attachments
    refused = False

    def mention(match: re.Match[str]) -> str:
        nonlocal refused
        written = _unescape(match.group(1))
        # "see @shot.png." : the sentence's punctuation is not part of the name (unless it is).
        tail = written[len(written.rstrip(".,;:!?)")):]
        for name, rest in ((written, ""), (written[: len(written) - len(tail)], tail)):
            path = Path(os.path.expanduser(name))
            if name and not refused and path.is_file():
                part = bar.attach_path(path)
                refused = part is None
                return part.name + rest if part is not None else match.group(0)
        return match.group(0)  # not a file here: an e-mail, a handle, words

    text = MENTION.sub(mention, text)
    if refused:
        # Nothing half-sent: the message goes back, with the files attached before it only.
        bar.take()
        bar.put_back(before)
        if not composer.input.text:
            composer.input.insert(sent)
        return True
    if not bar.attachments:
        return False
    composer.post_message(AttachmentsBar.SendRequested(text, bar.take()))
    return True
