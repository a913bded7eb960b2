"""`per_event`: updates with every joined run of deltas taken apart again, one update per AG-UI event.

The client joins the plain content deltas (text, reasoning, tool-call arguments) to one message or
call that arrive in a row in one chunk of the body into one update whose `raw` is the list of their
events (`_RunPath._join`). How a body is cut into
chunks then changes the updates, not what they hold: taken apart (each event's `delta` its text, the
event its `raw`), a body read whole and in any pieces gives the same updates. It is also the proof
that a joined update loses nothing: its events rebuild the updates it stands for.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tandem.core.content import ReasoningContent, TextContent, ToolCallContent
from tandem.core.messages import ChatUpdate

__all__ = ["per_event", "per_event_dumps"]


def per_event(updates: Iterable[ChatUpdate]) -> list[ChatUpdate]:
    """`updates` with each joined run replaced by the updates of its events, in order.

    Raises:
        AssertionError: a joined update's delta is not its events' deltas joined.
    """
    out: list[ChatUpdate] = []
    for update in updates:
        if not isinstance(update.raw, list):
            out.append(update)
            continue
        [part] = update.contents
        field = {TextContent: "text", ReasoningContent: "text", ToolCallContent: "arguments_delta"}[type(part)]
        events: list[Any] = update.raw
        assert len(events) > 1 and len({event["type"] for event in events}) == 1
        assert getattr(part, field) == "".join(event["delta"] for event in events), "the delta is its events' deltas joined"
        out.extend(update.model_copy(update={"contents": [part.model_copy(update={field: event["delta"]})], "raw": event})
                   for event in events)
    return out


def per_event_dumps(updates: Iterable[ChatUpdate]) -> list[dict[str, Any]]:
    """`per_event(updates)` as `model_dump()`s, to compare."""
    return [update.model_dump() for update in per_event(updates)]
