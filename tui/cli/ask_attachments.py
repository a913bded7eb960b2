"""`tandem ask --attach`: the files named on the command line, read and checked before anything is sent."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

from tandem.core.attachment_limits import AttachmentLimits

if TYPE_CHECKING:
    from tandem.core.content import AttachmentContent

__all__ = ["STDIN_NAME", "read_ask_attachments"]

STDIN_NAME = "stdin"
"""The name an attachment read from standard input (`--attach -`) is sent under."""


def read_ask_attachments(paths: Sequence[str], stdin: TextIO, limits: AttachmentLimits) -> list[AttachmentContent]:
    """Read every `--attach` file in order (`-`: stdin, once), then check the per-message limit.

    Raises:
        AttachmentError: a file is missing, unreadable, not a regular file, or over a limit; the
            attachments together are over the per-message limit.
        UsageError: `-` is given twice.
    """
    if not paths:
        return []
    from tandem.core.attachments import check_message_size, read_attachment, read_attachment_stream
    from tandem.tui.cli.ask_input import UsageError

    if list(paths).count("-") > 1:
        raise UsageError("--attach - may be given once: stdin holds one attachment")
    attachments = []
    for path in paths:
        if path == "-":
            attachments.append(read_attachment_stream(stdin.buffer, STDIN_NAME, limits))
        else:
            attachments.append(read_attachment(path, limits))
    check_message_size(attachments, limits)
    return attachments
