"""Field-level three-way merge of shared state: the vocabulary and the pure functions.

Shared state has two writers. The agent computes its writes against the state it was sent (the
*base*); the person edits the committed state meanwhile (*ours*). An agent write (*theirs*) is
turned into **field changes** relative to the base and each is merged onto ours on its own.

What a field is:

- an object member is a field of its own (`/recipe/title`), recursively;
- an array whose elements are all objects with a distinct string or integer `id` is an
  **identity array**: each element is addressed by its id (`/items/[id=7]/done`), whatever its
  index, and the array's order is one more field of its own (`/items/[order]`);
- any other array is **one field** (`/tags`), as is every scalar; a change of type
  (object → string, identity array → plain array) is a change of the field at that point.

Which writes merge and which conflict (the rules AgentState applies):

- Changes to different fields combine: neither side's write is lost.
- Both sides wrote the same field (or one wrote a field inside the other's): equal values
  agree; different values are a **conflict**. The committed value keeps the person's write
  until the person decides (keep mine / take the agent's / edit).
- An element added by either side to an identity array is a field of its own (no conflict),
  placed right after the nearest element before it on the writer's side that the array still
  holds (first if none); an element the person removed while the agent changed it (or the
  reverse) conflicts.
- A reorder (a move inside an identity array) is a change to the `[order]` field: it combines
  with inserts, deletes and edits inside elements. Two reorders agree when they order the
  elements both hold alike, and otherwise conflict. Elements only ours has keep their place
  after their predecessor. A move between different fields is a remove plus an add.
- Equality is JSON equality with numbers compared by value; at the changed field itself a
  change of type counts (`true` → `1`), inside an otherwise equal array it does not.

Every function here is pure and never changes its arguments: writes copy the containers along
the written path and share everything else (copy-on-write), so a patch costs O(depth × width of
the containers on its path), not O(state). The one exception is explicit: containers a caller
lists in an `Owned` (copies it made and has shown no one) are changed in place, so a writer's
run of appends to a long array copies it once, not once per append. Imports nothing from the
rest of Tandem.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Union

__all__ = [
    "MISSING",
    "ORDER",
    "ById",
    "FieldPath",
    "FieldChange",
    "MergeError",
    "Owned",
    "is_identity_array",
    "canonical_path",
    "resolve",
    "assign",
    "insert_element",
    "apply_patch",
    "field_changes",
    "patch_changes",
    "overlaps",
    "path_label",
    "path_to_json",
    "path_from_json",
    "pointer_of",
    "same_value",
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


class MergeError(Exception):
    """A write cannot be applied: its path does not exist or a patch operation is malformed."""


class Owned:
    """Containers one writer copied itself and has not shown anyone: it may change them in place.

    Owns the containers it lists (so an id is never reused while listed: membership is by
    identity). A writer lists the copies it makes and clears the list when a reader gets a
    reference to its value; until then N writes through one container copy it once, not N times.
    """

    __slots__ = ("_containers", "_journal")

    def __init__(self) -> None:
        self._containers: dict[int, Any] = {}
        self._journal: list[tuple[str, Any, Any, Any]] | None = None
        """While a write may still fail (`begin`): how to undo each in-place change, in order."""

    def __contains__(self, container: object) -> bool:
        return self._containers.get(id(container)) is container

    def __len__(self) -> int:
        return len(self._containers)

    def add(self, container: Any) -> None:
        """List a container this writer just made."""
        self._containers[id(container)] = container

    def clear(self) -> None:
        """Forget every container: a reader may hold them now, so they are copied before a write."""
        self._containers.clear()

    def begin(self) -> None:
        """Start a write of several operations that must change nothing if one fails: note each
        in-place change so that `rollback` can undo it. End it with `commit` or `rollback`."""
        self._journal = []

    def commit(self) -> None:
        """The write succeeded: forget how to undo it."""
        self._journal = None

    def rollback(self) -> None:
        """Undo the in-place changes since `begin`, newest first (O(number of changes))."""
        journal, self._journal = self._journal or [], None
        for kind, container, key, old in reversed(journal):
            if kind == "insert":
                del container[key]
            elif kind == "delete":
                container.insert(key, old)
            elif old is MISSING:
                del container[key]
            else:
                container[key] = old
            if type(container) is list:
                _INDEXES.pop(id(container), None)  # its id index may hold the undone change

    def note(self, container: Any, kind: str, key: Any, old: Any = None) -> None:
        """`container` (owned) is about to change in place at `key`: "set" (`old`: the value
        there, MISSING for none), "insert" or "delete" (`old`: the element removed)."""
        if self._journal is not None:
            self._journal.append((kind, container, key, old))


# -- identity arrays -----------------------------------------------------------------------


def _element_id(element: Any) -> str | int | None:
    if type(element) is dict:
        ident = element.get("id")
        if type(ident) is str or type(ident) is int:
            return ident
    return None


_CACHED_FROM = 32
"""Arrays at least this long keep their id index in `_INDEXES` (shorter ones are cheap to scan)."""


class _Entry:
    """One cached id index: the array (held, so its id is not reused while cached), its id →
    position index (None: not an identity array), and whether that index dict is this array's
    alone (a copy of an array may share its index until either is changed)."""

    __slots__ = ("array", "index", "exclusive")

    def __init__(self, array: list[Any], index: dict[Any, int] | None, exclusive: bool) -> None:
        self.array, self.index, self.exclusive = array, index, exclusive


_INDEXES: dict[int, _Entry] = {}
"""id(array) → its cached `_Entry`.

