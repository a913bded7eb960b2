"""The compacted replay copy: fewer entries, the same restored conversation, never trusted blindly."""

from __future__ import annotations

import logging
import sqlite3
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

from tests.helpers.turns import converse

from tandem.core import AgentContext, BlockEnv, ChatMessage, ChatUpdate, InMemoryThread, Status, UIAgent, restore
from tandem.core.agui.demo import SCENARIOS
from tandem.core.compaction import COMPACTION_VERSION, compact_entries, replay_json
from tandem.core.content import DEBUG_VALUES_KEPT, DebugContent, ErrorContent, ReasoningContent, TextContent, ToolCallContent
from tandem.core.handlers import DebugBlock
from tandem.core.log_entries import LogEntry, SegmentEnded, SegmentStarted, TurnEnded, TurnStarted, UpdateLogged
from tandem.core.store import ThreadStore
from tandem.tui.cli import backend

FIXTURES = Path(__file__).parent / "fixtures"
"""Seconds after which a recording that never stops streaming is a failure (a hang guard, not a timing)."""


class FullReplay(InMemoryThread):
    """A thread that replays its log as logged: the reference a compacted restore must equal."""

    def replay_entries(self) -> list[LogEntry]:
        return self.entries()


def picture(context: AgentContext) -> dict[str, Any]:
    """Everything a restore rebuilds that a person or the next request can observe."""
    state = context.agent.state
    return {
        "blocks": [(block.id, block.snapshot()) for block in context.blocks],
        "committed": state.committed,
        "proposals": sorted(state.proposals),
        "history": [message.model_dump(mode="json") for message in context.agent.history],
        "status": context.status,
        "turns": [(turn.id, turn.status, turn.segments) for turn in context.turns],
        "times": {block.id: context.block_times.get(block.id) for block in context.blocks},
    }


def demo_agent() -> UIAgent:
    return backend.build_agent(backend.build_chat_client(None, speed=0.0), env=BlockEnv(user="ann", clock=lambda: 1_000.0))


async def record(store: ThreadStore, message: str) -> str:
    """Run the demo agent on `message` in a new saved thread until it stops; returns the thread id."""
    context = await backend.open_context(None, speed=0.0, store=store, env=BlockEnv(user="ann", clock=lambda: 1_000.0))
    await converse(context, message)
    assert context.status is not Status.STREAMING
    thread_id = context.thread.thread_id
    await context.dispose()
    return thread_id


@pytest.mark.parametrize("scenario", [s.name for s in SCENARIOS])
async def test_every_demo_scenario_restores_the_same_from_the_copy(store: ThreadStore, scenario: str) -> None:
    thread_id = await record(store, f"/demo {scenario}")
    with store.open(thread_id, read_only=True) as thread:
        logged = thread.entries()
        replayed = list(thread.replay_entries())
    assert sum(isinstance(e, UpdateLogged) and e.update.raw is not None for e in replayed) == 0
    assert len(replayed) <= len(logged)
    compacted = await restore(demo_agent(), InMemoryThread(entries=replayed), resume=False)
    reference = await restore(demo_agent(), FullReplay(entries=logged), resume=False)
    assert picture(compacted) == picture(reference)


async def test_a_streamed_answer_replays_as_one_update(store: ThreadStore) -> None:
    thread_id = await record(store, "/demo long")
    with store.open(thread_id, read_only=True) as thread:
        logged, replayed = thread.entries(), list(thread.replay_entries())
    deltas = [e for e in logged if isinstance(e, UpdateLogged) and isinstance(e.update.contents[0], TextContent)]
    assert len(deltas) > 50  # streamed in many pieces …
    joined = [e for e in replayed if isinstance(e, UpdateLogged) and isinstance(e.update.contents[0], TextContent)]
    assert len(joined) == len({e.update.message_id for e in deltas})  # … replayed as one per message
    assert len(replayed) < len(logged) / 10


