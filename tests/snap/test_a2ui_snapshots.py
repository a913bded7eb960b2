"""Snapshots of A2UI surfaces: every basic-catalog component, in the dark and high-contrast themes."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll

from tandem.core import BlockEnv, ChatUpdate, UIAgent
from tandem.core.a2ui import SurfaceBlock, install_a2ui
from tandem.core.agui.demo.scenarios_booking import booking_form
from tandem.core.content import ActivityContent
from tandem.core.scripted import ScriptedChatClient
from tandem.themes import THEMES
from tandem.widgets import view_for

pytestmark = pytest.mark.filterwarnings("ignore::a2ui.core.resolution.MissingDataBindingWarning")

CAT = "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"
SIZE = (100, 72)


def catalog_tour() -> list[dict[str, Any]]:
    """Every basic-catalog component at least once, plus an unknown type and a missing child."""
    comps = [
        {"id": "root", "component": "Column", "children": ["h1", "row", "tabs", "card", "div", "inputs", "media", "modal", "unknown", "missing"]},
        {"id": "h1", "component": "Text", "text": "Catalog [b]tour[/b]", "variant": "h1"},
        {"id": "row", "component": "Row", "justify": "spaceBetween", "children": ["icon", "cap", "body"]},
        {"id": "icon", "component": "Icon", "name": "star"},
        {"id": "cap", "component": "Text", "text": "a caption", "variant": "caption"},
        {"id": "body", "component": "Text", "text": "Some **bold**, *italic* and `code`", "weight": 2},
        {"id": "tabs", "component": "Tabs", "tabs": [{"title": "First", "child": "t1"}, {"title": "Second", "child": "t2"}]},
        {"id": "t1", "component": "Text", "text": "First tab body", "variant": "h3"},
        {"id": "t2", "component": "Text", "text": "Second tab body"},
        {"id": "card", "component": "Card", "child": "cardcol"},
        {"id": "cardcol", "component": "List", "children": {"componentId": "item", "path": "/items"}},
        {"id": "item", "component": "Text", "text": {"path": "name"}, "variant": "h5"},
        {"id": "div", "component": "Divider"},
        {"id": "inputs", "component": "Column", "children": ["tf", "tfl", "tfn", "tfo", "cb", "cp", "cpm", "sl", "dt", "btn"]},
        {"id": "tf", "component": "TextField", "label": "Name", "value": {"path": "/name"}},
        {"id": "tfl", "component": "TextField", "label": "Notes", "variant": "longText", "value": {"path": "/notes"}},
        {"id": "tfn", "component": "TextField", "label": "Guests", "variant": "number", "value": {"path": "/guests"}},
        {"id": "tfo", "component": "TextField", "label": "Secret", "variant": "obscured", "value": {"path": "/secret"}, "validationRegexp": "^[0-9]{4}$"},
        {"id": "cb", "component": "CheckBox", "label": "Breakfast", "value": {"path": "/breakfast"}},
        {"id": "cp", "component": "ChoicePicker", "label": "Room", "options": [{"label": "Single", "value": "single"}, {"label": "Double", "value": "double"}], "value": {"path": "/room"}, "filterable": True},
        {"id": "cpm", "component": "ChoicePicker", "label": "Extras", "variant": "multipleSelection", "options": [{"label": "Parking", "value": "parking"}, {"label": "Late checkout", "value": "late"}], "value": {"path": "/extras"}},
        {"id": "sl", "component": "Slider", "label": "Nights", "min": 1, "max": 14, "value": {"path": "/nights"}},
        {"id": "dt", "component": "DateTimeInput", "label": "Check-in", "enableDate": True, "value": {"path": "/date"}},
        {"id": "btn", "component": "Button", "child": "btntext", "variant": "primary", "checks": [{"condition": {"call": "required", "args": {"value": {"path": "/name"}}}, "message": "Name is required"}], "action": {"event": {"name": "go"}}},
        {"id": "btntext", "component": "Text", "text": "Submit"},
        {"id": "media", "component": "Row", "children": ["img", "vid", "aud"]},
        {"id": "img", "component": "Image", "url": "https://example.com/a.png", "description": "A photo"},
        {"id": "vid", "component": "Video", "url": "https://example.com/v.mp4"},
        {"id": "aud", "component": "AudioPlayer", "url": "https://example.com/a.mp3", "description": "Jingle"},
        {"id": "modal", "component": "Modal", "trigger": "mtrig", "content": "mcontent"},
        {"id": "mtrig", "component": "Text", "text": "Details"},
        {"id": "mcontent", "component": "Text", "text": "Modal content"},
        {"id": "missing", "component": "Row", "children": ["notyet"]},
        {"id": "unknown", "component": "Map", "center": {"path": "/room"}, "action": {"event": {"name": "map_clicked"}}},
    ]
    return [
        {"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": CAT, "theme": {"agentDisplayName": "Demo"}}},
        {"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": comps}},
        {"version": "v0.9", "updateDataModel": {"surfaceId": "s", "path": "/", "value": {"items": [{"name": "one"}, {"name": "two"}], "room": ["double"], "nights": 3, "breakfast": True, "extras": ["late"]}}},
    ]


def surface(operations: list[dict[str, Any]]) -> SurfaceBlock:
    agent = UIAgent(ScriptedChatClient([]), env=BlockEnv(user="ann", clock=lambda: 1_767_225_600.0))
    install_a2ui(agent)
    agent.pipeline.begin_segment("t1", 0)
    part = ActivityContent(activity_id="a", activity_type="a2ui-surface", content={"a2ui_operations": operations})
    agent.pipeline.process(ChatUpdate(contents=[part], message_id="m1"))
    return next(b for b in agent.pipeline.blocks if isinstance(b, SurfaceBlock))


class _Host(App[None]):
    def __init__(self, block: SurfaceBlock, theme: str) -> None:
        super().__init__()
        self.block = block
        self.theme_name = theme

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield view_for(self.block)

    def on_mount(self) -> None:
        for theme in THEMES:
            self.register_theme(theme)
        self.theme = self.theme_name


def test_catalog_tour_dark(snap_compare):
    """You should see one framed surface titled "Agent UI · Demo", its error line saying the basic
    catalog has no component 'Map' (reported to the agent), then an underlined h1 shown with its
    brackets literally, a row (★, an italic caption, styled body text), tabs (First selected), a
    card listing "one" and "two", a rule, the text fields (Name, Notes, Guests, Secret), a ticked
    Breakfast checkbox, the Room radio set (Double chosen) under a filter input, the Extras list
    (Late checkout selected), the Nights slider at 3, an empty Check-in input, a disabled Submit
    button with "⚠ Name is required", three media placeholders with URLs, a Details button, a
    dashed "Unsupported component Map" box with its props and a "Run its action" button, and
    "… waiting for notyet"."""
    assert snap_compare(_Host(surface(catalog_tour()), "tandem-dark"), terminal_size=SIZE)


def test_catalog_tour_high_contrast(snap_compare):
    """The same surface as the dark snapshot in black, white and yellow only; every state
    (ticked box, chosen radio, selected extra, disabled button and its message) still reads."""
    assert snap_compare(_Host(surface(catalog_tour()), "tandem-high-contrast"), terminal_size=SIZE)


def test_booking_form_dark(snap_compare):
    """You should see the demo's booking form framed "Agent UI · Demo concierge": Guest name,
    Room type (Double chosen), Check-in date, Breakfast included, the caption "Fill in the form,
    then press Book." and a disabled Book button with "⚠ Enter the guest's name to book."."""
    assert snap_compare(_Host(surface(booking_form()), "tandem-dark"), terminal_size=(100, 40))


def test_invalid_surface_error_line_high_contrast(snap_compare):
    """You should see a surface whose error line starts "⚠ Invalid UI from the agent at
    /components/0" above the part that was valid ("Still shown"): the batch with the broken
    Button was rejected as a whole."""
    operations = [
        {"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": CAT}},
        {"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [
            {"id": "root", "component": "Text", "text": "Still shown"},
        ]}},
        {"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [
            {"id": "broken", "component": "Button"},
        ]}},
    ]  # fmt: skip
    assert snap_compare(_Host(surface(operations), "tandem-high-contrast"), terminal_size=(80, 12))
