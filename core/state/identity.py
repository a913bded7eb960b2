"""Identity arrays: arrays of objects with distinct ids, whose elements are fields of their own.

An array whose elements are all objects with a distinct string or integer `id` is an identity
array (see `tandem.core.state.fields`). Finding an element by id is O(1) for a long array: its
id → position index is cached (`_INDEXES`) and kept right through every write of this package,
so a delta into a long array never scans it again.

Any thread: readers fill the cache too. An entry holds its array, so an id is never reused
while it is cached; writes change an array in place only when their writer owns it (see
`tandem.core.state.owned`), and then update or drop its entry.
"""

from __future__ import annotations

from typing import Any

__all__ = ["element_id", "forget_index", "identity_index", "identity_pair", "index_of", "is_identity_array", "reindex"]


def element_id(element: Any) -> str | int | None:
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
(see `Owned`), and then updates or drops the array's entry (`reindex`); a copy gets the entry
its writes leave (an append adds one id, an element changed inside keeps the index). Bounded,
oldest out first."""
_CACHE_SIZE = 64


def _compute_index(array: list[Any]) -> dict[Any, int] | None:
    index: dict[Any, int] = {}
    for position, element in enumerate(array):
        ident = element_id(element)
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


def identity_index(array: list[Any]) -> dict[Any, int] | None:
    """The id → position index of an identity array, or None; O(1) for a cached array."""
    entry = _cached(array)
    if entry is not None:
        return entry.index
    index = _compute_index(array) if array else None
    _remember(array, index)
    return index


def reindex(old: list[Any], new: list[Any], kind: str, position: int, removed: Any = None, added: Any = None) -> None:
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


def forget_index(array: list[Any]) -> None:
    """Drop `array`'s cached index (it changed in a way `reindex` was not told of): computed again when needed."""
    _INDEXES.pop(id(array), None)


def is_identity_array(value: Any) -> bool:
    """Whether `value` is a non-empty list of objects with distinct string or integer ids."""
    return type(value) is list and bool(value) and identity_index(value) is not None


def identity_pair(before: Any, after: Any) -> bool:
    """Whether two versions of one array are both identity arrays (an empty one fits either)."""
    if type(before) is not list or type(after) is not list or (not before and not after):
        return False
    return (not before or is_identity_array(before)) and (not after or is_identity_array(after))


def index_of(array: list[Any], ident: str | int) -> int | None:
    if len(array) >= _CACHED_FROM:
        positions = identity_index(array)
        if positions is not None:
            return positions.get(ident)
    for index, element in enumerate(array):
        if element_id(element) == ident and type(element_id(element)) is type(ident):
            return index
    return None