class TestCompactEntries:
    def update(self, part: Any, *, message_id: str | None = "m1", turn: str = "t1", **envelope: Any) -> UpdateLogged:
        return UpdateLogged(turn_id=turn, update=ChatUpdate(message_id=message_id, contents=[part], raw={"e": 1}, **envelope))

    def texts(self, entries: list[LogEntry]) -> list[str]:
        return [e.update.contents[0].text for e in entries if isinstance(e, UpdateLogged)]  # type: ignore[union-attr]

    def test_joins_a_run(self) -> None:
        out = compact_entries([self.update(TextContent(text=t)) for t in ("Hel", "lo", " you")])
        assert self.texts(out) == ["Hello you"]
        assert out[0].update.raw is None and out[0].update.message_id == "m1"  # type: ignore[union-attr]

    def test_the_stored_form_has_no_raw_events(self) -> None:
        entries: list[LogEntry] = [self.update(TextContent(text="a")), self.update(ToolCallContent(call_id="c", name="f")),
                                   SegmentEnded(turn_id="t1", index=0, outcome="completed")]
        assert compact_entries(entries)[1] is entries[1]  # kept as logged, raw and all
        stored = TypeAdapter(list[LogEntry]).validate_json(replay_json(entries))
        assert [getattr(getattr(e, "update", None), "raw", None) for e in stored] == [None, None, None]
        assert stored[1].update.contents == entries[1].update.contents  # type: ignore[union-attr]

    @pytest.mark.parametrize("second", [
        {"message_id": "m2"}, {"turn": "t2"}, {"author": "someone else"}, {"role": "user"}, {"message_id": None},
    ])
    def test_a_different_envelope_starts_a_new_run(self, second: dict[str, Any]) -> None:
        out = compact_entries([self.update(TextContent(text="a")), self.update(TextContent(text="b"), **second)])
        assert self.texts(out) == ["a", "b"]

    def test_text_and_reasoning_never_mix_and_encrypted_reasoning_stays(self) -> None:
        parts = [ReasoningContent(text="think "), ReasoningContent(text="more"), ReasoningContent(encrypted_value="x"),
                 ReasoningContent(encrypted_value="y"), TextContent(text="say"), TextContent(text=" it")]
        out = compact_entries([self.update(p) for p in parts])
        assert [e.update.contents[0] for e in out] == [  # type: ignore[union-attr]
            ReasoningContent(text="think more"), ReasoningContent(encrypted_value="x"), ReasoningContent(encrypted_value="y"),
            TextContent(text="say it")]

    def test_tool_argument_chunks_and_other_entries_are_kept_one_by_one(self) -> None:
        entries: list[LogEntry] = [
            self.update(TextContent(text="a")),
            self.update(ToolCallContent(call_id="c", name="f")),
            self.update(ToolCallContent(call_id="c", arguments_delta='{"x"')),
            self.update(ToolCallContent(call_id="c", arguments_delta=": 1}")),
            self.update(TextContent(text="b")),
            SegmentEnded(turn_id="t1", index=0, outcome="completed"),
            self.update(TextContent(text="c")),
        ]
        out = compact_entries(entries)
        assert len(out) == len(entries)
        assert [type(e) for e in out] == [type(e) for e in entries]

    def test_an_update_with_several_parts_is_not_joined(self) -> None:
        two = UpdateLogged(turn_id="t1", update=ChatUpdate(message_id="m1", contents=[TextContent(text="a"), TextContent(text="b")]))
        out = compact_entries([self.update(TextContent(text="x")), two, self.update(TextContent(text="y"))])
        assert len(out) == 3


def turn_entries(turn: str, deltas: list[str], *, end: bool = True) -> list[LogEntry]:
    request = [ChatMessage.user(f"question {turn}")]
    entries: list[LogEntry] = [TurnStarted(turn_id=turn, messages=request, at=0.0), SegmentStarted(turn_id=turn, index=0, continuation=request)]
    entries += [UpdateLogged(turn_id=turn, update=ChatUpdate(message_id=f"{turn}-m", contents=[TextContent(text=d)], raw={"d": d}))
                for d in deltas]
    if end:
        entries += [SegmentEnded(turn_id=turn, index=0, outcome="completed"), TurnEnded(turn_id=turn, status="completed")]
    return entries


def write(store: ThreadStore, *turns: list[LogEntry], thread_id: str | None = None) -> str:
    thread = store.open(thread_id) if thread_id else store.create()
    with thread:
        for entries in turns:
            for entry in entries:
                thread.append(entry)
            thread.commit()
        return thread.thread_id


