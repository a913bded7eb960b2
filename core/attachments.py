"""Attaching files to a message: reading them within limits and building the user message.

Everything here runs before a message is sent, so a file that is missing, unreadable, not a
regular file or over a limit is refused with an `AttachmentError` naming the file and the limit,
and nothing is sent. A file is read at most one byte past its limit whatever its size claims (a
sparse 1 GB file, a FIFO, a file that grows meanwhile). Only the content and the base name go
into the message: the path stays on this machine. Pure apart from reading files; any thread.
"""

from __future__ import annotations

import base64
import hashlib
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import BinaryIO

from tandem.core.attachment_limits import DEFAULT_FILE_LIMIT, DEFAULT_MESSAGE_LIMIT, AttachmentLimits, format_size
from tandem.core.content import AttachmentContent, Content, TextContent
from tandem.core.errors import AttachmentError
from tandem.core.media_type import SNIFF_BYTES, media_kind_of, sniff_media_type
from tandem.core.messages import ChatMessage
from tandem.core.sanitize import sanitize

__all__ = [
    "DEFAULT_FILE_LIMIT",
    "DEFAULT_MESSAGE_LIMIT",
    "AttachmentLimits",
    "attachment_from_bytes",
    "read_attachment",
    "read_attachment_stream",
    "check_message_size",
    "user_message",
    "attachments_of",
    "format_size",
    "shown_name",
]

def shown_name(name: str) -> str:
    """A file name as it may be shown or stored: no control characters (a name is data from disk
    that someone else may have chosen: an ESC in it must not drive the terminal), never empty."""
    return sanitize(name).strip() or "unnamed"


def attachment_from_bytes(data: bytes, name: str, limits: AttachmentLimits | None = None) -> AttachmentContent:
    """An attachment holding `data` under `name` (its base name is kept, nothing of a path).

    Raises:
        AttachmentError: `data` is over the per-file limit.
    """
    limits = limits or AttachmentLimits()
    base = shown_name(os.path.basename(name.replace("\\", "/")) or name)
    if len(data) > limits.per_file:
        raise AttachmentError(
            f"{base} is {format_size(len(data))}, over the limit of {format_size(limits.per_file)} per file"
        )
    media_type = sniff_media_type(data[:SNIFF_BYTES], base)
    return AttachmentContent(
        name=base,
        media_type=media_type,
        media_kind=media_kind_of(media_type),
        size=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        data=base64.b64encode(data).decode("ascii"),
    )


def read_attachment(path: str | os.PathLike[str], limits: AttachmentLimits | None = None) -> AttachmentContent:
    """Read the file at `path` as an attachment.

    Raises:
        AttachmentError: the file is missing, not a regular file, unreadable, or over the per-file
            limit (by its size, or by what reading it found); the message names the file.
    """
    limits = limits or AttachmentLimits()
    where = Path(path)
    shown = shown_name(str(where))
    try:
        info = where.stat()
    except FileNotFoundError:
        raise AttachmentError(f"{shown}: no such file") from None
    except OSError as exc:
        raise AttachmentError(f"{shown} cannot be read: {exc.strerror or exc}") from exc
    if stat.S_ISDIR(info.st_mode):
        raise AttachmentError(f"{shown} is a folder, not a file")
    if not stat.S_ISREG(info.st_mode):
        raise AttachmentError(f"{shown} is not a regular file")
    if info.st_size > limits.per_file:
        raise AttachmentError(
            f"{shown} is {format_size(info.st_size)}, over the limit of {format_size(limits.per_file)} per file"
        )
    try:
        with where.open("rb") as file:
            data = file.read(limits.per_file + 1)
    except OSError as exc:
        raise AttachmentError(f"{shown} cannot be read: {exc.strerror or exc}") from exc
    if len(data) > limits.per_file:
        raise AttachmentError(f"{shown} grew past the limit of {format_size(limits.per_file)} per file while read")
    return attachment_from_bytes(data, where.name, limits)


def read_attachment_stream(stream: BinaryIO, name: str, limits: AttachmentLimits | None = None) -> AttachmentContent:
    """Read an attachment from `stream` (standard input), at most one byte past the limit.

    Raises:
        AttachmentError: the stream holds more than the per-file limit, or cannot be read.
    """
    limits = limits or AttachmentLimits()
    try:
        data = stream.read(limits.per_file + 1)
    except OSError as exc:
        raise AttachmentError(f"{name} cannot be read: {exc.strerror or exc}") from exc
    if len(data) > limits.per_file:
        raise AttachmentError(f"{name} holds more than the limit of {format_size(limits.per_file)} per file")
    return attachment_from_bytes(data, name, limits)


def check_message_size(attachments: Sequence[AttachmentContent], limits: AttachmentLimits | None = None) -> None:
    """Refuse a message whose attachments together are over the per-message limit.

    Raises:
        AttachmentError: naming the total, the limit and the files.
    """
    limits = limits or AttachmentLimits()
    total = sum(a.size for a in attachments)
    if total > limits.per_message:
        names = ", ".join(a.name for a in attachments)
        raise AttachmentError(
            f"the attachments ({names}) hold {format_size(total)} together, over the limit of "
            f"{format_size(limits.per_message)} per message"
        )


def user_message(text: str, attachments: Sequence[AttachmentContent] = (), *, message_id: str | None = None,
                 author: str | None = None) -> ChatMessage:
    """The person's message: its text, then its attachments in the order they were attached
    (checked against the limits by whoever read them: `check_message_size`)."""
    contents: list[Content] = [TextContent(text=text)] if text or not attachments else []
    contents.extend(attachments)
    return ChatMessage(role="user", contents=contents, message_id=message_id, author=author)


def attachments_of(message: ChatMessage) -> list[AttachmentContent]:
    """The attachments a message carries, in order."""
    return [part for part in message.contents if isinstance(part, AttachmentContent)]
