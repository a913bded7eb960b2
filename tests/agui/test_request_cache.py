"""The per-message request caches (`core/agui/request_cache.py`) change nothing that is sent.

Histories of every kind the request rules know (tool results replacing earlier ones, Google ADK
confirmations answered as tool results, reasoning with encrypted values, answers to interrupts,
messages without ids) are sent turn after turn through one `ConversionCache` and one
`BodyEncoder`, with messages edited, dropped and added between turns; every body must equal,
byte for byte, the body built from scratch.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tandem.core.agui.interrupts import ADK_CONFIRMATION_TOOL
from tandem.core.agui.request import build_run_input, to_agui_messages
from tandem.core.agui.request_cache import BodyEncoder, ConversionCache
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
# Between turns: keep the history and add messages, replace one message by a new object, or drop one.
edits = st.tuples(st.sampled_from(["add", "replace", "drop"]), st.integers(0, 50), st.lists(messages, max_size=3))
options = st.builds(ChatOptions, state=st.none() | json_values,
                    tools=st.lists(st.builds(ToolDeclaration, name=st.sampled_from(["search", "ask"])), max_size=2),
                    forwarded_props=st.dictionaries(texts, json_values, max_size=2))


def from_scratch(history: list[ChatMessage], opts: ChatOptions) -> bytes:
    run_input = build_run_input(history, opts, thread_id="t", run_id="r", open_interrupts=None)
    return run_input.model_dump_json(by_alias=True, exclude_none=True).encode()


def edited(history: list[ChatMessage], edit: tuple[str, int, list[ChatMessage]]) -> list[ChatMessage]:
    kind, where, new = edit
    history = list(history)
    if kind == "add" or not history:
        return history + new
    where %= len(history)
    if kind == "replace":
        # A new object equal to the old one but for its content: the cache must not mistake it.
        history[where] = history[where].model_copy(update={"contents": [*history[where].contents, *new[:1]]})
    else:
        del history[where]
    return history


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(first=st.lists(messages, max_size=8), turns=st.lists(edits, min_size=1, max_size=5), opts=options)
def test_cached_bodies_equal_bodies_built_from_scratch(first: list[ChatMessage], turns: list[Any],
                                                       opts: ChatOptions) -> None:
    cache, encoder = ConversionCache(), BodyEncoder()
    history = first
    for edit in [("add", 0, []), *turns]:
        history = edited(history, edit)
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


def test_a_second_turn_reuses_the_first_turns_messages_and_json() -> None:
    history = [ChatMessage.user("hi", message_id="u1"),
               ChatMessage(role="assistant", message_id="a1",
                           contents=[ReasoningContent(text="think", encrypted_value="enc"), TextContent(text="hello"),
                                     ToolCallContent(call_id="c1", name="search", arguments={"q": 1})]),
               ChatMessage(role="tool", contents=[ToolResultContent(call_id="c1", result={"n": 1})])]
    cache = ConversionCache()
    first = to_agui_messages(history, cache)
    history.append(ChatMessage(role="tool", contents=[ToolResultContent(call_id="c1", result="newer")]))
    second = to_agui_messages(history, cache)
    assert [m.id for m in first] == ["u1", "a1-reasoning", "a1", "tool-c1"]
    assert all(a is b for a, b in zip(first[:3], second[:3]))  # the same objects: converted once
    assert second[3].content == "newer"  # the later result replaced the earlier one in place
    assert second == to_agui_messages(history)
    # The JSON of a message already sent is not made again: a cached entry is what is sent.
    encoder = BodyEncoder()
    run_input = build_run_input(history, ChatOptions(), thread_id="t", run_id="r", open_interrupts=None, cache=cache)
    body = encoder.encode(run_input)
    assert body == run_input.model_dump_json(by_alias=True, exclude_none=True).encode()
    marked = run_input.messages[0]
    encoder._entries[id(marked)] = (marked, b'{"marked":1}')
    assert b'"messages":[{"marked":1},' in encoder.encode(run_input)