def copy_rows(db_path: Path, thread_id: str) -> list[tuple[int, int, int]]:
    with sqlite3.connect(db_path) as raw:
        return raw.execute("SELECT first_seq, last_seq, version FROM replay WHERE thread_id = ? ORDER BY first_seq",
                           (thread_id,)).fetchall()


async def restored_text(store: ThreadStore, thread_id: str) -> list[str]:
    with store.open(thread_id, read_only=True) as thread:
        context = await restore(UIAgent(backend.build_chat_client(None)), thread, resume=False)
    return [content["text"] for b in context.blocks if "text" in (content := b.snapshot()["content"])]


class TestStoredCopy:
    def test_each_commit_copies_what_it_closes_without_a_gap(self, store: ThreadStore, db_path: Path) -> None:
        thread_id = write(store, turn_entries("t1", ["a", "b", "c"]), turn_entries("t2", ["d", "e"]))
        rows = copy_rows(db_path, thread_id)
        assert [(first, last) for first, last, _v in rows] == [(0, 1), (2, 6), (7, 8), (9, 12)]
        assert {version for *_, version in rows} == {COMPACTION_VERSION}
        with store.open(thread_id, read_only=True) as thread:
            assert len(thread.entries()) == 13
            assert len(list(thread.replay_entries())) == 13 - 2 - 1  # three deltas joined, then two

    def test_an_open_run_is_replayed_from_the_log_then_copied_when_closed(self, store: ThreadStore, db_path: Path) -> None:
        thread_id = write(store, turn_entries("t1", ["Once", " upon"], end=False))  # e.g. killed mid-stream
        assert copy_rows(db_path, thread_id)[-1][1] == 1  # the updates after seq 1 are not copied yet
        with store.open(thread_id, read_only=True) as thread:
            tail = list(thread.replay_entries())[2:]
        assert [e.update.raw for e in tail] == [{"d": "Once"}, {"d": " upon"}]  # type: ignore[union-attr]
        write(store, [SegmentEnded(turn_id="t1", index=0, outcome="completed"), TurnEnded(turn_id="t1", status="completed")],
              thread_id=thread_id)
        assert copy_rows(db_path, thread_id)[-1][:2] == (2, 5)
        with store.open(thread_id, read_only=True) as thread:
            replayed = list(thread.replay_entries())
        assert [e.update.contents[0].text for e in replayed if isinstance(e, UpdateLogged)] == ["Once upon"]  # type: ignore[union-attr]

    async def test_a_copy_of_another_version_is_ignored_then_replaced(self, store: ThreadStore, db_path: Path) -> None:
        thread_id = write(store, turn_entries("t1", ["a", "b"]))
        with sqlite3.connect(db_path) as raw:
            raw.execute("UPDATE replay SET version = ?", (COMPACTION_VERSION + 1,))
        with store.open(thread_id, read_only=True) as thread:
            assert len(list(thread.replay_entries())) == len(thread.entries())  # the log, as logged
        assert await restored_text(store, thread_id) == ["question t1", "ab"]
        with store.open(thread_id) as thread:
            list(thread.replay_entries())
        # Closing a writable thread completes its copy (and drops the stale rows).
        assert {version for *_, version in copy_rows(db_path, thread_id)} == {COMPACTION_VERSION}
        assert await restored_text(store, thread_id) == ["question t1", "ab"]

    async def test_a_damaged_copy_is_ignored_with_a_warning(self, store: ThreadStore, db_path: Path,
                                                           caplog: pytest.LogCaptureFixture) -> None:
        thread_id = write(store, turn_entries("t1", ["a", "b"]), turn_entries("t2", ["c"]))
        with sqlite3.connect(db_path) as raw:
            raw.execute("UPDATE replay SET json = '[{\"entry\": \"nonsense\"}]' WHERE first_seq = 2")
        with caplog.at_level(logging.WARNING):
            assert await restored_text(store, thread_id) == ["question t1", "ab", "question t2", "c"]
        assert "ignoring the replay copy" in caplog.text

    def test_the_copy_is_parsed_as_it_is_replayed_not_all_at_once(self, store: ThreadStore) -> None:
        # A thread of a million CUSTOM events took 3.2 GB to reopen, most of it the parsed entries
        # (about 3 KB each) held in one list before the first was replayed. (Debug parts are
        # folded in the copy now: error parts are kept one an entry.)
        turns = [[*turn_entries(f"t{n}", [], end=False)[:2],
                  *(UpdateLogged(turn_id=f"t{n}", update=ChatUpdate(contents=[ErrorContent(message=f"error {i}")]))
                    for i in range(500)),
                  *turn_entries(f"t{n}", [])[2:]] for n in range(40)]
        thread_id = write(store, *turns)
        with store.open(thread_id, read_only=True) as thread:
            tracemalloc.start()
            try:
                count = sum(1 for _entry in thread.replay_entries())
                streamed = tracemalloc.get_traced_memory()[1]
                tracemalloc.reset_peak()
                held = list(thread.replay_entries())
                whole = tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()
        assert count == len(held) == 40 * 504
        assert streamed < whole / 4, (streamed, whole)

    async def test_a_gap_in_the_copy_falls_back_to_the_log_from_there(self, store: ThreadStore, db_path: Path) -> None:
        thread_id = write(store, turn_entries("t1", ["a", "b"]), turn_entries("t2", ["c", "d"]))
        with sqlite3.connect(db_path) as raw:
            raw.execute("DELETE FROM replay WHERE first_seq = 2")
        with store.open(thread_id, read_only=True) as thread:
            replayed = list(thread.replay_entries())
            assert len(replayed) == 2 + (len(thread.entries()) - 2)
        assert await restored_text(store, thread_id) == ["question t1", "ab", "question t2", "cd"]

    async def test_a_thread_from_before_the_copy_gets_one_when_closed(self, db_path: Path) -> None:
        db_path.parent.mkdir(parents=True, exist_ok=True)
        with sqlite3.connect(db_path) as raw:
            raw.executescript((FIXTURES / "threads_v1.sql").read_text())
        with ThreadStore(db_path) as store:
            assert copy_rows(db_path, "oldthread01") == []
            assert await restored_text(store, "oldthread01") == ["hello from v1", "Hi!"]
            with store.open("oldthread01") as thread:
                await restore(UIAgent(backend.build_chat_client(None)), thread, resume=False)
            assert copy_rows(db_path, "oldthread01") == [(0, 4, COMPACTION_VERSION)]
            assert await restored_text(store, "oldthread01") == ["hello from v1", "Hi!"]

    def test_deleting_a_thread_deletes_its_copy(self, store: ThreadStore, db_path: Path) -> None:
        thread_id = write(store, turn_entries("t1", ["a"]))
        assert copy_rows(db_path, thread_id)
        store.delete(thread_id)
        assert copy_rows(db_path, thread_id) == []


