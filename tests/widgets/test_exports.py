"""The public surface of `widgets` and `themes`, and the layer rule."""

from __future__ import annotations

import subprocess
import sys

import widgets
import themes


def test_widgets_all_matches_public_names() -> None:
    public = {name for name in vars(widgets) if not name.startswith("_") and name not in {"annotations"}}
    imported_modules = {name for name, value in vars(widgets).items() if type(value).__name__ == "module"}
    core_names = {"ActivityBlock", "ApprovalBlock", "Block", "ErrorBlock", "InterruptBlock", "ReasoningBlock", "TextBlock",
                  "ToolCallBlock", "UIActionBlock", "UnhandledContentBlock", "DebugBlock", "TOOL_VIEWS"}
    assert set(widgets.__all__) == public - imported_modules - core_names


def test_themes_all_names_exist() -> None:
    assert all(hasattr(themes, name) for name in themes.__all__)
    assert [theme.name for theme in themes.THEMES] == ["tandem-dark", "tandem-light", "tandem-high-contrast"]
    assert themes.MAIN_SCREEN_TCSS.is_file()


def test_widgets_never_import_a_transport_or_the_app() -> None:
    code = "import sys, widgets; bad = [m for m in ('httpx', 'tui', 'core.agui') if m in sys.modules]; print(bad)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"
