"""Sharing the shown conversation with other people (the host's side of `core.share`): start and
stop a share, what guests may do, removing a guest, and what the status line says of it."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import SystemCommand

if TYPE_CHECKING:
    from tandem.core.context import AgentContext
    from tandem.core.share.host import ShareHost
    from tandem.core.share.registry import ShareListing
    from tandem.core.share.writes import GuestRole
    from tandem.tui.app.app import TandemApp
    from tandem.tui.app.session import Session

__all__ = ["Sharing"]

log = logging.getLogger(__name__)

_ROLE_WORDS = {"watch": "watch only", "talk": "send messages and edit the state", "decide": "also approve and answer"}


class Sharing:
    """The shares this app hosts, one per shared conversation.

    Owns where a share listens (`listen`), what guests may do in a new share (`role`), the folder
    of this machine's shares (`folder`, for `tandem join --list`) and, per shared session, its
    `ShareHost` and listing (created and stopped on the engine loop through the session's bridge).
    UI thread, except what it runs on the engine.
    """

    def __init__(self, app: TandemApp, *, listen: str = "127.0.0.1", role: GuestRole = "decide",
                 folder: Path | None = None) -> None:
        self.app = app
        self.listen = listen
        self.role: GuestRole = role
        self.folder = folder
        self._shares: dict[Session, tuple[ShareHost, ShareListing | None]] = {}
        self._connected: dict[Session, set[str]] = {}
        """The guests connected when each share was last looked at (who joined, who left)."""
        self.at_start = False
        """Share the first conversation as soon as it is ready (`tandem --share`)."""

    def mounted(self) -> None:
        """The app is up: share the first conversation if asked."""
        if self.at_start:
            self.start()

    def host_of(self, session: Session) -> ShareHost | None:
        entry = self._shares.get(session)
        return entry[0] if entry is not None else None

    def system_commands(self) -> Iterable[SystemCommand]:
        """The palette's sharing entries for the shown conversation."""
        session = self.app.session
        context = session.context
        if context is not None and getattr(context, "remote", None) is not None:
            return  # a guest does not share what it joined
        host = self.host_of(session)
        if host is None:
            yield SystemCommand("Share this conversation", "Let others join it live (the address is copied)",
                                lambda: self.start(session))
            return
        yield SystemCommand("Copy the join address", f"Shared on {self.listen}: copy the address again",
                            lambda: self._copy(host.address))
        for role in ("watch", "talk", "decide"):
            if role != host.role:
                yield SystemCommand(f"Guests may {role}", f"Guests may {_ROLE_WORDS[role]}",
                                    lambda role=role: self.set_role(session, role))  # type: ignore[misc]
        guests = [g for g in host.guests if not g.removed]
        if guests:
            yield SystemCommand("Remove a guest…", ", ".join(g.name for g in guests), lambda: self.pick_guest(session))
        yield SystemCommand("Stop sharing", "Guests keep a read-only copy", lambda: self.stop_soon(session))

    # -- start and stop ------------------------------------------------------------------------

    def start(self, session: Session | None = None) -> None:
        """Share `session` (the shown one by default), in a worker."""
        self.app.run_worker(self.share(session or self.app.session), group="share", exit_on_error=False)

    async def share(self, session: Session) -> str | None:
        """Start sharing `session`; returns the join address (None: it could not be shared; the person is told)."""
        from tandem.widgets.sanitize import sanitize

        if session in self._shares:
            return self._shares[session][0].address
        context = session.context if session.ready.is_set() else await session.wait_until_ready()
        if context is None:
            self.app.notify("The conversation is not ready, so it was not shared", severity="warning")
            return None
        try:
            host, listing = await session.bridge.run_coroutine(self._start(session, context))
        except Exception as exc:  # noqa: BLE001 - the person is told; nothing else changes
            self.app.notify(f"Could not share the conversation: {sanitize(str(exc))}", severity="error", markup=False)
            return None
        self._shares[session] = (host, listing)
        session.share_stop = lambda: self._stopped(session, "The host quit.")
        self._copy(host.address, intro="Shared. Join with: tandem join ")
        self.changed(session)
        return host.address

    async def _start(self, session: Session, context: AgentContext) -> tuple[ShareHost, ShareListing | None]:
        """Engine loop: the host's server, and its entry in this machine's shares."""
        from tandem.core.share.host import ShareHost
        from tandem.core.share.registry import ShareListing
        from tandem.tui.app.a2ui_actions import guest_surface_action

        bridge = session.bridge

        def changed(_host: ShareHost) -> None:  # engine thread
            bridge.to_ui(lambda: self.changed(session))

        host = ShareHost(context, host=self.listen, role=self.role, title=lambda: session.thread_title,
                         act=guest_surface_action, changed=changed)
        await host.start()
        listing = None
        if self.folder is not None:
            listing = ShareListing(self.folder, host.share_id, lambda: {
                "address": host.address, "title": session.thread_title or "",
                "guests": len([g for g in host.guests if g.connected])})
            try:
                await listing.start()
            except OSError as exc:
                log.warning("this share is not listed for `tandem join`: %s", exc)
                why = f"`tandem join --list` will not show this share: {exc}"
                bridge.to_ui(lambda: self.app.notify(why, severity="warning", markup=False))
                listing = None
        return host, listing

    def stop_soon(self, session: Session) -> None:
        self.app.run_worker(self._stopped(session, "The host stopped sharing this conversation."), group="share",
                            exit_on_error=False)

    async def _stopped(self, session: Session, text: str) -> None:
        entry = self._shares.pop(session, None)
        session.share_stop = None
        if entry is None:
            return
        host, listing = entry

        async def stop() -> None:
            await host.stop(text)
            if listing is not None:
                await listing.close()

        try:
            await session.bridge.run_coroutine(stop())
        except Exception:  # noqa: BLE001 - stopping never gets in the way of quitting
            log.warning("the share did not stop cleanly")
        if self.app.is_running:
            self.changed(session)

    # -- guests ----------------------------------------------------------------------------------

    def set_role(self, session: Session, role: GuestRole) -> None:
        host = self.host_of(session)
        if host is not None:
            session.bridge.to_engine(lambda: host.set_role(role))
            self.app.notify(f"Guests may now {_ROLE_WORDS[role]}.")

    def pick_guest(self, session: Session) -> None:
        from textual.command import CommandListItem, SimpleCommand, SimpleProvider

        from tandem.tui.app.palette import TandemPalette

        host = self.host_of(session)
        if host is None:
            return
        commands: list[CommandListItem] = [
            SimpleCommand(guest.name, lambda number=guest.number: self._remove(session, number),
                          "connected" if guest.connected else "not connected")
            for guest in host.guests if not guest.removed]
        self.app.push_screen(TandemPalette(providers=[SimpleProvider(self.app.screen, commands)],  # type: ignore[list-item]
                                          placeholder="Remove which guest?"))

    def _remove(self, session: Session, number: int) -> None:
        self.app.run_worker(self._removed(session, number), group="share", exit_on_error=False)

    async def _removed(self, session: Session, number: int) -> None:
        host = self.host_of(session)
        if host is None:
            return
        name = await session.bridge.run_on_engine(lambda: host.remove(number))
        if name:
            self._copy(host.address, intro=f"{name} was removed. The address changed (copied): ")

    # -- what the person sees ------------------------------------------------------------------

    def changed(self, session: Session) -> None:
        """Say who joined or left, and on the status line how the shown conversation is shared (UI thread)."""
        host = self.host_of(session)
        guests = [g.name for g in host.guests if g.connected] if host is not None else []
        before, self._connected[session] = self._connected.get(session, set()), set(guests)
        if self.app.is_running:
            for name in sorted(set(guests) - before):
                self.app.notify(f"{name} joined the conversation", title="Sharing", markup=False)
            for name in sorted(before - set(guests)):
                self.app.notify(f"{name} left the conversation", title="Sharing", markup=False)
        if session is not self.app.conversations.shown or not self.app.painting():
            return
        if host is None:
            self.app.main.set_sharing(None)
            return
        self.app.main.set_sharing(f"shared ({host.role}): {', '.join(guests) if guests else 'no guest yet'}")

    def _copy(self, address: str, *, intro: str = "") -> None:
        self.app.copy_to_clipboard(address)  # OSC 52: the person's terminal, wherever it is
        self.app.notify(f"{intro}{address}", title="Sharing", timeout=30, markup=False)

