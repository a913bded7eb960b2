"""An attachment in the Markdown transcript: embedded where a viewer can show it, else described.

An image up to `EMBED_LIMIT` bytes is embedded as a `data:` URI (the Markdown stays one file that
shows the picture anywhere); a text file is shown in a fence; anything else (and a larger image)
is named with its type, size and hash, and `tandem export ID --format jsonl` keeps its bytes.
Names are made safe (no control characters, no brackets that would end the alt text). Pure.
"""

from __future__ import annotations

import base64
import re

from tandem.core.attachments import format_size
from tandem.core.content import AttachmentContent
from tandem.core.sanitize import sanitize

__all__ = ["EMBED_LIMIT", "attachment_markdown"]

EMBED_LIMIT = 1024 * 1024
"""Bytes up to which an image is embedded in the Markdown."""

_EMBEDDABLE = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
_ALT_UNSAFE = re.compile(r"[\[\]()\\`*_<>!]")


def attachment_markdown(part: AttachmentContent) -> str:
    """The Markdown of one attachment (see the module docstring)."""
    name = _ALT_UNSAFE.sub("", " ".join(sanitize(part.name).split())) or "attachment"
    media_type = sanitize(part.media_type)
    caption = f"Attached: **{name}** ({media_type}, {format_size(part.size)})"
    if not part.data:
        return f"{caption}: its content is no longer in the store."
    if media_type in _EMBEDDABLE and part.size <= EMBED_LIMIT:
        return f"{caption}\n\n![{name}](data:{media_type};base64,{part.data})"
    if part.media_kind == "text":
        text = sanitize(base64.b64decode(part.data).decode("utf-8", errors="replace"))
        fence = "`" * max(3, max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
        return f"{caption}\n\n{fence}\n{text.rstrip(chr(10))}\n{fence}"
    return f"{caption}, sha256 `{part.sha256[:16]}…`: not embedded (`tandem export --format jsonl` keeps it)."
