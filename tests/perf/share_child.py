"""The host and guests processes of `bench_share.py` (#33's benchmark), spoken to in JSON lines.

- `host URL FOLDER`: a conversation on the agent at URL with a real SQLite store in FOLDER, shared
  by a `ShareHost` (guests may watch). Prints `{address, pid}`; then, per `{"cmd": "run"}`, streams
  one answer and prints its figures: the process's CPU (`getrusage`, all threads) from the message
  sent until every guest's stream was handed the last entry, the bytes written on each guest's
  stream, when each entry was tapped and how long each log commit held the loop.
- `guests ADDRESS COUNT FIRST`: COUNT `ShareGuest`s (named from FIRST) joined at ADDRESS. Prints
  `{joined}`; then, per `{"cmd": "wait", "position": P}`, waits until every guest holds P entries
  and prints when each entry was read off its stream and applied, and the process's CPU since the
  last answer.

Both read `time.monotonic` (CLOCK_MONOTONIC: one clock for the machine's processes) and leave at
EOF on stdin (the bench is gone).

Run by the bench: python -m tests.perf.share_child host URL FOLDER | guests ADDRESS COUNT FIRST
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

TURN_SECONDS = 120.0
"""The longest one answer may take to reach every guest."""
START_SECONDS = 60.0


def _emit(value: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(value) + "\n")
    sys.stdout.flush()


async def _commands() -> Any:
    """The parent's commands, one JSON line each; EOF (the parent is gone) reads as quit."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while True:
        line = await reader.readline()
        yield json.loads(line) if line.strip() else {"cmd": "quit"}


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# -- the host process ------------------------------------------------------------------------------


async def host_main(url: str, folder: str) -> None:
    from tandem.core.share.host import ShareHost
    from tandem.core.store import ThreadStore
    from tandem.tui.cli.backend import AppHooks, open_context

    Path(folder).mkdir(parents=True, exist_ok=True)
    store = ThreadStore(Path(folder) / "threads.sqlite3")
    context = await open_context(url, hooks=AppHooks(), store=store)
    host = ShareHost(context, role="watch")
    address = await host.start()
    thread = context.thread
    shared_tap = thread.tap
    assert shared_tap is not None
    stamps: list[tuple[int, float]] = []
    position = thread.length  # the host's count of entries (the guests' `position`)

    def tap(entry: Any) -> None:
        nonlocal position
        position += 1
        stamps.append((position, time.monotonic()))
        shared_tap(entry)

    thread.tap = tap
    # Instrumentation: how long the host's log commits hold its loop (entries tapped before one
    # reach the guests after it).
    commit = thread.commit
    commits: list[tuple[int, float, float]] = []

    def timed_commit() -> None:
        began = time.monotonic()
        try:
            commit()
        finally:
            commits.append((position, began, time.monotonic() - began))

    thread.commit = timed_commit  # type: ignore[method-assign]
    _emit({"address": address, "pid": os.getpid()})
    async for command in _commands():
        if command["cmd"] == "guests":
            deadline = time.monotonic() + START_SECONDS
            while len(host.guests.connected) < command["count"] and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
            _emit({"connected": len(host.guests.connected)})
        elif command["cmd"] == "run":
            stamps.clear()
            commits.clear()
            sent = {guest.number: guest.bytes_sent for guest in host.guests.connected}
            cpu, started = _cpu(), time.monotonic()
            turn = await context.send("Write the long answer again, please.")
            await asyncio.wait_for(turn.wait(), TURN_SECONDS)
            ended = time.monotonic()
            deadline = ended + TURN_SECONDS
            while any(g.position < position or (g.queue is not None and g.queue.qsize()) for g in host.guests.connected):
                if time.monotonic() > deadline:
                    raise TimeoutError("the guests' streams did not drain")
                await asyncio.sleep(0.005)
            _emit({"cpu": _cpu() - cpu, "wall": time.monotonic() - started, "turn_wall": ended - started,
                   "status": turn.status.value, "position": position, "stamps": stamps, "commits": commits,
                   "bytes": [g.bytes_sent - sent.get(g.number, 0) for g in host.guests.connected]})
        else:
            break
    thread.tap = shared_tap
    await host.stop()
    await context.dispose()
    store.close()


# -- a guests process ------------------------------------------------------------------------------


async def guests_main(address: str, count: int, first: int) -> None:
    from tandem.core.share.guest import ShareGuest
    from tandem.core.share.wire import parse_address
    from tandem.tui.cli.backend import build_guest

    guests: list[ShareGuest] = []
    applied: list[list[tuple[int, float, float]]] = []
    for number in range(first, first + count):
        guest = build_guest(parse_address(address), f"guest {number}")
        stamps: list[tuple[int, float, float]] = []
        # Instrumentation: when each entry was read off the stream and when it was applied (the
        # guest's position moves once it is).
        read = guest._on_event

        def on_event(event: str, data: str, event_id: str | None, guest: ShareGuest = guest, read: Any = read,
                     stamps: list[tuple[int, float, float]] = stamps) -> bool:
            before, received = guest.position, time.monotonic()
            ended = read(event, data, event_id)
            if guest.position != before:
                stamps.append((guest.position, received, time.monotonic()))
            return bool(ended)

        guest._on_event = on_event  # type: ignore[method-assign]
        await guest.join()
        guests.append(guest)
        applied.append(stamps)
    _emit({"joined": count})
    cpu = _cpu()
    async for command in _commands():
        if command["cmd"] != "wait":
            break
        deadline = time.monotonic() + TURN_SECONDS
        while any(g.position < command["position"] for g in guests) and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        now = _cpu()
        used, cpu = now - cpu, now  # since the last answer: this one's work
        _emit({"stamps": [list(s) for s in applied], "positions": [g.position for g in guests],
               "states": [g.state for g in guests], "cpu": used})
        for stamps in applied:
            stamps.clear()
    for guest in guests:
        await guest.aclose()


def main(argv: list[str]) -> None:
    if argv[:1] == ["host"] and len(argv) == 3:
        asyncio.run(host_main(argv[1], argv[2]))
    elif argv[:1] == ["guests"] and len(argv) == 4:
        asyncio.run(guests_main(argv[1], int(argv[2]), int(argv[3])))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
