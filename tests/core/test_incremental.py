"""The incremental structures of the client path: text blocks that append and read in parts,
the coalescer of notifications, the diff of a state write at its own paths, and the state's
record of the patch each commit applied."""

from __future__ import annotations

import logging
import threading
from typing import Any

import jsonpatch
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tandem.core import TextBlock
from tandem.core.blocks import ReasoningBlock
from tandem.core.blocks.tool_call import ToolCallBlock
from tandem.core.blocks.ui_action import UIActionBlock
from tandem.core.notify import Coalescer
from tandem.core.state.agent_state import AgentState
from tandem.core.state.diff import patch_diff

# -- text blocks -----------------------------------------------------------------------------

deltas = st.lists(st.text(max_size=40), max_size=120)
"""Deltas as agents send them: mostly short, some empty, some long."""


class TestTextBlock:
    @settings(max_examples=150, deadline=None)
    @given(deltas, st.data())
    def test_reads_equal_the_joined_deltas_whatever_the_reads_in_between(self, parts: list[str], data: st.DataObject) -> None:
        block = TextBlock("t")
        expected = ""
        consumed = 0  # what an incremental reader has taken so far
        taken = ""
        for delta in parts:
            block.append(delta)
            expected += delta
            assert block.length == len(expected)
            read = data.draw(st.sampled_from(["none", "text", "from", "offset"]))
            if read == "text":
                assert block.text == expected
            elif read == "from":
                appended = block.text_from(consumed)
                consumed += len(appended)
                taken += appended
                assert taken == expected
            elif read == "offset":
                offset = data.draw(st.integers(0, len(expected) + 3))
                assert block.text_from(offset) == expected[offset:]
        assert block.text == expected
        assert block.text_from(consumed) == expected[consumed:]
        assert block.content()["text"] == expected

    def test_a_long_stream_keeps_the_tail_short(self) -> None:
        # 100,000 one-character deltas never read: the tail is folded as it grows.
        block = TextBlock("t")
        for _ in range(100_000):
            block.append("x")
        assert len(block._text._tail) < 100_000 // 2
        assert block.text_from(99_990) == "x" * 10
        assert block.text == "x" * 100_000

    def test_every_append_notifies_even_an_empty_one(self) -> None:
        block = TextBlock("t")
        versions: list[int] = []
        block.on_changed(lambda b: versions.append(b.version))
        block.append("a")
        block.append("")
        assert versions == [1, 2]
        assert block.text == "a" and block.length == 1

    def test_reasoning_blocks_read_the_same_way(self) -> None:
        block = ReasoningBlock("r")
        block.append("think")
        block.append("ing")
        assert block.text_from(2) == "inking"
        assert block.content() == {"text": "thinking", "stopped": False, "encrypted": 0}

    def test_reads_from_another_thread_see_whole_deltas(self) -> None:
        block = TextBlock("t")
        seen: list[str] = []
        done = threading.Event()

        def read() -> None:
            while not done.is_set():
                seen.append(block.text)

        reader = threading.Thread(target=read)
        reader.start()
        for _ in range(20_000):
            block.append("ab")
        done.set()
        reader.join()
        assert all(len(text) % 2 == 0 and text == "ab" * (len(text) // 2) for text in seen)
        assert block.text == "ab" * 20_000


# -- a tool call's streamed arguments ---------------------------------------------------------


class TestToolCallArguments:
    """Arguments grow like text: a hostile agent's 100 MB of arguments in 100 KB deltas once kept
    the client copying the whole string on every delta (minutes of CPU, the turn never ending)."""

    @settings(max_examples=100, deadline=None)
    @given(deltas)
    def test_the_streamed_arguments_are_the_joined_deltas(self, parts: list[str]) -> None:
        block = ToolCallBlock("c", call_id="c", name="f")
        expected = ""
        for delta in parts:
            block.append_arguments(delta)
            expected += delta
            assert block.arguments_text == expected

    def test_a_long_stream_of_arguments_keeps_the_tail_short(self) -> None:
        block = ToolCallBlock("c", call_id="c", name="f")
        for _ in range(50_000):
            block.append_arguments("x")
        assert len(block._arguments_text._tail) < 50_000 // 2
        assert block.arguments_text == "x" * 50_000

    def test_streamed_then_parsed_and_whole_arguments_replace_the_stream(self) -> None:
        block = ToolCallBlock("c", call_id="c", name="f")
        for piece in ['{"pa', 'th": ', '"a.txt"}']:
            block.append_arguments(piece)
        block.finish_arguments()
        assert block.arguments == {"path": "a.txt"}
        whole = ToolCallBlock("d", call_id="d", name="f")
        whole.append_arguments('{"ignored": ')
        whole.finish_arguments({"path": "b.txt"})
        assert whole.arguments_text == '{"path": "b.txt"}'

    def test_a_ui_actions_arguments_stream_the_same_way(self) -> None:
        action = UIActionBlock("u", call_id="u", name="f", arguments={}, function=None)
        for piece in ['{"the', 'me": "li', 'ght"}']:
            action.append_arguments(piece)
        assert action.arguments_text == '{"theme": "light"}'
        action.finish_arguments()
        assert action.arguments == {"theme": "light"}


# -- the coalescer ---------------------------------------------------------------------------


class TestCoalescer:
    def test_one_call_per_value_per_flush_in_first_mark_order(self) -> None:
        scheduled: list[Any] = []
        calls: list[str] = []
        coalescer: Coalescer[str] = Coalescer(calls.append, scheduled.append)
        for value in ["a", "b", "a", "a", "c", "b"]:
            coalescer.mark(value)
        assert len(scheduled) == 1 and calls == [] and coalescer.pending
        scheduled[0]()
        assert calls == ["a", "b", "c"] and not coalescer.pending
        coalescer.mark("b")
        assert len(scheduled) == 2
        coalescer.flush()  # an explicit flush (before other output) takes it at once
        assert calls == ["a", "b", "c", "b"]
        scheduled[1]()  # the scheduled flush then finds nothing
        assert calls == ["a", "b", "c", "b"]

    def test_a_value_marked_during_a_flush_is_called_in_the_same_flush(self) -> None:
        calls: list[str] = []
        coalescer: Coalescer[str]

        def callback(value: str) -> None:
            calls.append(value)
            if value == "a":
                coalescer.mark("later")

        coalescer = Coalescer(callback, lambda flush: None)
        coalescer.mark("a")
        coalescer.flush()
        assert calls == ["a", "later"]

    def test_a_failing_callback_is_logged_and_the_others_still_run(self, caplog: pytest.LogCaptureFixture) -> None:
        calls: list[str] = []

        def callback(value: str) -> None:
            if value == "bad":
                raise RuntimeError("boom")
            calls.append(value)

        coalescer: Coalescer[str] = Coalescer(callback, lambda flush: None)
        coalescer.mark("bad")
        coalescer.mark("good")
        with caplog.at_level(logging.ERROR):
            coalescer.flush()
        assert calls == ["good"]
        assert "boom" in caplog.text

    def test_equal_but_distinct_values_are_called_each(self) -> None:
        # Values are told apart by identity: two blocks with equal contents are two blocks.
        calls: list[list[int]] = []
        coalescer: Coalescer[list[int]] = Coalescer(calls.append, lambda flush: None)
        first, second = [1], [1]
        coalescer.mark(first)
        coalescer.mark(second)
        coalescer.flush()
        assert calls == [first, second] and calls[0] is first and calls[1] is second


# -- the diff of a write at its own paths ----------------------------------------------------

scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=3))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(st.sampled_from("abc"), inner, max_size=3)),
                      max_leaves=8)
