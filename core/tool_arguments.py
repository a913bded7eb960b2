"""Streamed tool-call arguments: the chunks of one JSON object, parsed once they are complete.

One parser for every place that completes a call (the history folded for the next request,
the client-tool runner, tool-call and UI-action blocks); each keeps its own policy for a call
whose text is not a JSON object.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from tandem.core.agent_json import loads_agent_json

__all__ = ["ParsedArguments", "parse_arguments"]


@dataclass(frozen=True)
class ParsedArguments:
    """What a call's argument text holds: the object, or why it is not one."""

    text: str
    """The text as streamed, stripped."""
    value: dict[str, Any] | None
    """The arguments, when the text is a JSON object (an empty text is `{}`)."""
    error: str | None
    """Why the text is not a JSON object (None when `value` is set)."""
    valid_json: bool = True
    """Whether the text is JSON at all (`parsed` then holds the value)."""
    parsed: Any = None
    """The JSON value the text held, when it is valid JSON but not an object."""

    def preserved(self) -> dict[str, Any]:
        """The arguments, or what the text held kept under one key: `_unparsed_arguments` (not
        JSON) or `_value` (JSON, not an object), so nothing the agent sent is lost."""
        if self.value is not None:
            return self.value
        if self.valid_json:
            return {"_value": self.parsed}
        return {"_unparsed_arguments": self.text}


def parse_arguments(text: str) -> ParsedArguments:
    """Parse the complete argument text of a call."""
    stripped = text.strip()
    if not stripped:
        return ParsedArguments(stripped, {}, None)
    try:
        value = loads_agent_json(stripped)
    except ValueError as exc:
        return ParsedArguments(stripped, None, f"not JSON: {exc}", valid_json=False)
    if not isinstance(value, dict):
        return ParsedArguments(stripped, None, f"not a JSON object but {type(value).__name__}", parsed=value)
    return ParsedArguments(stripped, value, None)
