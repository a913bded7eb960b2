"""Property tests of a shared conversation's state: any interleaving of writes from the host's
person, several guests and the agent converges to the same state on every screen and in the
log's replay, and loses no person's write silently.

The pure core, no HTTP: the host is a conversation over a scripted agent and an in-memory log;
each guest's screen is a `Mirror` fed the host's log entries with its own delay (its own position
in the log, caught up by a few entries at random points), as `ShareGuest` feeds it over the wire.
The host's person writes on the host's state, always current; a guest's write is computed against
its own, possibly stale, copy (`seen_values`) and reaches the host as `apply_write` gets it from
the wire (`GuestWrite` after a JSON round trip). The agent writes deltas and snapshots computed
against its own frame (modelled here with `jsonpatch`). The host's clock moves at every reading,
as real time does; the guests' and the replay's clocks are elsewhere, so nothing a screen shows
may come from its own clock.
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
from dataclasses import dataclass
from typing import Any

import jsonpatch
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

from tandem.core import InMemoryThread
from tandem.core.blocks.misc import ErrorBlock
from tandem.core.errors import PatchError
from tandem.core.log_entries import LogEntry
from tandem.core.messages import ChatUpdate
from tandem.core.replay import restore
from tandem.core.scripted import ScriptedChatClient
from tandem.core.share.mirror import Mirror
from tandem.core.share.writes import GuestWrite, ShareRefused, apply_write
from tandem.core.state.agent_state import AgentState
from tandem.core.state.concurrent import seen_conflict, seen_values
from tandem.core.state.fields import MISSING, ById, FieldPath, as_document, overlaps
from tandem.core.state.paths import resolve
from tests.helpers.scripted import Clock, Conversation, delta, make_agent, snapshot
from tests.helpers.state_writes import TickingClock, Values, draw_operation, leaf_writes, matches, picture

EXAMPLES = int(os.environ.get("TANDEM_SHARE_EXAMPLES", "150"))
"""Random interleavings per run: CI's default takes a few seconds; search harder with e.g.
`TANDEM_SHARE_EXAMPLES=3000 pytest tests/share/test_share_properties.py`."""

HOST = "ada"
"""The host's person (`make_agent`'s user)."""
GUESTS = ("bob", "carol")
PEOPLE = (HOST, *GUESTS)

_WRITE: TypeAdapter[Any] = TypeAdapter(GuestWrite)
_ENTRY: TypeAdapter[Any] = TypeAdapter(LogEntry)

scalars = st.one_of(st.none(), st.booleans(), st.integers(2, 50), st.text("xyz", max_size=3))
documents = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.dictionaries(st.sampled_from(["a", "b", "c"]), children, max_size=3),
        st.lists(scalars, max_size=2),
        st.lists(st.tuples(st.integers(0, 9), children), min_size=1, max_size=3, unique_by=lambda t: t[0]).map(
            lambda items: [{"id": f"i{ident}", "v": value} for ident, value in items]),
    ),
    max_leaves=8,
).map(lambda value: value if isinstance(value, dict) else {"a": value})


@dataclass(frozen=True)
class Written:
    """A person's write of one field that the host took: the value must not vanish silently."""

    who: str
    path: FieldPath
    value: Any
    step: int


@dataclass(frozen=True)
class Shown:
    """A conflict as a screen showed it: its field, both values and their authors."""

    id: str
    path: FieldPath
    mine: Any
    mine_by: str
    agent: Any
    agent_by: str

    def holds(self, written: Written) -> bool:
        """Whether this conflict carries `written`'s value with its author (a conflict over a field
        inside the written one carries part of it: its author is enough)."""
        if not overlaps(self.path, written.path):
            return False
        if len(self.path) > len(written.path):
            return written.who in (self.mine_by, self.agent_by)
        rest = written.path[len(self.path):]
        return any(by == written.who and matches(resolve(value, rest), written.value, written.path)
                   for by, value in ((self.mine_by, self.mine), (self.agent_by, self.agent)))


@dataclass(frozen=True)
class Event:
    """One step as the no-loss check judges it: what it was, by whom, and what its author saw
    (the committed state on the author's screen, or the agent's frame; the conflicts the screen showed)."""

    step: int
    kind: str
    who: str
    saw: Any = None
    conflicts: tuple[Shown, ...] = ()

    def supersedes(self, written: Written) -> bool:
        """Whether this step may replace `written` without a conflict: a later write by its author,
        or by someone who saw the value (on their screen, in the committed state or in a conflict;
        the agent: in the frame it wrote against)."""
        if self.kind not in ("edit", "settle", "agent"):
            return False
        if self.who == written.who:
            return True
        if matches(resolve(self.saw, written.path), written.value, written.path):
            return True
        return any(conflict.holds(written) for conflict in self.conflicts)


def shown(state: AgentState) -> list[Shown]:
    return [Shown(c.id, c.path, c.mine, c.mine_by, c.agent, c.agent_by) for c in state.open_conflicts]


def unreadable(blocks: list[Any]) -> list[str]:
    return [b.message for b in blocks if isinstance(b, ErrorBlock) and b.code == "unreadable"]


