"""The vocabulary of the merge: field paths, the absent value, equality at one field.

What a field is:

- an object member is a field of its own (`/recipe/title`), recursively;
- an array whose elements are all objects with a distinct string or integer `id` is an
  **identity array** (`tandem.core.state.identity`): each element is addressed by its id
  (`/items/[id=7]/done`), whatever its index, and the array's order is one more field of its
  own (`/items/[order]`);
- any other array is **one field** (`/tags`), as is every scalar; a change of type
  (object → string, identity array → plain array) is a change of the field at that point.

Pure; any thread. Imports nothing from the rest of Tandem but `json_pointer`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Union

from tandem.core.json_pointer import escape

__all__ = [
    "MISSING",
    "ORDER",
    "ById",
    "Key",
    "FieldPath",
    "FieldChange",
    "Patch",
    "MergeError",
    "as_document",
    "same_value",
    "overlaps",
    "path_label",
    "path_to_json",
    "path_from_json",
]


class _Missing:
    """The value of a field that does not exist (removed, or never added)."""

    _instance: _Missing | None = None

    def __new__(cls) -> _Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Final = _Missing()
"""A field that is absent; assigning it removes the field."""


class _Order:
    """The order of an identity array, a field of its own."""

    def __repr__(self) -> str:
        return "ORDER"


ORDER: Final = _Order()
"""Path key of an identity array's order; its value is the list of element ids."""


@dataclass(frozen=True)
class ById:
    """Path key of an identity array's element: the element whose `id` is `id`."""

    id: str | int


Key = Union[str, ById, _Order]
FieldPath = tuple[Key, ...]
"""A field's address: object member names, `ById` elements, and `ORDER`."""

FieldChange = tuple[FieldPath, Any]
"""One field's new value (MISSING when the field was removed)."""

Patch = list[dict[str, Any]]
"""RFC 6902 operations, as the agent sends them (applied by `tandem.core.state.patch`)."""


class MergeError(Exception):
    """A write cannot be applied: its path does not exist or a patch operation is malformed."""


def as_document(value: Any) -> Any:
    """The state as a JSON document: no state yet (None) is the empty object, as requests send it."""
    return {} if value is None else value


def same_value(a: Any, b: Any) -> bool:
    """JSON equality at one field: values equal and, for scalars, the same JSON type."""
    if a is b:
        return True
    if type(a) is not type(b):
        # int and float are one JSON type (number); bool is not a number here.
        numbers = (int, float)
        if not (type(a) in numbers and type(b) in numbers):
            return False
    return bool(a == b)


def overlaps(a: FieldPath, b: FieldPath) -> bool:
    """Whether two fields are the same or one contains the other."""
    if len(a) >= len(b):
        return a[: len(b)] == b
    return b[: len(a)] == a


def path_label(path: FieldPath) -> str:
    """A readable, stable name for a field: a JSON pointer with `[id=…]` and `[order]` keys."""
    if not path:
        return "/"
    parts = []
    for key in path:
        if key is ORDER:
            parts.append("[order]")
        elif isinstance(key, ById):
            parts.append(f"[id={key.id}]" if isinstance(key.id, int) else f"[id={key.id!r}]")
        else:
            assert isinstance(key, str)
            parts.append(escape(key))
    return "".join("/" + part for part in parts)


def path_to_json(path: FieldPath) -> list[Any]:
    """A field path as JSON: names, `{"id": …}` for elements, `{"order": true}`."""
    return [{"order": True} if key is ORDER else {"id": key.id} if isinstance(key, ById) else key for key in path]


def path_from_json(value: Any) -> FieldPath:
    """The inverse of `path_to_json`.

    Raises:
        MergeError: `value` is not a logged field path.
    """
    if type(value) is not list:
        raise MergeError("a field path is a list")
    path: list[Key] = []
    for key in value:
        if type(key) is str:
            path.append(key)
        elif type(key) is dict and key.get("order") is True:
            path.append(ORDER)
        elif type(key) is dict and (type(key.get("id")) is str or type(key.get("id")) is int):
            path.append(ById(key["id"]))
        else:
            raise MergeError(f"{key!r} is not a field path key")
    return tuple(path)
