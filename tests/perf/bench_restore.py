"""Restoring a long thread from a real SQLite file: 100,000 logged updates → blocks.

Writes a thread of N updates (text deltas, streamed tool calls with results, state deltas, each
with its raw protocol event) to a thread store in a temporary directory, one commit per segment,
then times, on a fresh store: reading what restore replays (the compacted replay copy the store
keeps beside the log, see core/compaction.py; SQLite + JSON parse), and `restore()` replaying it
through the pipeline into blocks. Target: read + restore ≤ 1 s. For reference it also times
reading the log as logged and replaying every logged update (a thread from before the copy).
Times are CPU seconds of this process (`time.process_time`), so a busy machine does not inflate
them; wall time on an idle machine is the same within a few percent. Prints; asserts nothing.

Also: the time from `tandem --resume` to the first painted frame of a 10,000-block thread
(target ≤ 0.5 s). A fresh interpreter runs the app as `tandem --resume ID` would (the real
`build_library` on the store file, the demo agent's handlers), headless at 120×40; the figure is
wall time from starting that process to the first frame painted after the restored conversation
was mounted (the view windows to the last ~60 blocks; core holds all 10,000). It therefore includes
Python's start-up and every import, with Tandem's bytecode compiled beforehand as an install has
it (pip compiles at install time; otherwise the first run writes it). Also printed: the same
process's time to its first frame of all (the welcome), which comes before the runtime is even
imported, and the figure when every start compiles Tandem's modules from source (a machine with
PYTHONDONTWRITEBYTECODE=1 and no compiled bytecode, like the sandbox these benchmarks were made in).

Run: python -m tests.perf.bench_restore [N] [BLOCKS]
"""

from __future__ import annotations

import asyncio
import compileall
import gc
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tandem.core import ChatMessage, ChatUpdate, UIAgent, restore
from tandem.core.content import StateDeltaContent, TextContent, ToolCallContent, ToolResultContent
from tandem.core.log_entries import LogEntry, SegmentEnded, SegmentStarted, TurnEnded, TurnStarted, UpdateLogged
from tandem.core.scripted import ScriptedChatClient
from tandem.core.state.agent_state import AgentState
from tandem.core.store import ThreadStore
from tandem.core.thread import ConversationThread

from tests.helpers.block_threads import write_answers
from tandem.core.store.thread import paused_gc

RESUME_CHILD = Path(__file__).with_name("resume_child.py")
"""The app, run on the thread in a fresh interpreter (it imports only what `tandem` imports)."""

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


class Cached(ConversationThread):
    """A thread whose entries were already read (so restore's own read is not timed twice)."""

    def __init__(self, thread: ConversationThread, entries: list[LogEntry]) -> None:
        self.thread_id = thread.thread_id
        self._thread = thread
        self._entries = entries

    def entries(self) -> list[LogEntry]:
        return self._entries

    def replay_entries(self) -> list[LogEntry]:
        return self._entries

    def append(self, entry: LogEntry) -> None:
        self._thread.append(entry)

    def commit(self) -> None:
        self._thread.commit()


async def measure(path: Path, thread_id: str) -> dict[str, Any]:
    """CPU seconds of: reading what restore replays and replaying it; the same from the log as
    logged. Each read starts on a collected heap holding no earlier read, as a resume does
    (a read after another one pays for scanning the first one's objects)."""
    figures: dict[str, Any] = {}
    with ThreadStore(path) as store, store.open(thread_id) as thread:
        for read_label, read in (("read copy", thread.replay_entries), ("read log", thread.entries)):
            gc.collect()
            started = time.process_time()
            entries = list(read())  # replay_entries parses as it is iterated
            figures[read_label] = time.process_time() - started
            figures["replayed" if read_label == "read copy" else "logged"] = len(entries)
            labels = [("restore", False), ("restore, GC paused", True)] if read_label == "read copy" else [("restore without the copy", False)]
            for label, pause in labels:
                agent = UIAgent(ScriptedChatClient([]), state=AgentState({"counter": 0, "status": ""}))
                gc.collect()
                started = time.process_time()
                if pause:
                    with paused_gc():
                        context = await restore(agent, Cached(thread, entries))
                else:
                    context = await restore(agent, Cached(thread, entries))
                figures[label] = time.process_time() - started
                figures["blocks"] = len(context.blocks)
                del agent, context
            del entries
    return figures


TUI_TURNS = 100
"""Turns in the TUI thread; each is one user message and (blocks / turns − 1) short answers."""