class TestCheckpoints:
    """A long segment commits its updates as it goes, and keeps one joined entry per message in memory."""

    @staticmethod
    def long_segment(turn: str, messages: int, deltas: int) -> list[LogEntry]:
        request = [ChatMessage.user(f"question {turn}")]
        entries: list[LogEntry] = [TurnStarted(turn_id=turn, messages=request, at=0.0),
                                   SegmentStarted(turn_id=turn, index=0, continuation=request)]
        for m in range(messages):
            entries += [UpdateLogged(turn_id=turn, update=ChatUpdate(message_id=f"{turn}-m{m}", contents=[TextContent(text=f"{m}.{d} ")],
                                                                     raw={"m": m, "d": d})) for d in range(deltas)]
        return entries

    def test_a_long_segment_commits_at_checkpoints_and_its_tail_holds_only_the_open_message(
            self, store: ThreadStore, db_path: Path) -> None:
        with store.create() as thread:
            thread.checkpoint_entries = 50
            for entry in self.long_segment("t1", messages=40, deltas=5):  # 200 updates
                thread.append(entry)
                assert len(thread.pending) <= 50
                # What a checkpoint closed went to the copy: in memory, at most the message still open.
                assert thread._replay.tail_entries <= 1
            thread_id = thread.thread_id
            # The copy grew at every checkpoint, while the segment was still streaming.
            rows = copy_rows(db_path, thread_id)
            assert len(rows) == 1 + 4 and rows[-1][1] >= 200 - 5
            assert all(rows[i][1] + 1 == rows[i + 1][0] for i in range(len(rows) - 1))
        with store.open(thread_id, read_only=True) as reader:
            assert len(reader.entries()) == 202  # every update in the log, with its raw event
            tail = [e for e in reader.entries() if isinstance(e, UpdateLogged)]
            assert tail[-1].update.raw == {"m": 39, "d": 4}

    def test_streamed_updates_checkpoint_as_appended_entries_do(self, store: ThreadStore) -> None:
        # `append_update` is what the runtime calls per streamed event (its own fast path).
        with store.create() as thread:
            thread.checkpoint_entries = 50
            for entry in self.long_segment("t1", messages=40, deltas=5):
                if isinstance(entry, UpdateLogged):
                    thread.append_update(entry.turn_id, entry.update)
                else:
                    thread.append(entry)
                assert len(thread.pending) < 50
            assert thread._replay.tail_entries <= 40 + 1
            thread_id = thread.thread_id
        with store.open(thread_id, read_only=True) as reader:
            logged = reader.entries()
        assert len(logged) == 202  # every update committed by its checkpoints, none left pending at close
        assert [e.update.raw for e in logged if isinstance(e, UpdateLogged)][-1] == {"m": 39, "d": 4}

    async def test_a_checkpointed_segment_restores_the_same_from_the_copy_as_from_the_log(
            self, store: ThreadStore, db_path: Path) -> None:
        with store.create() as thread:
            thread.checkpoint_entries = 7  # checkpoints that cut runs of deltas in the middle
            for entry in [*self.long_segment("t1", messages=12, deltas=5),
                          SegmentEnded(turn_id="t1", index=0, outcome="completed"), TurnEnded(turn_id="t1", status="completed"),
                          *self.long_segment("t2", messages=3, deltas=4)]:  # the second is cut off mid-stream
                thread.append(entry)
            thread.commit()
            thread_id = thread.thread_id
        rows = copy_rows(db_path, thread_id)
        assert all(rows[i][1] + 1 == rows[i + 1][0] for i in range(len(rows) - 1))  # no gap, no overlap
        with store.open(thread_id, read_only=True) as reader:
            logged, replayed = reader.entries(), list(reader.replay_entries())
        assert len(replayed) < len(logged)
        from_log = await restore(UIAgent(backend.build_chat_client(None)), FullReplay("x", logged), resume=False)
        from_copy = await restore(UIAgent(backend.build_chat_client(None)), FullReplay("x", replayed), resume=False)
        assert picture(from_copy) == picture(from_log)
        assert "11.4 " in from_log.blocks[12].snapshot()["content"]["text"]


