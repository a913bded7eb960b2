"""`tandem web`: the same app in a browser, through Textualize's textual-serve, on loopback by default."""

from __future__ import annotations

import argparse
import ipaddress
import os
import shlex
import sys
from pathlib import Path

__all__ = ["TEMPLATES", "add_web_arguments", "run_web", "web_command"]

TEMPLATES = Path(__file__).with_name("web_templates")
"""textual-serve's page, changed to focus the terminal on load (keys work without a click first)."""


def add_web_arguments(parser: argparse.ArgumentParser) -> None:
    """The `web` subcommand's own options (the connection options are added by the CLI)."""
    parser.add_argument("--host", default="127.0.0.1", help="the address to listen on (default: loopback only)")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--theme", default=None, help="dark, light or high-contrast")


def web_command(args: argparse.Namespace) -> str:
    """The command textual-serve starts for each browser session: this Python, this Tandem."""
    command = [sys.executable, "-m", "tandem.tui.cli"]
    if args.url:
        command += ["--url", args.url]
    command += ["--speed", str(args.speed)]
    if args.theme:
        command += ["--theme", args.theme]
    return shlex.join(command)


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def run_web(args: argparse.Namespace, headers: dict[str, str]) -> int:
    """Serve the app until Ctrl+C. Headers reach each session through the environment, never argv.

    Raises:
        SystemExit: textual-serve is not installed, or the port is not valid.
    """
    try:
        from textual_serve.server import Server
    except ImportError:
        raise SystemExit("tandem: `tandem web` needs textual-serve: pip install 'tandem-agui[web]'") from None
    if not 0 < args.port < 65536:
        raise SystemExit(f"tandem: --port must be between 1 and 65535 (got {args.port})")
    if headers:
        from tandem.tui.cli.entry import HEADER_ENV

        # The sessions' command line is visible to every local user (ps); the environment is not.
        os.environ[HEADER_ENV] = "\n".join(f"{name}: {value}" for name, value in headers.items())
    if not _loopback(args.host):
        print(f"tandem: warning: serving on {args.host}: anyone who can reach it can talk to your agent "
              "and see your threads; prefer 127.0.0.1 and an SSH tunnel", file=sys.stderr)
    print(f"tandem: open http://{args.host}:{args.port} in a browser (Ctrl+C stops)", file=sys.stderr, flush=True)
    server = Server(web_command(args), host=args.host, port=args.port, title="Tandem", templates_path=TEMPLATES)
    server.serve()
    return 0
