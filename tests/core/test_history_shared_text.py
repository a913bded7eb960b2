"""The live history holds each streamed message once: a message whose text deltas came in one
batch keeps, in the history, the very string its block holds (the run is joined once, for both),
and the history's messages and parts are what validation builds (built without validating again,
with shared fields sets: both models are frozen)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from tandem.core import AgentContext, ChatMessage, ChatUpdate, InMemoryThread, Status, UIAgent
from tandem.core.blocks.text import TextBlock
from tandem.core.chat_client import ChatClient
from tandem.core.content import ReasoningContent, TextContent
from tandem.core.history import HistoryFolder
from tandem.core.messages import ChatOptions


def _update(part: Any, message_id: str) -> ChatUpdate:
    return ChatUpdate(role="assistant", contents=[part], message_id=message_id)


class _Batches(ChatClient):
    """One segment: `m1` in three deltas of one batch; `m2`'s reasoning, then its text split
    across two batches; `m3` in one delta."""

    async def stream(self, messages: Any, options: ChatOptions,
                     folder: HistoryFolder | None = None) -> AsyncIterator[list[ChatUpdate]]:
        yield [_update(TextContent(text=t), "m1") for t in ("Hello ", "there, ", "world.")]
        yield [_update(ReasoningContent(text=t), "m2") for t in ("think", "ing")] + [
            _update(TextContent(text="Split "), "m2")]
        yield [_update(TextContent(text=t), "m2") for t in ("across ", "batches.")]
        yield [_update(TextContent(text="Alone."), "m3")]


async def _turn() -> AgentContext:
    context = AgentContext(UIAgent(_Batches()), thread=InMemoryThread())
    turn = await context.send("go")
    await asyncio.wait_for(turn.wait(), 30)
    assert context.status is Status.IDLE
    return context


class TestHistorySharesText:
    async def test_a_message_joined_in_one_batch_holds_its_blocks_string(self) -> None:
        context = await _turn()
        [block] = [b for b in context.agent.pipeline.blocks if isinstance(b, TextBlock) and b.message_id == "m1"]
        [message] = [m for m in context.agent.history if m.message_id == "m1"]
        [part] = message.contents
        assert isinstance(part, TextContent) and part.text == "Hello there, world."
        # One string for both, not two equal ones.
        assert part.text is block.text

    async def test_the_history_is_what_validation_builds(self) -> None:
        context = await _turn()
        history = context.agent.history
        assert [(m.role, m.message_id, m.text) for m in history] == [
            ("user", None, "go"), ("assistant", "m1", "Hello there, world."),
            ("assistant", "m2", "Split across batches."), ("assistant", "m3", "Alone.")]
        reasoning = history[2].contents[0]
        assert isinstance(reasoning, ReasoningContent) and reasoning.text == "thinking"
        for message in history:
            validated = ChatMessage.model_validate(message.model_dump())
            assert message == validated
            assert message.model_dump_json() == validated.model_dump_json()
            assert message.model_fields_set == ChatMessage(
                role=message.role, contents=message.contents, message_id=message.message_id,
                author=message.author).model_fields_set
            for part in message.contents:
                # What the part's class records when built from the fields this one has set.
                expected = type(part).model_validate(part.model_dump(exclude_unset=True))
                assert part == expected and part.model_fields_set == expected.model_fields_set
