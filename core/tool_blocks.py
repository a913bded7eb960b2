"""Typed tool blocks: a block class bound to a tool name, its arguments mapped to attributes."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from tandem.core.blocks.tool_call import ToolCallBlock
from tandem.core.errors import ToolBlockSpecError

__all__ = ["tool_block", "ToolBlockRegistry"]

B = TypeVar("B", bound=type[ToolCallBlock])


def tool_block(tool: str, *, arguments: Mapping[str, str] | None = None, result: str | None = None) -> Callable[[B], B]:
    """Bind a `ToolCallBlock` subclass to a tool.

    Args:
        tool: The tool name whose calls become this block class.
        arguments: Argument key in the tool's JSON arguments → attribute name on the block.
        result: Attribute that receives the (JSON-decoded) result.

    Example:
        >>> @tool_block("get_weather", arguments={"location": "location"}, result="weather")
        ... class WeatherBlock(ToolCallBlock): ...
    """

    def bind(cls: B) -> B:
        if not (isinstance(cls, type) and issubclass(cls, ToolCallBlock)):
            raise TypeError(f"@tool_block decorates ToolCallBlock subclasses, not {cls!r}")
        cls.tool_name = tool
        cls.argument_map = dict(arguments or {})
        cls.result_attribute = result
        return cls

    return bind


class ToolBlockRegistry:
    """Which block class renders which tool. Owns the tool-name → class map."""

    def __init__(self) -> None:
        self._classes: dict[str, type[ToolCallBlock]] = {}

    def register(self, cls: type[ToolCallBlock], *, schema: Mapping[str, Any] | None = None) -> None:
        """Register a typed tool block, checking its argument keys against the tool's schema.

        Raises:
            ToolBlockSpecError: the class is not bound to a tool, or maps argument keys that
                the schema does not define (a misspelled key must never become a silent None).
        """
        if not cls.tool_name:
            raise ToolBlockSpecError(f"{cls.__name__} is not bound to a tool: decorate it with @tool_block")
        if schema is not None:
            properties = schema.get("properties")
            if isinstance(properties, Mapping):
                unknown = sorted(set(cls.argument_map) - set(properties))
                if unknown:
                    known = ", ".join(sorted(properties)) or "none"
                    raise ToolBlockSpecError(
                        f"{cls.__name__} maps argument(s) {', '.join(unknown)} that tool {cls.tool_name!r} "
                        f"does not define (its arguments: {known})"
                    )
        self._classes[cls.tool_name] = cls

    def block_class(self, tool_name: str | None) -> type[ToolCallBlock]:
        """The class for `tool_name`'s calls (plain `ToolCallBlock` when none is registered)."""
        return self._classes.get(tool_name or "", ToolCallBlock)

    def __contains__(self, tool_name: object) -> bool:
        return tool_name in self._classes
