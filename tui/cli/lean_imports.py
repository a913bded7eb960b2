"""Optional imports of Tandem's libraries that the `tandem` process never uses, skipped at start-up.

A library that finds an optional module installed imports it eagerly, and pays for it in every
process, used or not. Two of them sit on the path of `tandem ask` to its first byte of output
(measured with `tests/perf/bench_startup.py --importtime`):

- `httpx._main`: `import httpx` imports httpx's own command-line client whenever click, rich and
  pygments are installed, and they always are beside Tandem (Textual needs rich, uvicorn click):
  about a third of the cost of importing httpx, for a command Tandem never runs.
- `trio`: httpcore imports it, when installed, to support trio event loops; Tandem runs on
  asyncio. It is not one of Tandem's dependencies, but is often installed beside it (selenium,
  a test dependency, brings it), and then costs more than the rest of httpcore.

Mapping a name to None in `sys.modules` is Python's own way to make an import of it fail with
ImportError, which both libraries expect (httpx then defines a `main` that says its CLI is not
installed; httpcore supports asyncio only). Only the `tandem` command does this, as its process
starts: the process is Tandem's own (no plugins, no user code). A module already imported is
left as it is.
"""

from __future__ import annotations

import sys

__all__ = ["UNUSED", "skip_unused_imports"]

UNUSED = ("httpx._main", "trio")
"""Modules the `tandem` process never needs (see the module docstring)."""


def skip_unused_imports() -> list[str]:
    """Make later imports of `UNUSED` modules fail fast (ImportError); returns the names skipped."""
    skipped = [name for name in UNUSED if name not in sys.modules]
    for name in skipped:
        sys.modules[name] = None  # type: ignore[assignment]
    return skipped
