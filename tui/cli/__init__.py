"""The headless entry points (`tandem`, `ask`, `threads`, `agents`, `export`, `serve-demo`, `web`).

Light by design: `tandem --help` and `tandem ask` import no Textual (tests/tui/test_startup_imports.py).
"""

from __future__ import annotations

__all__: list[str] = []
