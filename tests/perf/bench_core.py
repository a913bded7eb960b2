"""Pipeline throughput vs AG-UI event parsing, measured in the same run.

Feeds 200,000 recorded updates (text deltas, streamed tool calls with results, state deltas)
through a UIAgent's pipeline and prints updates/s next to the rate of
`TypeAdapter(ag_ui.core.Event).validate_json` on the AG-UI events those updates came from.
Target: the pipeline costs no more than 3× the parse (ratio ≤ 3). Prints; asserts nothing.

Run: python tests/perf/bench_core.py [N]
"""

from __future__ import annotations

import asyncio
import gc
import json
import sys
import time

from ag_ui.core import Event
from pydantic import TypeAdapter

from tandem.core.agent import UIAgent
from tandem.core.content import StateDeltaContent, TextContent, ToolCallContent, ToolResultContent
from tandem.core.messages import ChatUpdate
from tandem.core.scripted import ScriptedChatClient


def recorded(n: int) -> tuple[list[str], list[ChatUpdate]]:
    """N AG-UI events as JSON and the N updates they map to, in conversation order."""
    events: list[str] = []
    updates: list[ChatUpdate] = []
    i = 0
    while len(updates) < n:
        message_id = f"m{i}"
        for k in range(40):  # a paragraph of text deltas
            delta = f"word{k} "
            events.append(json.dumps({"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": delta}))
            updates.append(ChatUpdate(message_id=message_id, contents=[TextContent(text=delta)]))
        call_id = f"c{i}"
        events.append(json.dumps({"type": "TOOL_CALL_START", "toolCallId": call_id, "toolCallName": "search"}))
        updates.append(ChatUpdate(message_id=message_id, contents=[ToolCallContent(call_id=call_id, name="search")]))
        for chunk in ('{"query": ', '"tandem ', 'terminal"}'):
            events.append(json.dumps({"type": "TOOL_CALL_ARGS", "toolCallId": call_id, "delta": chunk}))
            updates.append(ChatUpdate(message_id=message_id, contents=[ToolCallContent(call_id=call_id, arguments_delta=chunk)]))
        events.append(json.dumps({"type": "TOOL_CALL_END", "toolCallId": call_id}))
        updates.append(ChatUpdate(message_id=message_id, contents=[ToolCallContent(call_id=call_id, done=True)]))
        events.append(json.dumps({"type": "TOOL_CALL_RESULT", "messageId": f"r{i}", "toolCallId": call_id, "content": "3 hits"}))
        updates.append(ChatUpdate(role="tool", contents=[ToolResultContent(call_id=call_id, result="3 hits")]))
        for k in range(5):
            patch = [{"op": "replace", "path": "/counter", "value": i * 5 + k}]
            events.append(json.dumps({"type": "STATE_DELTA", "delta": patch}))
            updates.append(ChatUpdate(contents=[StateDeltaContent(patch=patch)]))
        i += 1
    return events[:n], updates[:n]


def main(n: int = 200_000) -> None:
    events, updates = recorded(n)
    adapter: TypeAdapter[Event] = TypeAdapter(Event)

    gc.collect()
    start = time.perf_counter()
    for event in events:
        adapter.validate_json(event)
    parse_seconds = time.perf_counter() - start

    agent = UIAgent(ScriptedChatClient([]))
    agent.state.apply_snapshot({"counter": 0})
    pipeline = agent.pipeline
    pipeline.begin_segment("bench", 0)
    gc.collect()
    start = time.perf_counter()
    for update in updates:
        pipeline.process(update)
    pipeline.end_segment()
    pipeline_seconds = time.perf_counter() - start

    print(f"updates:                 {n:,}")
    print(f"blocks produced:         {len(pipeline.blocks):,}")
    print(f"validate_json (AG-UI):   {n / parse_seconds:,.0f} events/s  ({parse_seconds:.3f} s)")
    print(f"pipeline (updates→blocks): {n / pipeline_seconds:,.0f} updates/s  ({pipeline_seconds:.3f} s)")
    print(f"pipeline cost / parse cost: {pipeline_seconds / parse_seconds:.2f}x  (target ≤ 3.00x)")


if __name__ == "__main__":
    asyncio.set_event_loop(asyncio.new_event_loop())
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200_000)
