"""The request caches (`core/agui/request_cache.py`) change nothing that is sent.

Histories of every kind the request rules know (tool results replacing earlier ones, Google ADK
confirmations answered as tool results, reasoning with encrypted values, answers to interrupts,
messages without ids) are sent turn after turn through one `ConversionCache`, one `CallsCache` and
one `BodyEncoder`, with the history changed between turns as the app changes it (messages added;
one replaced, dropped or inserted in the middle, as an edit does; the tail dropped, as a retry
does; a prefix replaced by a summary, as compaction does) and the options changed too. Every body
must equal, byte for byte, the body of a `RunAgentInput` validated whole (messages included) and
dumped by pydantic, built from scratch; the known calls must equal those folded from scratch.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tandem.core.agui.interrupts import ADK_CONFIRMATION_TOOL
from ag_ui.core import RunAgentInput

from tandem.core.agui import request_cache
from tandem.core.agui.request import build_run_input, known_calls, to_agui_messages
from tandem.core.agui.request_cache import BodyEncoder, CallsCache, ConversionCache, shared_prefix
from tandem.core.content import (
    ApprovalResponseContent,
    InputResponseContent,
    ReasoningContent,
    TextContent,
    ToolCallContent,
    ToolResultContent,
)
from tandem.core.messages import ChatMessage, ChatOptions, ToolDeclaration

CALL_IDS = ["c1", "c2", "c3"]
texts = st.text(max_size=12)
json_values = st.recursive(st.none() | st.booleans() | st.integers() | texts,
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
                           max_leaves=6)
message_ids = st.none() | st.sampled_from(["m1", "m2", "m3"]) | st.uuids().map(str)

answers = st.one_of(
    st.builds(ApprovalResponseContent, request_id=st.sampled_from(CALL_IDS), approved=st.booleans(),
              status=st.sampled_from(["resolved", "cancelled"]), reason=st.none() | texts),
    st.builds(InputResponseContent, request_id=st.sampled_from(CALL_IDS), payload=json_values),
)
assistant_parts = st.one_of(
    st.builds(TextContent, text=texts),
    st.builds(ReasoningContent, text=texts, encrypted_value=st.none() | texts),
    st.builds(ToolCallContent, call_id=st.sampled_from(CALL_IDS),
              name=st.sampled_from(["search", ADK_CONFIRMATION_TOOL, None]),
              arguments=st.none() | st.dictionaries(texts, json_values, max_size=2), arguments_delta=texts),
)
results = st.builds(ToolResultContent, call_id=st.sampled_from(CALL_IDS), result=json_values,
                    error=st.none() | texts, encrypted_value=st.none() | texts)
messages = st.one_of(
    st.builds(ChatMessage, role=st.sampled_from(["user", "system"]), message_id=message_ids,
              contents=st.lists(st.builds(TextContent, text=texts) | answers, max_size=3)),
    st.builds(ChatMessage, role=st.just("assistant"), message_id=message_ids,
              contents=st.lists(assistant_parts | results, max_size=4)),
    st.builds(ChatMessage, role=st.just("tool"), message_id=message_ids, contents=st.lists(results, min_size=1, max_size=2)),
)
# Between turns: add messages; replace one by a new object, drop one or insert some in the middle
# (an edit); drop the tail (a retry); replace the start by one message (compaction).
edits = st.tuples(st.sampled_from(["add", "replace", "drop", "insert", "retry", "compact"]), st.integers(0, 50),
                  st.lists(messages, max_size=3))
options = st.builds(ChatOptions, state=st.none() | json_values,
                    tools=st.lists(st.builds(ToolDeclaration, name=st.sampled_from(["search", "ask"])), max_size=2),
                    forwarded_props=st.dictionaries(texts, json_values, max_size=2))


def from_scratch(history: list[ChatMessage], opts: ChatOptions) -> bytes:
    """The body as pydantic dumps a `RunAgentInput` validated whole (its messages too), built uncached."""
    built = build_run_input(history, opts, thread_id="t", run_id="r", open_interrupts=None)
    validated = RunAgentInput(**{name: getattr(built, name) for name in RunAgentInput.model_fields})
    return validated.model_dump_json(by_alias=True, exclude_none=True).encode()


def edited(history: list[ChatMessage], edit: tuple[str, int, list[ChatMessage]]) -> list[ChatMessage]:
    kind, where, new = edit
    history = list(history)
    if kind == "add" or not history:
        return history + new
    where %= len(history)
    if kind == "replace":
        # A new object equal to the old one but for its content: the cache must not mistake it.
        history[where] = history[where].model_copy(update={"contents": [*history[where].contents, *new[:1]]})
    elif kind == "insert":
        history[where:where] = new
    elif kind == "retry":
        del history[where:]
    elif kind == "compact":
        history[: where + 1] = [ChatMessage.user("a summary of what came before", message_id="summary")]
    else:
        del history[where]
    return history


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(first=st.lists(messages, max_size=8), turns=st.lists(st.tuples(edits, options), min_size=1, max_size=5),
       opts=options)
def test_cached_bodies_equal_bodies_built_from_scratch(first: list[ChatMessage], turns: list[Any],
                                                       opts: ChatOptions) -> None:
    cache, encoder, calls = ConversionCache(), BodyEncoder(), CallsCache()
    history = first
    for edit, next_opts in [(("add", 0, []), opts), *turns]:
        history = edited(history, edit)
        opts = next_opts if edit[1] % 3 == 0 else opts  # the options change on some turns only
        declared = frozenset(tool.name for tool in opts.tools)
        kept = known_calls(history, declared, calls)
        assert kept == known_calls(history, declared)
        for call in kept.values():  # the client's mapper changes the calls it is given: not the cache's
            call.resolved = True
            call.chunks.append("{")
        try:
            expected = from_scratch(history, opts)
        except Exception as exc:  # noqa: BLE001 - an invalid history must fail the same way with the caches
            try:
                build_run_input(history, opts, thread_id="t", run_id="r", open_interrupts=None, cache=cache)
            except Exception as cached_exc:  # noqa: BLE001
                assert type(cached_exc) is type(exc)
                continue
            raise AssertionError(f"the cached build did not raise {exc!r}") from exc
        run_input = build_run_input(history, opts, thread_id="t", run_id="r", open_interrupts=None, cache=cache)
        assert encoder.encode(run_input) == expected


def test_a_second_turn_converts_and_encodes_only_what_was_added(monkeypatch: Any) -> None:
    history = [ChatMessage.user("hi", message_id="u1"),
               ChatMessage(role="assistant", message_id="a1",
                           contents=[ReasoningContent(text="think", encrypted_value="enc"), TextContent(text="hello"),
                                     ToolCallContent(call_id="c1", name="search", arguments={"q": 1})]),
               ChatMessage(role="tool", contents=[ToolResultContent(call_id="c1", result={"n": 1})])]
    cache, encoder = ConversionCache(), BodyEncoder()
    first = build_run_input(history, ChatOptions(), thread_id="t", run_id="r", open_interrupts=None, cache=cache)
    encoder.encode(first)
    dumped: list[Any] = []
    real_dump = request_cache._dump
    monkeypatch.setattr(request_cache, "_dump", lambda model: dumped.append(model) or real_dump(model))
    history.append(ChatMessage.user("and then?", message_id="u2"))
    second = build_run_input(history, ChatOptions(state={"k": 1}), thread_id="t", run_id="r", open_interrupts=None,
                             cache=cache)
    assert [m.id for m in second.messages] == ["u1", "a1-reasoning", "a1", "tool-c1", "u2"]
    assert all(a is b for a, b in zip(first.messages, second.messages))  # the same objects: converted once
    body = encoder.encode(second)
    assert body == from_scratch(history, ChatOptions(state={"k": 1}))
    # The new message, and the frame around the messages (the placeholder and the input without
    # its messages): the four messages already sent are not encoded again.
    assert [getattr(model, "id", None) for model in dumped][0] == "u2"
    assert len(dumped) == 3


def test_a_later_result_replaces_a_kept_one_in_place() -> None:
    history = [ChatMessage.user("hi", message_id="u1"),
               ChatMessage(role="assistant", message_id="a1", contents=[ToolCallContent(call_id="c1", name="search",
                                                                                        arguments={})]),
               ChatMessage(role="tool", contents=[ToolResultContent(call_id="c1", result="first")])]
    cache, encoder = ConversionCache(), BodyEncoder()
    encoder.encode(build_run_input(history, ChatOptions(), thread_id="t", run_id="r", open_interrupts=None, cache=cache))
    history.append(ChatMessage(role="tool", contents=[ToolResultContent(call_id="c1", result="newer")]))
    run_input = build_run_input(history, ChatOptions(), thread_id="t", run_id="r", open_interrupts=None, cache=cache)
    assert [m.content for m in run_input.messages if m.role == "tool"] == ["newer"]
    assert encoder.encode(run_input) == from_scratch(history, ChatOptions())


def test_an_adk_confirmation_call_after_a_kept_answer_starts_the_conversion_over() -> None:
    """An answer is sent as a tool result when a Google ADK confirmation call of that id is
    anywhere in the history: a call added after the answer changes how the kept answer is sent."""
    answer = ApprovalResponseContent(request_id="c9", approved=True)
    history = [ChatMessage.user("go", message_id="u1"),
               ChatMessage(role="user", message_id="u2", contents=[TextContent(text="yes"), answer]),
               ChatMessage(role="assistant", message_id="a1", contents=[TextContent(text="ok")])]
    cache = ConversionCache()
    before = to_agui_messages(history, cache)
    assert [m.id for m in before] == ["u1", "u2", "a1"]
    history.append(ChatMessage(role="assistant", message_id="a2", contents=[
        ToolCallContent(call_id="c9", name=ADK_CONFIRMATION_TOOL, arguments={})]))
    after = to_agui_messages(history, cache)
    assert after == to_agui_messages(history)
    assert [m.id for m in after] == ["u1", "u2", "tool-c9", "a1", "a2"]


def test_state_that_looks_like_the_messages_array_is_sent_as_it_is() -> None:
    state = {"messages": [{"id": "tandem-placeholder", "role": "user", "content": ""}], "x": "\"messages\":[]"}
    history = [ChatMessage.user("hi", message_id="u1")]
    encoder = BodyEncoder()
    for _ in range(2):
        run_input = build_run_input(history, ChatOptions(state=state), thread_id="t", run_id="r", open_interrupts=None,
                                    cache=None)
        assert encoder.encode(run_input) == from_scratch(history, ChatOptions(state=state))
        history = [*history, ChatMessage.user("more")]


def test_shared_prefix_counts_the_same_objects_not_equal_ones() -> None:
    a, b, c = ChatMessage.user("x"), ChatMessage.user("x"), ChatMessage.user("y")
    assert a == b
    assert shared_prefix([a, c], [a, c, b]) == 2
    assert shared_prefix([a, c], [b, c]) == 0
    assert shared_prefix([a, c, b], [a, c]) == 2
    assert shared_prefix([a, b, c], [a, c, c]) == 1
    assert shared_prefix([], [a]) == 0


def test_known_calls_reads_only_the_new_messages_and_hands_out_copies() -> None:
    call = ToolCallContent(call_id="c1", name="search", arguments={"q": 1})
    history = [ChatMessage(role="assistant", message_id="a1", contents=[call])]
    calls = CallsCache()
    first = known_calls(history, frozenset({"search"}), calls)
    first["c1"].resolved = True
    first["c1"].chunks.append("junk")
    history.append(ChatMessage(role="assistant", message_id="a2", contents=[
        ToolCallContent(call_id="c2", name="other", arguments_delta='{"a":')]))
    second = known_calls(history, frozenset({"search"}), calls)
    assert second == known_calls(history, frozenset({"search"}))
    assert not second["c1"].resolved and second["c1"].chunks == []
    assert second["c2"].informational_only
    # Other declared tools: the calls are folded again (whether a call is informational changes).
    third = known_calls(history, frozenset({"search", "other"}), calls)
    assert not third["c2"].informational_only