class Shared:
    """One example: the host's conversation, the guests' screens and the writes to keep.

    The invariant kept (`checked`, after every step) — no person's write is lost silently. A
    person's write the host took is, for each field its patch changes on the author's screen, down
    to the leaves (`leaf_writes`: a new object is its members, a new identity array its elements;
    what others add beside them are fields of their own, as in every merge here), the new
    value there. Until a later step replaces it knowingly, it (a) is the host's committed value of
    that field, or (b) is carried, with its author's name, by an open conflict over the field. A
    step replaces it knowingly when it is a later write by the same author, or a write by someone
    who saw the value: an edit or a settlement by a person whose screen showed it (as the field's
    committed value, or in an open conflict: writing a conflicted field settles it), or an agent
    write against a frame that held it (a request sent after the write). Anything else that takes
    it away loses it: a stale guest's edit overwriting it, the agent's or another person's later
    value taking its place in a conflict, an edit landing on another element than its author
    pointed at. A write the host refuses as a whole (its author is told why) is not kept.
    """

    def __init__(self, document: dict[str, Any], data: st.DataObject) -> None:
        self.document = document
        self.data = data
        self.values = Values()
        self.clock = TickingClock()
        self.state = AgentState(document)
        self.conversation = Conversation([self._segment, self._segment], clock=self.clock, state=self.state)
        self.context = self.conversation.context
        self.mirrors = {name: self._mirror(name) for name in GUESTS}
        self.frame: Any = {}
        self.written: list[Written] = []
        self.step = 0
        self.escaped: list[BaseException] = []
        self.pictures: dict[int, dict[str, Any]] = {}
        """The host's picture after each step, by log length: a screen at that position shows it."""

    def _mirror(self, name: str) -> Mirror:
        agent = make_agent(ScriptedChatClient([]), clock=Clock(50_000.0), state=AgentState(self.document))
        agent.env.user = name
        return Mirror(agent)

    def draw(self, strategy: st.SearchStrategy[Any], label: str) -> Any:
        return self.data.draw(strategy, label=label)

    # The steps.

    async def _segment(self, messages: Any, options: Any) -> Any:
        # Hypothesis ends an example by raising BaseExceptions from `draw`; the engine task only
        # turns Exceptions into errors, so carry them out to the test by hand.
        try:
            self.frame = copy.deepcopy(options.state if options.state is not None else {})
            for _ in range(self.draw(st.integers(1, 10), "steps")):
                update = await self.act(streaming=True)
                if update is not None:
                    before = self.frame
                    self.frame = jsonpatch.apply_patch(before, update[1])
                    yield update[0]
                    self.checked(Event(self.step, "agent", "agent", saw=before))
        except BaseException as exc:
            self.escaped.append(exc)
            raise RuntimeError("the script stopped") from exc

    async def act(self, *, streaming: bool) -> tuple[ChatUpdate, list[dict[str, Any]]] | None:
        """One step; an agent write is returned for the script to send (with its operations)."""
        self.step += 1
        self.clock.advance(1)
        kinds = ["edit", "edit", "settle", "catch_up", "catch_up"] + (["agent", "agent"] if streaming else [])
        kind = self.draw(st.sampled_from(kinds), "step")
        if kind == "catch_up":
            self.catch_up(self.draw(st.sampled_from(GUESTS), "screen"), self.draw(st.integers(1, 8), "entries"))
        elif kind == "edit":
            await self.edit(self.draw(st.sampled_from(PEOPLE), "editor"))
        elif kind == "settle":
            await self.settle(self.draw(st.sampled_from(PEOPLE), "settler"))
        else:
            return self.agent_write()
        return None

    def copy_of(self, who: str) -> AgentState:
        return self.state if who == HOST else self.mirrors[who].context.agent.state

    async def send(self, who: str, write: dict[str, Any]) -> bool:
        """A guest's write as the host gets it from the wire; whether the host took it."""
        try:
            await apply_write(self.context, _WRITE.validate_python(json.loads(json.dumps(write))), who)
        except ShareRefused as exc:
            note(f"  refused: {exc}")
            return False
        return True

    async def edit(self, who: str) -> None:
        saw = copy.deepcopy(as_document(self.copy_of(who).committed))
        shown_before = tuple(shown(self.copy_of(who)))
        patch, after = [], saw
        for _ in range(self.draw(st.integers(1, 2), "operations")):
            operation = draw_operation(self.data, after, self.values, who[0], moves=False)
            after = jsonpatch.apply_patch(after, [operation])
            patch.append(operation)
        seen = seen_values(saw, patch, self.copy_of(who).open_conflicts)
        note(f"{self.step}: {who} edits {patch} (saw {seen})")
        if who == HOST:
            try:
                self.state.edit(patch, seen=seen)
                taken = True
            except PatchError as exc:
                note(f"  refused: {exc}")
                taken = False
        else:
            taken = await self.send(who, {"kind": "edit", "patch": patch, "seen": seen})
        if taken:
            self.wrote([Written(who, path, value, self.step) for path, value in leaf_writes(saw, after)])
        self.checked(Event(self.step, "edit", who, saw=saw, conflicts=shown_before))

    async def settle(self, who: str) -> None:
        screen = self.copy_of(who)
        conflicts = shown(screen)
        if not conflicts:
            return
        conflict = self.draw(st.sampled_from(conflicts), "conflict")
        choice = self.draw(st.sampled_from(["mine", "agent", "edit"]), "choice")
        value: Any = self.values.scalar(who[0]) if choice == "edit" else None
        if value is not None and conflict.path and isinstance(conflict.path[-1], ById):
            value = {"id": conflict.path[-1].id, "v": value}  # an element keeps its id
        saw = copy.deepcopy(as_document(screen.committed))
        note(f"{self.step}: {who} settles {conflict} with {choice} {value!r}")
        if who == HOST:
            try:
                self.state.resolve_conflict(conflict.id, choice, value)
                taken = True
            except (KeyError, PatchError) as exc:
                note(f"  refused: {exc}")
                taken = False
        else:
            seen = seen_conflict(saw, next(c for c in screen.open_conflicts if c.id == conflict.id))
            taken = await self.send(who, {"kind": "resolve", "conflict": conflict.id, "resolution": choice,
                                          "value": value, "seen": seen})
        if taken and choice == "edit":
            self.wrote([Written(who, (*conflict.path, *path), leaf, self.step) for path, leaf in leaf_writes(MISSING, value)])
        self.checked(Event(self.step, "settle", who, saw=saw, conflicts=tuple(conflicts)))

    def wrote(self, new: list[Written]) -> None:
        """The host took these writes: they replace their author's earlier ones over the same fields."""
        self.written = [w for w in self.written if not any(w.who == n.who and overlaps(w.path, n.path) for n in new)]
        self.written.extend(new)

    def agent_write(self) -> tuple[ChatUpdate, list[dict[str, Any]]]:
        operations, theirs = [], self.frame
        kind = self.draw(st.sampled_from(["delta", "snapshot"]), "agent")
        for _ in range(1 if kind == "delta" else self.draw(st.integers(1, 3), "changes")):
            operations.append(draw_operation(self.data, theirs, self.values, "a"))
            theirs = jsonpatch.apply_patch(theirs, operations[-1:])
        note(f"{self.step}: the agent writes a {kind}: {operations}")
        update = snapshot(copy.deepcopy(theirs)) if kind == "snapshot" else delta(operations)
        return update, operations

    def catch_up(self, who: str, count: int) -> None:
        mirror = self.mirrors[who]
        for entry in self.context.thread.entries_since(mirror.position)[:count]:
            mirror.apply(entry)
        expected = self.pictures.get(mirror.position)
        if expected is not None:
            assert picture(mirror.context.agent.state) == expected, f"{who}'s screen at entry {mirror.position} is not the host's"

    # The checks.

    def checked(self, event: Event) -> None:
        """No person's write was lost by `event` (see the class docstring); remember the host's picture."""
        host_conflicts = shown(self.state)
        kept: list[Written] = []
        for written in self.written:
            held = matches(resolve(self.state.committed, written.path), written.value, written.path)
            if held or any(c.holds(written) for c in host_conflicts):
                kept.append(written)
            elif not event.supersedes(written):
                raise AssertionError(
                    f"step {event.step} ({event.kind} by {event.who}) lost {written.who}'s write of "
                    f"{written.path} = {written.value!r} (step {written.step}): the host holds "
                    f"{resolve(self.state.committed, written.path)!r}, open conflicts {host_conflicts}")
        self.written = kept
        note(f"   host: {self.state.committed} open: {host_conflicts}")
        self.pictures[self.context.thread.length] = picture(self.state)

    async def run(self) -> None:
        for message in ("one", "two"):
            turn = await self.context.send(message)
            await turn.wait()
            if self.escaped:
                raise self.escaped[0]
            assert turn.status.value == "completed", turn.error
            for _ in range(self.draw(st.integers(0, 4), "idle steps")):
                await self.act(streaming=False)
        self.context.thread.commit()
        host = picture(self.state)
        for name in GUESTS:
            self.catch_up(name, self.context.thread.length)
            mirror = self.mirrors[name]
            assert not unreadable(mirror.context.blocks), unreadable(mirror.context.blocks)
            assert picture(mirror.context.agent.state) == host, f"{name}'s screen differs from the host's"
        fresh = make_agent(ScriptedChatClient([]), clock=Clock(99_999.0), state=AgentState(self.document))
        restored = await restore(fresh, _round_trip(self.context.thread), resume=False)
        assert not unreadable(restored.blocks), unreadable(restored.blocks)
        assert picture(restored.agent.state) == host, "the log's replay differs from the host"


def _round_trip(thread: InMemoryThread) -> InMemoryThread:
    """The log as a fresh process reads it: every entry through JSON and back."""
    return InMemoryThread(thread.thread_id, entries=[_ENTRY.validate_json(_ENTRY.dump_json(e)) for e in thread.entries()])


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(document=documents, data=st.data())
def test_any_interleaving_converges_on_every_screen_and_in_the_replay(document: dict[str, Any], data: st.DataObject) -> None:
    shared = Shared(document, data)
    asyncio.run(shared.run())
