"""The public surface of `widgets` and `themes`, and the layer rule."""

from __future__ import annotations

import subprocess
import sys

from tandem import widgets
from tandem import themes


def test_widgets_all_matches_public_names() -> None:
    for name in widgets.__all__:  # names load their module on first use: each must resolve
        getattr(widgets, name)
    public = {name for name in vars(widgets) if not name.startswith("_") and name not in {"annotations"}}
    imported_modules = {name for name, value in vars(widgets).items() if type(value).__name__ == "module"}
    core_names = {"ActivityBlock", "ApprovalBlock", "Block", "ErrorBlock", "InterruptBlock", "ReasoningBlock", "TextBlock",
                  "ToolCallBlock", "UIActionBlock", "UnhandledContentBlock", "DebugBlock"}
    assert set(widgets.__all__) == public - imported_modules - core_names


def test_themes_all_names_exist() -> None:
    assert all(hasattr(themes, name) for name in themes.__all__)
    assert [theme.name for theme in themes.THEMES] == ["tandem-dark", "tandem-light", "tandem-high-contrast"]
    assert themes.MAIN_SCREEN_TCSS.is_file()


def test_widgets_never_import_a_transport_or_the_app() -> None:
    code = "import sys, tandem.widgets; bad = [m for m in ('httpx', 'tandem.tui', 'tandem.core.agui') if m in sys.modules]; print(bad)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"


def test_the_state_panel_loads_no_block_view() -> None:
    """Mounted before a resumed thread's first frame: the views, Markdown and jsonschema come later."""
    code = ("import sys, tandem.widgets.state_panel; "
            "print([m for m in ('tandem.widgets.text', 'tandem.widgets.interrupt', 'markdown_it', 'jsonschema') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"


def test_importing_widgets_leaves_a2ui_for_later() -> None:
    """a2ui-core's catalog (~300 ms) is imported when a surface is first shown, not with the package."""
    code = "import sys, tandem.widgets; print([m for m in ('tandem.core.a2ui', 'tandem.widgets.a2ui_surface') if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"


def test_every_lazy_view_resolves() -> None:
    """Each (block kind → view module) entry names a real block class and a real BlockView."""
    import importlib

    from tandem.core.blocks import Block

    from tandem.widgets.views import _BLOCK_VIEWS, TOOL_VIEWS

    for module, name in TOOL_VIEWS.values():
        assert issubclass(getattr(importlib.import_module(module), name), widgets.BlockView), (module, name)
    for block_path, (module, name) in _BLOCK_VIEWS.items():
        block_module, _, block_name = block_path.rpartition(".")
        assert issubclass(getattr(importlib.import_module(block_module), block_name), Block), block_path
        assert issubclass(getattr(importlib.import_module(module), name), widgets.BlockView), (module, name)
