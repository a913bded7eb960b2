"""`tandem ask -c` against a server that numbers its tool calls afresh in every run.

A real AG-UI server on 127.0.0.1 (`tests.helpers.sse`) answers each run of one thread with a call
named `call_1`: the same tool with other arguments, then another tool. Each turn shows its own
card with its own result (it was hidden, its result written over the first card's, and a call
under another name failed the turn as a protocol error), and the saved thread replays to the
same cards.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from tests.helpers.ask_harness import AskResult, clean_env, tandem
from tests.helpers.sse import Response, raw_agui, run, sse, text_events, tool_events

from tandem.core.agent import UIAgent
from tandem.core.blocks import ToolCallBlock
from tandem.core.export import to_markdown
from tandem.core.replay import restore
from tandem.core.scripted import ScriptedChatClient
from tandem.core.store import ThreadStore


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """An environment whose thread store and config live in this test's tmp_path."""
    return clean_env(XDG_DATA_HOME=str(tmp_path / "data"), XDG_CONFIG_HOME=str(tmp_path / "config"))


def ask(env: dict[str, str], *args: str) -> AskResult:
    result = tandem("ask", "--json", *args, env=env)
    assert result.returncode == 0, result.stderr
    return result


def turn_of(call: str, args: str, result: str, answer: str, run_id: str) -> Response:
    return Response([sse(*run(*tool_events("call_1", call, args, result=result, message_id=f"{run_id}-a"),
                              *text_events(answer, message_id=f"{run_id}-m"), run_id=run_id))])


def cards(result: AskResult) -> list[tuple[str, str, object, object]]:
    return [(b["id"], b["content"]["name"], b["content"]["arguments"], b["content"]["result"])
            for b in result.finals("tool_call")]


def test_each_run_s_call_1_is_its_own_card_with_its_own_result(env: dict[str, str]) -> None:
    responses = [turn_of("lookup", '{"q": "a"}', "A", "First.", "r1"),
                 turn_of("lookup", '{"q": "b"}', "B", "Second.", "r2"),
                 turn_of("get_time", "{}", "noon", "Third.", "r3")]
    with raw_agui(*responses) as server:
        first = ask(env, "--url", server.url, "one")
        second = ask(env, "-c", "--url", server.url, "two")
        third = ask(env, "-c", "--url", server.url, "three")
    assert cards(first) == [("tool/call_1", "lookup", {"q": "a"}, "A")]
    assert cards(second) == [("tool/call_1~2", "lookup", {"q": "b"}, "B")]
    assert cards(third) == [("tool/call_1~3", "get_time", {}, "noon")]
    assert (second.turn["status"], third.text) == ("completed", "Third.")
    # The last request sends each call followed by its own result.
    messages = json.loads(server.bodies[-1])["messages"]
    sent = [(m["toolCalls"][0]["function"]["name"] if m["role"] == "assistant" else m["content"])
            for m in messages if m["role"] == "tool" or m.get("toolCalls")]
    assert sent == ["lookup", "A", "lookup", "B"]
    # `tandem --resume` replays the saved log to the same cards.
    with ThreadStore(Path(env["XDG_DATA_HOME"]) / "tandem" / "threads.sqlite3") as store:
        restored = asyncio.run(_restored(store, third.turn["thread"]))
        exported = to_markdown(store.read(third.turn["thread"]))
    assert restored == [("tool/call_1", "A"), ("tool/call_1~2", "B"), ("tool/call_1~3", "noon")]
    # The export too: three calls, each with its own arguments and result.
    assert exported.count("**Tool call") == 3 and "**Tool result**" not in exported
    assert exported.index('"a"') < exported.index('"A"') < exported.index('"b"') < exported.index('"B"')


async def _restored(store: ThreadStore, thread_id: str) -> list[tuple[str, object]]:
    context = await restore(UIAgent(ScriptedChatClient([])), store.open(thread_id), resume=False)
    try:
        return [(b.id, b.result) for b in context.blocks if isinstance(b, ToolCallBlock)]
    finally:
        await context.dispose()
