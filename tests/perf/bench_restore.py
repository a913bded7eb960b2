"""Restoring a long thread from a real SQLite file: 100,000 logged updates → blocks.

Writes a thread of N updates (text deltas, streamed tool calls with results, state deltas, each
with its raw protocol event) to a thread store in a temporary directory, one commit per segment,
then times, on a fresh store: opening the thread and reading its entries (SQLite + JSON parse),
and `restore()` replaying them through the pipeline into blocks. Target: read + restore ≤ 1 s.
Times are CPU seconds of this process (`time.process_time`), so a busy machine does not inflate
them; wall time on an idle machine is the same within a few percent. Prints; asserts nothing.

Not measured here: the time from `tandem --resume` to the first painted frame of a 10,000-block
thread (needs the TUI's conversation view).

Run: python tests/perf/bench_restore.py [N]
"""

from __future__ import annotations

import asyncio
import gc
import sys
import tempfile
import time
from pathlib import Path

from core import ChatMessage, ChatUpdate, UIAgent, restore
from core.content import StateDeltaContent, TextContent, ToolCallContent, ToolResultContent
from core.log_entries import LogEntry, SegmentEnded, SegmentStarted, TurnEnded, TurnStarted, UpdateLogged
from core.scripted import ScriptedChatClient
from core.state import AgentState
from core.store import ThreadStore
from core.store.thread import paused_gc

GROUP = 50
"""Updates per group: 32 text deltas, a tool call in 6 updates, 12 state deltas."""
GROUPS_PER_SEGMENT = 20


def group(g: int, turn_id: str) -> list[UpdateLogged]:
    out: list[ChatUpdate] = []
    message_id = f"m{g}"
    for k in range(32):
        delta = f"word{k} "
        out.append(ChatUpdate(message_id=message_id, contents=[TextContent(text=delta)],
                              raw={"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": delta}))
    call_id = f"c{g}"
    out.append(ChatUpdate(message_id=message_id, contents=[ToolCallContent(call_id=call_id, name="search")],
                          raw={"type": "TOOL_CALL_START", "toolCallId": call_id, "toolCallName": "search"}))
    for chunk in ('{"query": ', '"tandem ', f'{g}", ', '"limit": 5}'):
        out.append(ChatUpdate(message_id=message_id, contents=[ToolCallContent(call_id=call_id, arguments_delta=chunk)],
                              raw={"type": "TOOL_CALL_ARGS", "toolCallId": call_id, "delta": chunk}))
    out.append(ChatUpdate(role="tool", contents=[ToolCallContent(call_id=call_id, done=True),
                                                 ToolResultContent(call_id=call_id, result={"hits": g % 7})],
                          raw={"type": "TOOL_CALL_RESULT", "toolCallId": call_id, "content": "{}"}))
    for k in range(12):
        patch = [{"op": "replace", "path": "/counter", "value": g * 12 + k}, {"op": "replace", "path": "/status", "value": f"step {k}"}]
        out.append(ChatUpdate(contents=[StateDeltaContent(patch=patch)], raw={"type": "STATE_DELTA", "delta": patch}))
    assert len(out) == GROUP
    return [UpdateLogged(turn_id=turn_id, update=u) for u in out]


def write_thread(store: ThreadStore, n: int) -> tuple[str, int]:
    """A thread of `n` updates, one turn and one commit per segment. Returns (id, entries)."""
    segments = max(1, n // (GROUP * GROUPS_PER_SEGMENT))
    written = 0
    with store.create("bench") as thread:
        for s in range(segments):
            turn_id = f"t{s}"
            request = [ChatMessage.user(f"question {s}")]
            thread.append(TurnStarted(turn_id=turn_id, messages=request, at=float(s)))
            thread.append(SegmentStarted(turn_id=turn_id, index=0, continuation=request))
            entries: list[LogEntry] = []
            for g in range(GROUPS_PER_SEGMENT):
                entries.extend(group(s * GROUPS_PER_SEGMENT + g, turn_id))
            for entry in entries:
                thread.append(entry)
            thread.append(SegmentEnded(turn_id=turn_id, index=0, outcome="completed"))
            thread.append(TurnEnded(turn_id=turn_id, status="completed"))
            thread.commit()
            written += 4 + len(entries)
        return thread.thread_id, written


async def measure(path: Path, thread_id: str) -> tuple[float, float, float, int, int]:
    with ThreadStore(path) as store, store.open(thread_id) as thread:
        started = time.process_time()
        entries = thread.entries()
        read = time.process_time() - started

        class Cached:
            """The thread, with its entries already read (so restore's own read is not timed twice)."""

            thread_id = thread.thread_id

            def entries(self) -> list[LogEntry]:
                return entries

            def append(self, entry: LogEntry) -> None:
                thread.append(entry)

            def commit(self) -> None:
                thread.commit()

            def close(self) -> None:
                pass

        timings = []
        for pause in (False, True):
            agent = UIAgent(ScriptedChatClient([]), state=AgentState({"counter": 0, "status": ""}))
            gc.collect()
            started = time.process_time()
            if pause:
                with paused_gc():
                    context = await restore(agent, Cached())  # type: ignore[arg-type]
            else:
                context = await restore(agent, Cached())  # type: ignore[arg-type]
            timings.append(time.process_time() - started)
        return read, timings[0], timings[1], len(entries), len(context.blocks)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "threads.sqlite3"
        started = time.perf_counter()
        with ThreadStore(path) as store:
            thread_id, entries = write_thread(store, n)
        write = time.perf_counter() - started
        size = sum(p.stat().st_size for p in Path(tmp).iterdir() if p.is_file())
        updates = entries - 4 * max(1, n // (GROUP * GROUPS_PER_SEGMENT))
        gc.collect()
        read, replay, replay_paused, count, blocks = asyncio.run(measure(path, thread_id))
    print(f"thread: {updates:,} updates, {count:,} entries, {size / 1e6:.1f} MB on disk; written in {write:.2f} s")
    print(f"read (SQLite + JSON → entries): {read:.3f} s  {updates / read:,.0f} updates/s")
    for label, seconds in (("restore", replay), ("restore, GC paused", replay_paused)):
        total = read + seconds
        print(f"{label} (entries → {blocks:,} blocks): {seconds:.3f} s  {updates / seconds:,.0f} updates/s; "
              f"read + {label}: {total:.3f} s  {updates / total:,.0f} updates/s "
              f"(target ≤ 1 s: {'met' if total <= 1 else 'missed'})")


if __name__ == "__main__":
    main()
