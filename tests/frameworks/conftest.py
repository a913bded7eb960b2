"""Fixtures for the live framework tests: a real ag-ui-langgraph server on 127.0.0.1.

- `langgraph_server` (session): a `LangGraphServer` (`.url`, `.requests`); what the scripted graph
  does is listed in `tests.helpers.langgraph_server`'s module docstring.

The servers need the `frameworks` test extra (`pip install -e ".[test,frameworks]"`, which
`.ci/run` does). Without it the test modules skip themselves, except in CI (`CI` set), where a
missing extra is an error, not a silent skip.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="session")
def langgraph_server() -> Iterator[Any]:
    """The scripted LangGraph AG-UI server (a `LangGraphServer`), started once per test session."""
    from tests.helpers.langgraph_server import serve_langgraph

    with serve_langgraph() as server:
        yield server
