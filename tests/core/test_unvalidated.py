"""Models built without validation (core/agui/unvalidated.py) behave as validated ones.

`unvalidated` writes pydantic's instance slots (`__dict__`, `__pydantic_fields_set__`,
`__pydantic_extra__`, `__pydantic_private__`) directly: internals, which is why pyproject.toml
bounds pydantic below its next major. These tests are what tells an upgrade broke them.
"""

from __future__ import annotations

import copy
import pickle
from typing import Any

import pytest
from pydantic import BaseModel

from tandem.core import unvalidated
from tandem.core.content import ApprovalRequestContent, TextContent, ToolCallContent, ToolResultContent
from tandem.core.messages import ChatUpdate

PARTS: list[tuple[type[BaseModel], dict[str, Any]]] = [
    (TextContent, {"text": "hello"}),
    (ToolCallContent, {"call_id": "c1", "name": "get_weather", "arguments_delta": '{"a"', "done": False}),
    (ToolResultContent, {"call_id": "c1", "result": {"temperature": 21}}),
    (ApprovalRequestContent, {"request_id": "r1", "tool_name": "delete_file", "arguments": {"path": "a.txt"}}),
]


def _unvalidated(model: type[BaseModel], given: dict[str, Any]) -> Any:
    """`model` built by `unvalidated.part` from every field (declaration order) and the given ones."""
    validated = model.model_validate(given)
    values = {name: getattr(validated, name) for name in model.model_fields}
    return unvalidated.part(model, values, set(given))


def _same(built: BaseModel, validated: BaseModel) -> None:
    assert built == validated
    assert type(built) is type(validated)
    assert built.model_fields_set == validated.model_fields_set
    assert built.model_dump() == validated.model_dump()
    assert built.model_dump(exclude_unset=True) == validated.model_dump(exclude_unset=True)
    assert built.model_dump_json() == validated.model_dump_json()
    assert repr(built) == repr(validated)
    assert built.model_extra == validated.model_extra
    assert pickle.loads(pickle.dumps(built)) == validated
    assert copy.deepcopy(built) == validated
    assert built.model_copy() == validated


@pytest.mark.parametrize(("model", "given"), PARTS, ids=[model.__name__ for model, _ in PARTS])
def test_a_part_built_without_validation_equals_the_validated_one(model: type[BaseModel], given: dict[str, Any]) -> None:
    _same(_unvalidated(model, given), model.model_validate(given))


def test_an_update_built_without_validation_equals_the_validated_one() -> None:
    parts = [_unvalidated(model, given) for model, given in PARTS]
    raw = {"type": "TEXT_MESSAGE_CONTENT", "delta": "hello"}
    built = unvalidated.update(parts, raw, message_id="m1")
    validated = ChatUpdate.model_validate(
        {"role": "assistant", "contents": [model.model_validate(given) for model, given in PARTS], "message_id": "m1", "author": None, "raw": raw}
    )
    _same(built, validated)
    assert ChatUpdate.model_validate_json(built.model_dump_json()) == built
    # Frozen like a validated update: the slots written directly do not open a way around it.
    with pytest.raises(Exception, match="frozen"):
        built.message_id = "m2"  # type: ignore[misc]
    changed = built.model_copy(update={"author": "ada"})
    assert changed.author == "ada" and built.author is None


def test_every_update_field_is_written() -> None:
    # `envelope` writes these names; a field added to ChatUpdate must be added there too.
    built = unvalidated.update([], None)
    assert set(built.__dict__) == set(ChatUpdate.model_fields) == unvalidated.UPDATE_FIELDS
