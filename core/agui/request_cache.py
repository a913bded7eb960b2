"""Per-message caches that keep a turn's request cost independent of how long the history is.

Every run sends the full history, so without them each turn converts all N `ChatMessage`s to
AG-UI messages and JSON-encodes them again (tens of milliseconds at 2,000 messages). A history
message is immutable once built (`ChatMessage` is frozen) and the AG-UI messages built from it
are never changed after the request is built, so both steps can be kept per message object.

Entries are keyed by `id()` (pydantic models take no weak references) and each holds the object
it was made from, so the id cannot be reused while the entry lives. Each call keeps only the
entries it used: the caches hold one history's worth and let go of messages that left it.
"""

from __future__ import annotations

import uuid
from typing import Any

from ag_ui.core import Message, RunAgentInput, UserMessage

from tandem.core.messages import ChatMessage

__all__ = ["ConversionCache", "BodyEncoder"]

Converted = tuple[tuple[Message, ...], tuple[tuple[str, Message], ...]]
"""One history message's AG-UI messages, and its tool results as (call id, message)."""


class ConversionCache:
    """Owns each history message's AG-UI form from the previous request, keyed by the message
    object and its position (a message without id is named after its index)."""

    def __init__(self) -> None:
        self._entries: dict[tuple[int, int], tuple[ChatMessage, Converted]] = {}
        self._next: dict[tuple[int, int], tuple[ChatMessage, Converted]] = {}

    def get(self, message: ChatMessage, index: int) -> Converted | None:
        """The conversion kept for `message` at `index`, or None."""
        key = (id(message), index)
        entry = self._entries.get(key)
        if entry is None or entry[0] is not message:
            return None
        self._next[key] = entry
        return entry[1]

    def put(self, message: ChatMessage, index: int, converted: Converted) -> None:
        """Keep the conversion of `message` at `index` for the next request."""
        self._next[(id(message), index)] = (message, converted)

    def finish(self) -> None:
        """End of one conversion: keep only what it used."""
        self._entries, self._next = self._next, {}


class BodyEncoder:
    """Owns the JSON of each AG-UI message already sent, and encodes a `RunAgentInput` to the
    bytes `model_dump_json(by_alias=True, exclude_none=True)` gives, encoding only the messages
    it has not seen (the rest of the input is encoded whole, around a placeholder message)."""

    def __init__(self) -> None:
        self._entries: dict[int, tuple[Message, bytes]] = {}

    def encode(self, run_input: RunAgentInput) -> bytes:
        """The request body for `run_input`."""
        entries: dict[int, tuple[Message, bytes]] = {}
        parts: list[bytes] = []
        for message in run_input.messages:
            entry = self._entries.get(id(message))
            if entry is None or entry[0] is not message:
                entry = (message, _dump(message))
            entries[id(message)] = entry
            parts.append(entry[1])
        self._entries = entries
        placeholder = UserMessage(id=f"tandem-placeholder-{uuid.uuid4().hex}", content="")
        frame = _dump(run_input.model_copy(update={"messages": [placeholder]}))
        marker = _dump(placeholder)
        # The placeholder's random id appears once, in the messages array.
        return frame.replace(marker, b",".join(parts), 1)


def _dump(model: Any) -> bytes:
    return model.model_dump_json(by_alias=True, exclude_none=True).encode()
