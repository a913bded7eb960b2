"""A user message's attachments as AG-UI 1.0 content parts.

A message without attachments stays a plain string (what every server takes). With them, the
content is the ordered list of parts: the typed text as a `TextPart`, then each attachment as
the part of its kind (`ImagePart`, `AudioPart`, `VideoPart`, `DocumentPart`) with an inline
`DataSource` (base64 and the sniffed MIME type) and the file name in `metadata.filename` (the
name the pre-1.0 binary part had a field for), or, for a text file, a `TextPart` holding the
file's text fenced under its name, so a model that reads text only still knows which file it is.
"""

from __future__ import annotations

import base64
import re

from ag_ui.core import AudioPart, DataSource, DocumentPart, ImagePart, TextPart, VideoPart
from ag_ui.core.types import ContentPart

from tandem.core.content import AttachmentContent, Content, TextContent

__all__ = ["user_content", "attachment_part", "fenced_text"]

_MEDIA_PARTS = {"image": ImagePart, "audio": AudioPart, "video": VideoPart, "document": DocumentPart}
_BACKTICKS = re.compile(r"`{3,}")


def fenced_text(name: str, text: str) -> str:
    """`text` in a Markdown fence under `name`, the fence longer than any backtick run inside."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=2)
    fence = "`" * max(3, longest + 1)
    body = text if text.endswith("\n") else text + "\n"
    return f"{name}\n{fence}\n{body}{fence}"


def attachment_part(part: AttachmentContent) -> ContentPart:
    """The AG-UI part for one attachment (a lost content, `data` empty, becomes a text note)."""
    metadata = {"filename": part.name}
    if not part.data:
        return TextPart(text=f"[attachment {part.name} ({part.media_type}) is no longer available]", metadata=metadata)
    if part.media_kind == "text":
        text = base64.b64decode(part.data).decode("utf-8", errors="replace")
        return TextPart(text=fenced_text(part.name, text), metadata={**metadata, "mimeType": part.media_type})
    cls = _MEDIA_PARTS[part.media_kind]
    return cls(source=DataSource(value=part.data, mime_type=part.media_type), metadata=metadata)


def user_content(contents: list[Content]) -> str | list[ContentPart]:
    """A user message's AG-UI content: its text, or its parts in order when it has attachments."""
    if not any(isinstance(p, AttachmentContent) for p in contents):
        return "".join(p.text for p in contents if isinstance(p, TextContent))
    parts: list[ContentPart] = []
    for p in contents:
        if isinstance(p, TextContent):
            if p.text:
                parts.append(TextPart(text=p.text))
        elif isinstance(p, AttachmentContent):
            parts.append(attachment_part(p))
    return parts
