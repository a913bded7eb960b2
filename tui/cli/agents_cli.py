"""`tandem agents`: the configured agents, the default one marked, and whether their secrets resolve.

Never prints a header's value: only its name and how it is given (`env:VAR`, `keyring:…` or
`literal`), and whether the reference resolves now (`set` / `missing`).
"""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from tandem.core.sanitize import reveal
from tandem.tui.cli.config import Config, ConfigError, load_config, reference_kind, resolve_headers

__all__ = ["run_agents"]


def run_agents(args: argparse.Namespace, *, out: TextIO | None = None, err: TextIO | None = None,
               config: Config | None = None) -> int:
    """List the configured agents; exit status 0, or 2 for a bad configuration file."""
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        config = load_config() if config is None else config
    except ConfigError as exc:
        print(f"tandem: {exc}", file=err)
        return 2
    if not config.agents:
        print(f"No agents configured in {config.path} (without one, tandem uses the embedded demo agent).", file=out)
        return 0
    print(f"Agents in {config.path}:", file=out)
    for name in sorted(config.agents):
        agent = config.agents[name]
        marker = "*" if name == config.default_agent else " "
        # Names identify: nothing hidden in them (a config file may hold any character).
        print(f"{marker} {reveal(name)}  {reveal(agent.url)}", file=out)
        for header, value in sorted(agent.headers.items()):
            kind = reference_kind(value)
            given = value if kind != "literal" else "literal"
            print(f"    {reveal(header)}: {reveal(given)} ({_resolves(agent.name, header, config)})", file=out)
    if config.default_agent:
        print("(* the default agent)", file=out)
    return 0


def _resolves(agent_name: str, header: str, config: Config) -> str:
    agent = config.agents[agent_name]
    single = type(agent)(name=agent.name, url=agent.url, headers={header: agent.headers[header]})
    try:
        resolve_headers(single, config.path)
    except ConfigError:
        return "missing"
    return "set"