class TestIncrementalStaging:
    """Each commit stages only its own batch (the tail holds at most the open run), and the copy plus
    the tail still stand for the whole log: the same as compacting every logged entry at once,
    however the log is cut into commits, and whether or not the thread was closed and reopened
    between commits (a reopened tail is read back from the log; after the copy was lost, with
    entries that close in the middle of it)."""

    @staticmethod
    def entry(kind: int, n: int) -> LogEntry:
        if kind == 0:
            return SegmentEnded(turn_id="t1", index=n, outcome="completed")
        if kind == 1:
            return UpdateLogged(turn_id="t1", update=ChatUpdate(message_id=f"m{n % 2}", contents=[ToolCallContent(
                call_id="c", arguments_delta=str(n))], raw={"n": n}))
        if kind == 2:
            return UpdateLogged(turn_id="t1", update=ChatUpdate(message_id=f"m{n % 2}", contents=[ReasoningContent(text=f"r{n} ")],
                                                                raw={"n": n}))
        # Mostly text deltas, in two messages, so runs are long and cut by checkpoints and commits.
        return UpdateLogged(turn_id="t1", update=ChatUpdate(message_id=f"m{n // 7 % 2}", contents=[TextContent(text=f"{n} ")],
                                                            raw={"n": n}))

    @settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(st.tuples(st.integers(0, 6), st.sampled_from(["append", "append", "commit", "reopen", "lose the copy"])), min_size=1, max_size=40),
           st.integers(1, 9))
    def test_the_copy_and_the_tail_equal_the_whole_log_compacted(self, steps: list[tuple[int, str]], checkpoint: int) -> None:
        import tempfile

        with tempfile.TemporaryDirectory() as tmp, ThreadStore(Path(tmp) / "threads.sqlite3") as store:
            thread = store.create()
            thread.checkpoint_entries = checkpoint
            thread_id = thread.thread_id
            try:
                for n, (kind, action) in enumerate(steps):
                    thread.append(self.entry(kind, n))
                    if action == "commit":
                        thread.commit()
                    elif action in ("reopen", "lose the copy"):
                        thread.commit()
                        thread._release()  # closed without the compaction `close()` does: the next commit reads the tail
                        if action == "lose the copy":  # (as a thread from before the copy): the tail read back holds closing entries
                            with sqlite3.connect(Path(tmp) / "threads.sqlite3") as raw:
                                raw.execute("DELETE FROM replay WHERE thread_id = ?", (thread_id,))
                        thread = store.open(thread_id)
                        thread.checkpoint_entries = checkpoint
                thread.commit()
                held = [entry for _first, _last, entry in thread._replay._tail or []]
                replayed = list(thread.replay_entries())
            finally:
                thread.close()
            with store.open(thread_id, read_only=True) as reader:
                logged = reader.entries()
                assert replay_json(list(reader.replay_entries())) == replay_json(logged)
            assert replay_json(replayed) == replay_json(logged)
            # Every commit copied what it closed: the copy reaches at least the last entry that is not an update.
            closing = max((seq for seq, entry in enumerate(logged) if not isinstance(entry, UpdateLogged)), default=-1)
            rows = copy_rows(Path(tmp) / "threads.sqlite3", thread_id)
            assert (rows[-1][1] if rows else -1) >= closing
            assert len(held) <= 1  # at most the run still open, joined