def write_block_thread(store: ThreadStore, blocks: int) -> str:
    """A thread of `blocks` text blocks: user messages and short answers, one commit per turn."""
    return write_answers(store, "bench: 10,000 blocks", turns=TUI_TURNS, answers_per_turn=blocks // TUI_TURNS - 1)


ROOT = Path(__file__).resolve().parents[2]
PACKAGES = [ROOT / name for name in ("core", "tui", "widgets", "themes")]


def _set_bytecode(compiled: bool) -> None:
    """Compile Tandem's modules to `__pycache__` (as `pip install` does), or drop that bytecode."""
    for package in PACKAGES:
        if compiled:
            compileall.compile_dir(package, quiet=1)
        else:
            for cache in package.rglob("__pycache__"):
                shutil.rmtree(cache, ignore_errors=True)


def _resume_runs(path: Path, thread_id: str, blocks: int) -> tuple[float, ...]:
    runs = []
    for _ in range(3):
        started = time.time()
        out = subprocess.run(
            [sys.executable, str(RESUME_CHILD), str(path), thread_id, str(blocks), repr(started)],
            capture_output=True, text=True, check=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
        ).stdout.split()
        runs.append((float(out[0]), float(out[1]), int(out[2]), int(out[3]), float(out[4]), float(out[5])))
    return min(runs, key=lambda run: run[1])


def measure_tui(blocks: int) -> None:
    """Both ways Python may find Tandem's code: compiled (an install: pip writes the bytecode, or
    the first run does) and not (every start compiles ~120 modules: what a machine with
    PYTHONDONTWRITEBYTECODE=1, like this sandbox, does when nothing compiled them)."""
    writes_bytecode = not sys.flags.dont_write_bytecode
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "threads.sqlite3"
        with ThreadStore(path) as store:
            thread_id = write_block_thread(store, blocks)
        figures = {}
        for compiled in (False, True):
            _set_bytecode(compiled)
            # Without the env var the first child would write the bytecode: time the first run only.
            figures[compiled] = _resume_runs(path, thread_id, blocks)
    welcome, painted, shown, mounted, restoring, showing = figures[True]
    print(f"tandem --resume → first frame (welcome): {welcome:.3f} s; → first frame showing the restored "
          f"{shown:,}-block thread ({mounted} views mounted): {painted:.3f} s, best of 3, wall time incl. "
          f"interpreter start-up, bytecode compiled (target ≤ 0.5 s: {'met' if painted <= 0.5 else 'missed'})")
    print(f"  of which: opening the thread and restoring it (engine thread, runtime imported): {restoring:.3f} s; "
          f"restored → painted (bridge, views, first frame): {showing:.3f} s")
    note = "" if not writes_bytecode else " (this interpreter writes bytecode, so only the first of the 3 compiled)"
    print(f"  the same with Tandem's modules compiled from source at every start: {figures[False][1]:.3f} s{note}")


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    tui_blocks = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "threads.sqlite3"
        started = time.perf_counter()
        with ThreadStore(path) as store:
            thread_id, entries = write_thread(store, n)
        write = time.perf_counter() - started
        size = sum(p.stat().st_size for p in Path(tmp).iterdir() if p.is_file())
        updates = entries - 4 * max(1, n // (GROUP * GROUPS_PER_SEGMENT))
        gc.collect()
        figures = asyncio.run(measure(path, thread_id))
    blocks = figures["blocks"]
    print(f"thread: {updates:,} updates, {figures['logged']:,} entries, {size / 1e6:.1f} MB on disk (log and replay copy); "
          f"written in {write:.2f} s")
    print(f"read the log as logged (SQLite + JSON → {figures['logged']:,} entries): {figures['read log']:.3f} s")
    read = figures["read copy"]
    print(f"read what restore replays (replay copy → {figures['replayed']:,} entries): {read:.3f} s  {updates / read:,.0f} updates/s")
    for label in ("restore", "restore, GC paused"):
        seconds = figures[label]
        total = read + seconds
        print(f"{label} (entries → {blocks:,} blocks): {seconds:.3f} s; read + {label}: {total:.3f} s  "
              f"{updates / total:,.0f} updates/s (target ≤ 1 s: {'met' if total <= 1 else 'missed'})")
    total = figures["read log"] + figures["restore without the copy"]
    print(f"without the copy (a thread from before it; every logged update replayed): read + restore {total:.3f} s  "
          f"{updates / total:,.0f} updates/s")
    measure_tui(tui_blocks)


if __name__ == "__main__":
    main()
