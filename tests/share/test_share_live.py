"""A shared conversation over loopback: the host's real HTTP server, a guest's real client, the
demo agent's AG-UI stream and a real SQLite log."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tandem.core.blocks.approval import ApprovalBlock
from tandem.core.blocks.interrupt import InterruptBlock
from tandem.core.blocks.text import TextBlock
from tandem.core.context import AgentContext
from tandem.core.log_entries import HumanWriteLogged
from tandem.core.replay import restore
from tandem.core.share.guest import GuestClient, ShareGuest
from tandem.core.share.host import ShareHost
from tandem.core.share.wire import EVENTS_PATH, parse_address
from tandem.core.share.writes import ShareRefused
from tandem.core.store import ThreadStore
from tandem.core.turns import Status
from tandem.tui.app.a2ui_actions import guest_surface_action
from tandem.tui.cli.backend import AppHooks, build_agent, build_guest, open_context
from tests.helpers.tcp_proxy import TcpProxy
from tests.helpers.waits import until_async





@pytest.fixture
async def shared(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[tuple[AgentContext, ShareHost, ThreadStore]]:
    store = ThreadStore(tmp_path / "threads.sqlite3")
    # A test that needs the answer to take a while asks for a slower demo (`indirect` parameter).
    context = await open_context(None, speed=getattr(request, "param", 0), hooks=AppHooks(), store=store)
    context.agent.env.user = "alice"
    host = ShareHost(context, act=guest_surface_action)  # as the app's sharing starts it
    await host.start()
    try:
        yield context, host, store
    finally:
        await host.stop()
        await context.dispose()
        store.close()


def _guest(host: ShareHost, name: str, *, events: list[tuple[str, str]] | None = None, address: str | None = None) -> ShareGuest:
    return build_guest(parse_address(address or host.address), name,
                       events=(lambda kind, text: events.append((kind, text))) if events is not None else None)


def _texts(context: AgentContext) -> list[str]:
    return [block.text for block in context.blocks if isinstance(block, TextBlock)]


async def test_a_guest_sees_the_conversation_then_follows_it_live(shared: Any) -> None:
    context, host, _store = shared
    turn = await context.send("hello there")
    await turn.wait()
    guest = _guest(host, "bob")
    mirror = await guest.join()
    assert _texts(mirror) == _texts(context)  # as a resume shows it
    assert guest.role == "decide" and guest.host_name == "alice"

    turn = await context.send("tell me about markdown")
    await turn.wait()
    await until_async(lambda: _texts(mirror) == _texts(context), "the guest follows the host live")
    await until_async(lambda: mirror.status is Status.IDLE, "the guest's copy is idle when the host's is")
    await guest.aclose()


async def test_a_guests_message_reaches_the_agent_signed_with_its_name(shared: Any) -> None:
    context, host, _store = shared
    guest = _guest(host, "bob")
    mirror = await guest.join()
    await guest.write({"kind": "send", "text": "hello from bob"})
    await until_async(lambda: context.turns and context.status is Status.IDLE, "the guest's turn runs on the host")
    user = next(b for b in context.blocks if isinstance(b, TextBlock) and b.role == "user")
    assert user.text == "hello from bob" and user.author == "bob"
    await until_async(lambda: any(isinstance(b, TextBlock) and b.role == "user" and b.author == "bob" for b in mirror.blocks),
                 "the guest's copy shows the message with its author")
    await guest.aclose()


async def test_one_decision_wins_and_everyone_sees_who_made_it(shared: Any) -> None:
    context, host, store = shared
    bob, carol = _guest(host, "bob"), _guest(host, "carol")
    bob_view, carol_view = await bob.join(), await carol.join()
    await context.send("please delete notes.txt")
    await until_async(lambda: context.status is Status.AWAITING_INPUT, "the host waits for an approval")
    block = next(b for b in context.blocks if isinstance(b, ApprovalBlock | InterruptBlock) and b.actionable)
    await until_async(lambda: bob_view.status is Status.AWAITING_INPUT, "the guest sees the turn waiting")
    kind = "approve" if isinstance(block, ApprovalBlock) else "respond"
    write: dict[str, Any] = {"kind": kind, "block": block.id}
    if kind == "respond":
        write["payload"] = {"approved": True}
    await bob.write(write)
    with pytest.raises(ShareRefused, match="already decided by bob"):
        await carol.write(write)
    assert block.decision is not None and block.decision.who == "bob"
    mirrored = carol_view.agent.pipeline.by_id[block.id]
    await until_async(lambda: getattr(mirrored, "decision", None) is not None, "the decision reaches the other guest")
    assert mirrored.decision.who == "bob"  # type: ignore[attr-defined]
    await until_async(lambda: context.status is Status.IDLE, "the turn goes on after the decision")
    context.thread.commit()
    # The log keeps the author: a later resume shows it.
    logged = [e.write for e in store.open(context.conversation_id, read_only=True).entries() if isinstance(e, HumanWriteLogged)]
    assert [w.who for w in logged if w.kind == "decision"] == ["bob"]
    await bob.aclose()
    await carol.aclose()


async def test_a_wrong_or_missing_token_is_refused_with_nothing_of_the_conversation(shared: Any) -> None:
    context, host, _store = shared
    turn = await context.send("hello secret world")
    await turn.wait()
    base = parse_address(host.address).base
    async with httpx.AsyncClient(base_url=base) as client:
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "Basic x"}):
            response = await client.get(EVENTS_PATH, headers=headers)
            assert response.status_code == 401
            assert response.text == "tandem: wrong or missing share token\n"
    guest = _guest(host, "mallory", address=host.address.split("#")[0] + "#not-the-token")
    with pytest.raises(ShareRefused, match="wrong or missing share token"):
        await guest.join()
    assert not list(host.guests)


async def test_the_host_going_away_leaves_the_guest_a_read_only_copy(shared: Any) -> None:
    context, host, _store = shared
    turn = await context.send("hello there")
    await turn.wait()
    events: list[tuple[str, str]] = []
    guest = _guest(host, "bob", events=events)
    mirror = await guest.join()
    await host.stop("The host quit.")
    await until_async(lambda: guest.state == "ended", "the guest is told")
    assert ("end", "The host quit.") in events
    assert _texts(mirror) == _texts(context)
    with pytest.raises(ShareRefused, match="The host quit"):
        await guest.write({"kind": "send", "text": "anyone?"})
    await guest.aclose()


async def test_concurrent_edits_of_different_fields_combine_and_of_one_field_conflict(shared: Any) -> None:
    context, host, _store = shared
    state = context.agent.state
    state.edit([{"op": "add", "path": "/title", "value": "Plan"}, {"op": "add", "path": "/owner", "value": "alice"}])
    bob = _guest(host, "bob")
    mirror = await bob.join()
    seen_title = {"/title": {"value": "Plan"}}
    # alice edits /title; bob, who saw "Plan", edits /title and /owner at the same time.
    state.edit([{"op": "replace", "path": "/title", "value": "Alice's plan"}], seen=seen_title)
    await bob.write({"kind": "edit", "patch": [{"op": "replace", "path": "/title", "value": "Bob's plan"},
                                               {"op": "replace", "path": "/owner", "value": "bob"}],
                     "seen": {**seen_title, "/owner": {"value": "alice"}}})
    assert state.committed == {"title": "Alice's plan", "owner": "bob"}
    [conflict] = state.open_conflicts
    assert (conflict.mine, conflict.mine_by, conflict.agent, conflict.agent_by) == ("Alice's plan", "alice", "Bob's plan", "bob")
    await until_async(lambda: mirror.agent.state.committed == state.committed and mirror.agent.state.open_conflicts,
                 "the guest's copy has the same state and the conflict")
    await bob.write({"kind": "resolve", "conflict": conflict.id, "resolution": "agent"})
    assert state.committed["title"] == "Bob's plan" and conflict.resolved_by == "bob"
    await until_async(lambda: mirror.agent.state.committed == state.committed, "the settlement reaches the guest")
    # The log replays to the same state.
    context.thread.commit()
    await bob.aclose()


@pytest.mark.parametrize("shared", [0.2], indirect=True)
async def test_a_guest_that_reconnects_loses_nothing_and_repeats_nothing(shared: Any) -> None:
    context, host, _store = shared
    proxy = TcpProxy(host.port)
    await proxy.start()
    events: list[tuple[str, str]] = []
    token = host.address.split("#", 1)[1]
    guest = _guest(host, "bob", events=events, address=f"http://127.0.0.1:{proxy.port}/#{token}")
    mirror = await guest.join()
    turn = await context.send("write a long essay")
    for _cut in range(3):  # cut the link mid-stream, three times
        mark = guest.position
        await until_async(lambda mark=mark: guest.position > mark + 20, "streaming reaches the guest")  # type: ignore[misc]
        proxy.cut()
    await turn.wait()
    await until_async(lambda: _texts(mirror) == _texts(context) and mirror.status is Status.IDLE, "the guest has the whole answer")
    assert [kind for kind, _text in events].count("reconnected") >= 1
    assert guest.position == context.thread.length
    await guest.aclose()
    await proxy.close()


async def test_a_replay_of_the_hosts_log_gives_what_every_guest_shows(shared: Any, tmp_path: Path) -> None:
    context, host, store = shared
    guest = _guest(host, "bob")
    mirror = await guest.join()
    await guest.write({"kind": "send", "text": "show me the recipe"})
    await until_async(lambda: context.turns and context.status is Status.IDLE, "the turn ends")
    await until_async(lambda: _texts(mirror) == _texts(context), "the guest caught up")
    context.thread.commit()
    replayed = await restore(build_agent(GuestClient(), hooks=AppHooks()), store.open(context.conversation_id, read_only=True), resume=False)
    assert _texts(replayed) == _texts(context) == _texts(mirror)
    assert replayed.agent.state.committed == context.agent.state.committed == mirror.agent.state.committed
    await guest.aclose()
    await asyncio.sleep(0)


async def test_what_guests_may_do_follows_the_hosts_role(shared: Any) -> None:
    context, host, _store = shared
    events: list[tuple[str, str]] = []
    guest = _guest(host, "bob", events=events)
    await guest.join()
    host.set_role("watch")
    await until_async(lambda: guest.role == "watch", "the guest told of the new role")
    with pytest.raises(ShareRefused, match="does not let guests send messages"):
        await guest.write({"kind": "send", "text": "hello"})
    host.set_role("talk")
    await until_async(lambda: guest.role == "talk", "the guest told again")
    await context.send("please delete notes.txt")
    await until_async(lambda: context.status is Status.AWAITING_INPUT, "the host waits for an approval")
    block = next(b for b in context.blocks if isinstance(b, ApprovalBlock | InterruptBlock) and b.actionable)
    with pytest.raises(ShareRefused, match="does not let guests"):
        await guest.write({"kind": "approve", "block": block.id})
    assert block.actionable  # still the host's to decide
    assert ("role", "The host changed what guests may do: talk.") in events
    await guest.aclose()


async def test_a_removed_guest_is_told_and_cannot_come_back_with_the_old_address(shared: Any) -> None:
    _context, host, _store = shared
    old_address = host.address
    events: list[tuple[str, str]] = []
    guest = _guest(host, "bob", events=events)
    await guest.join()
    [listed] = list(host.guests)
    assert host.remove(listed.number) == "bob"
    await until_async(lambda: guest.state == "ended", "the guest told it was removed")
    assert events[-1] == ("removed", "The host removed you from this conversation.")
    again = _guest(host, "bob", address=old_address)
    with pytest.raises(ShareRefused, match="wrong or missing share token"):
        await again.join()
    assert host.address != old_address
    await guest.aclose()


async def test_hostile_writes_are_refused_with_a_reason_and_change_nothing(shared: Any) -> None:
    context, host, _store = shared
    guest = _guest(host, "bob\x1b[31m\u202e\nevil" + "x" * 100)
    await guest.join()
    assert guest.name == "bob[31mevil" + "x" * 29  # one printable line of at most 40 characters: no escape, no bidi
    base = parse_address(host.address).base
    key = {"Authorization": f"Bearer {guest._key}"}
    async with httpx.AsyncClient(base_url=base) as client:
        big = await client.post("/v1/writes", headers=key, content=b'{"kind":"send","text":"' + b"a" * 300_000 + b'"}')
        deep = await client.post("/v1/writes", headers=key, content=b'{"kind":"edit","patch":[' + b"[" * 500 + b"]" * 500 + b"]}")
        odd = await client.post("/v1/writes", headers=key, json={"kind": "become_host"})
        stranger = await client.post("/v1/writes", headers={"Authorization": "Bearer nope"}, json={"kind": "send", "text": "hi"})
        statuses = [(await client.post("/v1/writes", headers=key, json={"kind": "reject_proposal", "proposal": "p"})).status_code
                    for _ in range(60)]
    assert (big.status_code, deep.status_code, odd.status_code, stranger.status_code) == (413, 400, 400, 401)
    assert "not a write this host takes" in odd.json()["error"]
    assert 429 in statuses  # bounded rate: a burst, then refused until it refills
    assert not context.turns and context.agent.state.committed in (None, {})
    await guest.aclose()


async def test_a_guest_that_falls_behind_is_caught_up_from_the_log(shared: Any) -> None:
    context, host, _store = shared
    turn = await context.send("hello there")
    await turn.wait()
    host.guests.queue_limit = 3
    guest = host.guests.join("slow")
    assert guest is not None
    seen = host.context.thread.length
    stream = host._stream(guest, seen)
    hello = await anext(stream)
    assert b"event: hello" in hello and b'"name": "slow"' in hello
    assert b"event: caught_up" in await anext(stream)
    turn = await context.send("tell me about markdown")  # many entries, nobody reading: the queue overflows
    await turn.wait()
    assert guest.behind
    rest = b""
    while b"event: caught_up" not in rest:
        rest += await anext(stream)
    assert b"You fell behind the conversation; catching up from the log." in rest
    assert rest.count(b"event: entry") == host.context.thread.length - seen  # every entry since, once
    assert guest.position == host.context.thread.length and not guest.behind
    await stream.aclose()


async def test_a_guest_fills_and_submits_a_surface_signed_with_its_name(shared: Any) -> None:
    from tandem.core.a2ui import SurfaceBlock

    context, host, store = shared
    guest = _guest(host, "bob")
    mirror = await guest.join()
    turn = await context.send("book a room")
    await turn.wait()
    surface = next(b for b in context.blocks if isinstance(b, SurfaceBlock))
    await until_async(lambda: surface.id in mirror.agent.pipeline.by_id, "the form on the guest's copy")
    await guest.write({"kind": "set_value", "block": surface.id, "path": "/guest/name", "value": "Bob Jones"})
    await guest.write({"kind": "act", "block": surface.id, "component": "submit", "scope": "/"})
    await until_async(lambda: len(context.turns) == 2 and context.status is Status.IDLE, "the booking sent to the agent")
    await until_async(lambda: "Bob Jones" in str(mirror.agent.pipeline.by_id[surface.id].data_model()), "the guest's copy has it")
    context.thread.commit()
    writes = [e.write for e in store.open(context.conversation_id, read_only=True).entries() if isinstance(e, HumanWriteLogged)]
    assert [(w.kind, w.who) for w in writes if w.kind.startswith("a2ui")] == [("a2ui_input", "bob"), ("a2ui_action", "bob")]
    await guest.aclose()


async def test_a_guest_that_reconnects_too_often_waits_and_the_others_do_not(shared: Any) -> None:
    """Every connection costs the host a catch-up from the log: a guest's own key is limited."""
    from tandem.core.share.guests import CONNECTS_BURST
    from tandem.core.share.wire import SHARE_HEADER

    context, host, _store = shared
    turn = await context.send("hello there")
    await turn.wait()
    bob, carol = _guest(host, "bob"), _guest(host, "carol")
    await bob.join()
    await carol.join()
    [bob_key] = [g.key for g in host.guests if g.name == "bob"]
    headers = {"Authorization": f"Bearer {bob_key}", "Last-Event-ID": "0", SHARE_HEADER: host.share_id}
    codes: list[int] = []
    async with httpx.AsyncClient(base_url=parse_address(host.address).base) as client:
        for _ in range(int(CONNECTS_BURST) + 2):
            async with client.stream("GET", EVENTS_PATH, headers=headers) as response:
                codes.append(response.status_code)
    assert codes[0] == 200 and codes[-1] == 429
    await carol.write({"kind": "send", "text": "carol is still welcome"})
    await until_async(lambda: len(context.turns) == 2, "carol's message started a turn")
    await bob.aclose()
    await carol.aclose()
