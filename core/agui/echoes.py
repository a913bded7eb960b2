"""The one rule by which a message an adapter sends again is recognised as one the client has.

Adapters echo what the client already has: a `MESSAGES_SNAPSHOT` re-sends the conversation (ADK
and CrewAI under fresh ids), ag-ui-adk streams a thought a second time under a new id. What they
change when they echo is the id, the whitespace at the ends of the text (a model's final,
aggregated response is stripped or padded differently from the deltas it streamed) and the
message a tool call hangs under. So a message is an **echo** of one the client sent or streamed
when

1. it carries that message's id, or
2. it has the same role and the same text once leading and trailing whitespace is set aside
   (`echo_text`), and that known message has not already been matched by another message of the
   same echo (one-to-one: a text said twice is kept twice);

and a tool call it carries is the client's when it has the id of a call the client has, or,
under a new id, the name and arguments of a call answered in the current turn
(`snapshot_messages.py`). An echo shows nothing new; its unknown tool calls, if any, are new.

It cannot merge two messages that really differ: inside the text every character counts (a
word, a digit, a line break between words), roles must agree, and each known message absorbs at
most one echo, so a second, equal message is new. Whitespace at the ends is the only freedom, and
it is what Markdown rendering and the model's next prompt ignore anyway.
"""

from __future__ import annotations

__all__ = ["echo_text", "echo_key"]


def echo_text(text: str) -> str:
    """A message's text as echoes are compared: without leading and trailing whitespace."""
    return text.strip()


def echo_key(role: str, text: str) -> tuple[str, str]:
    """What an echo must share with the message it repeats (beside the one-to-one match)."""
    return role, text.strip()
