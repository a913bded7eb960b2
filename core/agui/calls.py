"""What the AG-UI client knows of tool calls: each call seen, and the tools that predict state."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tandem.core.tool_arguments import parse_arguments

__all__ = ["KnownCall", "PredictStateMapping"]


@dataclass(frozen=True)
class PredictStateMapping:
    """A tool whose streamed arguments feed a state key: writes to that key are proposals."""

    state_key: str
    tool: str
    tool_argument: str | None = None

    @classmethod
    def parse(cls, value: object) -> PredictStateMapping | None:
        """Read one `{state_key, tool, tool_argument}` entry (snake or camel case), or None."""
        if isinstance(value, PredictStateMapping):
            return value
        if not isinstance(value, dict):
            return None
        key = value.get("state_key", value.get("stateKey"))
        tool = value.get("tool")
        argument = value.get("tool_argument", value.get("toolArgument"))
        if not isinstance(key, str) or not isinstance(tool, str):
            return None
        return cls(key, tool, argument if isinstance(argument, str) else None)


@dataclass
class KnownCall:
    """A tool call seen in the request history or the stream."""

    name: str | None
    parent_message_id: str | None = None
    chunks: list[str] = field(default_factory=list)
    arguments: dict[str, Any] | None = None
    informational_only: bool = False
    resolved: bool = False

    def parsed_arguments(self) -> dict[str, Any] | None:
        """The complete arguments, parsed from the streamed chunks when needed."""
        if self.arguments is None and self.chunks:
            self.arguments = parse_arguments("".join(self.chunks)).value
        return self.arguments