documents = st.dictionaries(st.sampled_from(["a", "b", "c", "x/y", "t~"]), values, max_size=4)


def _pointers(document: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """Every (pointer, value) in the document, the root included."""
    found = [(prefix, document)]
    if type(document) is dict:
        for key, value in document.items():
            found += _pointers(value, prefix + "/" + key.replace("~", "~0").replace("/", "~1"))
    elif type(document) is list:
        for index, value in enumerate(document):
            found += _pointers(value, f"{prefix}/{index}")
    return found


def writes() -> st.SearchStrategy[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """A document and one agent-style operation that applies to it."""
    return documents.flatmap(writes_on)


@st.composite
def writes_on(draw: st.DrawFn, document: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """`document` and one agent-style operation that applies to it."""
    pointer, target = draw(st.sampled_from(_pointers(document)))
    choices = ["replace"]
    if pointer:
        choices.append("remove")
    if type(target) is dict:
        choices.append("add-member")
    if type(target) is list:
        choices.append("append")
    kind = draw(st.sampled_from(choices))
    if kind == "add-member":
        member = draw(st.sampled_from(["a", "b", "n", "x/y"]))
        operation = {"op": "add", "path": pointer + "/" + member.replace("~", "~0").replace("/", "~1"), "value": draw(values)}
    elif kind == "append":
        operation = {"op": "add", "path": pointer + "/-", "value": draw(values)}
    elif kind == "remove":
        operation = {"op": "remove", "path": pointer}
    else:
        # Sometimes the same value again, which changes nothing.
        operation = {"op": "replace", "path": pointer, "value": draw(st.one_of(st.just(target), values))}
    return document, [operation]


class TestPatchDiff:
    @settings(max_examples=150, deadline=None)
    @given(writes())
    def test_says_what_the_whole_diff_says_for_one_write(self, write: tuple[dict[str, Any], list[dict[str, Any]]]) -> None:
        before, patch = write
        after = jsonpatch.apply_patch(before, patch)
        described = patch_diff(before, patch)
        assert described is not None
        assert jsonpatch.apply_patch(before, described) == after
        op = patch[0]
        removes_from_list = op["op"] == "remove" and type(_parent(before, op["path"])) is list
        if not removes_from_list:
            # A removal from an array may be matched to another equal element by the whole
            # diff; everything else is said exactly as the whole diff says it.
            assert described == list(jsonpatch.make_patch(before, after))

    @settings(max_examples=80, deadline=None)
    @given(writes(), st.data())
    def test_a_patch_of_several_operations_applies_to_the_same_result(self, first: Any, data: st.DataObject) -> None:
        # Each operation is described against the document the operations before it made.
        before, patch = first
        document = jsonpatch.apply_patch(before, patch)
        for _ in range(data.draw(st.integers(1, 3))):
            if type(document) is not dict:
                break
            _document, more = data.draw(writes_on(document))
            patch = patch + more
            document = jsonpatch.apply_patch(document, more)
        patch = patch + [{"op": "test", "path": "", "value": document}]
        described = patch_diff(before, patch)
        assert described is not None
        assert jsonpatch.apply_patch(before, described) == document

    def test_an_append_is_said_with_its_index(self) -> None:
        before = {"items": [{"id": 1}, {"id": 2}]}
        assert patch_diff(before, [{"op": "add", "path": "/items/-", "value": {"id": 3}}]) == [
            {"op": "add", "path": "/items/2", "value": {"id": 3}}]
        assert before == {"items": [{"id": 1}, {"id": 2}]}

    def test_what_it_cannot_say_falls_back_to_the_whole_diff(self) -> None:
        before = {"a": 1, "b": [1]}
        assert patch_diff(before, [{"op": "move", "from": "/a", "path": "/c"}]) is None
        assert patch_diff(before, [{"op": "remove", "path": "/missing/x"}]) is None
        assert patch_diff(before, [{"op": "add", "path": "/b/7", "value": 1}]) is None
        assert patch_diff(before, [{"op": "remove", "path": "/b/1"}]) is None
        assert patch_diff(before, [{"op": "replace", "path": "/zz", "value": 1}]) is None
        assert patch_diff(before, [{"op": "add", "path": "/b/01", "value": 1}]) is None
        assert patch_diff(before, [{"op": "add", "path": "no-slash", "value": 1}]) is None
        assert patch_diff(before, ["not an operation"]) is None  # type: ignore[list-item]

    def test_no_state_yet_is_the_empty_object(self) -> None:
        assert patch_diff(None, [{"op": "add", "path": "/a", "value": 1}]) == [{"op": "add", "path": "/a", "value": 1}]
        assert patch_diff(None, [{"op": "replace", "path": "", "value": {"a": 1}}]) == [
            {"op": "add", "path": "/a", "value": 1}]


def _parent(document: Any, pointer: str) -> Any:
    tokens = [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]
    node = document
    for token in tokens[:-1]:
        node = node[int(token)] if type(node) is list else node[token]
    return node


# -- the state's record of each commit -------------------------------------------------------


class TestStatePatchRecord:
    def test_an_agent_delta_is_known_as_the_patch_it_applied(self) -> None:
        state = AgentState({"items": []})
        revision = state.revision
        before = state.committed
        patch = [{"op": "add", "path": "/items/-", "value": {"id": 1}}]
        state.apply_delta(patch)
        assert state.revision == revision + 1
        assert state.patch_since(revision) == patch
        assert state.patch_since(revision - 1) is None  # more than one commit since: diff instead
        assert before == {"items": []}  # the earlier value was not changed in place

    def test_a_snapshot_and_a_human_edit_are_known_too_a_merge_is_not(self) -> None:
        state = AgentState({"a": 1, "b": 1})
        revision = state.revision
        state.apply_snapshot({"a": 2, "b": 1})
        assert state.patch_since(revision) == [{"op": "replace", "path": "", "value": {"a": 2, "b": 1}}]
        revision = state.revision
        state.edit([{"op": "replace", "path": "/b", "value": 5}])
        assert state.patch_since(revision) == [{"op": "replace", "path": "/b", "value": 5}]
        # The person's edit is pending against the agent's frame: the next agent write merges.
        revision = state.revision
        state.apply_delta([{"op": "replace", "path": "/a", "value": 3}])
        assert state.committed == {"a": 3, "b": 5}
        assert state.patch_since(revision) is None

    def test_a_proposal_commits_nothing_and_shows_in_the_value(self) -> None:
        state = AgentState({"doc": ""})
        revision = state.revision
        for n in range(5):
            state.apply_delta([{"op": "replace", "path": "/doc", "value": "x" * n}], proposal_id="p")
            assert state.value == {"doc": "x" * n}
        assert state.revision == revision
        assert state.committed == {"doc": ""}
        state.apply_delta([{"op": "add", "path": "/other", "value": 1}], proposal_id="q")
        state.apply_delta([{"op": "replace", "path": "/doc", "value": "y"}], proposal_id="p")  # not the newest
        assert state.value == {"doc": "y", "other": 1}
        state.accept("p")
        assert state.committed == {"doc": "y"}
        assert state.value == {"doc": "y", "other": 1}

    def test_the_value_without_proposals_is_the_committed_value(self) -> None:
        state = AgentState({"a": [1]})
        assert state.value is state.committed
