"""Which agent a command talks to: `--url`, `--agent NAME`, a continued thread's own, or the config's default.

One rule for the app and `tandem ask`:

1. `--url URL` (with `--header`/`TANDEM_HEADERS`) — `--agent` may not be given with it;
2. `--agent NAME`: the configured agent's URL and headers (references resolved now);
3. a thread being continued (`--resume`, `ask -c`, `ask --thread`) talks to the server it was
   saved with, with the headers of the configured agent at that URL if there is one;
4. the config's `default_agent`;
5. otherwise the embedded demo agent.

Headers given on the command line are added to (and override) the agent's.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, field
from typing import Any

from tandem.tui.cli.config import ApprovalPolicy, Config, ConfigError, load_config, resolve_headers
from tandem.tui.cli.timeouts import TIMEOUT_ENV

__all__ = ["Connection", "settle_connection", "settle_app_connection", "UNSET"]

UNSET: Any = object()
"""`thread_url` when no thread is being continued."""


@dataclass
class Connection:
    """Everything a command needs to reach its agent, settled from the arguments and the config.

    Holds resolved header values: never print or store it.
    """

    url: str | None
    headers: dict[str, str]
    agent: str | None = None
    """The configured agent's name, if one was used."""
    client_options: dict[str, Any] = field(default_factory=dict)
    """`backend.build_chat_client` keyword arguments: the timeouts."""
    theme: str | None = None
    approvals: dict[str, ApprovalPolicy] = field(default_factory=dict)
    frame_ms: float | None = None
    """The config file's `frame_ms` (the flag and the environment variable win; see `tui.cli.app_main`)."""
    repaint: str | None = None
    """The config file's `repaint` (the flag and the environment variable win)."""

    def __repr__(self) -> str:  # never the header values
        return f"Connection(url={self.url!r}, agent={self.agent!r}, headers={sorted(self.headers)})"


def settle_connection(
    args: argparse.Namespace, cli_headers: dict[str, str], *, thread_url: Any = UNSET, config: Config | None = None
) -> Connection:
    """The agent for these arguments (see the module's rule).

    Args:
        args: Parsed arguments with `url` and `agent` (and optionally `theme`, timeouts).
        cli_headers: Headers from `--header` and `TANDEM_HEADERS`.
        thread_url: The server URL a continued thread was saved with (None: the demo agent);
            `UNSET` when no thread is being continued.
        config: The configuration (default: read from its file).

    Raises:
        ConfigError: the config file is wrong, the agent is unknown, or a reference cannot be
            resolved (one line, never a value).
        ValueError: `--agent` and `--url` were both given (a usage error).
    """
    config = load_config() if config is None else config
    name: str | None = getattr(args, "agent", None)
    if name and args.url:
        raise ValueError("give --agent or --url, not both")
    url: str | None = args.url
    headers = dict(cli_headers)
    if not name and not url and thread_url is not UNSET:
        url = thread_url
        name = _agent_at(config, thread_url)
    elif not name and not url:
        name = config.default_agent
    if name:
        agent = config.agent(name)
        url = agent.url
        headers = {**resolve_headers(agent, config.path), **cli_headers}
    options: dict[str, Any] = {}
    for name, configured in (("connect", config.connect_timeout), ("read", config.read_timeout)):
        # One order for every timeout: flag, then variable, then config file, then default. A
        # flag reaches the client through its variable (`tui.cli.entry`), so a set variable means
        # "given on the command line or in the environment": the config file yields to both.
        if getattr(args, f"{name}_timeout", None) is not None or os.environ.get(TIMEOUT_ENV[name], "").strip():
            continue
        if configured is not None:
            options[f"{name}_timeout"] = configured
    return Connection(
        url=url,
        headers=headers,
        agent=name,
        client_options=options,
        theme=getattr(args, "theme", None) or config.theme,
        approvals=dict(config.approvals),
        frame_ms=config.frame_ms,
        repaint=config.repaint,
    )


def settle_app_connection(args: argparse.Namespace, cli_headers: dict[str, str]) -> dict[str, str]:
    """Settle the app's agent into `args` (`url`, `theme`, `client_options`, and the config file's
    `configured_frame_ms` and `configured_repaint`); return its headers.

    The `[approvals]` policy is `tandem ask`'s: the app always asks.

    `tandem --resume ID` of a thread saved with a server reopens it on that server.

    Raises:
        SystemExit: (status 2) a bad config file, an unknown agent, an unset secret, or
            `--agent` with `--url`; the one-line message names the file and key.
    """
    thread_url: Any = UNSET
    try:
        if args.resume is not None and not args.url and not args.agent:
            from tandem.tui.cli.ask_threads import AskThread

            endpoint = AskThread(resume=args.resume).endpoint()
            thread_url = endpoint.url if endpoint is not None else UNSET
        connection = settle_connection(args, cli_headers, thread_url=thread_url)
    except (ConfigError, ValueError) as exc:
        import sys

        print(f"tandem: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    except Exception as exc:  # the store: the app says the same once it starts, in its own words
        from tandem.core.errors import LogStoreError

        if not isinstance(exc, LogStoreError):
            raise
        connection = settle_connection(args, cli_headers)
    args.url = connection.url
    args.theme = connection.theme
    args.client_options = connection.client_options
    args.configured_frame_ms = connection.frame_ms
    args.configured_repaint = connection.repaint
    return connection.headers


def _agent_at(config: Config, url: str | None) -> str | None:
    """The configured agent whose URL is `url` (as stored: without credentials or query)."""
    if not url:
        return None
    from tandem.core.store import strip_credentials

    for agent in config.agents.values():
        if strip_credentials(agent.url) == url:
            return agent.name
    return None

