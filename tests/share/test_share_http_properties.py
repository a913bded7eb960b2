"""Shared state over the real path: the host's HTTP server, two guests' clients and a real SQLite
log. Writes from the host's person and both guests, each computed on the writer's own screen
(a guest's lags the host by what is still on the wire), converge on every screen and in the
log's replay. Few examples: each starts a host and two guests (the pure property, with many
more interleavings and the agent, is `test_share_properties`)."""

from __future__ import annotations

import asyncio
import copy
import os
import uuid
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from tandem.core.errors import PatchError
from tandem.core.replay import restore
from tandem.core.share.writes import ShareRefused
from tandem.core.state.concurrent import seen_conflict, seen_values
from tandem.core.state.fields import as_document
from tests.helpers.state_writes import Values, draw_operation, picture
from tests.helpers.waits import until_async

HOST = "ada"
GUESTS = ("bob", "carol")
PEOPLE = (HOST, *GUESTS)

HTTP_EXAMPLES = int(os.environ.get("TANDEM_SHARE_HTTP_EXAMPLES", "4"))




async def _shared_over_http(folder: Path, data: st.DataObject) -> None:
    from tandem.core.share.guest import GuestClient, ShareGuest
    from tandem.core.share.host import ShareHost
    from tandem.core.share.wire import parse_address
    from tandem.core.store import ThreadStore
    from tandem.tui.cli.backend import AppHooks, build_agent, build_guest, open_context

    store = ThreadStore(folder / "threads.sqlite3")
    context = await open_context(None, speed=0, hooks=AppHooks(), store=store)
    context.agent.env.user = HOST
    state = context.agent.state
    state.edit([{"op": "add", "path": "/items", "value": [{"id": "i1", "v": 1}, {"id": "i2", "v": 2}]},
                {"op": "add", "path": "/title", "value": "Plan"}])
    host = ShareHost(context)
    await host.start()
    guests: dict[str, ShareGuest] = {}
    values = Values()
    try:
        for name in GUESTS:
            guests[name] = build_guest(parse_address(host.address), name)
            await guests[name].join()
        for step in range(data.draw(st.integers(2, 6), label="writes")):
            who = data.draw(st.sampled_from(PEOPLE), label="writer")
            screen = state if who == HOST else guests[who].context.agent.state
            saw = copy.deepcopy(as_document(screen.committed))
            conflicts = screen.open_conflicts
            if conflicts and data.draw(st.booleans(), label="settle"):
                conflict = data.draw(st.sampled_from(conflicts), label="conflict")
                write: dict[str, Any] = {"kind": "resolve", "conflict": conflict.id, "resolution": "agent",
                                         "seen": seen_conflict(saw, conflict)}
            else:
                operation = draw_operation(data, saw, values, who[0], moves=False)
                write = {"kind": "edit", "patch": [operation], "seen": seen_values(saw, [operation], conflicts)}
            note(f"{step}: {who} {write}")
            if who == HOST:
                try:
                    if write["kind"] == "edit":
                        state.edit(write["patch"], seen=write["seen"])
                    else:
                        state.resolve_conflict(write["conflict"], "agent", seen=write["seen"])
                except (KeyError, PatchError) as exc:
                    note(f"  refused: {exc}")
            else:
                try:
                    await guests[who].write(write)
                except ShareRefused as exc:
                    note(f"  refused: {exc}")
        length = context.thread.length
        for name, guest in guests.items():
            await until_async(lambda guest=guest: guest.position == length, f"{name} catches up")  # type: ignore[misc]
            assert picture(guest.context.agent.state) == picture(state), f"{name}'s screen differs from the host's"
        context.thread.commit()
        fresh = build_agent(GuestClient(), hooks=AppHooks())
        fresh.env.user = HOST
        restored = await restore(fresh, store.open(context.conversation_id, read_only=True), resume=False)
        assert picture(restored.agent.state) == picture(state), "the log's replay differs from the host"
    finally:
        for guest in guests.values():
            await guest.aclose()
        await host.stop()
        await context.dispose()
        store.close()


@settings(max_examples=HTTP_EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_writes_over_http_converge_on_every_guest_and_in_the_replay(tmp_path: Path, data: st.DataObject) -> None:
    folder = tmp_path / uuid.uuid4().hex
    folder.mkdir()
    asyncio.run(_shared_over_http(folder, data))
