"""The files sent with a message, under it in the conversation: a chip each, a thumbnail for a picture."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import Static

from tandem.core.attachment_limits import format_size
from tandem.core.blocks.attachments import AttachmentsBlock
from tandem.widgets.block_view import BlockView
from tandem.widgets.picture import Picture
from tandem.widgets.sanitize import agent_text

__all__ = ["THUMBNAIL_COLUMNS", "THUMBNAIL_ROWS", "AttachmentsView"]

THUMBNAIL_COLUMNS = 24
THUMBNAIL_ROWS = 6
"""The cells a sent picture's thumbnail fits in."""


class AttachmentsView(BlockView):
    """The attachments of one user message: a chip per file (name, type, size) and a thumbnail per
    picture (drawn as `app.images` says: auto, blocks or none). The block never changes, so the
    view is composed once. UI thread only."""

    DEFAULT_CSS: ClassVar[str] = """
    AttachmentsView {
        height: auto;
        padding: 0 1 0 2;
        margin: 0 0 1 0;
        & > .attachments-view--chip { width: auto; color: $text-muted; background: $boost; padding: 0 1; margin: 0 0 0 0; }
        & > Picture { margin: 0 0 1 2; }
    }
    """

    def compose(self) -> ComposeResult:
        block = self.block
        assert isinstance(block, AttachmentsBlock)
        mode = str(getattr(self.app, "images", "auto"))
        for index, part in enumerate(block.attachments):
            label = Content("▤ ") + agent_text(part.name) + Content(f" · {part.media_type} · {format_size(part.size)}")
            yield Static(label, classes="attachments-view--chip")
            if part.media_kind == "image" and mode != "none":
                data = block.data(index) if part.data else None
                yield Picture(data, part.name, mode=mode, columns=THUMBNAIL_COLUMNS, rows=THUMBNAIL_ROWS,
                              placeholder="(its content is no longer stored)")

    def update_from_block(self) -> None:
        """Nothing changes after the block is shown (composed once)."""
