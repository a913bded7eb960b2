"""Reading what the person types at a `tandem ask` prompt: approvals, UI actions, form values.

Pure parsing, no I/O: each function returns the answer, or a sentence saying what is wrong with
the line (the prompt shows it and asks again).
"""

from __future__ import annotations

from typing import Any

from pydantic import JsonValue

from tandem.core.blocks import UIActionBlock
from tandem.core.agent_json import loads_agent_json

__all__ = [
    "TASK_STEPS_ACTION",
    "Answer",
    "accepted_arguments",
    "parse_action",
    "parse_approval",
    "parse_edited",
    "schema_defaults",
    "select_steps",
    "task_steps",
    "typed_value",
]


TASK_STEPS_ACTION = "generate_task_steps"
"""The UI action whose answer is a selection of steps: `{"steps": [...], "accepted": bool}`."""


class Answer:
    """A parsed answer to an approval or a UI action: yes or no, edited arguments, a reason."""

    def __init__(self, yes: bool, *, arguments: dict[str, JsonValue] | None = None, reason: str | None = None) -> None:
        self.yes = yes
        self.arguments = arguments
        self.reason = reason


def parse_approval(line: str) -> Answer | str:
    """`y [reason]`, `n [reason]`, `e {json}` or `{"approved": …}` → an answer, or what is wrong."""
    text = line.strip()
    if text.startswith("{"):
        try:
            payload = loads_agent_json(text)
        except ValueError as exc:
            return f"not JSON: {exc}"
        if not isinstance(payload, dict) or not isinstance(payload.get("approved"), bool):
            return 'expected {"approved": true|false, "editedArgs": {...}, "reason": "..."}'
        edited = payload.get("editedArgs")
        if edited is not None and not isinstance(edited, dict):
            return "editedArgs must be a JSON object"
        reason = payload.get("reason")
        return Answer(payload["approved"], arguments=edited, reason=str(reason) if reason else None)
    word, _, rest = text.partition(" ")
    word, rest = word.lower(), rest.strip()
    if word in ("y", "yes", "a", "approve"):
        return Answer(True, reason=rest or None)
    if word in ("n", "no", "r", "reject", "deny"):
        return Answer(False, reason=rest or None)
    if word in ("e", "edit"):
        return parse_edited(rest)
    return "answer y (approve), n [reason] (reject) or e {JSON arguments} (approve with edits)"


def parse_action(line: str, steps: list[dict[str, Any]] | None) -> Answer | str:
    """`y`, `n [reason]`, `e {json}` (or, for task steps, `e 1 3`) → an answer, or what is wrong."""
    word, _, rest = line.strip().partition(" ")
    word, rest = word.lower(), rest.strip()
    if word in ("y", "yes", "run"):
        return Answer(True)
    if word in ("n", "no", "decline", "reject"):
        return Answer(False, reason=rest or None)
    if word in ("e", "edit"):
        if steps is not None and rest and not rest.startswith("{"):
            return select_steps(steps, rest)
        return parse_edited(rest)
    return "answer y (run), n [reason] (decline) or e {JSON arguments} (run with these arguments)"


def parse_edited(text: str) -> Answer | str:
    """`{json}` → a yes with these arguments, or what is wrong (a human's edit: empty is wrong)."""
    try:
        arguments = loads_agent_json(text)
    except ValueError as exc:
        return f"edited arguments are not JSON: {exc}"
    if not isinstance(arguments, dict):
        return "edited arguments must be a JSON object"
    return Answer(True, arguments=arguments)


def task_steps(arguments: dict[str, Any]) -> list[dict[str, Any]]:
    """The steps a `generate_task_steps` call proposes (entries that are not objects dropped)."""
    steps = arguments.get("steps")
    return [step for step in steps if isinstance(step, dict)] if isinstance(steps, list) else []


def select_steps(steps: list[dict[str, Any]], text: str) -> Answer | str:
    """`1 3` or `1,3` → every step, the chosen ones enabled and the others disabled."""
    try:
        chosen = {int(word) for word in text.replace(",", " ").split()}
    except ValueError:
        return f"expected step numbers between 1 and {len(steps)}, like: e 1 3"
    if not chosen or not chosen <= set(range(1, len(steps) + 1)):
        return f"expected step numbers between 1 and {len(steps)}, like: e 1 3"
    selection: list[JsonValue] = [
        {**step, "status": "enabled" if number in chosen else "disabled"} for number, step in enumerate(steps, start=1)
    ]
    return Answer(True, arguments={"steps": selection, "accepted": True})


def accepted_arguments(block: UIActionBlock) -> dict[str, JsonValue]:
    """The arguments that accept an action as proposed (every task step, confirmed)."""
    if block.name == TASK_STEPS_ACTION:
        return {"steps": block.arguments.get("steps") or [], "accepted": True}
    return dict(block.arguments)


def schema_defaults(schema: dict[str, Any] | None) -> dict[str, JsonValue] | None:
    """The `default` of each property of an object schema (None: the schema has no properties)."""
    properties = (schema or {}).get("properties")
    if not isinstance(properties, dict):
        return None
    return {name: spec["default"] for name, spec in properties.items() if isinstance(spec, dict) and "default" in spec}


def typed_value(text: str, spec: dict[str, Any]) -> JsonValue:
    """A form field's text as the schema's type: JSON for non-strings, the text itself otherwise."""
    kind = spec.get("type")
    if kind in (None, "string") or (isinstance(kind, list) and "string" in kind):
        return text
    try:
        value: JsonValue = loads_agent_json(text)
    except ValueError:
        return text  # validation will say what is wrong with it
    return value
