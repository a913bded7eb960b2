"""Pipeline throughput vs AG-UI event parsing, measured in the same run.

Feeds 200,000 recorded updates (text deltas, streamed tool calls with results, state deltas)
through a UIAgent's pipeline and prints updates/s next to the rate of
`TypeAdapter(ag_ui.core.Event).validate_json` on the AG-UI events those updates came from.
Target: the pipeline costs no more than 3× the parse (ratio ≤ 3). Prints; asserts nothing.

Then the shared-state merge: a 1 MB state, 100 fields the person edited during the run, and the
agent's write of 100 fields (half of them the person's) merged onto it, once as a snapshot
(fresh from JSON, the whole document diffed against the base) and once as 100 deltas.
Target: ≤ 10 ms per merge.

Run: python -m tests.perf.bench_core [N]
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
from tandem.core.state.agent_state import AgentState


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


def big_state(records: int = 4_600) -> dict[str, object]:
    """About 1 MB of JSON (1.02 MB): keyed records, and an identity array of tasks."""
    return {
        "records": {f"r{i}": {"title": f"record number {i}", "n": i, "tags": ["a", "b", "c"], "notes": "x" * 120} for i in range(records)},
        "tasks": [{"id": f"t{i}", "text": f"task {i}", "done": False} for i in range(records // 4)],
    }


def merge_bench(repeats: int = 20) -> None:
    document = big_state()
    size = len(json.dumps(document))
    mine = [f"r{i * 37}" for i in range(100)]
    theirs = mine[:50] + [f"r{i * 37 + 1}" for i in range(50)]
    snapshot_seconds: list[float] = []
    delta_seconds: list[float] = []
    conflicts = 0
    for _ in range(repeats):
        state = AgentState(json.loads(json.dumps(document)))
        state.begin_run()
        for key in mine:
            state.edit([{"op": "replace", "path": f"/records/{key}/title", "value": "edited by the person"}])
        snapshot = json.loads(json.dumps(document))
        for key in theirs:
            snapshot["records"][key]["title"] = "written by the agent"
        gc.collect()
        start = time.process_time()
        state.apply_snapshot(snapshot)
        snapshot_seconds.append(time.process_time() - start)
        conflicts = len(state.field_conflicts)

        state = AgentState(json.loads(json.dumps(document)))
        state.begin_run()
        for key in mine:
            state.edit([{"op": "replace", "path": f"/records/{key}/title", "value": "edited by the person"}])
        gc.collect()
        start = time.process_time()
        for index, key in enumerate(theirs):
            state.apply_delta([{"op": "replace", "path": f"/records/{key}/title", "value": "written by the agent"}])
            state.apply_delta([{"op": "replace", "path": f"/tasks/{index}/done", "value": True}])
        delta_seconds.append(time.process_time() - start)
    # The same snapshot with the agent also moving the last task to the front (a reorder of a
    # large identity array), and the agent's 100 writes as one proposal the person accepts.
    reorder_seconds: list[float] = []
    accept_seconds: list[float] = []
    for _ in range(repeats):
        state = AgentState(json.loads(json.dumps(document)))
        state.begin_run()
        for key in mine:
            state.edit([{"op": "replace", "path": f"/records/{key}/title", "value": "edited by the person"}])
        snapshot = json.loads(json.dumps(document))
        for key in theirs:
            snapshot["records"][key]["title"] = "written by the agent"
        snapshot["tasks"].insert(0, snapshot["tasks"].pop())
        gc.collect()
        start = time.process_time()
        state.apply_snapshot(snapshot)
        reorder_seconds.append(time.process_time() - start)
        assert state.committed["tasks"][0]["id"] == document["tasks"][-1]["id"]

        state = AgentState(json.loads(json.dumps(document)))
        state.begin_run()
        state.apply_delta([{"op": "replace", "path": f"/records/{key}/title", "value": "proposed by the agent"} for key in theirs], proposal_id="p1")
        for key in mine:
            state.edit([{"op": "replace", "path": f"/records/{key}/title", "value": "edited by the person"}])
        gc.collect()
        start = time.process_time()
        state.accept("p1")
        accept_seconds.append(time.process_time() - start)
    plain_seconds: list[float] = []
    for _ in range(3):
        state = AgentState(json.loads(json.dumps(document)))
        gc.collect()
        start = time.process_time()
        for index, key in enumerate(theirs):
            state.apply_delta([{"op": "replace", "path": f"/records/{key}/title", "value": "written by the agent"}])
            state.apply_delta([{"op": "replace", "path": f"/tasks/{index}/done", "value": True}])
        plain_seconds.append(time.process_time() - start)
    snapshot_seconds.sort()
    delta_seconds.sort()
    plain_seconds.sort()
    print(f"state merge: {size / 1e6:.2f} MB state, 100 fields edited by the person, 100 written by the agent ({conflicts} conflicts)")
    # CPU time of this process: on a shared machine wall time mostly measures the neighbours.
    print(f"  snapshot merge:        CPU median {snapshot_seconds[len(snapshot_seconds) // 2] * 1000:.2f} ms, "
          f"min {snapshot_seconds[0] * 1000:.2f} ms  (target ≤ 10 ms)")
    print(f"  200 deltas merged:     CPU median {delta_seconds[len(delta_seconds) // 2] * 1000:.2f} ms in all, "
          f"{delta_seconds[len(delta_seconds) // 2] / 200 * 1e6:.0f} µs per delta")
    reorder_seconds.sort()
    accept_seconds.sort()
    print(f"  snapshot + a reorder:  CPU median {reorder_seconds[len(reorder_seconds) // 2] * 1000:.2f} ms "
          f"(the {len(document['tasks'])}-element task list by identity)")
    print(f"  proposal accepted:     CPU median {accept_seconds[len(accept_seconds) // 2] * 1000:.2f} ms "
          "(100 proposed fields, 50 of them edited by the person since)")
    print(f"  200 deltas, no edits:  CPU median {plain_seconds[1] * 1000:.2f} ms in all, "
          f"{plain_seconds[1] / 200 * 1e6:.0f} µs per delta (applied along their paths, no copy of the state)")


if __name__ == "__main__":
    asyncio.set_event_loop(asyncio.new_event_loop())
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200_000)
    merge_bench()
