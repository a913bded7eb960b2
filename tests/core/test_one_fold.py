"""One history fold per streamed update: the conversation folds every batch it receives, and a
client-tool middleware below it (`FunctionInvokingChatClient`, also under the A2UI middleware
as the app and `tandem ask` build it) reads its round's messages, calls and results from that
fold (the `folder` of `ChatClient.stream`) instead of folding every update a second time. What
the model is sent next, the blocks and the history stay what they were with two folds."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tandem.core import AgentContext, ChatMessage, ChatUpdate, InMemoryThread, Status, UIAgent
from tandem.core.chat_client import ChatClient, FunctionInvokingChatClient, stream_updates
from tandem.core.content import TextContent, ToolCallContent, ToolResultContent
from tandem.core.history import HistoryFolder
from tandem.core.messages import ChatOptions


def update(part: Any, *, message_id: str | None = "m1") -> ChatUpdate:
    return ChatUpdate(role="assistant", contents=[part], message_id=message_id)


class _CallsThenText(ChatClient):
    """Round one: text, a call to the client tool `add` with its arguments in chunks between more
    text, and a call to `informational` the server ran itself; round two: text. Hands its rounds
    over as batches of a few updates, as a client reading chunks of a body does."""

    def __init__(self) -> None:
        self.requests: list[list[ChatMessage]] = []

    def _round(self, messages: Any) -> list[ChatUpdate]:
        self.requests.append(list(messages))
        if len(self.requests) == 1:
            return [
                update(TextContent(text="adding ")),
                update(TextContent(text="now")),
                update(ToolCallContent(call_id="c1", name="add", arguments_delta='{"a": 1, ')),
                update(TextContent(text=" (still)")),
                update(ToolCallContent(call_id="c1", arguments_delta='"b": 2}')),
                update(ToolCallContent(call_id="s1", name="search", arguments={"q": "x"}, informational_only=True)),
                update(ToolResultContent(call_id="s1", result="found")),
            ]
        return [update(TextContent(text="the sum "), message_id="m2"), update(TextContent(text="is 3"), message_id="m2")]

    async def stream(self, messages: Any, options: ChatOptions,
                     folder: HistoryFolder | None = None) -> AsyncIterator[list[ChatUpdate]]:
        updates = self._round(messages)
        for start in range(0, len(updates), 3):
            yield updates[start:start + 3]


def _add(arguments: dict[str, Any]) -> Any:
    return arguments["a"] + arguments["b"]


async def _turn(agent: UIAgent) -> AgentContext:
    context = AgentContext(agent, thread=InMemoryThread())
    turn = await context.send("go")
    await asyncio.wait_for(turn.wait(), 30)
    assert context.status is Status.IDLE
    return context


def _counting_folds(monkeypatch: pytest.MonkeyPatch) -> Counter[int]:
    """How many times each update (by id) was folded, through `add` or a run's `add_run`."""
    folds: Counter[int] = Counter()
    add, add_run = HistoryFolder.add, getattr(HistoryFolder, "add_run", None)

    def counted_add(self: HistoryFolder, streamed: ChatUpdate) -> None:
        folds[id(streamed)] += 1
        add(self, streamed)

    def counted_run(self: HistoryFolder, first: ChatUpdate, texts: Any) -> None:
        folds[id(first)] += 1
        # The run's other updates are folded by their texts: counted through the first.
        with monkeypatch.context() as inner:
            inner.setattr(HistoryFolder, "add", add)
            add_run(self, first, texts)  # type: ignore[misc]

    monkeypatch.setattr(HistoryFolder, "add", counted_add)
    if add_run is not None:
        monkeypatch.setattr(HistoryFolder, "add_run", counted_run)
    return folds


class TestOneFold:
    async def test_a_turn_with_a_client_tool_folds_each_update_once(self, monkeypatch: pytest.MonkeyPatch) -> None:
        folds = _counting_folds(monkeypatch)
        inner = _CallsThenText()
        await _turn(UIAgent(FunctionInvokingChatClient(inner, {"add": _add})))
        assert len(inner.requests) == 2, "the client tool ran and the segment went on"
        assert folds and max(folds.values()) == 1

    async def test_the_next_round_is_sent_what_two_folds_sent(self) -> None:
        # Through the conversation (one shared fold) and through `stream` (the middleware folds
        # for itself, nobody else does): the same second request, call and result included.
        shared = _CallsThenText()
        context = await _turn(UIAgent(FunctionInvokingChatClient(shared, {"add": _add})))
        alone = _CallsThenText()
        streamed = [u async for u in stream_updates(FunctionInvokingChatClient(alone, {"add": _add}),
            [ChatMessage(role="user", contents=[TextContent(text="go")])], ChatOptions())]
        assert [m.model_dump() for m in shared.requests[1]] == [m.model_dump() for m in alone.requests[1]]
        second = shared.requests[1]
        assert [m.role for m in second] == ["user", "assistant", "tool", "tool"]
        text, call, more, informational = second[1].contents
        assert isinstance(text, TextContent) and text.text == "adding now"
        assert isinstance(call, ToolCallContent) and call.arguments == {"a": 1, "b": 2}
        assert isinstance(informational, ToolCallContent) and informational.informational_only
        assert isinstance(more, TextContent) and more.text == " (still)"
        [server_result] = second[2].contents
        [client_result] = second[3].contents
        assert isinstance(server_result, ToolResultContent) and server_result.call_id == "s1"
        assert isinstance(client_result, ToolResultContent) and client_result.result == 3
        # The turn's history: round one, the results, round two; the result update was streamed.
        history = [(m.role, m.text) for m in context.agent.history]
        assert history == [("user", "go"), ("assistant", "adding now (still)"), ("tool", ""), ("tool", ""),
                           ("assistant", "the sum is 3")]
        assert [type(p).__name__ for u in streamed for p in u.contents].count("ToolResultContent") == 2

    async def test_under_the_a2ui_middleware_as_ask_builds_it(self, monkeypatch: pytest.MonkeyPatch) -> None:
        from tandem.tui.cli.backend import build_agent

        folds = _counting_folds(monkeypatch)
        inner = _CallsThenText()
        agent = build_agent(inner)
        function_invoking = agent.client.inner  # type: ignore[attr-defined]
        assert isinstance(function_invoking, FunctionInvokingChatClient)
        function_invoking.tools["add"] = _add
        context = await _turn(agent)
        assert len(inner.requests) == 2
        assert max(folds.values()) == 1
        assert context.agent.history[-1].text == "the sum is 3"

    async def test_a_call_the_history_already_answered_is_not_run_again(self) -> None:
        inner = _CallsThenText()
        ran: list[Any] = []
        client = FunctionInvokingChatClient(inner, {"add": lambda arguments: ran.append(arguments)})
        answered = ChatMessage(role="tool", contents=[ToolResultContent(call_id="c1", result=3)])
        context = AgentContext(UIAgent(client), thread=InMemoryThread())
        context.agent.history.append(answered)
        turn = await context.send("go")
        await asyncio.wait_for(turn.wait(), 30)
        assert ran == [] and len(inner.requests) == 1
