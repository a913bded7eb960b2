"""The files a person attached to a message, as the conversation shows them."""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING, Any

from tandem.core.blocks.base import Block

if TYPE_CHECKING:
    from tandem.core.content import AttachmentContent

__all__ = ["AttachmentsBlock"]


class AttachmentsBlock(Block):
    """The attachments of one user message: name, type, size (and the bytes, for a thumbnail).

    Emitted right after the message's text block, completed at once; never changes. Engine
    thread builds it; views read it (the parts are frozen).
    """

    kind = "attachments"

    def __init__(self, id: str, *, attachments: list[AttachmentContent], **kwargs: Any) -> None:
        super().__init__(id, **kwargs)
        self.attachments = list(attachments)

    def data(self, index: int) -> bytes:
        """The content of the `index`-th attachment (empty if it was lost)."""
        return base64.b64decode(self.attachments[index].data)

    def content(self) -> dict[str, Any]:
        return {"attachments": [
            {"name": a.name, "media_type": a.media_type, "media_kind": a.media_kind, "size": a.size, "sha256": a.sha256}
            for a in self.attachments
        ]}
