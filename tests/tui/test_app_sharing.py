"""Sharing the shown conversation from the app (`tui.app.sharing`): the address copied and shown, the
status line naming the guests, the palette's entries changing what guests may do, removing one and
stopping; a guest's writes come back signed; quitting tells the guests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import Static

from tandem.core.share.guest import ShareGuest
from tandem.core.share.wire import parse_address
from tandem.core.turns import Status
from tandem.tui.cli.backend import build_guest
from tests.helpers.demo_app import demo_app
from tests.helpers.waits import wait_for


def _status(app: Any) -> str:
    return str(app.main.query_one("#status-line", Static).render())


def _guest(address: str, name: str, events: list[tuple[str, str]]) -> ShareGuest:
    return build_guest(parse_address(address), name, events=lambda kind, text: events.append((kind, text)))


def _command(app: Any, title: str) -> Any:
    for command in app.commands.system_commands():
        if command.title == title:
            return command.callback
    raise AssertionError(f"no palette entry {title!r}: {[c.title for c in app.commands.system_commands()]}")


async def test_share_from_the_palette_then_roles_removal_and_stop(tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_for(pilot, lambda: app.session.ready.is_set(), "the conversation ready")
        _command(app, "Share this conversation")()
        await wait_for(pilot, lambda: app.sharing.host_of(app.session) is not None, "the share started")
        host = app.sharing.host_of(app.session)
        assert host is not None and app.clipboard == host.address  # copied (OSC 52)
        await wait_for(pilot, lambda: "shared (decide): no guest yet" in _status(app), _status(app) if app.is_running else "")

        events: list[tuple[str, str]] = []
        bob = _guest(host.address, "bob", events)
        mirror = await bob.join()
        await wait_for(pilot, lambda: "shared (decide): bob" in _status(app), lambda: _status(app))
        await bob.write({"kind": "send", "text": "hello from bob"})
        await wait_for(pilot, lambda: app.context is not None and app.context.turns and app.context.status is Status.IDLE,
                       "bob's turn answered on the host")
        assert app.context is not None and app.context.blocks[0].author == "bob"  # type: ignore[attr-defined]
        await wait_for(pilot, lambda: len(mirror.blocks) == len(app.context.blocks), "bob's copy caught up")  # type: ignore[union-attr]

        _command(app, "Guests may watch")()
        await wait_for(pilot, lambda: bob.role == "watch", "bob told he may only watch")
        assert "shared (watch)" in _status(app)

        _command(app, "Remove a guest…")  # offered while a guest is there
        old_address = host.address
        app.sharing._remove(app.session, 1)
        await wait_for(pilot, lambda: bob.state == "ended", "bob removed")
        assert events[-1][0] == "removed"
        await wait_for(pilot, lambda: app.clipboard == host.address != old_address, "the new address copied")

        carol = _guest(app.clipboard, "carol", events)
        await carol.join()
        _command(app, "Stop sharing")()
        await wait_for(pilot, lambda: carol.state == "ended", "carol told the share ended")
        assert events[-1] == ("end", "The host stopped sharing this conversation.")
        await wait_for(pilot, lambda: "shared" not in _status(app), lambda: _status(app))
        await bob.aclose()
        await carol.aclose()


async def test_quitting_tells_the_guests_the_host_quit(tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    events: list[tuple[str, str]] = []
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_for(pilot, lambda: app.session.ready.is_set(), "the conversation ready")
        address = await app.sharing.share(app.session)
        assert address is not None
        guest = _guest(address, "bob", events)
        await guest.join()
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: guest.state == "ended", "the guest told")
    assert ("end", "The host quit.") in events
    await guest.aclose()
