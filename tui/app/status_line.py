"""What the main screen's status line says: the conversation's status, then its thread's title and
how it is shared (pure: the screen paints what this returns)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content

if TYPE_CHECKING:
    from tandem.core.turns import Status

__all__ = ["CONNECTING_LABEL", "RESTORING_LABEL", "STARTING_LABEL", "STATUS_LABELS", "status_line"]

STATUS_LABELS: dict[str, str] = {
    "idle": "● idle",
    "streaming": "◐ streaming… (Esc cancels)",
    "awaiting_input": "◆ awaiting your input",
    "error": "✖ error — Retry on the card, or send again",
}
"""What the status line says for each conversation status, by `Status` value (symbols too, so it
reads without colour). Keyed by value so the screen paints before core is imported."""

STARTING_LABEL = "◌ starting…"
"""The status line until the engine built the conversation."""
RESTORING_LABEL = "◌ restoring the thread… (its last messages are shown meanwhile)"
"""The status line while a resumed thread's stored last screenful stands in for the replayed log."""

CONNECTING_LABEL = "◌ connecting to the agent… (retrying; Esc cancels)"
"""The status line while a turn streams but the client is still trying to reach the agent."""


def status_line(status: Status | None, *, restoring: bool, connecting: bool, title: str | None, sharing: str | None) -> Content:
    """The status line: the status (or "starting"/"restoring" before there is one), the saved
    thread's title labelled "thread:", and how the conversation is shared."""
    if status is None:
        label = RESTORING_LABEL if restoring else STARTING_LABEL
    elif connecting and status.value == "streaming":
        label = CONNECTING_LABEL
    else:
        label = STATUS_LABELS[status.value]
    line = Content(label)
    if title:
        from tandem.widgets.sanitize import reveal

        # The title is the first message (or what the person typed): data, never markup.
        # Labelled, or it reads as what the status is about ("awaiting your input · /demo
        # weather" while a later turn waits on another question).
        line += Content(" · thread: " + " ".join(reveal(title).split()))
    if sharing:
        line += Content(" · " + sharing)  # guests' names: data, never markup
    return line
