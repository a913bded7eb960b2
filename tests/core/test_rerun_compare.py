"""Comparing a recorded turn with its replay (core/rerun): JSON changes, tolerances, the word diff."""

from __future__ import annotations

import pytest

from tandem.core.blocks.interactive import Decision
from tandem.core.rerun import Ask, Tolerance, TolerancePathError, ToolUse, TurnRecord, compare_text, compare_turn, json_changes


def turn(**fields: object) -> TurnRecord:
    record = TurnRecord(index=0, request="hi", status="completed")
    for name, value in fields.items():
        setattr(record, name, value)
    return record


def paths(was: object, now: object, *ignore: str, scope: str = "state") -> list[str]:
    return [c.path for c in json_changes(was, now, scope=scope, tolerance=Tolerance.of(ignore=ignore))]


@pytest.mark.parametrize(("was", "now", "expected"), [
    ({"a": 1}, {"a": 1.0}, []),  # numbers by value
    ({"a": True}, {"a": 1}, ["/a"]),  # a change of type counts
    ({"a": {"b": [1, 2]}}, {"a": {"b": [1, 3, 4]}}, ["/a/b/1", "/a/b/2"]),
    ({"a/b": 1}, {}, ["/a~1b"]),  # keys escaped as JSON pointers
    (None, {"x": 1}, [""]),
])
def test_json_changes_field_by_field(was: object, now: object, expected: list[str]) -> None:
    assert paths(was, now) == expected


def test_added_and_removed_sides_are_absent_in_json() -> None:
    added, removed = json_changes({"b": 1}, {"a": 1}, scope="state", tolerance=Tolerance())
    assert removed.to_json() == {"path": "/a", "now": 1} and added.to_json() == {"path": "/b", "was": 1}


@pytest.mark.parametrize(("ignore", "expected"), [
    (["/meta"], ["/items/0/id", "/items/1/id"]),  # a subtree goes with its path
    (["/items/*/id"], ["/meta/at"]),
    (["**/id", "state:/meta/at"], []),
    (["get_weather:/meta"], ["/items/0/id", "/items/1/id", "/meta/at"]),  # another scope
])
def test_ignored_paths(ignore: list[str], expected: list[str]) -> None:
    was = {"items": [{"id": 1}, {"id": 2}], "meta": {"at": 1}}
    now = {"items": [{"id": 3}, {"id": 4}], "meta": {"at": 2}}
    assert paths(was, now, *ignore) == expected


@pytest.mark.parametrize("bad", ["", "nopointer", ":/a", "tool:", "state:a"])
def test_a_malformed_ignore_path_is_refused(bad: str) -> None:
    with pytest.raises(TolerancePathError):
        Tolerance.of(ignore=[bad])


def test_word_diff_and_similarity() -> None:
    text = compare_text("It is sunny in Lisbon.", "It is rainy in Lisbon.")
    assert text.pieces == (("equal", "It is "), ("delete", "sunny "), ("insert", "rainy "), ("equal", "in Lisbon."))
    assert 0.7 < text.similarity < 1 and not text.same
    assert compare_text("same words", "same words").same and compare_text("", "").similarity == 1


def test_tools_asks_state_and_text_each_reported_and_only_text_is_tolerated() -> None:
    approved = Decision(outcome="approved", who="me", at=0)
    recorded = turn(tools=[ToolUse("get_weather", {"location": "Lisbon"}, "succeeded"), ToolUse("log", {}, "succeeded")],
                    asks=[Ask("approval", "delete_file", {"path": "a"}, None, approved)],
                    state={"count": 1}, text="It is sunny.")
    replayed = turn(tools=[ToolUse("get_weather", {"location": "Porto"}, "succeeded")],
                    asks=[Ask("approval", "delete_file", {"path": "a"}, None, Decision(outcome="rejected", who="me", at=0))],
                    state={"count": 2}, text="It is rainy.")
    differences, text = compare_turn(recorded, replayed, Tolerance())
    summary = {d.summary: d.counts for d in differences}
    assert summary == {
        "called get_weather with other arguments": True,
        "did not call log": True,
        "the approval of delete_file was rejected (was approved)": True,
        "the state after the turn differs (1 field)": True,
        f"the answer's text differs (similarity {text.similarity:.0%})": False,
    }
    strict, _text = compare_turn(recorded, replayed, Tolerance(strict=True))
    assert all(d.counts for d in strict)
    same, _text = compare_turn(recorded, recorded, Tolerance(strict=True))
    assert same == []


def test_an_ask_of_another_kind_is_lined_up_as_removed_and_added() -> None:
    recorded = turn(asks=[Ask("question", "input_required", {"type": "object"})])
    replayed = turn(asks=[Ask("approval", "delete_file", {"path": "x"})])
    differences, _text = compare_turn(recorded, replayed, Tolerance())
    assert [d.summary for d in differences] == [
        "asked for the approval of delete_file where the recording asked for the question (input_required)"]


def test_a_turn_the_person_stopped_counts_only_what_the_recording_got_to_see() -> None:
    recorded = turn(tools=[ToolUse("search", {"q": "a"}, "cancelled")], status="cancelled", state={"n": 1})
    replayed = turn(tools=[ToolUse("search", {"q": "b"}, "cancelled"), ToolUse("fetch", {}, "succeeded")],
                    state={"n": 2})
    differences, _text = compare_turn(recorded, replayed, Tolerance(), stopped_early=True)
    assert {d.summary: d.counts for d in differences} == {
        "called search with other arguments": True,  # what the recording saw still counts
        "called fetch (not in the recording)": False,
        "the state after the turn differs (1 field)": False,
        "the turn ended completed (was cancelled) (the person stopped it mid-answer when it was recorded)": False,
    }
