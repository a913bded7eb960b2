"""The embedded demo agent: a scripted, deterministic AG-UI 1.0 server.

Tandem talks to it when no ``--url`` is given, through the same path as a
remote server (SSE bytes → events → updates): either in process, by feeding
:func:`encode_sse` into the client's SSE parser, or over HTTP with
:func:`create_app`. The scenarios are listed in :data:`SCENARIOS`.
"""

from __future__ import annotations

from .agent import DemoAgent
from .scenarios import SCENARIOS, Scenario, Selection, select_scenario
from .server import create_app, encode_sse

__all__ = ["SCENARIOS", "DemoAgent", "Scenario", "Selection", "create_app", "encode_sse", "select_scenario"]
