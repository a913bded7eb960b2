"""A tool call id the server uses again in a later run of the thread gets a card of its own.

pydantic-ai's scripted scenarios (`tests.helpers.pai_server`) name their calls `call_weather_1`,
`call_delete_1`… in every run, as fake models and `TestModel` do. Each occurrence must show as
its own card with its own result, go back to the server with its own tool message, and come
back the same from the SQLite log (`--resume` replays what was live).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.helpers.pai_server import PaiServer
from tests.helpers.pai_turns import run_turn

from tandem.core.agent import UIAgent
from tandem.core.agui import AGUIChatClient
from tandem.core.blocks import ApprovalBlock, Block, ToolCallBlock, ToolStatus
from tandem.core.context import AgentContext
from tandem.core.replay import restore
from tandem.core.store import ThreadStore
from tandem.core.turns import TurnStatus


def cards(context: AgentContext) -> list[tuple[str, str, str, Any]]:
    return [(b.id, b.call_id, b.status.value, b.result) for b in context.blocks if isinstance(b, ToolCallBlock)]


def shown(context: AgentContext) -> list[tuple[str, str, Any]]:
    """Every block as a viewer sees it: id, kind, content."""
    return [(b.id, b.kind, b.content()) for b in context.blocks]


async def two_turns(pai_server: PaiServer, scenario: str, store: ThreadStore, disposed: Any,
                    decide: list[Any] | None = None) -> tuple[AgentContext, str]:
    client = AGUIChatClient(pai_server.url_for(scenario), read_timeout=10)
    context = AgentContext(UIAgent(client), thread=store.create())
    disposed(context)
    decisions = iter(decide or [])

    def answer(pending: list[Block]) -> None:
        [block] = pending
        next(decisions)(block)

    for said in ("first", "second"):
        turn = await run_turn(context, said, answer)
        assert turn.status is TurnStatus.COMPLETED, turn.error
    return context, context.thread.thread_id


async def replayed(store: ThreadStore, thread_id: str, pai_server: PaiServer, scenario: str) -> AgentContext:
    return await restore(UIAgent(AGUIChatClient(pai_server.url_for(scenario))), store.open(thread_id), resume=False)


async def test_a_backend_call_id_used_again_shows_two_cards_each_with_its_result(
        pai_server: PaiServer, dispose: Any, tmp_path: Path) -> None:
    with ThreadStore(tmp_path / "threads.sqlite3") as store:
        context, thread_id = await two_turns(pai_server, "backend_tool", store, dispose)
        sunny = "Sunny, 21C in Paris"
        assert cards(context) == [("tool/call_weather_1", "call_weather_1", "succeeded", sunny),
                                  ("tool/call_weather_1~2", "call_weather_1", "succeeded", sunny)]
        first, second = (b for b in context.blocks if isinstance(b, ToolCallBlock))
        assert first.turn_id != second.turn_id
        await context.dispose()  # the app quits; the thread opens again from its log
        restored = await replayed(store, thread_id, pai_server, "backend_tool")
        try:
            assert shown(restored) == shown(context)
        finally:
            await restored.dispose()


async def test_an_approved_and_a_rejected_call_under_one_id_keep_their_own_results(
        pai_server: PaiServer, dispose: Any, tmp_path: Path) -> None:
    def approve(block: ApprovalBlock) -> None:
        block.approve()

    def reject(block: ApprovalBlock) -> None:
        block.reject(reason="no way")

    with ThreadStore(tmp_path / "threads.sqlite3") as store:
        context, thread_id = await two_turns(pai_server, "interrupt", store, dispose, [approve, reject])
        assert cards(context) == [("tool/call_delete_1", "call_delete_1", "succeeded", "deleted /tmp/demo.txt"),
                                  ("tool/call_delete_1~2", "call_delete_1", "denied", "no way")]
        approvals = [b for b in context.blocks if isinstance(b, ApprovalBlock)]
        assert [a.tool_block.id if a.tool_block else None for a in approvals] == ["tool/call_delete_1",
                                                                                   "tool/call_delete_1~2"]
        # The next turn's request sends each call followed by its own result.
        await run_turn(context, "thanks", lambda pending: pending[0].approve())
        last = next(r.body["messages"] for r in pai_server.requests_for(context.conversation_id)
                    if r.body["messages"][-1].get("content") == "thanks")
        calls_and_results = [(m["role"], m.get("content")) if m["role"] == "tool" else (m["role"], m["toolCalls"][0]["id"])
                             for m in last if m["role"] == "tool" or m.get("toolCalls")]
        assert calls_and_results == [("assistant", "call_delete_1"), ("tool", "deleted /tmp/demo.txt"),
                                     ("assistant", "call_delete_1"), ("tool", "no way")]
        await context.dispose()  # the app quits; the thread opens again from its log
        restored = await replayed(store, thread_id, pai_server, "interrupt")
        try:
            assert shown(restored) == shown(context)
            assert [b.status for b in restored.blocks if isinstance(b, ToolCallBlock)] == [
                ToolStatus.SUCCEEDED, ToolStatus.DENIED, ToolStatus.SUCCEEDED]
        finally:
            await restored.dispose()