class TestDebugTrafficInTheCopy:
    """ag-ui-langgraph on its defaults: a RAW event beside every token (and CUSTOM ones now and then)."""

    @staticmethod
    def langgraph_turn(turn: str, tokens: int) -> list[LogEntry]:
        entries = turn_entries(turn, [], end=False)
        for n in range(tokens):
            entries.append(UpdateLogged(turn_id=turn, update=ChatUpdate(contents=[DebugContent(label="raw", value={"n": n})],
                                                                        raw={"type": "RAW"})))
            entries.append(UpdateLogged(turn_id=turn, update=ChatUpdate(message_id=f"{turn}-m", contents=[TextContent(text=f"w{n} ")],
                                                                        raw={"d": n})))
            if n % 7 == 0:
                entries.append(UpdateLogged(turn_id=turn, update=ChatUpdate(contents=[DebugContent(label="custom tick", value=n)])))
        return entries + turn_entries(turn, [])[2:]

    @pytest.mark.parametrize("pieces", [1, 3, 11])
    async def test_the_copy_keeps_what_the_debug_blocks_show_and_restores_the_same(self, store: ThreadStore, pieces: int) -> None:
        first, second = self.langgraph_turn("t1", 60), self.langgraph_turn("t2", 5)
        # Committed in `pieces` batches: each checkpoint folds what it closes.
        size = -(-len(first) // pieces)
        thread_id = write(store, *(first[i:i + size] for i in range(0, len(first), size)), second)
        with store.open(thread_id, read_only=True) as thread:
            logged, replayed = thread.entries(), list(thread.replay_entries())
        kept = sum(len(e.update.contents) for e in replayed if isinstance(e, UpdateLogged) and isinstance(e.update.contents[0], DebugContent))
        assert kept <= pieces * 2 * (2 + DEBUG_VALUES_KEPT) + 2 * 7  # not 60 + 9 + 5 + 1 values
        compacted = await restore(demo_agent(), InMemoryThread(entries=replayed), resume=False)
        reference = await restore(demo_agent(), FullReplay(entries=logged), resume=False)
        assert picture(compacted) == picture(reference)
        raw = next(b for b in reference.blocks if isinstance(b, DebugBlock) and b.label == "raw")
        assert raw.count == 60 and raw.values == [{"n": n} for n in range(60 - DEBUG_VALUES_KEPT, 60)]

    def test_folding_is_left_to_a_stretch_not_yet_folded(self) -> None:
        entries = self.langgraph_turn("t1", 30)
        once = compact_entries(entries)
        assert compact_entries(once) == once

