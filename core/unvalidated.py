"""Models built from values already known to be valid, without validating them again (core/: the
AG-UI mapping and the history both build with it).

The client's hot path: text deltas are most of a stream, and validating each part and its
envelope would double their cost. What is built here equals what validation builds, down to the
set fields. Only for values the caller has checked (parsed JSON of the right types, validated parts).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from tandem.core.content import TextContent
from tandem.core.messages import ChatUpdate, Role

__all__ = ["UPDATE_FIELDS", "envelope", "new", "part", "set_dict", "set_extra", "set_fields_set", "set_private", "text_update",
           "update"]

new = object.__new__
"""Allocate a model instance without running its `__init__`."""
UPDATE_FIELDS = frozenset(ChatUpdate.model_fields)
"""Every field of `ChatUpdate`: all of them are set when an update is built here."""
set_dict = BaseModel.__dict__["__dict__"].__set__
"""`object.__setattr__(model, "__dict__", value)` without the attribute lookup through the MRO."""
set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
set_private = BaseModel.__dict__["__pydantic_private__"].__set__


_ENVELOPE_FIELDS_SET = set(UPDATE_FIELDS)
_TEXT_FIELDS_SET = {"text"}
"""The fields sets of what `text_update` builds, shared by every update and part it builds:
both models are frozen, so pydantic never adds to their fields set in place (assignment is
refused; `model_copy` copies the set before it adds to it). A set per object was a tenth of
the cost of a text delta."""


def text_update(text: str, role: Role, message_id: str, author: str | None, raw: Any) -> ChatUpdate:
    """`envelope([TextContent(text=text)], raw, role, message_id, author)`, built in one go: the
    hottest path there is (a text delta is most of a stream)."""
    text_part = new(TextContent)
    set_dict(text_part, {"kind": "text", "text": text})
    set_fields_set(text_part, _TEXT_FIELDS_SET)
    set_extra(text_part, None)
    set_private(text_part, None)
    update = new(ChatUpdate)
    set_dict(update, {"role": role, "contents": [text_part], "message_id": message_id, "author": author, "raw": raw})
    set_fields_set(update, _ENVELOPE_FIELDS_SET)
    set_extra(update, None)
    set_private(update, None)
    return update


def envelope(contents: list[Any], raw: Any, role: Role, message_id: str | None, author: str | None) -> ChatUpdate:
    """An update around `contents` (validated parts), built without validating it again."""
    # The hot path. Parts are validated models and `raw` is parsed or dumped JSON, so the
    # envelope skips validation: this is what `model_construct` does, at a fifth of its cost
    # (the slots are written through their descriptors, the cheapest way from Python).
    update = new(ChatUpdate)
    set_dict(update, {"role": role, "contents": contents, "message_id": message_id, "author": author,
                       "raw": raw})
    set_fields_set(update, _ENVELOPE_FIELDS_SET)
    set_extra(update, None)
    set_private(update, None)
    return update


def update(contents: list[Any], raw: Any, *, role: Role = "assistant", message_id: str | None = None,
           author: str | None = None) -> ChatUpdate:
    """`envelope` with the usual defaults (an assistant update)."""
    return envelope(contents, raw, role, message_id, author)


def part(model: type[Any], values: dict[str, Any], fields_set: set[str]) -> Any:
    """A `model` instance from `values` already known to be valid, built without validation."""
    # A content part from values already known to be valid, as `envelope` builds an update:
    # `values` holds every field in declaration order, `fields_set` those the caller chose
    # (what validation would have recorded).
    part = new(model)
    set_dict(part, values)
    set_fields_set(part, fields_set)
    set_extra(part, None)
    set_private(part, None)
    return part
