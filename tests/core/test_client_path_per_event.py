"""What the client path builds and keeps per event: the log entry built without validation, the
history folder's fast path for a streamed text run (equal to the general path on every recorded
capture), the log nobody keeps (`tandem ask --no-save`), the client-tool middleware folding
what passes instead of keeping every update, and the updates of one chunk handed over together
(`stream`), their text runs reaching the blocks joined: on every recorded capture the
conversation is the same whether the body arrives whole or in 7-byte pieces (the logged updates
taken apart per event: the text deltas of one chunk are joined into one update)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tandem.core import AgentContext, ChatMessage, ChatUpdate, InMemoryThread, Status, TextBlock, UIAgent
from tandem.core.agui import AGUIChatClient
from tandem.core.chat_client import ChatClient, DelegatingChatClient, FunctionInvokingChatClient, stream_updates
from tandem.core.content import ReasoningContent, TextContent, ToolCallContent, ToolResultContent
from tandem.core.errors import AgentRunError
from tandem.core.history import HistoryFolder, _MessageBuilder
from tandem.core.log_entries import UpdateLogged, logged_update
from tandem.core.messages import ChatOptions
from tandem.core.scripted import ScriptedChatClient
from tandem.core.thread import UnkeptThread

from tests.helpers.per_event import per_event, per_event_dumps

CAPTURES = Path(__file__).resolve().parents[1] / "fixtures" / "agui" / "pydantic-ai"  # copied from shared/fixtures
NAMES = sorted(path.stem for path in CAPTURES.glob("*.sse"))


def source_of(name: str, piece: int) -> Any:
    """A byte source answering every run with the capture's body, in pieces of `piece` bytes."""
    body = (CAPTURES / f"{name}.sse").read_bytes()

    async def source(run_input: Any) -> AsyncIterator[bytes]:
        for start in range(0, len(body), piece):
            yield body[start:start + piece]
    return source


async def captured_updates(name: str) -> list[ChatUpdate]:
    """The updates the client makes of one recorded pydantic-ai stream (fed in 7-byte pieces)."""
    request = json.loads((CAPTURES / f"{name}.request.json").read_text())
    client = AGUIChatClient.from_byte_source(source_of(name, 7))
    updates: list[ChatUpdate] = []
    try:
        async for update in stream_updates(client, [ChatMessage(role="user", contents=[TextContent(text="go")])],
                                          ChatOptions(state=request["state"])):
            updates.append(update)
    except AgentRunError:
        pass  # an error capture: its updates up to the error are what is folded
    finally:
        await client.aclose()
    return updates


