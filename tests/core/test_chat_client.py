"""The narrow waist: ChatClient, the delegating middleware base, automatic client tools, record/replay."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Sequence
from typing import Any

import pytest
from tests.helpers.scripted import Clock, Conversation, approval, finish, make_agent, reach, text, tool_call, tool_result

from tandem.core import (
    AgentContext,
    ChatClient,
    ChatMessage,
    ChatOptions,
    ChatUpdate,
    DelegatingChatClient,
    FunctionInvokingChatClient,
    InMemoryThread,
    Status,
    ToolCallBlock,
    ToolStatus,
)
from tandem.core.chat_client import stream_updates
from tandem.core.content import TextContent, ToolCallContent, ToolResultContent
from tandem.core.history import HistoryFolder
from tandem.core.scripted import RecordingChatClient, ReplayChatClient, ScriptedChatClient


async def collect(client: ChatClient, messages: Sequence[ChatMessage] = ()) -> list[ChatUpdate]:
    return [update async for update in stream_updates(client, list(messages) or [ChatMessage.user("hi")], ChatOptions())]


def results_in(updates: list[ChatUpdate]) -> list[ToolResultContent]:
    return [p for u in updates for p in u.contents if isinstance(p, ToolResultContent)]


class Shouting(DelegatingChatClient):
    """A middleware that upper-cases text and leaves everything else alone."""

    async def stream(self, messages: Sequence[ChatMessage], options: ChatOptions,
                     folder: HistoryFolder | None = None) -> AsyncIterator[list[ChatUpdate]]:
        # The updates change: `folder` is not passed on (it folds what this client yields).
        async for batch in self.inner.stream(messages, options):
            yield [update.model_copy(update={"contents": [
                TextContent(text=p.text.upper()) if isinstance(p, TextContent) else p for p in update.contents]})
                for update in batch]


class TestDelegatingChatClient:
    async def test_forwards_the_stream_unchanged(self) -> None:
        inner = ScriptedChatClient([[text("a"), finish()]])
        updates = await collect(DelegatingChatClient(inner))
        assert updates == [text("a"), finish()]
        assert inner.requests[0][0] == [ChatMessage.user("hi")]

    async def test_a_middleware_overrides_only_what_it_changes(self) -> None:
        inner = ScriptedChatClient([[text("quiet"), finish()]])
        updates = await collect(Shouting(inner))
        assert updates[0].contents == [TextContent(text="QUIET")]
        assert updates[1] == finish()

    async def test_aclose_reaches_the_inner_client(self) -> None:
        inner = ScriptedChatClient([])
        async with Shouting(inner):
            pass
        assert inner.aclosed


class TestFunctionInvokingChatClient:
    async def test_runs_client_tools_and_continues(self) -> None:
        inner = ScriptedChatClient(
            [
                [tool_call("c1", "add", delta='{"a": 1, '), tool_call("c1", delta='"b": 2}'), tool_call("c1", done=True), finish()],
                [text("It is 3.", message_id="m2"), finish()],
            ]
        )
        client = FunctionInvokingChatClient(inner, {"add": lambda args: args["a"] + args["b"]})
        updates = await collect(client)
        (result,) = results_in(updates)
        assert (result.call_id, result.result, result.error) == ("c1", 3, None)
        assert updates[-2] == text("It is 3.", message_id="m2")
        second = inner.requests[1][0]
        assert [(m.role, [p.kind for p in m.contents]) for m in second] == [
            ("user", ["text"]),
            ("assistant", ["tool_call"]),
            ("tool", ["tool_result"]),
        ]
        assert second[1].contents[0].arguments == {"a": 1, "b": 2}  # type: ignore[union-attr]

    async def test_async_tools_are_awaited(self) -> None:
        async def lookup(args: dict[str, Any]) -> dict[str, str]:
            return {"city": args["city"], "sky": "rain"}

        inner = ScriptedChatClient([[tool_call("c1", "lookup", arguments={"city": "Oslo"}), finish()], [finish()]])
        updates = await collect(FunctionInvokingChatClient(inner, {"lookup": lookup}))
        assert results_in(updates)[0].result == {"city": "Oslo", "sky": "rain"}

    async def test_a_failing_tool_is_reported_to_the_model_not_raised(self, caplog: pytest.LogCaptureFixture) -> None:
        def broken(args: dict[str, Any]) -> None:
            raise ValueError("no such city")

        inner = ScriptedChatClient([[tool_call("c1", "lookup", arguments={}), finish()], [finish()]])
        with caplog.at_level(logging.WARNING, logger="tandem.core.chat_client"):
            updates = await collect(FunctionInvokingChatClient(inner, {"lookup": broken}))
        (result,) = results_in(updates)
        assert result.error == "ValueError: no such city"
        assert "client tool lookup failed" in caplog.text
        assert len(inner.requests) == 2

    async def test_bad_json_arguments_are_a_tool_error(self) -> None:
        inner = ScriptedChatClient([[tool_call("c1", "lookup", delta="{oops"), finish()], [finish()]])
        updates = await collect(FunctionInvokingChatClient(inner, {"lookup": lambda args: "never"}))
        error = results_in(updates)[0].error or ""
        assert "tool arguments are not JSON" in error and "Expecting property name" in error

    @pytest.mark.parametrize(
        "segment",
        [
            [tool_call("c1", "lookup", arguments={}, informational_only=True), finish()],
            [tool_call("c1", "other_tool", arguments={}), finish()],
            [tool_call("c1", "lookup", arguments={}), tool_result("c1", "server ran it"), finish()],
        ],
        ids=["informational", "not-a-client-tool", "already-answered"],
    )
    async def test_calls_it_must_not_run_are_left_alone(self, segment: list[ChatUpdate]) -> None:
        runs: list[dict] = []
        inner = ScriptedChatClient([segment])
        await collect(FunctionInvokingChatClient(inner, {"lookup": runs.append}))
        assert runs == []
        assert len(inner.requests) == 1

    async def test_a_call_answered_in_the_history_is_not_run_again(self) -> None:
        # A server that re-sends a call the history already holds a result for (ADK's snapshots do).
        runs: list[dict] = []
        inner = ScriptedChatClient([[tool_call("c1", "lookup", arguments={}), finish()]])
        history = [ChatMessage.user("look it up"),
                   ChatMessage(role="tool", contents=[ToolResultContent(call_id="c1", result="found earlier")]),
                   ChatMessage.user("and now?")]
        await collect(FunctionInvokingChatClient(inner, {"lookup": runs.append}), history)
        assert runs == []
        assert len(inner.requests) == 1

    async def test_a_call_streamed_from_its_start_under_an_answered_id_is_run(self) -> None:
        # A server that numbers its calls afresh in every run (pydantic-ai's TestModel, fake
        # models): the id is answered in the history, yet this is a new call, streamed from its start.
        runs: list[dict] = []
        start = ChatUpdate(contents=[ToolCallContent(call_id="c1", name="lookup")])
        arguments = ChatUpdate(contents=[ToolCallContent(call_id="c1", arguments_delta='{"q": 2}', done=True)])
        inner = ScriptedChatClient([[start, arguments, finish()], [text("found it again", message_id="m2"), finish()]])
        history = [ChatMessage.user("look it up"),
                   ChatMessage(role="tool", contents=[ToolResultContent(call_id="c1", result="found earlier")]),
                   ChatMessage.user("and now?")]
        await collect(FunctionInvokingChatClient(inner, {"lookup": runs.append}), history)
        assert runs == [{"q": 2}]
        assert len(inner.requests) == 2

    async def test_stops_after_max_rounds(self) -> None:
        segments = [[tool_call(f"c{n}", "again", arguments={}), finish()] for n in range(4)]
        inner = ScriptedChatClient(segments)
        runs: list[dict] = []
        await collect(FunctionInvokingChatClient(inner, {"again": runs.append}, max_rounds=2))
        assert len(inner.requests) == 3
        assert len(runs) == 2

    async def test_in_a_conversation_the_tool_block_shows_the_result(self) -> None:
        inner = ScriptedChatClient(
            [[tool_call("c1", "add", arguments={"a": 2, "b": 2}), finish()], [text("4", message_id="m2"), finish()]]
        )
        agent = make_agent(FunctionInvokingChatClient(inner, {"add": lambda a: a["a"] + a["b"]}), clock=Clock())
        context = AgentContext(agent)
        turn = await context.send("2+2?")
        await turn.wait()
        assert turn.segments == 1
        tool = agent.pipeline.by_id["tool/c1"]
        assert isinstance(tool, ToolCallBlock)
        assert (tool.status, tool.result) == (ToolStatus.SUCCEEDED, 4)
        assert [m.role for m in agent.history] == ["user", "assistant", "tool", "assistant"]


class TestScriptedChatClient:
    async def test_an_unscripted_call_says_so(self) -> None:
        client = ScriptedChatClient([[finish()]])
        await collect(client)
        with pytest.raises(AssertionError, match="call 2 was not scripted"):
            await collect(client)

    async def test_records_requests_and_closed_streams(self) -> None:
        client = ScriptedChatClient([[text("a")]])
        await collect(client, [ChatMessage.user("q")])
        assert client.requests[0][0] == [ChatMessage.user("q")]
        assert client.closed_streams == 1


class TestRecordAndReplay:
    async def test_a_recorded_conversation_replays_to_the_same_blocks(self) -> None:
        script = [
            [text("Checking."), tool_call("c1", "delete_file", arguments={"path": "/x"}), approval("r1", call_id="c1"), finish()],
            [tool_result("c1", "ok"), text("Deleted.", message_id="m2"), finish()],
        ]
        recorder = RecordingChatClient(ScriptedChatClient(script))
        live = Conversation([])
        live.agent.client = recorder
        turn = await live.context.send("delete /x")
        await reach(live.context, Status.AWAITING_INPUT)
        live.context.pending_blocks[0].approve()  # type: ignore[attr-defined]
        await turn.wait()
        assert [len(r) for r in recorder.recordings] == [4, 3]

        lines = [json.dumps([u.model_dump(mode="json") for u in recording]) for recording in recorder.recordings]
        replay = ReplayChatClient.from_jsonl([*lines, ""])
        again = Conversation([], thread=InMemoryThread("thread-2"))
        again.agent.client = replay
        turn = await again.context.send("delete /x")
        await reach(again.context, Status.AWAITING_INPUT)
        again.context.pending_blocks[0].approve()  # type: ignore[attr-defined]
        await turn.wait()
        assert [b.snapshot() for b in again.context.blocks] == [b.snapshot() for b in live.context.blocks]
        assert replay.requests[1][0] == recorder.inner.requests[1][0]  # type: ignore[attr-defined]