Kept right by every write here: a write changes an array in place only when its writer owns it
(see `Owned`), and then updates or drops the array's entry (`_reindex`); a copy gets the entry
its writes leave (an append adds one id, an element changed inside keeps the index). Bounded,
oldest out first."""
_CACHE_SIZE = 64


def _compute_index(array: list[Any]) -> dict[Any, int] | None:
    index: dict[Any, int] = {}
    for position, element in enumerate(array):
        ident = _element_id(element)
        if ident is None or ident in index:
            return None
        index[ident] = position
    return index


def _remember(array: list[Any], index: dict[Any, int] | None, *, exclusive: bool = True) -> None:
    if len(array) < _CACHED_FROM:
        return
    if len(_INDEXES) >= _CACHE_SIZE and id(array) not in _INDEXES:
        try:
            del _INDEXES[next(iter(_INDEXES))]
        except (StopIteration, KeyError, RuntimeError):  # another thread trimmed it first
            pass
    _INDEXES[id(array)] = _Entry(array, index, exclusive)


def _cached(array: list[Any]) -> _Entry | None:
    entry = _INDEXES.get(id(array))
    return entry if entry is not None and entry.array is array else None


def _identity_index(array: list[Any]) -> dict[Any, int] | None:
    """The id → position index of an identity array, or None; O(1) for a cached array."""
    entry = _cached(array)
    if entry is not None:
        return entry.index
    index = _compute_index(array) if array else None
    _remember(array, index)
    return index


def _reindex(old: list[Any], new: list[Any], kind: str, position: int, removed: Any = None, added: Any = None) -> None:
    """`new` is `old` (changed in place) or a copy of it, after one write: keep the id index right.

    `kind` is "set" (the element at `position` replaced, or changed inside: `removed` and
    `added` are the ids before and after, None for an element without one), "append" (`added`
    put at the end, at `position`), or "delete" (the last element, of id `removed`, taken off);
    anything else (an insert or a removal before the end: every later position moves) drops
    the index, to be computed again when next needed. O(1) in place, O(len) for a copy (a
    C-level dict copy) — never the Python-level scan of every element.
    """
    entry = _cached(old)
    if entry is None:
        return  # nothing cached: computed when needed
    index = entry.index
    in_place = new is old
    result: dict[Any, int] | None
    if index is None or kind not in ("set", "append", "delete"):
        if in_place:
            _INDEXES.pop(id(old), None)  # an element may have gained or lost its id: compute again
        return
    if kind == "set" and removed is not None and added == removed and type(added) is type(removed):
        if not in_place:
            entry.exclusive = False  # the copy shares the index
            _remember(new, index, exclusive=False)
        return
    if kind != "delete" and (added is None or added in index):
        result = None  # an element without an id, or a repeated id: not an identity array now
    else:
        result = index if in_place and entry.exclusive else dict(index)
        if kind != "append":
            del result[removed]
        if kind != "delete":
            result[added] = position
    if in_place:
        entry.index, entry.exclusive = result, True
    else:
        _remember(new, result)


def is_identity_array(value: Any) -> bool:
    """Whether `value` is a non-empty list of objects with distinct string or integer ids."""
    return type(value) is list and bool(value) and _identity_index(value) is not None


def _identity_pair(before: Any, after: Any) -> bool:
    """Whether two versions of one array are both identity arrays (an empty one fits either)."""
    if type(before) is not list or type(after) is not list or (not before and not after):
        return False
    return (not before or is_identity_array(before)) and (not after or is_identity_array(after))


def _index_of(array: list[Any], ident: str | int) -> int | None:
    if len(array) >= _CACHED_FROM:
        positions = _identity_index(array)
        if positions is not None:
            return positions.get(ident)
    for index, element in enumerate(array):
        if _element_id(element) == ident and type(_element_id(element)) is type(ident):
            return index
    return None


# -- equality ------------------------------------------------------------------------------


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


# -- pointers ------------------------------------------------------------------------------


def _pointer_tokens(pointer: str) -> list[str]:
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise MergeError(f"{pointer!r} is not a JSON pointer")
    return [token.replace("~1", "/").replace("~0", "~") for token in pointer.split("/")[1:]]


def _array_index(token: str, length: int, *, allow_end: bool) -> int:
    if token == "-" and allow_end:
        return length
    if not token.isdigit() or (len(token) > 1 and token[0] == "0"):
        raise MergeError(f"{token!r} is not an array index")
    index = int(token)
    if index > length or (index == length and not allow_end):
        raise MergeError(f"array index {index} is out of range")
    return index


def canonical_path(document: Any, tokens: Sequence[str]) -> FieldPath:
    """The field that a JSON pointer's tokens address in `document`.

    Object members stay names; elements of identity arrays become `ById`; the path stops at a
    plain array (the whole array is one field), at a scalar, or after the first missing member.
    """
    path: list[Key] = []
    node = document
    for token in tokens:
        if type(node) is dict:
            path.append(token)
            if token not in node:
                break
            node = node[token]
        elif type(node) is list and is_identity_array(node):
            try:
                index = _array_index(token, len(node), allow_end=False)
            except MergeError:
                break
            ident = _element_id(node[index])
            assert ident is not None
            path.append(ById(ident))
            node = node[index]
        else:
            break
    return tuple(path)


def pointer_of(document: Any, path: FieldPath) -> str | None:
    """The JSON pointer of `path` in `document` (elements by their current index), or None.

    The `ORDER` key maps to the array itself.
    """
    parts: list[str] = []
    node = document
    for key in path:
        if key is ORDER:
            break
        if isinstance(key, ById):
            if type(node) is not list:
                return None
            index = _index_of(node, key.id)
            if index is None:
                return None
            parts.append(str(index))
            node = node[index]
        else:
            assert isinstance(key, str)
            parts.append(key.replace("~", "~0").replace("/", "~1"))
            node = node.get(key, MISSING) if type(node) is dict else MISSING
    return "".join("/" + part for part in parts)


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
            parts.append(key.replace("~", "~0").replace("/", "~1"))
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


def overlaps(a: FieldPath, b: FieldPath) -> bool:
    """Whether two fields are the same or one contains the other."""
    if len(a) >= len(b):
        return a[: len(b)] == b
    return b[: len(a)] == a


# -- reading and writing -------------------------------------------------------------------


def resolve(document: Any, path: FieldPath) -> Any:
    """The value of the field at `path`, or MISSING. `ORDER` resolves to the list of ids."""
    node = document
    for key in path:
        if key is ORDER:
            if type(node) is not list:
                return MISSING
            return [_element_id(element) for element in node]
        if isinstance(key, ById):
            if type(node) is not list:
                return MISSING
            index = _index_of(node, key.id)
            if index is None:
                return MISSING
            node = node[index]
        elif type(node) is dict:
            node = node.get(key, MISSING)
            if node is MISSING:
                return MISSING
        else:
            return MISSING
    return node


def _reordered(array: list[Any], order: Any) -> list[Any]:
    """`array` in the id order `order`; elements `order` does not name stay after their predecessor."""
    if type(order) is not list:
        raise MergeError("an array order is a list of ids")
    positions = _identity_index(array) if array else {}
    if positions is None:
        raise MergeError("an order belongs to an array of elements with ids")
    named: dict[Any, None] = {}
    for ident in order:
        if (type(ident) is str or type(ident) is int) and ident in positions:
            named[ident] = None
    result = [array[positions[ident]] for ident in named]
    if len(result) == len(array):
        return result
    previous: Any = None
    for element in array:
        if _element_id(element) not in named:
            position = 0 if previous is None else next(
                (i + 1 for i, e in enumerate(result) if e is previous), len(result)
            )
            result.insert(position, element)
        previous = element
    return result


def assign(document: Any, path: FieldPath, value: Any, owned: Owned | None = None) -> Any:
    """`document` with the field at `path` set to `value` (MISSING removes it), copy-on-write.

    Only the containers along `path` are copied. An element added to an identity array goes at
    the end (an `ORDER` change places it); removing a field that is already gone is a no-op.

    Args:
        owned: Containers this caller copied itself (during a batch of writes, or since it
            last showed its value to anyone): those are changed in place, and new copies are
            added, so N writes through one big container copy it once, not N times.

    Raises:
        MergeError: a container on the path is missing or of the wrong type.
    """
    if not path:
        if value is MISSING:
            raise MergeError("the whole state cannot be removed")
        return value
    key, rest = path[0], path[1:]
    if key is ORDER:
        if type(document) is not list or rest:
            raise MergeError("an order belongs to an array")
        return _own(_reordered(document, value), owned)
    if isinstance(key, ById):
        if type(document) is not list:
            raise MergeError(f"element {key.id!r} is not in an array")
        index = _index_of(document, key.id)
        if not rest:
            length = len(document)
            copied = _writable(document, owned)
            if value is MISSING:
                if index is not None:
                    del copied[index]
                    _reindex(document, copied, "delete" if index == length - 1 else "remove", index, key.id)
            elif index is None:
                copied.append(value)
                _reindex(document, copied, "append", length, added=_element_id(value))
            else:
                copied[index] = value
                _reindex(document, copied, "set", index, key.id, _element_id(value))
            return copied
        if index is None:
            raise MergeError(f"element {key.id!r} is gone")
        copied = _writable(document, owned)
        copied[index] = child = assign(document[index], rest, value, owned)
        _reindex(document, copied, "set", index, key.id, _element_id(child))
        return copied
    if type(document) is not dict:
        raise MergeError(f"member {key!r} is not in an object")
    if not rest:
        if value is MISSING:
            if key not in document:
                return document
            copied_dict = _writable(document, owned)
            del copied_dict[key]
            return copied_dict
        copied_dict = _writable(document, owned)
        copied_dict[key] = value
        return copied_dict
    if key not in document:
        raise MergeError(f"member {key!r} is gone")
    copied_dict = _writable(document, owned)
    copied_dict[key] = assign(document[key], rest, value, owned)
    return copied_dict


def _own(container: Any, owned: Owned | None) -> Any:
    if owned is not None:
        owned.add(container)
    return container


def _writable(container: Any, owned: Owned | None) -> Any:
    """`container` itself if this writer copied it, else a fresh copy the writer now owns.

    A writer that changes an array's elements tells `_reindex` (its id index must hold).
    """
    if owned is not None and container in owned:
        return container
    return _own(list(container) if type(container) is list else dict(container), owned)


def insert_element(document: Any, path: FieldPath, element: Any, source: Any, owned: Owned | None = None) -> Any:
    """`document` with `element` added at `path` (an identity element), placed as in `source`.

    The element goes right after the nearest element before it in `source`'s array that
    `document`'s array still holds (the other writer may have removed its neighbour), first
    when none is; at the end when `source` does not hold it. With `owned`, as `assign`: an
    array this writer copied already takes the element in place (N inserts copy it once).

    Raises:
        MergeError: the array is missing or not an array.
    """
    array_path, key = path[:-1], path[-1]
    array = resolve(document, array_path)
    if type(array) is not list or not isinstance(key, ById):
        raise MergeError("an element is added to an array")
    position = len(array)
    theirs = resolve(source, array_path)
    at = _index_of(theirs, key.id) if type(theirs) is list else None
    if at is not None:
        position = 0
        for before in range(at - 1, -1, -1):
            previous = _element_id(theirs[before])
            found = None if previous is None else _index_of(array, previous)
            if found is not None:
                position = found + 1
                break
    kind = "append" if position == len(array) else "insert"
    copied = _writable(array, owned)
    copied.insert(position, element)
    _reindex(array, copied, kind, position, added=_element_id(element))
    return assign(document, array_path, copied, owned)


def _set_pointer(document: Any, tokens: list[str], op: str, value: Any, owned: Owned | None = None) -> Any:
    """RFC 6902 add / replace / remove at `tokens`, copy-on-write (MISSING value: remove).

    Raises before changing anything (so an owned container changed in place is never left
    half-written by a failed operation).
    """
    if not tokens:
        if op == "remove":
            raise MergeError("the whole state cannot be removed")
        return value
    token, rest = tokens[0], tokens[1:]
    if type(document) is dict:
        if not rest:
            if op != "add" and token not in document:
                raise MergeError(f"member {token!r} does not exist")
            copied = _writable(document, owned)
            if copied is document and owned is not None:
                owned.note(copied, "set", token, copied.get(token, MISSING))
            if op == "remove":
                del copied[token]
            else:
                copied[token] = value
            return copied
        if token not in document:
            raise MergeError(f"member {token!r} does not exist")
        child = _set_pointer(document[token], rest, op, value, owned)
        copied = _writable(document, owned)
        if copied is document and owned is not None and child is not document[token]:
            owned.note(copied, "set", token, document[token])
        copied[token] = child
        return copied
    if type(document) is list:
        index = _array_index(token, len(document), allow_end=(op == "add" and not rest))
        length = len(document)
        if rest:
            removed = _element_id(document[index])  # read before the element may change in place
            child = _set_pointer(document[index], rest, op, value, owned)
            copied_list = _writable(document, owned)
            if copied_list is document and owned is not None and child is not document[index]:
                owned.note(copied_list, "set", index, document[index])
            copied_list[index] = child
            _reindex(document, copied_list, "set", index, removed, _element_id(child))
            return copied_list
        removed = None if index == length else _element_id(document[index])
        copied_list = _writable(document, owned)
        if copied_list is document and owned is not None:
            if op == "add":
                owned.note(copied_list, "insert", index)
            else:
                owned.note(copied_list, "delete" if op == "remove" else "set", index, document[index])
        if op == "add":
            copied_list.insert(index, value)
            _reindex(document, copied_list, "append" if index == length else "insert", index, added=_element_id(value))
        elif op == "remove":
            del copied_list[index]
            _reindex(document, copied_list, "delete" if index == length - 1 else "remove", index, removed)
        else:
            copied_list[index] = value
            _reindex(document, copied_list, "set", index, removed, _element_id(value))
        return copied_list
    raise MergeError(f"{token!r} is inside a {type(document).__name__}, not a container")


def _get_pointer(document: Any, tokens: list[str]) -> Any:
    node = document
    for token in tokens:
        if type(node) is dict:
            if token not in node:
                raise MergeError(f"member {token!r} does not exist")
            node = node[token]
        elif type(node) is list:
            node = node[_array_index(token, len(node), allow_end=False)]
        else:
            raise MergeError(f"{token!r} is inside a {type(node).__name__}, not a container")
    return node


def _touched(document: Any, tokens: list[str], elements: dict[FieldPath, int] | None = None) -> FieldPath:
    """The field an operation at `tokens` writes: the member, the identity element, or the array.

    An element of an identity array that `document` holds at `tokens` (added there, or about to
    be removed or replaced) is a field of its own, as `field_changes` names it: an insert or a
    removal shifts the later indexes but not the order of the other elements, so only that
    element changed (O(1) to find, where diffing the array is O(its length)). Such touches are
    counted in `elements`: an element added and removed in one patch may have moved, which
    changes the array's order (see `apply_patch`). Any other element write is the whole array.
    """
    parent = _get_pointer(document, tokens[:-1]) if tokens else None
    if tokens and type(parent) is list:
        array = canonical_path(document, tokens[:-1])
        if elements is not None and parent and len(array) == len(tokens) - 1 and is_identity_array(parent):
            index = len(parent) - 1 if tokens[-1] == "-" else _array_index(tokens[-1], len(parent), allow_end=False)
            ident = _element_id(parent[index])
            assert ident is not None
            element = (*array, ById(ident))
            elements[element] = elements.get(element, 0) + 1
            return element
        return array
    path = canonical_path(document, tokens)
    if len(path) >= 2 and path[-1] == "id" and isinstance(path[-2], ById):
        return path[:-2]  # an element's id: which elements the array holds, maybe whether it is an identity array
    return path


def _nothing_touched(document: Any, tokens: list[str], elements: dict[FieldPath, int] | None = None) -> FieldPath:
    return ()


def apply_patch(
    document: Any, patch: Iterable[Any], owned: Owned | None = None, *, fields: bool = True
) -> tuple[Any, list[FieldPath]]:
    """Apply RFC 6902 operations copy-on-write; return the result and the fields written.

    The fields are named in the frame of the document each operation applied to (identity
    elements by id), so they can be located in another copy of the state.

    Args:
        owned: Containers the caller may change in place (see `assign`); copies are added.
            An operation that fails changes nothing, but the operations before it in the same
            patch stay applied to owned containers: call `owned.begin()` first (and
            `owned.rollback()` on failure) when the document must stay as it was.
        fields: False when the caller does not need the fields written (then the list is empty).

    Raises:
        MergeError: an operation is malformed, its path does not exist, or a test fails.
    """
    touched: list[FieldPath] = []
    elements: dict[FieldPath, int] = {}
    touch = _touched if fields else _nothing_touched
    for op in patch:
        if type(op) is not dict:
            raise MergeError("a patch operation is an object")
        kind, pointer = op.get("op"), op.get("path")
        if type(pointer) is not str:
            raise MergeError("a patch operation needs a string path")
        tokens = _pointer_tokens(pointer)
        if kind in ("add", "replace"):
            if "value" not in op:
                raise MergeError(f"{kind} needs a value")
            if kind == "replace":
                before = touch(document, tokens, elements)
                document = _set_pointer(document, tokens, kind, op["value"], owned)
                if before and isinstance(before[-1], ById) and len(before) == len(tokens):
                    # An element replaced: the one it replaced, and itself if it has another id
                    # (or the array, when it is no longer an identity array).
                    after = touch(document, tokens, elements)
                    if after == before:
                        elements[after] -= 1
                    else:
                        touched.append(after)
                touched.append(before)
            else:
                document = _set_pointer(document, tokens, kind, op["value"], owned)
                touched.append(touch(document, tokens, elements))
        elif kind == "remove":
            touched.append(touch(document, tokens, elements))
            document = _set_pointer(document, tokens, kind, None, owned)
        elif kind in ("move", "copy"):
            source = op.get("from")
            if type(source) is not str:
                raise MergeError(f"{kind} needs a string from")
            from_tokens = _pointer_tokens(source)
            if kind == "move" and tokens[: len(from_tokens)] == from_tokens and tokens != from_tokens:
                raise MergeError("cannot move a value into itself")
            value = _get_pointer(document, from_tokens)
            if kind == "copy" and owned is not None and type(value) in (dict, list):
                # An owned container must appear once in the document (a write changes it in
                # place): the copy is a copy, as jsonpatch makes it.
                value = copy.deepcopy(value)
            if kind == "move":
                touched.append(touch(document, from_tokens, elements))
                document = _set_pointer(document, from_tokens, "remove", None, owned)
            document = _set_pointer(document, tokens, "add", value, owned)
            touched.append(touch(document, tokens, elements))
        elif kind == "test":
            if "value" not in op or not same_value(_get_pointer(document, tokens), op["value"]):
                raise MergeError(f"test failed at {pointer!r}")
        else:
            raise MergeError(f"unknown patch operation {kind!r}")
    # An element added and removed (or replaced) in one patch may have moved: its array's
    # order is a field that changed too, so the whole array is diffed.
    touched.extend(element[:-1] for element, count in elements.items() if count > 1)
    return document, touched if fields else []


# -- diffs ---------------------------------------------------------------------------------


def field_changes(before: Any, after: Any, prefix: FieldPath = ()) -> list[FieldChange]:
    """The fields that differ between two versions of the value at `prefix`.

    Objects are compared member by member, identity arrays element by element (plus their
    order); anything else that differs is one change. Unchanged subtrees are skipped with one
    comparison each (shared subtrees by identity, without looking inside).
    """
    if before is after:
        return []
    if before is MISSING or after is MISSING:
        return [(prefix, after)]
    if type(before) is dict and type(after) is dict:
        changes: list[FieldChange] = []
        for key, value in after.items():
            old = before.get(key, MISSING)
            if old is value:
                continue
            if old is MISSING:
                changes.append(((*prefix, key), value))
            elif not same_value(old, value):
                changes.extend(field_changes(old, value, (*prefix, key)))
        for key in before:
            if key not in after:
                changes.append(((*prefix, key), MISSING))
        return changes
    if _identity_pair(before, after):
        return _array_changes(before, after, prefix)
    if same_value(before, after):
        return []
    return [(prefix, after)]


def _array_changes(before: list[Any], after: list[Any], prefix: FieldPath) -> list[FieldChange]:
    # Both are identity arrays (or empty): their id → position indexes exist (cached when long).
    old = (_identity_index(before) if before else None) or {}
    new = (_identity_index(after) if after else None) or {}
    changes: list[FieldChange] = []
    for ident, position in new.items():
        element = after[position]
        at = old.get(ident)
        if at is None:
            changes.append(((*prefix, ById(ident)), element))
        else:
            previous = before[at]
            if previous is not element and not same_value(previous, element):
                changes.extend(field_changes(previous, element, (*prefix, ById(ident))))
    for ident in old:
        if ident not in new:
            changes.append(((*prefix, ById(ident)), MISSING))
    # An insert places itself (after its predecessor, see `insert_element`); only a change in
    # the relative order of the elements both versions hold is a reorder.
    if [ident for ident in new if ident in old] != [ident for ident in old if ident in new]:
        changes.append(((*prefix, ORDER), list(new)))
    return changes


def _outermost(paths: Iterable[FieldPath]) -> list[FieldPath]:
    """The paths with no other path of the list above them, in first-seen order, no repeats."""
    unique = dict.fromkeys(paths)
    # O(number × depth): a proposal of 10,000 appends names 10,000 elements.
    return [path for path in unique if not any(path[:n] in unique for n in range(len(path)))]


def patch_changes(before: Any, after: Any, touched: Iterable[FieldPath]) -> list[FieldChange]:
    """The field changes between `before` and `after`, looking only under the fields written.

    Costs O(size of the written subtrees), not O(state): a delta's change is found along its
    paths.
    """
    changes: list[FieldChange] = []
    for path in _outermost(touched):
        if ORDER in path:
            path = path[: path.index(ORDER)]
        changes.extend(field_changes(resolve(before, path), resolve(after, path), path))
    return changes


def patch_in_place(document: Any, patch: Iterable[Any], owned: Owned) -> tuple[Any, list[FieldChange]] | None:
    """`apply_patch` and then `patch_changes`, for a writer that changes its owned containers in place.

    With no copy of the document before, the field changes are read from the values each
    operation replaced (or the container it wrote through), taken before it wrote: a run of
    deltas into a long array of the writer's own copies nothing.

    Returns:
        (the document after, its field changes), or None, having changed nothing, when that
        cannot be done: a move or a copy, an element written twice (it may have moved), or a
        field whose value before is a container the writer owns (written in place since, so
        no longer its value before). Then apply the patch copy-on-write.

    Raises:
        MergeError: as `apply_patch`; nothing changed.
    """
    owned.begin()
    try:
        result = _patch_in_place(document, patch, owned)
    except MergeError:
        owned.rollback()
        raise
    if result is None:
        owned.rollback()
    else:
        owned.commit()
    return result


def _patch_in_place(document: Any, patch: Iterable[Any], owned: Owned) -> tuple[Any, list[FieldChange]] | None:
    before: dict[FieldPath, Any] = {}
    for op in patch:
        pointer = op.get("path") if type(op) is dict else None
        if type(pointer) is not str or op.get("op") not in ("add", "replace", "remove", "test"):
            if type(op) is dict and op.get("op") in ("move", "copy"):
                return None
            apply_patch(document, [op], owned)  # refuses it
            return None
        tokens = _pointer_tokens(pointer)
        nodes = _nodes(document, tokens)
        mine = [type(node) in (dict, list) and node in owned for node in nodes]
        into_array = op["op"] == "add" and bool(tokens) and type(nodes[-2]) is list
        document, touched = apply_patch(document, [op], owned)
        for path in touched:
            depth = len(path)
            if path in before:
                if path and isinstance(path[-1], ById):
                    return None  # an element written twice may have moved: its array's order changed
                continue
            if depth < len(tokens):
                if mine[depth]:
                    return None  # written through in place: it no longer holds what it held
                value = nodes[depth]
            elif depth == len(tokens):
                # The operation's own place: its value is replaced by reference, never changed.
                old = nodes[depth]
                replaced_other = isinstance(path[-1], ById) if path else False
                if into_array or (replaced_other and _element_id(old) != path[-1].id):  # type: ignore[union-attr]
                    value = MISSING  # an element added (or the one that replaced another)
                else:
                    value = old
            else:
                return None
            before[path] = value
    changes: list[FieldChange] = []
    for path in _outermost(before):
        changes.extend(field_changes(before[path], resolve(document, path), path))
    return document, changes


def _nodes(document: Any, tokens: list[str]) -> list[Any]:
    """The values along a pointer: the document, then each token's (MISSING past a missing one)."""
    nodes = [document]
    node = document
    for token in tokens:
        if type(node) is dict:
            node = node.get(token, MISSING)
        elif type(node) is list and token.isdigit() and (len(token) == 1 or token[0] != "0") and int(token) < len(node):
            node = node[int(token)]
        else:
            node = MISSING
        nodes.append(node)
    return nodes
