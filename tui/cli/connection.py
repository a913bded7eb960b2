"""Which agent a command talks to: `--url`, `--agent NAME`, a continued thread's own, or the config's default.

One rule for the app and `tandem ask`:

1. `--url URL` (with `--header`/`TANDEM_HEADERS`) — `--agent` may not be given with it;
2. `--agent NAME`: the configured agent's URL and headers (references resolved now);
3. a thread being continued (`--resume`, `ask -c`, `ask --thread`) talks to the server it was
   saved with, with the headers of the configured agent at that URL if there is one;
4. the config's `default_agent`;
5. otherwise the embedded demo agent.

Headers given on the command line are added to (and override) the agent's. Light: no core at import.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tandem.tui.cli.config import Config, resolve_headers

__all__ = ["Agent", "UNSET", "settle_agent"]

UNSET: Any = object()
"""`thread_url` when no thread is being continued."""


@dataclass(frozen=True)
class Agent:
    """The agent a command reaches: its endpoint (None: the demo agent) and every header to send.

    Holds resolved header values: its repr names the headers only; never print or store them.
    """

    url: str | None
    headers: Mapping[str, str]
    name: str | None = None
    """The configured agent's name, if one was used."""

    def __repr__(self) -> str:  # never the header values
        return f"Agent(url={self.url!r}, name={self.name!r}, headers={sorted(self.headers)})"


def settle_agent(url: str | None, name: str | None, cli_headers: Mapping[str, str], config: Config,
                 environ: Mapping[str, str], *, thread_url: Any = UNSET) -> Agent:
    """The agent for `--url` (`url`) and `--agent` (`name`), by the module's rule.

    Args:
        cli_headers: Headers from `--header` and `TANDEM_HEADERS`.
        config: The configuration file, read.
        environ: Where `env:` header references are looked up.
        thread_url: The server URL a continued thread was saved with (None: the demo agent);
            `UNSET` when no thread is being continued.

    Raises:
        ConfigError: the agent is unknown, or a reference cannot be resolved (one line, never a value).
        ValueError: `--agent` and `--url` were both given (a usage error).
    """
    if name and url:
        raise ValueError("give --agent or --url, not both")
    headers = dict(cli_headers)
    if not name and not url and thread_url is not UNSET:
        url = thread_url
        name = _agent_at(config, thread_url)
    elif not name and not url:
        name = config.default_agent
    if name:
        agent = config.agent(name)
        url = agent.url
        headers = {**resolve_headers(agent, config.path, environ), **cli_headers}
    return Agent(url=url, headers=headers, name=name)


def _agent_at(config: Config, url: str | None) -> str | None:
    """The configured agent whose URL is `url` (as stored: without credentials or query)."""
    if not url:
        return None
    from tandem.core.store import strip_credentials

    for agent in config.agents.values():
        if strip_credentials(agent.url) == url:
            return agent.name
    return None
