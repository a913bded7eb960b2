"""The request a reused tool-call id makes: each call's result is a tool message with an id of its own."""

from __future__ import annotations

from ag_ui.core import ToolMessage

from tandem.core.agui.request import to_agui_messages
from tandem.core.agui.request_cache import ConversionCache
from tandem.core.content import ToolCallContent, ToolResultContent
from tandem.core.messages import ChatMessage


def turn(n: int) -> list[ChatMessage]:
    """A turn in which the client ran `generate_haiku`, its call numbered `call_1` as in every turn."""
    return [
        ChatMessage.user(f"a haiku {n}"),
        ChatMessage(role="assistant", message_id=f"ai-{n}",
                    contents=[ToolCallContent(call_id="call_1", name="generate_haiku", arguments={"n": n})]),
        ChatMessage(role="tool", contents=[ToolResultContent(call_id="call_1", result={"shown": n})]),
    ]


def test_a_later_call_under_a_used_id_gets_its_own_result_message_id() -> None:
    # LangGraph merges messages by id (`add_messages`): the second result under `tool-call_1`
    # replaced the first and the graph never saw a new tool message, so it never answered.
    history = turn(1) + turn(2) + turn(3)
    tools = [m for m in to_agui_messages(history) if isinstance(m, ToolMessage)]
    assert [(m.content, m.tool_call_id) for m in tools] == [('{"shown": 1}', "call_1"), ('{"shown": 2}', "call_1"),
                                                             ('{"shown": 3}', "call_1")]
    assert tools[0].id == "tool-call_1"  # the first as it always was: a server's stored thread keeps matching
    assert len({m.id for m in tools}) == 3


def test_the_ids_stay_the_same_as_the_history_grows() -> None:
    cache = ConversionCache()
    first = [m.id for m in to_agui_messages(turn(1) + turn(2), cache) if isinstance(m, ToolMessage)]
    later = [m.id for m in to_agui_messages(turn(1) + turn(2) + turn(3), cache) if isinstance(m, ToolMessage)]
    fresh = [m.id for m in to_agui_messages(turn(1) + turn(2) + turn(3)) if isinstance(m, ToolMessage)]
    assert later[:2] == first and later == fresh
