"""A state proposal as the panel shows it: a title and one display line per change, sanitised."""

from __future__ import annotations

import difflib
from typing import Any

from tandem.core.json_pointer import split
from tandem.widgets.sanitize import sanitize
from tandem.widgets.state_tree import short_value

__all__ = ["diff_lines", "proposal_title", "value_at"]

_MARKS = {"add": ("+", "-added"), "remove": ("−", "-removed"), "replace": ("~", "-changed"), "move": ("~", "-changed"), "copy": ("+", "-added")}


def value_at(document: Any, pointer: str) -> Any:
    """The value `pointer` names in `document`.

    Raises:
        KeyError, IndexError, ValueError: Nothing is there (or `pointer` is not a pointer).
    """
    tokens = split(pointer)
    if tokens is None:
        raise KeyError(pointer)
    value = document
    for part in tokens:
        if isinstance(value, list):
            value = value[int(part)]
        elif isinstance(value, dict):
            value = value[part]
        else:
            raise KeyError(pointer)
    return value


def diff_lines(committed: Any, operations: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    """A proposal's RFC 6902 diff as display lines.

    Returns:
        (symbol, state class, text) per operation: `+` added, `−` removed, `~` changed; the
        symbol makes the diff readable without colour. Text is sanitised.
    """
    lines = []
    for op in operations:
        kind = str(op.get("op", ""))
        path = sanitize(str(op.get("path", ""))) or "/"
        symbol, css_class = _MARKS.get(kind, ("~", "-changed"))
        if kind in ("add", "copy"):
            text = f"{path}: {short_value(op.get('value'))}" if kind == "add" else f"{path} ← {sanitize(str(op.get('from', '')))}"
        elif kind == "remove":
            try:
                old = short_value(value_at(committed, str(op.get("path", ""))))
            except (KeyError, IndexError, ValueError):
                old = "?"
            text = f"{path}: {old}"
        elif kind == "replace":
            try:
                previous = value_at(committed, str(op.get("path", "")))
            except (KeyError, IndexError, ValueError):
                previous = None
                old = "?"
            else:
                old = short_value(previous)
            value = op.get("value")
            if isinstance(previous, str) and isinstance(value, str) and (len(old) + len(short_value(value)) > 60 or "\n" in value):
                # Long text: the two cut-off ends would hide the change; show the changed lines.
                lines.append((symbol, css_class, f"{path}: text changed"))
                lines.extend(_text_diff(previous, value))
                continue
            text = f"{path}: {old} → {short_value(value)}"
        elif kind == "move":
            text = f"{sanitize(str(op.get('from', '')))} → {path}"
        else:
            text = f"{path}: {sanitize(kind)} {short_value(op.get('value'))}"
        lines.append((symbol, css_class, text))
    return lines


def _size(value: Any) -> str:
    """How big a proposed value is, for a proposal's title: characters, fields or items."""
    if isinstance(value, str):
        return f" ({len(value)} character{'' if len(value) == 1 else 's'})"
    if isinstance(value, dict):
        return f" ({len(value)} field{'' if len(value) == 1 else 's'})"
    if isinstance(value, list):
        return f" ({len(value)} item{'' if len(value) == 1 else 's'})"
    return f": {short_value(value, 24)}"


def proposal_title(proposer: str | None, operations: list[dict[str, Any]]) -> str:
    """What proposes a change and what it changes, e.g. "write_document proposes /document (322 characters)".

    Args:
        proposer: What made the proposal (the tool whose call it predicts), None when unknown
            ("The agent"). Sanitised here, like the paths.
        operations: The proposal as an RFC 6902 patch against the committed value.
    """
    who = sanitize(proposer).strip() if proposer else ""
    who = who or "The agent"
    if not operations:
        return f"{who} proposes no change"
    if len(operations) == 1:
        op = operations[0]
        path = sanitize(str(op.get("path", ""))) or "/"
        kind = op.get("op")
        if kind == "remove":
            return f"{who} proposes removing {path}"
        if kind in ("move", "copy"):
            return f"{who} proposes to {sanitize(str(kind))} {sanitize(str(op.get('from', '')))} to {path}"
        return f"{who} proposes {path}{_size(op.get('value'))}"
    paths = list(dict.fromkeys(sanitize(str(op.get("path", ""))) or "/" for op in operations))
    shown = ", ".join(paths[:2]) + (", …" if len(paths) > 2 else "")
    return f"{who} proposes {len(operations)} changes: {shown}"


def _text_diff(old: str, new: str, limit: int = 12) -> list[tuple[str, str, str]]:
    """The lines that differ between two texts, as `+`/`−` display lines (at most `limit`)."""
    changed = [
        ("+", "-added", line[2:]) if line.startswith("+") else ("−", "-removed", line[2:])
        for line in difflib.ndiff(old.splitlines(), new.splitlines())
        if line[:1] in ("+", "-")
    ]
    shown = [(symbol, css_class, short_value(text) if text.strip() else "(blank line)") for symbol, css_class, text in changed[:limit]]
    if len(changed) > limit:
        shown.append(("~", "-changed", f"… {len(changed) - limit} more changed lines"))
    return shown
