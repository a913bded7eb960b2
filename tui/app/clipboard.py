"""Copying to the clipboard over any terminal (OSC 52): what the palette's "Copy last answer" copies,
and why a terminal may not receive it. (Export writes the log's Markdown: `core.export`.)"""

from __future__ import annotations

import os
from collections.abc import Iterable

from tandem.core.blocks import Block, ReasoningBlock, TextBlock

__all__ = ["clipboard_caveat", "last_answer"]


def clipboard_caveat(environ: dict[str, str] | None = None) -> str | None:
    """Why an OSC 52 clipboard write may not arrive in this terminal, if we can tell.

    OSC 52 travels with the terminal output, so it works over SSH; but some terminals ignore
    it, and tmux or screen forward it only when configured to.
    """
    env = os.environ if environ is None else environ
    if env.get("TMUX"):
        return "inside tmux it arrives only with `set -g set-clipboard on`"
    if env.get("STY"):
        return "GNU screen usually drops it"
    if env.get("TERM_PROGRAM") == "Apple_Terminal":
        return "Apple Terminal ignores OSC 52"
    return None


def last_answer(blocks: Iterable[Block]) -> TextBlock | None:
    """The newest assistant text block (reasoning excluded)."""
    answer = None
    for block in blocks:
        if isinstance(block, TextBlock) and not isinstance(block, ReasoningBlock) and block.role == "assistant":
            answer = block
    return answer
