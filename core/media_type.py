"""What a file is, from its content: the MIME type and the kind it is sent as.

The content decides (the `filetype` library reads the magic numbers of images, audio, video,
archives and documents); the file name only refines a type the content cannot tell, such as
which kind of text a UTF-8 file is. A file named `.png` that holds text is text, and one named
`.txt` that holds a PNG is an image. Pure; any thread.
"""

from __future__ import annotations

import mimetypes

from tandem.core.content import MediaKind

__all__ = ["SNIFF_BYTES", "sniff_media_type", "media_kind_of", "looks_like_text"]

SNIFF_BYTES = 8192
"""How much of the content is read to tell what it is."""

_TEXT_APPLICATIONS = frozenset({
    "application/json", "application/xml", "application/yaml", "application/x-yaml", "application/toml",
    "application/javascript", "application/x-sh", "application/sql", "application/x-python-code",
})
_DOCUMENTS_BY_EXTENSION = {".pdf": "application/pdf"}
_REGISTERED = {"audio/x-wav": "audio/wav", "audio/x-flac": "audio/flac", "audio/x-aiff": "audio/aiff"}
"""`filetype`'s unregistered names → the registered ones model APIs expect."""


def looks_like_text(head: bytes) -> bool:
    """Whether `head` (the start of a file) is UTF-8 text: no NUL, decodes (a cut last character allowed)."""
    if b"\x00" in head:
        return False
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        # The sample may end inside a multi-byte character: only that is forgiven.
        return exc.start >= len(head) - 3 and exc.reason == "unexpected end of data"
    return True


def sniff_media_type(head: bytes, name: str) -> str:
    """The MIME type of a file whose content starts with `head`.

    Args:
        head: The first `SNIFF_BYTES` (or all) of the content.
        name: The file name, used only to say which text type a text file is.
    """
    import filetype  # light (pure Python, no dependencies); loaded when a file is attached

    found = filetype.guess_mime(head)
    if found:
        return _REGISTERED.get(str(found), str(found))
    if looks_like_text(head):
        guessed, _encoding = mimetypes.guess_type(name, strict=False)
        if guessed and (guessed.startswith("text/") or guessed in _TEXT_APPLICATIONS):
            return guessed
        return "text/plain"
    if head.startswith(b"%PDF-"):
        return _DOCUMENTS_BY_EXTENSION[".pdf"]
    return "application/octet-stream"


def media_kind_of(media_type: str) -> MediaKind:
    """The kind a file of `media_type` is sent as: image, audio, video, text, else a document."""
    major = media_type.partition("/")[0]
    if major in ("image", "audio", "video", "text"):
        return major  # type: ignore[return-value]
    if media_type in _TEXT_APPLICATIONS:
        return "text"
    return "document"
