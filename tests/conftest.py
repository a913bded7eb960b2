"""Shared test configuration: SVG snapshots in `snapshots/`, no cursor blink, throwaway user directories,
and the `slow` mark on the folders the fast tier leaves out.

pytest-textual-snapshot (pinned to 1.1.0 in pyproject.toml) writes `tests/__snapshots__/` next to
each test module by default; this one override of `SVGImageExtension.dirname` relocates them to
`snapshots/<test module>/`. Re-check it when the plugin's version changes.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from pytest_textual_snapshot import SVGImageExtension

from textual.app import App

from tandem.tui.terminal.widget_internals import TextualInternals

# Tandem's app carries them (`WireApp`); the widgets' tests on a plain App need them too.
App.widget_internals = TextualInternals()  # type: ignore[attr-defined]

SNAPSHOT_ROOT = Path(__file__).resolve().parent.parent / "snapshots"
"""Where every SVG snapshot is stored."""


def _snapshot_dirname(cls: type[SVGImageExtension], *, test_location: object) -> str:
    return str(SNAPSHOT_ROOT / test_location.basename)  # type: ignore[attr-defined]


SVGImageExtension.dirname = classmethod(_snapshot_dirname)  # type: ignore[method-assign,assignment]


# -- the cursor does not blink in tests ------------------------------------------------------------
# A blinking cursor is drawn or not depending on when the screenshot is taken, so a snapshot of a
# focused composer (a TextArea) or Input differs at random on a loaded machine. Textual has no
# switch for it; every TextArea and Input built in the test process starts with `cursor_blink`
# False instead (the reactive's default, read when each widget is built). The app itself is
# untouched. tests/tui/test_cursor_blink.py fails if a Textual upgrade moves this default.
def _cursor_does_not_blink() -> None:
    from textual.widgets import Input, TextArea

    for widget in (TextArea, Input):
        widget.__dict__["cursor_blink"]._default = False


_cursor_does_not_blink()


# -- nothing a test runs touches the developer's own threads or config ------------------------------
# `tandem` saves every conversation (the app and `tandem ask`) in the user data directory and
# reads config.toml from the user config directory. Every test, and every `tandem` a test starts
# as a subprocess (they inherit the environment), gets throwaway ones instead; tests that need
# their own still set XDG_DATA_HOME / XDG_CONFIG_HOME themselves.
_SANDBOX = Path(tempfile.mkdtemp(prefix="tandem-tests-"))
os.environ["XDG_DATA_HOME"] = str(_SANDBOX / "data")
os.environ["XDG_CONFIG_HOME"] = str(_SANDBOX / "config")
os.environ.pop("TANDEM_CONFIG", None)
os.environ.pop("TANDEM_HEADERS", None)


# -- the fast tier ----------------------------------------------------------------------------------
# `pytest -m "not e2e and not packaging and not slow"` (README.md). Every test in these folders runs
# the whole app under Pilot or starts `tandem` as a process: together most of the suite's time.
SLOW_FOLDERS = frozenset({"tui", "snap", "ask", "frameworks"})
"""Folders of tests/ whose tests are marked `slow`."""

_TESTS = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        parts = item.path.relative_to(_TESTS).parts
        if len(parts) > 1 and parts[0] in SLOW_FOLDERS:
            item.add_marker(pytest.mark.slow)
