"""The one sanitiser for agent-supplied text, and the one encoder for agent ids.

Every string that came from an agent (text, tool names, arguments, results, state keys and
values, messages, labels) passes through `sanitize` before it reaches a widget, and is then
inserted as data (`agent_text` → `Content`), never parsed as markup. Pure functions: any thread.
"""

from __future__ import annotations

import re
from typing import Any

from textual.content import Content

from tandem.core.sanitize import reveal, sanitize
from tandem.core.agent_json import dumps_agent_json

__all__ = ["sanitize", "reveal", "safe_id", "agent_text", "revealed_text", "agent_line", "pretty_json", "LINE_LIMIT"]

_ID_SAFE = re.compile(r"[A-Za-z0-9-]")


def safe_id(agent_id: str) -> str:
    """Encode an agent id as a valid, collision-free Textual widget id.

    Letters, digits and `-` are kept; `_` becomes `__`; any other character becomes
    `_<hex code point>_`. The mapping is injective (distinct ids stay distinct) and the result
    always starts with `t-`, so it never starts with a digit.

    Example:
        >>> safe_id("call-1:abc")
        't-call-1_3a_abc'
    """
    out = ["t-"]
    for char in str(agent_id):
        if _ID_SAFE.match(char):
            out.append(char)
        elif char == "_":
            out.append("__")
        else:
            out.append(f"_{ord(char):x}_")
    return "".join(out)


def agent_text(text: Any) -> Content:
    """Sanitised agent text as `Content`: shown literally, never parsed as markup."""
    return Content(sanitize(text if isinstance(text, str) else str(text)))


def revealed_text(text: Any) -> Content:
    """Agent text a person decides on or identifies by (a prompt, arguments, an error), as
    `Content`: every invisible character shown as an escape (`core.sanitize.reveal`), never
    parsed as markup."""
    return Content(reveal(text if isinstance(text, str) else str(text)))


LINE_LIMIT = 200
"""Characters of an agent name shown in a one-line header (a tool card's title, a step)."""


def agent_line(text: Any, limit: int = LINE_LIMIT) -> Content:
    """Agent text for a one-line header (a tool's, an agent's, a thread's name): invisible
    characters shown as escapes (`reveal`: a name cannot pass for another), every run of
    whitespace (newlines, tabs, U+2028…) one space, cut to `limit` characters with `…`.

    So agent text cannot draw extra lines that pass for the person's own message, and a huge
    name is not laid out whole in a one-line card.
    """
    flat = " ".join(reveal(text if isinstance(text, str) else str(text)).split())
    if len(flat) > limit:
        flat = flat[: limit - 1] + "…"
    return Content(flat)


def pretty_json(value: Any) -> str:
    """Pretty-printed JSON of an agent value (strings shown as they are), its invisible
    characters shown as escapes (`reveal`): what a person approves hides nothing."""
    if isinstance(value, str):
        return reveal(value)
    return reveal(dumps_agent_json(value, indent=2, ensure_ascii=False, sort_keys=False))
