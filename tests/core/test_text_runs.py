"""`compaction.text_runs`, the live path's cut of each batch into runs of text deltas, against
its definition: consecutive updates join when `text_run_key` says so, and each run's texts are
its updates' texts, in order. Random batches of text, reasoning (plain and encrypted), tool
calls and multi-part updates, over a few message ids, roles and authors."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tandem.core.compaction import joined_update, text_run_key, text_runs
from tandem.core.content import ReasoningContent, TextContent, ToolCallContent
from tandem.core.messages import ChatUpdate


def _reference(updates: list[ChatUpdate]) -> list[list[ChatUpdate]]:
    """The runs `text_run_key` defines: an update joins the one before when both have a key and
    the keys are equal."""
    runs: list[list[ChatUpdate]] = []
    previous: Any = None
    for update in updates:
        key = text_run_key(update)
        if runs and key is not None and key == previous:
            runs[-1].append(update)
        else:
            runs.append([update])
        previous = key
    return runs


_PARTS = st.one_of(
    st.builds(TextContent, text=st.sampled_from(["a", "b ", "\n", ""])),
    st.builds(ReasoningContent, text=st.sampled_from(["r", "s"])),
    st.builds(ReasoningContent, text=st.just(""), encrypted_value=st.just("opaque")),
    st.builds(ToolCallContent, call_id=st.sampled_from(["c1", "c2"]), arguments_delta=st.just("{")),
)
_UPDATES = st.builds(
    ChatUpdate,
    role=st.sampled_from(["assistant", "user", "tool"]),
    contents=st.lists(_PARTS, min_size=0, max_size=2),
    message_id=st.sampled_from([None, "m1", "m2"]),
    author=st.sampled_from([None, "critic"]),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_UPDATES, max_size=30))
def test_the_runs_are_those_text_run_key_defines(updates: list[ChatUpdate]) -> None:
    cut = list(text_runs(updates))
    assert [run for run, _texts in cut] == _reference(updates)
    for run, texts in cut:
        if text_run_key(run[0]) is None:
            assert texts is None and len(run) == 1
        else:
            assert texts == [update.contents[0].text for update in run]  # type: ignore[union-attr]


def test_a_long_run_of_one_message_is_one_run_with_every_text() -> None:
    updates = [ChatUpdate(contents=[TextContent(text=f"w{n} ")], message_id="m1") for n in range(500)]
    updates.append(ChatUpdate(contents=[TextContent(text="x")], message_id="m1", author="critic"))
    [(run, texts), (last, last_texts)] = list(text_runs(updates))
    assert len(run) == 500 and "".join(texts or []) == "".join(f"w{n} " for n in range(500))
    assert last_texts == ["x"] and last[0].author == "critic"


_FIRSTS = st.builds(
    ChatUpdate,
    role=st.sampled_from(["assistant", "user", "tool"]),
    contents=st.lists(st.one_of(st.builds(TextContent, text=st.sampled_from(["a", ""])),
                                st.builds(ReasoningContent, text=st.sampled_from(["r", "s"]))), min_size=1, max_size=1),
    message_id=st.sampled_from(["m1", "m2"]),
    author=st.sampled_from([None, "critic"]),
    raw=st.sampled_from([None, {"type": "TEXT_MESSAGE_CONTENT"}]),
)
"""Updates that begin a run (`text_run_key` is not None), built directly, not filtered."""


@settings(max_examples=100, deadline=None)
@given(_FIRSTS, st.lists(st.sampled_from(["x", "y "]), max_size=3))
def test_a_joined_run_is_what_model_copy_makes_of_its_first_update(first: ChatUpdate, more: list[str]) -> None:
    assert text_run_key(first) is not None
    [part] = first.contents
    texts = [part.text, *more]  # type: ignore[attr-defined]
    expected = first.model_copy(update={"contents": [part.model_copy(update={"text": "".join(texts)})], "raw": None})
    joined = joined_update(first, texts)
    assert joined == expected and type(joined.contents[0]) is type(part)
    assert joined.model_fields_set == expected.model_fields_set
    assert joined.contents[0].model_fields_set == expected.contents[0].model_fields_set
    assert joined.model_dump_json() == expected.model_dump_json()
    assert first.contents == [part]  # the first is left as it was
