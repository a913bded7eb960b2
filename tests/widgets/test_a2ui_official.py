"""Every official A2UI v0.9 example and labelled case through the real client path.

Valid ones (the 50 examples of @a2ui/web_core 0.11.0 and the valid labelled cases) must render
completely: every text a person should read — Text contents, labels, option labels, tab titles,
media descriptions, button and modal trigger labels — is drawn on the screen inside its
component's widget (tabs are visited one by one, modals opened), nothing is a fallback or a
placeholder, and nothing is reported to the agent. Invalid ones must be rejected: reported to
the agent as VALIDATION_FAILED with a sentence naming the component, and shown on the surface.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from tests.helpers.a2ui_official import Case, Host, drawn_text, examples, feed, labelled_cases, plain, squeeze
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Button, Static, TabbedContent, TabPane

from tandem.core.a2ui import ResolvedComponent
from tandem.widgets.a2ui_components import FallbackComponent, PlaceholderComponent, SurfaceModal
from tandem.widgets.a2ui_surface import SurfaceView, render_keys

pytestmark = pytest.mark.filterwarnings("ignore::a2ui.core.resolution.MissingDataBindingWarning")

SIZE = (120, 320)
_LABELLED = ("TextField", "CheckBox", "ChoicePicker", "Slider", "DateTimeInput")
_PYDANTIC = ("function-after", "function-before", "tagged-union", "[_check", "ActionEventWrapper")


def expected_texts(node: ResolvedComponent) -> list[str]:
    """What a person must be able to read of one component (as plain text)."""
    props = node.props
    texts: list[Any] = []
    if node.type == "Text":
        texts.append(props.get("text"))
    elif node.type in _LABELLED:
        texts.append(props.get("label"))
    elif node.type in ("Image", "Video", "AudioPlayer"):
        texts.append(props.get("description"))
    if node.type == "ChoicePicker":
        texts.extend(o.get("label") for o in props.get("options") or [] if isinstance(o, dict))
    if node.type == "Tabs":
        texts.extend(t.get("title") for t in props.get("tabs") or [] if isinstance(t, dict))
    return [plain(str(t)) for t in texts if t not in (None, "") and not isinstance(t, (dict, list))]


async def _until(pilot: Pilot[None], condition: Callable[[], bool]) -> None:
    """Let the app process messages until `condition` holds (bounded by a count, not by time)."""
    for _ in range(50):
        if condition():
            return
        await pilot.pause()


async def missing_texts(pilot: Pilot[None], view: SurfaceView) -> list[str]:
    """Every expected text not drawn inside its component's widget (or the nearest one drawn)."""
    root = view.surface.tree()
    assert root is not None
    keys = {id(node): key for key, node in render_keys(root)}
    missing: list[str] = []

    async def visit(node: ResolvedComponent, holder: Widget | None, prefix: str = "") -> None:
        key = keys[id(node)]
        widget = view.widget_for(prefix + key) or holder
        assert widget is not None, key
        shown = squeeze(drawn_text(widget))
        missing.extend(f"{key}: {text!r} not in {drawn_text(widget)!r}" for text in expected_texts(node) if squeeze(text) not in shown)
        if node.type == "Tabs":
            tabbed = widget.query_one(TabbedContent)
            for pane, child in zip(tabbed.query(TabPane).results(TabPane), node.slots.get("tabs", ())):
                tabbed.active = pane.id or ""
                await _until(pilot, lambda pane=pane: pane.region.area > 0)
                await visit(child, widget, prefix)
        elif node.type == "Modal" and not prefix:
            for child in node.slots.get("trigger", ()):
                await visit(child, widget, prefix)
            widget.query_one(Button).press()
            await _until(pilot, lambda: isinstance(pilot.app.screen, SurfaceModal))
            for content in node.slots.get("content", ()):
                await _until(pilot, lambda content=content: (w := view.widget_for("modal:" + keys[id(content)])) is not None and w.region.area > 0)
            for child in node.slots.get("content", ()):
                await visit(child, None, "modal:")
            pilot.app.screen.dismiss(None)  # type: ignore[attr-defined]
            await _until(pilot, lambda: not isinstance(pilot.app.screen, SurfaceModal))
        else:
            for child in node.children:
                await visit(child, widget, prefix)

    await visit(root, None)
    return missing


async def render_completely(case: Case) -> None:
    fed = feed(case.messages)
    assert fed.blocks, "no surface"
    assert [e["error"]["message"] for e in fed.errors()] == []
    app = Host(fed.blocks)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for view in app.query(SurfaceView).results(SurfaceView):
            if not view.surface.live or not any("updateComponents" in m for m in case.messages):
                continue  # a createSurface alone: nothing to render yet
            assert view.surface.tree() is not None
            assert not list(view.query(FallbackComponent)), "a component rendered as unsupported"
            assert not list(view.query(PlaceholderComponent)), "a child never arrived"
            assert await missing_texts(pilot, view) == []


EXAMPLES = examples()
VALID_CASES = [c for c in labelled_cases() if c.valid]
INVALID_CASES = [c for c in labelled_cases() if not c.valid]


def test_the_vendored_material_is_all_there() -> None:
    assert len(EXAMPLES) == 50  # 43 basic + 7 minimal
    assert len(VALID_CASES) + len(INVALID_CASES) == 73  # + 3 client-to-server cases: 76 labelled
    assert len(INVALID_CASES) == 38


@pytest.mark.parametrize("case", EXAMPLES, ids=[c.name for c in EXAMPLES])
async def test_every_official_example_renders_completely(case: Case) -> None:
    await render_completely(case)


@pytest.mark.parametrize("case", VALID_CASES, ids=[c.name for c in VALID_CASES])
async def test_every_valid_labelled_case_renders_completely(case: Case) -> None:
    await render_completely(case)


@pytest.mark.parametrize("case", INVALID_CASES, ids=[c.name for c in INVALID_CASES])
async def test_every_invalid_labelled_case_is_rejected_and_reported(case: Case) -> None:
    fed = feed(case.messages)
    errors = fed.errors()
    assert errors, f"accepted: {case.source}"
    for error in errors:
        body = error["error"]
        assert body["code"] == "VALIDATION_FAILED"
        assert not any(marker in body["message"] for marker in _PYDANTIC), body["message"]
    components = [c for m in case.messages for c in (m.get("updateComponents") or {}).get("components", [])]
    ids = [c["id"] for c in components if isinstance(c, dict) and isinstance(c.get("id"), str) and c["id"] != "root"]
    if ids:  # the sentence names the component that is wrong
        assert any(any(f"'{cid}'" in e["error"]["message"] for cid in ids) for e in errors), errors
    app = Host(fed.blocks)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        lines = [squeeze(drawn_text(view.query_one(".surface-view--error", Static))) for view in app.query(SurfaceView).results(SurfaceView)]
        assert any(line.startswith("⚠") for line in lines), lines
