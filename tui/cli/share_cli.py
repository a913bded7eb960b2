"""`tandem --share` (its flags) and `tandem join`: take part in a conversation another `tandem` shares."""

from __future__ import annotations

import argparse
import getpass
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from tandem.core.context import AgentContext
    from tandem.core.share.registry import SharedHere
    from tandem.tui.app.app import TandemApp

__all__ = ["RUNTIME_ENV", "add_join_arguments", "add_share_arguments", "run_join", "shares_folder"]

RUNTIME_ENV = "TANDEM_RUNTIME_DIR"
"""Where this machine's shares are listed (default: the user's runtime directory)."""


def add_share_arguments(parser: argparse.ArgumentParser) -> None:
    """The app's sharing flags."""
    parser.add_argument("--share", action="store_true",
                        help="share the conversation: others join it live with `tandem join` (the address is shown and copied)")
    parser.add_argument("--share-host", default="127.0.0.1", metavar="ADDR",
                        help="where a share listens (default 127.0.0.1; over SSH, forward the port instead)")
    parser.add_argument("--guests", choices=["watch", "talk", "decide"], default="decide",
                        help="what guests may do: watch; talk (send messages, edit the state); decide (also approve "
                        "and answer; the default)")


def add_join_arguments(parser: argparse.ArgumentParser) -> None:
    """`tandem join`'s own arguments."""
    parser.add_argument("address", nargs="?", default=None, metavar="ADDRESS",
                        help="the join address the host shows (http://HOST:PORT/#TOKEN); default: the conversation "
                        "shared on this machine")
    parser.add_argument("--as", dest="as_name", default=None, metavar="NAME",
                        help="the name others see (default: your user name)")
    parser.add_argument("--list", action="store_true", help="print the join address of each conversation shared "
                        "on this machine, one a line")


def shares_folder(environ: Mapping[str, str]) -> Path:
    """The folder of this machine's shares (`$TANDEM_RUNTIME_DIR/shares`, else the user's runtime directory's)."""
    if environ.get(RUNTIME_ENV):
        return Path(environ[RUNTIME_ENV]) / "shares"
    import warnings

    import platformdirs

    with warnings.catch_warnings():
        # Without $XDG_RUNTIME_DIR (an SSH session without a login manager) platformdirs falls back
        # to /tmp/runtime-UID and warns on stderr: that line must not reach the terminal.
        warnings.simplefilter("ignore")
        return Path(platformdirs.user_runtime_dir("tandem", appauthor=False)) / "shares"


def run_join(args: argparse.Namespace, environ: Mapping[str, str]) -> int:
    """`tandem join`: list the shares here, or join one in the app. Returns the exit status."""
    from tandem.core.share.registry import list_shares
    from tandem.core.share.wire import parse_address

    folder = shares_folder(environ)
    if args.list:
        shares = list_shares(folder)
        for share in shares:
            print(share.address if not sys.stdout.isatty() else _described(share))
        if not shares:
            print("tandem: no conversation is shared on this machine", file=sys.stderr)
        return 0 if shares else 1
    text = args.address or _pick(list_shares(folder))
    if text is None:
        return 2
    try:
        address = parse_address(text)
    except ValueError as exc:
        print(f"tandem: {exc}", file=sys.stderr)
        return 2
    name = args.as_name or _user()
    app = _guest_app(args, environ, address, name)
    app.run()
    if app.startup_error is not None:
        raise SystemExit(f"tandem: {app.startup_error}")
    return app.return_code or 0


def _described(share: SharedHere) -> str:
    guests = f"{share.guests} guest{'s' if share.guests != 1 else ''}"
    return f"{share.address}  {share.title or '(untitled)'} · {guests} · process {share.pid}"


def _pick(shares: list[SharedHere]) -> str | None:
    """The one share here, or the one the person picks; None (told why) when there is none or no answer."""
    if not shares:
        print("tandem: no conversation is shared on this machine; give its address: tandem join ADDRESS", file=sys.stderr)
        return None
    if len(shares) == 1:
        return shares[0].address
    for number, share in enumerate(shares, 1):
        print(f"{number}. {share.title or '(untitled)'} · process {share.pid}", file=sys.stderr)
    try:
        answer = input(f"Join which (1-{len(shares)})? ")
    except (EOFError, KeyboardInterrupt):
        print(file=sys.stderr)
        return None
    if not answer.strip().isdigit() or not 1 <= int(answer) <= len(shares):
        print("tandem: no such share", file=sys.stderr)
        return None
    return shares[int(answer) - 1].address


def _user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no user name in this environment
        return "guest"


def _guest_app(args: argparse.Namespace, environ: Mapping[str, str], address: Any, name: str) -> TandemApp:
    from tandem.tui.app.app import TandemApp
    from tandem.tui.cli.app_main import _use_driver, read_app_settings

    settings = read_app_settings(argparse.Namespace(**{**vars(args), "resume": None, "agent": None, "url": None}),
                                 environ)
    display = settings.display
    assert display is not None

    joined: list[Any] = []  # the guest, once made

    def events(kind: str, text: str) -> None:  # engine thread
        line = _guest_line(joined[0]) if joined else None
        app.session.bridge.to_ui(lambda: _told(app, kind, text, line))

    async def join(_loop: object) -> AgentContext:
        from tandem.tui.cli.backend import build_guest

        guest = build_guest(address, name, events=events)
        joined.append(guest)
        context = await guest.join()
        context.remote = guest
        app.session.approvals.may_decide = lambda: guest.role == "decide" and guest.state != "ended"
        events("joined", f"You joined {guest.host_name or 'the host'}'s conversation as {guest.name}.")
        return context

    app = TandemApp(join, threads=None, clock=time.time, endpoint=address.base, agent_label=f"shared at {address.base}",
                    theme=settings.theme, frame_seconds=display.frame_seconds, bell=display.bell,
                    repaint=display.repaint, images=display.images, image_hosts=display.image_hosts)
    _use_driver(app, display.glyphs)
    return app


def _guest_line(guest: Any) -> str:
    if guest.state == "ended":
        return f"read-only copy: {guest.ended_text}"
    what = {"watch": "watching", "talk": "may talk", "decide": "may talk and decide"}[guest.role]
    return f"guest {guest.name} of {guest.host_name or 'the host'} ({what})"


def _told(app: TandemApp, kind: str, text: str, line: str | None) -> None:
    """What the host or the connection did, told to the guest (UI thread); `line`: the status line's words."""
    if line is not None and app.painting():
        app.main.set_sharing(line)
    severity: Literal["information", "warning"] = "warning" if kind in ("end", "removed", "reconnecting", "refused") else "information"
    app.notify(text, title="Shared conversation", severity=severity, timeout=30 if severity == "warning" else 8,
               markup=False)
