"""How large attachments may be, and sizes as people read them. Light: no models, no I/O.

The app's and `tandem ask`'s settings (`tui.cli.settings`) build an `AttachmentLimits` from the
config file's `[attachments]` and `$TANDEM_ATTACH_MAX_FILE_MB` / `$TANDEM_ATTACH_MAX_MESSAGE_MB`.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_FILE_LIMIT", "DEFAULT_MESSAGE_LIMIT", "AttachmentLimits", "format_size"]

DEFAULT_FILE_LIMIT = 10 * 1024 * 1024
"""Bytes one attached file may hold (10 MiB: what the common multimodal APIs take per image or
document, with room; a larger file is refused, not cut)."""

DEFAULT_MESSAGE_LIMIT = 20 * 1024 * 1024
"""Bytes all the attachments of one message may hold together (20 MiB; every later request
carries them again in the history, base64, a third larger)."""


@dataclass(frozen=True)
class AttachmentLimits:
    """The size limits attachments are held to (bytes of content, before base64)."""

    per_file: int = DEFAULT_FILE_LIMIT
    per_message: int = DEFAULT_MESSAGE_LIMIT

    def __post_init__(self) -> None:
        if self.per_file <= 0 or self.per_message <= 0:
            raise ValueError("attachment limits must be positive")


def format_size(size: int) -> str:
    """`size` bytes for people: 512 B, 3.4 KB, 12 MB (binary multiples, one decimal under ten)."""
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            if unit == "B":
                return f"{size} B"
            return f"{value:.1f} {unit}" if value < 10 else f"{value:.0f} {unit}"
        value /= 1024
    return f"{size} B"  # pragma: no cover
