"""JSON from agents, parsed and printed with a bound on nesting: deep JSON is an error, never a crash.

Python's `json` recurses once per nesting level, so 1,000-deep JSON raises `RecursionError`
(not `ValueError`) wherever it is parsed or printed, and pydantic refuses values deeper than
about 250 levels when the log is read back. Every place that turns agent text into a value
(tool arguments and results, state, interrupts, exports, restore) goes through `loads_agent_json`,
which measures the depth first (linear time, no recursion) and turns every failure into
`AgentJSONError`, a `ValueError`. `dumps_agent_json` is its counterpart for printing. Pure; any
thread.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from typing import Any

__all__ = [
    "MAX_JSON_DEPTH",
    "AgentJSONError",
    "dumps_agent_json",
    "json_text_depth",
    "loads_agent_json",
    "null_unrepresentable_numbers",
    "too_deep",
    "value_depth",
]

MAX_JSON_DEPTH = 200
"""Deepest nesting accepted from an agent (`[]` is 1 deep). Leaves room under pydantic's own limit
(~250) for the envelopes the log wraps a value in, so whatever is accepted can be stored and read."""

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


class AgentJSONError(ValueError):
    """Agent text that is not JSON, or JSON nested deeper than the bound (`depth` says how deep)."""

    def __init__(self, message: str, *, depth: int | None = None) -> None:
        super().__init__(message)
        self.depth = depth


def json_text_depth(text: str | bytes) -> int:
    """The deepest bracket nesting in a JSON text, outside strings; linear time, no recursion.

    The text need not be valid JSON: this only counts, so that parsing can be refused before it
    recurses. An unbalanced text counts what it opened.
    """
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", "replace")
    if text.count("[") + text.count("{") <= 1:  # the common flat case without a regex pass
        return text.count("[") + text.count("{")
    depth = deepest = 0
    for bracket in _BRACKET.findall(_STRING.sub("", text)):
        if bracket in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
        else:
            depth -= 1
    return deepest


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")  # NaN and Infinity: Python's json accepts them, JSON does not


def _depth_message(depth: int, limit: int) -> str:
    return f"JSON nested {depth} levels deep (at most {limit} are accepted)"


def loads_agent_json(text: str | bytes, *, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """Parse agent JSON with a bound on nesting.

    Raises:
        AgentJSONError: the text is not JSON, is nested deeper than `max_depth`, or parsing failed
            in any other way (a `RecursionError` or `MemoryError` included).
    """
    depth = json_text_depth(text)
    if depth > max_depth:
        raise AgentJSONError(_depth_message(depth, max_depth), depth=depth)
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except ValueError as exc:  # JSONDecodeError, bad UTF-8 in bytes
        raise AgentJSONError(str(exc)) from exc
    except (RecursionError, MemoryError, TypeError) as exc:
        raise AgentJSONError(f"JSON could not be parsed: {type(exc).__name__}") from exc


def value_depth(value: Any, *, stop_at: int | None = None) -> int:
    """How deep a parsed JSON value nests (a scalar is 0, `[]` is 1); iterative, no recursion.

    Stops counting once `stop_at` is passed (the answer is then `stop_at + 1`).
    """
    deepest = 0
    stack: list[tuple[Iterable[Any], int]] = []
    if isinstance(value, dict):
        stack.append((value.values(), 1))
    elif isinstance(value, (list, tuple)):
        stack.append((value, 1))
    while stack:
        children, depth = stack.pop()
        deepest = max(deepest, depth)
        if stop_at is not None and deepest > stop_at:
            return deepest
        for child in children:
            if isinstance(child, dict):
                stack.append((child.values(), depth + 1))
            elif isinstance(child, (list, tuple)):
                stack.append((child, depth + 1))
    return deepest


def too_deep(value: Any, max_depth: int = MAX_JSON_DEPTH) -> str | None:
    """Why a parsed value is refused (nested deeper than `max_depth`), or None when it is fine."""
    depth = value_depth(value, stop_at=max_depth)
    return _depth_message(depth, max_depth) if depth > max_depth else None


def dumps_agent_json(value: Any, **options: Any) -> str:
    """`json.dumps(value, **options)` that never raises: a value that cannot be printed (too deep,
    circular, not serialisable) becomes a short placeholder naming why."""
    options.setdefault("default", str)
    try:
        return json.dumps(value, **options)
    except (RecursionError, ValueError, TypeError, MemoryError) as exc:
        return f"«a value that cannot be shown as JSON: {type(exc).__name__}»"


def null_unrepresentable_numbers(value: Any) -> int:
    """Replace, in place, every number of `value` too large for a float with None; return how many.

    `1e400` is valid JSON, but a float cannot hold it: parsed, it is infinity, which the log and
    every JSON output write as `null`. Shown as `inf` live, it came back `null` after a resume;
    made null as it is read, what was seen is what is replayed. Walks with a stack, not recursion.
    """
    replaced = 0
    stack = [value]
    while stack:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, item in items:
            if isinstance(item, float):
                if not math.isfinite(item):
                    node[key] = None
                    replaced += 1
            elif isinstance(item, (dict, list)):
                stack.append(item)
    return replaced
