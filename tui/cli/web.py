"""`tandem web`: the same app in a browser, through Textualize's textual-serve, on loopback by default."""

from __future__ import annotations

import argparse
import ipaddress
import os
import shlex
import sys
from collections.abc import MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING

from tandem.tui.cli.settings import HEADER_ENV
from tandem.tui.cli.timeouts import TIMEOUT_ENV

if TYPE_CHECKING:
    from tandem.tui.cli.settings import Settings

__all__ = ["TEMPLATES", "add_web_arguments", "run_web", "session_environment", "web_command"]

TEMPLATES = Path(__file__).with_name("web_templates")
"""textual-serve's page, changed to focus the terminal on load (keys work without a click first)."""


def add_web_arguments(parser: argparse.ArgumentParser) -> None:
    """The `web` subcommand's own options (the connection options are added by the CLI)."""
    parser.add_argument("--host", default="127.0.0.1", help="the address to listen on (default: loopback only)")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--theme", default=None, help="dark, light or high-contrast")


def web_command(args: argparse.Namespace, settings: Settings) -> str:
    """The command textual-serve starts for each browser session: this Python, this Tandem, with
    the endpoint, pacing and theme, and the timeouts given as flags (each session reads the
    environment it inherits, and the config file, itself)."""
    command = [sys.executable, "-m", "tandem.tui.cli"]
    if settings.url:
        command += ["--url", settings.url]
    command += ["--speed", str(settings.speed)]
    if settings.theme:
        command += ["--theme", settings.theme]
    for name in TIMEOUT_ENV:
        value = getattr(args, f"{name}_timeout", None)
        if value is not None:
            command += [f"--{name}-timeout", value]
    return shlex.join(command)


def session_environment(headers: dict[str, str], environ: MutableMapping[str, str]) -> None:
    """Hand the command line's headers to the sessions textual-serve starts: in `$TANDEM_HEADERS`
    of `environ` (this process's, which textual-serve copies into each session), never in their
    command line, which every local user can read (ps). Nothing in this process reads it back."""
    if headers:
        environ[HEADER_ENV] = "\n".join(f"{name}: {value}" for name, value in headers.items())


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def run_web(args: argparse.Namespace, settings: Settings) -> int:
    """Serve the app until Ctrl+C. Headers reach each session through its environment, never argv.

    Raises:
        SystemExit: textual-serve is not installed, or the port is not valid.
    """
    try:
        from textual_serve.server import Server
    except ImportError:
        raise SystemExit("tandem: `tandem web` needs textual-serve: pip install 'tandem-agui[web]'") from None
    if not 0 < args.port < 65536:
        raise SystemExit(f"tandem: --port must be between 1 and 65535 (got {args.port})")
    session_environment(settings.headers, os.environ)
    if not _loopback(args.host):
        print(f"tandem: warning: serving on {args.host}: anyone who can reach it can talk to your agent "
              "and see your threads; prefer 127.0.0.1 and an SSH tunnel", file=sys.stderr)
    print(f"tandem: open http://{args.host}:{args.port} in a browser (Ctrl+C stops)", file=sys.stderr, flush=True)
    server = Server(web_command(args, settings), host=args.host, port=args.port, title="Tandem", templates_path=TEMPLATES)
    server.serve()
    return 0
