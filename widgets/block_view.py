"""The base of every block widget: holds a block, repaints on request, asks for decisions."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from textual.message import Message
from textual.widget import Widget

from tandem.core.blocks.base import Block

if TYPE_CHECKING:
    from tandem.core.blocks.decisions import DecisionCommand

__all__ = ["BlockView"]

log = logging.getLogger(__name__)


class BlockView(Widget):
    """A widget showing one core block.

    Owns nothing of the block: it reads it on the UI thread in `refresh_block()` (called by
    the app's bridge at most once per frame per block) and never mutates it. Decisions go out
    as `BlockView.DecisionRequested` messages; the app forwards them to the engine thread.
    """

    DEFAULT_CSS = """
    BlockView {
        height: auto;
        & > .block-view--render-error { color: $text-error; }
    }
    """

    class DecisionRequested(Message):
        """Posted when the human decides; handled by the app as `on_block_view_decision_requested`."""

        def __init__(self, block: Block, command: DecisionCommand) -> None:
            super().__init__()
            self.block = block
            """The block decided on."""
            self.command = command
            """What was decided (`tandem.core.blocks.decisions`)."""

    def __init__(self, block: Block, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.block = block
        self.shown_version = -1
        """The block version last painted; the bridge skips repaints of what is already shown."""
        self._composed = False

    def on_mount(self) -> None:
        self._composed = True
        self.refresh_block()

    def on_unmount(self) -> None:
        self._composed = False

    def refresh_block(self) -> None:
        """Re-read the block and update the widget (UI thread). Subclasses extend `update_from_block`.

        Before the view is mounted (or after it was unmounted) this does nothing: its children
        do not exist yet, and mounting paints the current version anyway.
        """
        if not self._composed or self._pruning:
            # Being removed (Textual's flag, set until the children are gone and the view
            # unmounts): its children may already be gone, and it will not be seen again.
            return
        version = self.block.version
        if version == self.shown_version:
            return
        self.shown_version = version
        try:
            self.update_from_block()
        except Exception as exc:  # noqa: BLE001 - an agent's content must not take the app down
            log.exception("could not show block %s", self.block.id)
            self.show_render_failure(exc)

    def show_render_failure(self, exc: Exception) -> None:
        """Replace what the view shows with an error line naming why the block cannot be shown."""
        from textual.content import Content
        from textual.widgets import Static

        from tandem.widgets.sanitize import sanitize

        text = Content(f"✗ This block could not be shown: {type(exc).__name__}: {sanitize(str(exc))[:300]}")
        for child in self.children:
            child.display = "block-view--render-error" in child.classes
        existing = self.query(".block-view--render-error")
        if existing:
            existing.first(Static).update(text)
        else:
            self.mount(Static(text, classes="block-view--render-error"))

    def update_from_block(self) -> None:
        """Paint the block's current content. Override in subclasses."""

    def request_decision(self, command: DecisionCommand) -> None:
        """Ask the app to apply `command` to the block on the engine thread."""
        self.post_message(self.DecisionRequested(self.block, command))
