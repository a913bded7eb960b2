"""Log compaction: the entries a restore replays, fewer than the entries logged.

The log keeps one update per streamed delta, each with its raw protocol event: lossless, and
what an export shows. Replaying needs neither: a streamed answer of 400 deltas builds the same
text block from one update holding the joined text, and no handler reads `raw`. A thread store
keeps a compacted copy beside the log (derived data, rebuilt whenever missing) so that a long
thread resumes in a fraction of the time.

What is merged: consecutive updates of one turn with the same role, message id and author,
each holding a single plain text part, or each a single plain reasoning part (not an
encrypted value). Tool-call argument chunks, state, activities and
every other part stay one update each, so state mappers that predict state from streamed
arguments see every chunk as they did live; a custom state mapper that claims text parts sees
one joined part per run instead of one per delta.

Debug parts (protocol traffic such as RAW events) are folded: a segment's parts of one label
keep the first and the latest values, which is all a debug block shows (`fold_debug_parts`).

The live path joins the same runs (`text_runs`, `joined_run`) within each batch of updates
that arrived together, so a custom handler or state mapper sees the same thing live and
restored; the log still gets every update.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel

from tandem.core.content import ATTACHMENTS_APART, DEBUG_VALUES_KEPT, DebugContent, ReasoningContent, TextContent
from tandem.core.log_entries import LogEntry, UpdateLogged
from tandem.core.messages import ChatUpdate

__all__ = ["COMPACTION_VERSION", "compact_entries", "fold_debug_parts", "join_text_runs", "joined_run", "joined_update", "replay_json",
           "text_run_key", "text_runs"]

_Model = TypeVar("_Model", bound=BaseModel)

COMPACTION_VERSION = 2
"""Bumped whenever `compact_entries` changes what it produces: stored copies of another version
are ignored and rebuilt."""


def compact_entries(entries: Sequence[LogEntry]) -> list[LogEntry]:
    """`entries` with the debug parts a restore does not need folded (`fold_debug_parts`) and
    each run of text (or reasoning) deltas joined into one update.

    Other entries are returned as they are (the same objects; a store drops their raw events
    when it writes the copy: `replay_json`). Replaying the result through `restore()` yields
    the same blocks, ids, state and history as replaying `entries`.
    """
    return [entry for entry, _size in join_text_runs([entry for _index, entry in fold_debug_parts(entries)])]


def fold_debug_parts(entries: Sequence[LogEntry]) -> list[tuple[int, LogEntry]]:
    """What a restore needs of `entries`' debug parts: (index in `entries`, entry) of what is kept.

    A debug block stands for every part of its label in a segment and keeps only the latest
    `DEBUG_VALUES_KEPT` values (`handlers.DebugBlock`); ag-ui-langgraph sends a ~1 KB RAW event
    beside every token, so the copy of a 10,000-token answer held 25 MB of values nobody shows.
    Within each stretch of updates (any other entry, a segment's start or end, ends it), of the
    updates of one turn that each hold one debug part of a label: the first stays (it makes the
    block, where it was made live), those between it and the last are dropped, and the last
    becomes one update of the latest values, its first part `folded` over the values dropped.
    Replayed, the block ends with the same count and values as live, and the text runs the
    dropped parts cut join again. A stretch with a part already folded is left as it is.
    """
    groups: dict[tuple[str, str], list[int]] = {}
    stretches: list[dict[tuple[str, str], list[int]]] = [groups]
    for index, entry in enumerate(entries):
        if not isinstance(entry, UpdateLogged):
            groups = {}
            stretches.append(groups)
            continue
        contents = entry.update.contents
        first = contents[0] if contents else None
        if first.__class__ is DebugContent and all(part.__class__ is DebugContent and part.label == first.label  # type: ignore[union-attr]
                                                   for part in contents):
            groups.setdefault((entry.turn_id, first.label), []).append(index)  # type: ignore[union-attr]
    replaced: dict[int, LogEntry | None] = {}
    for stretch in stretches:
        for members in stretch.values():
            if len(members) < 3 or any(len(entries[i].update.contents) > 1 or entries[i].update.contents[0].folded  # type: ignore[union-attr]
                                       for i in members):
                continue  # folded already (a copy compacted again): as it is
            for index in members[1:-1]:
                replaced[index] = None
            replaced[members[-1]] = _folded([entries[i] for i in members[1:]])  # type: ignore[misc]
    if not replaced:
        return list(enumerate(entries))
    kept: list[tuple[int, LogEntry]] = []
    for index, entry in enumerate(entries):
        new = replaced.get(index, entry)
        if new is not None:
            kept.append((index, new))
    return kept


def _folded(run: list[UpdateLogged]) -> UpdateLogged:
    """The last of `run` (updates of one debug label) holding the run's latest values, folded over the rest."""
    latest = run[-DEBUG_VALUES_KEPT:]
    parts = [entry.update.contents[0] for entry in latest]
    parts[0] = _replaced(parts[0], {"folded": len(run) - len(latest)})
    last = run[-1]
    return last.model_copy(update={"update": _replaced(last.update, {"contents": parts, "raw": None})})


def join_text_runs(entries: Sequence[LogEntry]) -> list[tuple[LogEntry, int]]:
    """`compact_entries`, each entry with how many of `entries` it stands for (in order).

    Idempotent: a joined update joins again with the deltas that follow it (a store compacts a
    still-streaming segment at every checkpoint).
    """
    out: list[LogEntry] = []
    sizes: list[int] = []
    run_key: tuple[object, ...] | None = None
    run_texts: list[str] = []

    def close_run() -> None:
        if run_key is not None and len(run_texts) > 1:
            first = out[-1]
            assert isinstance(first, UpdateLogged)
            out[-1] = first.model_copy(update={"update": joined_update(first.update, run_texts)})

    for entry in entries:
        if not isinstance(entry, UpdateLogged):
            close_run()
            run_key, run_texts = None, []
            out.append(entry)
            sizes.append(1)
            continue
        key = _text_run_key(entry)
        if key is not None and key == run_key:
            run_texts.append(entry.update.contents[0].text)  # type: ignore[union-attr]
            sizes[-1] += 1
            continue
        close_run()
        out.append(entry)
        sizes.append(1)
        run_key = key
        run_texts = [entry.update.contents[0].text] if key is not None else []  # type: ignore[union-attr]
    close_run()
    return list(zip(out, sizes))


def _text_run_key(entry: UpdateLogged) -> tuple[object, ...] | None:
    """What must match for `entry` to join the previous update's text (None: it never joins)."""
    key = text_run_key(entry.update)
    return None if key is None else (entry.turn_id, *key)


def text_run_key(update: ChatUpdate) -> tuple[object, ...] | None:
    """What must match for `update` to join the previous update's text, in one turn (None: it
    never joins): a single plain text (or plain reasoning) part, the same role, message id and
    author."""
    contents = update.contents
    if len(contents) != 1 or update.message_id is None:
        return None
    part = contents[0]
    if part.__class__ is TextContent:
        return ("text", update.role, update.message_id, update.author)
    if part.__class__ is ReasoningContent and part.encrypted_value is None:  # type: ignore[attr-defined]
        return ("reasoning", update.role, update.message_id, update.author)
    return None


def text_runs(updates: Sequence[ChatUpdate]) -> Iterator[tuple[list[ChatUpdate], list[str] | None]]:
    """`updates` in order, cut into lists: each a run of updates that join (`text_run_key`,
    all of one turn) with their texts, or an update that never joins alone, with None.

    The live path's loop over every streamed update: the run's key is compared field by field
    (what `text_run_key` builds, without building it), and the texts are taken as the run is
    cut, so the run is joined (`joined_update`) and folded without reading its updates again.
    The fields are read from the update's `__dict__`: an attribute of a pydantic model is read
    through its `__getattr__` hook, which keeps the interpreter off its fast path (~3x slower).
    """
    run: list[ChatUpdate] = []
    texts: list[str] | None = None
    kind: type | None = None
    role = message_id = author = None
    for update in updates:
        fields = update.__dict__
        contents = fields["contents"]
        if texts is not None and len(contents) == 1:
            part = contents[0]
            if (type(part) is kind and fields["message_id"] == message_id and fields["role"] == role
                    and fields["author"] == author and (kind is TextContent or part.encrypted_value is None)):  # type: ignore[attr-defined]
                run.append(update)
                texts.append(part.text)  # type: ignore[attr-defined]
                continue
        if run:
            yield run, texts
        run, texts = [update], None
        if len(contents) == 1 and fields["message_id"] is not None:
            part = contents[0]
            kind = type(part)
            if kind is TextContent or (kind is ReasoningContent and part.encrypted_value is None):  # type: ignore[attr-defined]
                texts = [part.text]  # type: ignore[attr-defined]
                role, message_id, author = fields["role"], fields["message_id"], fields["author"]
    if run:
        yield run, texts


def joined_run(run: Sequence[ChatUpdate]) -> ChatUpdate:
    """One update standing for a run of `text_runs` (the run's joined text)."""
    return joined_update(run[0], [update.contents[0].text for update in run])  # type: ignore[union-attr]


def joined_update(first: ChatUpdate, texts: Sequence[str]) -> ChatUpdate:
    """`first` (the first update of a run of `text_run_key`) holding the run's joined `texts`.

    Its `raw` is None: the run's raw events stay in the log; the joined update stands for no
    single one, and no handler reads `raw`.
    """
    [part] = first.contents
    joined = _replaced(part, {"text": "".join(texts)})
    return _replaced(first, {"contents": [joined], "raw": None})


_set = object.__setattr__


def _replaced(model: _Model, changes: dict[str, Any]) -> _Model:
    """`model.model_copy(update=changes)`, without pydantic's copy machinery for a model that holds
    no extra or private values (parts and updates): the same class, fields and fields set. Once
    per run of a live stream, which cuts a run at every chunk and every other event."""
    if model.__pydantic_extra__ is not None or model.__pydantic_private__ is not None:
        return model.model_copy(update=changes)
    copied = object.__new__(type(model))
    _set(copied, "__dict__", {**model.__dict__, **changes})
    _set(copied, "__pydantic_fields_set__", model.__pydantic_fields_set__ | changes.keys())
    _set(copied, "__pydantic_extra__", None)
    _set(copied, "__pydantic_private__", None)
    return copied


_NO_RAW = {"update": {"raw"}}
_ATTACHMENTS_APART = {ATTACHMENTS_APART: True}
"""The copy names attachments by hash: their bytes are kept once, in the store's `attachments`."""


def replay_json(entries: Sequence[LogEntry], *, compacted: bool = False, known: dict[int, str] | None = None) -> str:
    """The compacted `entries` as one JSON array, without raw events (what a store keeps).

    `compacted`: they are compacted already (a store's replay copy compacts as it commits).
    `known`: the JSON of some of them by `id()`, encoded already (a store's commit encodes each
    update for the log, and most pass through compaction as they are).
    """
    known = known or {}
    return "[" + ",".join(
        known.get(id(entry)) or (entry.model_dump_json(exclude=_NO_RAW) if isinstance(entry, UpdateLogged)
                                 else entry.model_dump_json(context=_ATTACHMENTS_APART))
        for entry in (entries if compacted else compact_entries(entries))
    ) + "]"
