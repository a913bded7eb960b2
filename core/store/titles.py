"""A thread's default title: the first line of its first user message."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    # Only named in a signature: listing and resolving threads must not import the models (pydantic).
    from tandem.core.messages import ChatMessage

__all__ = ["TITLE_LENGTH", "clean_title", "title_from_messages"]

TITLE_LENGTH = 60
"""Longest default title, in characters (an ellipsis marks a cut)."""

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def clean_title(text: str, limit: int = TITLE_LENGTH) -> str:
    """The first non-blank line of `text`, without control characters, cut to `limit`."""
    line = next((line for line in text.split("\n") if line.strip()), "")
    line = " ".join(_CONTROL.sub(" ", line).split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def title_from_messages(messages: Sequence[ChatMessage]) -> str | None:
    """The default title for a turn's request, or None when it has no user text."""
    for message in messages:
        if message.role == "user":
            title = clean_title(message.text)
            if title:
                return title
    return None
