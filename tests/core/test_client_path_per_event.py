"""What the client path builds and keeps per event: the log entry built without validation, the
history folder's fast path for a streamed text run (equal to the general path on every recorded
capture), the log nobody keeps (`tandem ask --no-save`), and the client-tool middleware folding
what passes instead of keeping every update."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tandem.core import AgentContext, ChatMessage, ChatUpdate, TextBlock, UIAgent
from tandem.core.agui import AGUIChatClient
from tandem.core.chat_client import ChatClient, FunctionInvokingChatClient
from tandem.core.content import ReasoningContent, TextContent, ToolCallContent, ToolResultContent
from tandem.core.errors import AgentRunError
from tandem.core.history import HistoryFolder, _MessageBuilder
from tandem.core.log_entries import UpdateLogged, logged_update
from tandem.core.messages import ChatOptions
from tandem.core.scripted import ScriptedChatClient
from tandem.core.thread import UnkeptThread

CAPTURES = Path(__file__).resolve().parents[1] / "fixtures" / "agui" / "pydantic-ai"  # copied from shared/fixtures
NAMES = sorted(path.stem for path in CAPTURES.glob("*.sse"))


async def captured_updates(name: str) -> list[ChatUpdate]:
    """The updates the client makes of one recorded pydantic-ai stream (fed in 7-byte pieces)."""
    body = (CAPTURES / f"{name}.sse").read_bytes()
    request = json.loads((CAPTURES / f"{name}.request.json").read_text())

    async def source(run_input: Any) -> AsyncIterator[bytes]:
        for start in range(0, len(body), 7):
            yield body[start:start + 7]

    client = AGUIChatClient.from_byte_source(source)
    updates: list[ChatUpdate] = []
    try:
        async for update in client.stream([ChatMessage(role="user", contents=[TextContent(text="go")])],
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
        from tandem.tui.ask_threads import AskThread

        context = await AskThread(save=False).open(None, {}, speed=0, client_options={})
        try:
            assert isinstance(context.thread, UnkeptThread)
        finally:
            await context.dispose()


class _OneCallThenText(ChatClient):
    """Round one: text and a call to the client tool `add`; round two: what it was sent, echoed."""

    def __init__(self) -> None:
        self.requests: list[list[ChatMessage]] = []

    async def stream(self, messages: Any, options: ChatOptions) -> AsyncIterator[ChatUpdate]:  # type: ignore[override]
        self.requests.append(list(messages))
        if len(self.requests) == 1:
            for word in ("adding ", "now"):
                yield update(TextContent(text=word))
            yield update(ToolCallContent(call_id="c1", name="add", arguments_delta='{"a": 1, '))
            yield update(ToolCallContent(call_id="c1", arguments_delta='"b": 2}'))
        else:
            yield update(TextContent(text="done"), message_id="m2")


class TestFunctionInvokingFolds:
    async def test_the_next_round_carries_the_folded_text_the_call_and_its_result(self) -> None:
        inner = _OneCallThenText()
        client = FunctionInvokingChatClient(inner, {"add": lambda arguments: arguments["a"] + arguments["b"]})
        updates = [u async for u in client.stream([ChatMessage(role="user", contents=[TextContent(text="go")])], ChatOptions())]
        assert [type(p).__name__ for u in updates for p in u.contents][-2:] == ["ToolResultContent", "TextContent"]
        second = inner.requests[1]
        assert [m.role for m in second] == ["user", "assistant", "tool"]
        text, call = second[1].contents
        assert isinstance(text, TextContent) and text.text == "adding now"
        assert isinstance(call, ToolCallContent) and call.arguments == {"a": 1, "b": 2}
        [result] = second[2].contents
        assert isinstance(result, ToolResultContent) and result.result == 3
