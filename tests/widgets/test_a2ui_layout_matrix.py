"""Layout matrix: every container × every align/justify value × every kind of child.

Each child carries a unique text; the test asserts the text is drawn on the screen inside the
child's own widget, so a child that collapses to zero width (a Card or Column inside a
centred Column did) fails here. One app per container and setting, one surface per child kind.
"""

from __future__ import annotations

from typing import Any

import pytest
from tests.helpers.a2ui_official import BASIC, Host, drawn_text, feed, squeeze

from tandem.widgets.a2ui_surface import SurfaceView

pytestmark = pytest.mark.filterwarnings("ignore::a2ui.core.resolution.MissingDataBindingWarning")

ALIGN = ("start", "center", "end", "stretch")
JUSTIFY = ("start", "center", "end", "spaceBetween", "spaceAround", "spaceEvenly", "stretch")


def _text(cid: str, text: str) -> dict[str, Any]:
    return {"id": cid, "component": "Text", "text": text}


# child kind → (components under the child id "c", the texts that must show)
CHILDREN: dict[str, list[dict[str, Any]]] = {
    "Text": [_text("c", "alpha text")],
    "Card>Text": [{"id": "c", "component": "Card", "child": "t"}, _text("t", "card text")],
    "Column>Text": [{"id": "c", "component": "Column", "children": ["t"]}, _text("t", "column text")],
    "Row>Text": [{"id": "c", "component": "Row", "children": ["t", "u"]}, _text("t", "row one"), _text("u", "row two")],
    "Card>Column>Text": [{"id": "c", "component": "Card", "child": "k"}, {"id": "k", "component": "Column", "children": ["t"]}, _text("t", "hello")],
    "Card>Row>Text": [{"id": "c", "component": "Card", "child": "k"}, {"id": "k", "component": "Row", "children": ["t", "u"]}, _text("t", "left"), _text("u", "right")],
    "Column>Card>Row>Text": [{"id": "c", "component": "Column", "children": ["d"]}, {"id": "d", "component": "Card", "child": "k"}, {"id": "k", "component": "Row", "children": ["t"]}, _text("t", "deep text")],
    "List>Text": [{"id": "c", "component": "List", "children": ["t", "u"]}, _text("t", "item one"), _text("u", "item two")],
    "Button": [{"id": "c", "component": "Button", "child": "t", "action": {"event": {"name": "go"}}}, _text("t", "press me")],
    "TextField": [{"id": "c", "component": "TextField", "label": "your name", "value": {"path": "/n"}}],
    "CheckBox": [{"id": "c", "component": "CheckBox", "label": "agree to it", "value": {"path": "/b"}}],
    "Long Text": [_text("c", "a rather long sentence that has to wrap inside whatever width it is given " * 2)],
}


def _texts(components: list[dict[str, Any]]) -> list[str]:
    return [c.get("text") or c.get("label") for c in components if c.get("component") in ("Text", "TextField", "CheckBox")]  # type: ignore[misc]


SETTINGS = [(container, key, value) for container in ("Column", "Row", "List") for key, values in (("align", ALIGN), ("justify", JUSTIFY)) for value in values if not (container == "List" and key == "justify")]
SETTINGS += [("List-horizontal", "align", value) for value in ALIGN]
SETTINGS += [("Card", "in-column-align", value) for value in ALIGN]


def _surface(sid: str, container: str, key: str, value: str, child: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if container == "Card":  # Column{align} > Card > child
        outer = [{"id": "root", "component": "Column", "align": value, "children": ["card"]}, {"id": "card", "component": "Card", "child": "c"}]
    else:
        kind = "List" if container.startswith("List") else container
        root: dict[str, Any] = {"id": "root", "component": kind, "children": ["c"], key: value}
        if container == "List-horizontal":
            root["direction"] = "horizontal"
        outer = [root]
    return [
        {"version": "v0.9", "createSurface": {"surfaceId": sid, "catalogId": BASIC}},
        {"version": "v0.9", "updateComponents": {"surfaceId": sid, "components": [*outer, *child]}},
    ]


@pytest.mark.parametrize(("container", "key", "value"), SETTINGS, ids=[f"{c}-{k}-{v}" for c, k, v in SETTINGS])
async def test_every_child_kind_shows_its_text(container: str, key: str, value: str) -> None:
    blocks = []
    for index, (kind, child) in enumerate(CHILDREN.items()):
        fed = feed(_surface(f"s{index}", container, key, value, child), step=False)
        assert fed.errors() == [], kind
        blocks.extend(fed.blocks)
    app = Host(blocks)
    async with app.run_test(size=(100, 200)) as pilot:
        await pilot.pause()
        missing = []
        for view, (kind, child) in zip(app.query(SurfaceView).results(SurfaceView), CHILDREN.items()):
            widget = view.widget_for("c")
            assert widget is not None, kind
            shown = squeeze(drawn_text(widget))
            missing.extend(f"{kind}: {text!r} not in {drawn_text(widget)!r}" for text in _texts(child) if squeeze(text) not in shown)
        assert missing == []