def folded(updates: list[ChatUpdate], *, fast: bool, monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    with monkeypatch.context() as patch:
        if not fast:
            patch.setattr(_MessageBuilder, "extend_run", lambda self, update, part: False)
        folder = HistoryFolder()
        for update in updates:
            folder.add(update)
        return [message.model_dump() for message in folder.messages()]


def update(part: Any, *, role: str = "assistant", message_id: str | None = "m1") -> ChatUpdate:
    return ChatUpdate(role=role, contents=[part], message_id=message_id)  # type: ignore[arg-type]


class TestLoggedUpdate:
    def test_equals_what_model_construct_builds(self) -> None:
        streamed = ChatUpdate(role="assistant", contents=[TextContent(text="hi")], message_id="m", raw={"type": "X"})
        fast = logged_update("turn-1", streamed)
        slow = UpdateLogged.model_construct(turn_id="turn-1", update=streamed)
        assert fast == slow
        assert fast.model_fields_set == slow.model_fields_set
        assert fast.model_dump_json() == slow.model_dump_json()
        assert UpdateLogged.model_validate_json(fast.model_dump_json()) == slow

    def test_each_entry_owns_its_fields_set(self) -> None:
        streamed = ChatUpdate(role="assistant", contents=[])
        first, second = logged_update("a", streamed), logged_update("b", streamed)
        first.turn_id = "changed"  # pydantic records the set field in the instance's own set
        assert second.turn_id == "b" and second.model_fields_set == {"turn_id", "update"}


    def test_a_kept_thread_logs_the_entry_of_each_update(self) -> None:
        streamed = ChatUpdate(role="assistant", contents=[TextContent(text="hi")], message_id="m")
        thread = InMemoryThread()
        thread.append_update("turn-1", streamed)
        thread.commit()
        assert thread.entries() == [UpdateLogged(turn_id="turn-1", update=streamed)]


class TestHistoryFastPath:
    @pytest.mark.parametrize("name", NAMES)
    async def test_folds_every_capture_as_the_general_path_does(self, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
        updates = await captured_updates(name)
        assert updates
        assert folded(updates, fast=True, monkeypatch=monkeypatch) == folded(updates, fast=False, monkeypatch=monkeypatch)

    def test_a_run_breaks_where_the_general_path_breaks_it(self, monkeypatch: pytest.MonkeyPatch) -> None:
        updates = [
            update(TextContent(text="a")),
            update(TextContent(text="b")),
            update(TextContent(text="c"), message_id=None),  # no id: still the same message
            update(TextContent(text="d"), message_id="m2"),  # another message
            update(TextContent(text="e"), role="user", message_id="m2"),  # another role
            update(TextContent(text="f"), role="tool", message_id="m2"),  # tool-role text: the assistant's
            update(ReasoningContent(text="g"), message_id="m2"),  # another kind of run
            update(TextContent(text="h"), message_id="m2"),
            update(ToolCallContent(call_id="c1", name="t", arguments={}), message_id="m2"),
            update(TextContent(text="i"), message_id="m2"),
            update(ToolResultContent(call_id="c1", result=1)),
            update(TextContent(text="j")),
        ]
        fast = folded(updates, fast=True, monkeypatch=monkeypatch)
        assert fast == folded(updates, fast=False, monkeypatch=monkeypatch)
        texts = [[part.get("text") for part in message["contents"]] for message in fast]
        assert texts == [["abc"], ["d"], ["e"], ["f", "g", "h", None, "i"], [None], ["j"]]


class TestUnkeptThread:
    async def test_a_turn_streams_and_nothing_is_kept(self) -> None:
        script = [[update(TextContent(text=word)) for word in ("one ", "two ", "three")]]
        thread = UnkeptThread()
        context = AgentContext(UIAgent(ScriptedChatClient(script)), thread=thread)
        turn = await context.send("go")
        await turn.wait()
        [answer] = [b for b in context.blocks if isinstance(b, TextBlock) and b.role == "assistant"]
        assert answer.text == "one two three"
        assert thread.entries() == []
        assert thread.appended >= 3 + 4  # the updates, and the turn's and segment's starts and ends
        assert thread.commits >= 1

    async def test_ask_no_save_keeps_no_log(self) -> None:
        from tandem.tui.cli.ask_threads import AskThread

        context = await AskThread(save=False).open(None, {}, speed=0, client_options={})
        try:
            assert isinstance(context.thread, UnkeptThread)
        finally:
            await context.dispose()


class _OneCallThenText(ChatClient):
    """Round one: text and a call to the client tool `add`; round two: what it was sent, echoed."""

    def __init__(self) -> None:
        self.requests: list[list[ChatMessage]] = []

    async def stream(self, messages: Any, options: ChatOptions,
                     folder: HistoryFolder | None = None) -> AsyncIterator[list[ChatUpdate]]:
        self.requests.append(list(messages))
        if len(self.requests) == 1:
            for word in ("adding ", "now"):
                yield [update(TextContent(text=word))]
            yield [update(ToolCallContent(call_id="c1", name="add", arguments_delta='{"a": 1, '))]
            yield [update(ToolCallContent(call_id="c1", arguments_delta='"b": 2}'))]
        else:
            yield [update(TextContent(text="done"), message_id="m2")]


class TestFunctionInvokingFolds:
    async def test_the_next_round_carries_the_folded_text_the_call_and_its_result(self) -> None:
        inner = _OneCallThenText()
        client = FunctionInvokingChatClient(inner, {"add": lambda arguments: arguments["a"] + arguments["b"]})
        updates = [u async for u in stream_updates(client, [ChatMessage(role="user", contents=[TextContent(text="go")])], ChatOptions())]
        assert [type(p).__name__ for u in updates for p in u.contents][-2:] == ["ToolResultContent", "TextContent"]
        second = inner.requests[1]
        assert [m.role for m in second] == ["user", "assistant", "tool"]
        text, call = second[1].contents
        assert isinstance(text, TextContent) and text.text == "adding now"
        assert isinstance(call, ToolCallContent) and call.arguments == {"a": 1, "b": 2}
        [result] = second[2].contents
        assert isinstance(result, ToolResultContent) and result.result == 3


async def batches_of(client: ChatClient, *, error: type[Exception] | None = None) -> list[list[ChatUpdate]]:
    batches: list[list[ChatUpdate]] = []
    try:
        async for batch in client.stream([ChatMessage(role="user", contents=[TextContent(text="go")])], ChatOptions()):
            batches.append(batch)
    except Exception as exc:
        assert error is not None and isinstance(exc, error), exc
    return batches


def text_of(streamed: ChatUpdate) -> str:
    return "".join(part.text for part in streamed.contents if isinstance(part, TextContent))


def dumped(updates: list[ChatUpdate]) -> list[dict[str, Any]]:
    return [u.model_dump() for u in updates]


class TestStreamBatches:
    @pytest.mark.parametrize("name", NAMES)
    async def test_a_whole_body_is_one_batch_holding_what_stream_yields(self, name: str) -> None:
        error = AgentRunError if b"RUN_ERROR" in (CAPTURES / f"{name}.sse").read_bytes() else None
        whole = await batches_of(AGUIChatClient.from_byte_source(source_of(name, 1 << 20)), error=error)
        assert len(whole) == 1 and all(whole)
        pieces = await batches_of(AGUIChatClient.from_byte_source(source_of(name, 7)), error=error)
        assert all(pieces)
        streamed = await captured_updates(name)
        assert per_event_dumps(whole[0]) == per_event_dumps([u for batch in pieces for u in batch]) == per_event_dumps(streamed)
        if b"TEXT_MESSAGE_CONTENT" in (CAPTURES / f"{name}.sse").read_bytes():
            # Read whole, the deltas of each message or call came in one chunk: joined.
            assert len(whole[0]) < len(per_event(whole[0]))

    async def test_a_run_error_comes_after_the_updates_of_its_chunk(self) -> None:
        [batch] = await batches_of(AGUIChatClient.from_byte_source(source_of("pai_error", 1 << 20)), error=AgentRunError)
        assert batch[-1].contents[0].kind == "error"

    async def test_by_default_each_update_is_its_own_batch(self) -> None:
        script = [[update(TextContent(text="a")), update(TextContent(text="b"))]]
        batches = await batches_of(ScriptedChatClient(script))
        assert [[text_of(u) for u in batch] for batch in batches] == [["a"], ["b"]]

    async def test_a_middleware_that_changes_stream_is_read_through_it(self) -> None:
        class Shouting(DelegatingChatClient):
            async def stream(self, messages: Any, options: ChatOptions,
                             folder: HistoryFolder | None = None) -> AsyncIterator[list[ChatUpdate]]:
                async for batch in self.inner.stream(messages, options):
                    yield [update(TextContent(text=text_of(streamed).upper())) for streamed in batch]

        batches = await batches_of(Shouting(AGUIChatClient.from_byte_source(source_of("pai_text", 1 << 20))))
        texts = [text_of(u) for batch in batches for u in batch if text_of(u)]
        assert texts and all(text == text.upper() for text in texts)


class _Batched(ChatClient):
    """Hands over its script as batches: one list per step."""

    def __init__(self, batches: list[list[ChatUpdate]]) -> None:
        self.batches = batches

    async def stream(self, messages: Any, options: ChatOptions,
                     folder: HistoryFolder | None = None) -> AsyncIterator[list[ChatUpdate]]:
        for batch in self.batches:
            yield batch


async def settled(context: AgentContext) -> None:
    """Wait until the conversation stops streaming (idle, error or awaiting a decision)."""
    done = asyncio.Event()

    def on_status(status: Status) -> None:
        if status is not Status.STREAMING:
            done.set()

    with context.on_status_changed(on_status):
        if context.status is Status.STREAMING:
            await asyncio.wait_for(done.wait(), 30)


async def conversation_of(client: ChatClient) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """The blocks, the logged updates and the history one turn over `client` leaves."""
    thread = InMemoryThread()
    ids = iter(range(1_000))
    context = AgentContext(UIAgent(client), thread=thread, id_factory=lambda: f"id{next(ids)}")
    await context.send("go")
    await settled(context)
    await asyncio.sleep(0)  # let the turn's task log its end
    blocks = [{**b.snapshot(), "version": None} for b in context.blocks]
    logged = per_event_dumps(e.update for e in thread.entries() + thread.pending if e.entry == "update")  # type: ignore[union-attr]
    history = [m.model_dump() for m in context.agent.history]
    await context.dispose()
    return blocks, logged, history


class TestJoinedRuns:
    @pytest.mark.parametrize("name", NAMES)
    async def test_every_capture_makes_the_same_conversation_whole_or_in_pieces(self, name: str) -> None:
        whole = await conversation_of(AGUIChatClient.from_byte_source(source_of(name, 1 << 20)))
        pieces = await conversation_of(AGUIChatClient.from_byte_source(source_of(name, 7)))
        assert whole == pieces
        assert whole[1], "the turn logged its updates"

    async def test_a_run_of_deltas_is_logged_delta_by_delta_and_appended_once(self) -> None:
        deltas = [update(TextContent(text=word)) for word in ("one ", "two ", "three")]
        context = AgentContext(UIAgent(_Batched([deltas, [update(TextContent(text="!"))]])))
        lengths: list[int] = []  # of the answer when it was added, then after each change

        def added(block: Any) -> None:
            if isinstance(block, TextBlock) and block.role == "assistant":
                lengths.append(block.length)
                block.on_changed(lambda changed: lengths.append(changed.length))

        context.on_block_added(added)
        await (await context.send("go")).wait()
        [answer] = [b for b in context.blocks if isinstance(b, TextBlock) and b.role == "assistant"]
        assert answer.text == "one two three!"
        # The run reached the block as one part: it was born holding the three deltas.
        assert lengths[:2] == [len("one two three"), len("one two three!")]
        logged = [text_of(e.update) for e in context.thread.entries() if e.entry == "update"]  # type: ignore[union-attr]
        assert logged == ["one ", "two ", "three", "!"]
        assert [m.text for m in context.agent.history if m.role == "assistant"] == ["one two three!"]
