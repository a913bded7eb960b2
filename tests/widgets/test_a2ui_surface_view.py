"""SurfaceView: frame, status and error lines, two-way binding, checks, actions, rebuilds."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.content import Content
from textual.widgets import Button, Input, RadioButton, SelectionList, Static

from tandem.core import BlockEnv, ChatUpdate, UIAgent
from tandem.core.a2ui import SurfaceBlock, install_a2ui
from tandem.core.content import ActivityContent
from tandem.core.scripted import ScriptedChatClient
from tandem.themes import THEMES
from tandem.widgets import view_for
from tandem.widgets.a2ui_surface import SurfaceView
from tandem.widgets.a2ui_components import ButtonComponent, FallbackComponent, PlaceholderComponent, SurfaceModal, inline_markdown
from tandem.widgets.a2ui_inputs import iso_error
from tandem.widgets.a2ui_slider import SliderBar

pytestmark = pytest.mark.filterwarnings("ignore::a2ui.core.resolution.MissingDataBindingWarning")

CATALOG = "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"
REQUIRED_NAME = {"condition": {"call": "required", "args": {"value": {"path": "/name"}}}, "message": "Name is required"}


def create(name: str = "Booking Bot") -> dict[str, Any]:
    return {"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": CATALOG, "theme": {"agentDisplayName": name}}}


def components(*items: dict[str, Any]) -> dict[str, Any]:
    return {"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": list(items)}}


def data(path: str, value: Any) -> dict[str, Any]:
    return {"version": "v0.9", "updateDataModel": {"surfaceId": "s", "path": path, "value": value}}


FORM = [
    create(),
    components(
        {"id": "root", "component": "Column", "children": ["name", "room", "extras", "nights", "date", "submit"]},
        {"id": "name", "component": "TextField", "label": "Name", "value": {"path": "/name"}},
        {"id": "room", "component": "ChoicePicker", "label": "Room", "options": [{"label": "Single", "value": "single"}, {"label": "Double", "value": "double"}], "value": {"path": "/room"}},
        {"id": "extras", "component": "ChoicePicker", "label": "Extras", "variant": "multipleSelection", "options": [{"label": "Parking", "value": "parking"}, {"label": "Late", "value": "late"}], "value": {"path": "/extras"}},
        {"id": "nights", "component": "Slider", "label": "Nights", "min": 1, "max": 5, "value": {"path": "/nights"}},
        {"id": "date", "component": "DateTimeInput", "label": "Check-in", "enableDate": True, "value": {"path": "/date"}},
        {"id": "submit", "component": "Button", "child": "submit-text", "checks": [REQUIRED_NAME], "action": {"event": {"name": "go", "context": {"who": {"path": "/name"}}}}},
        {"id": "submit-text", "component": "Text", "text": "Book"},
    ),
    data("/", {"room": ["double"], "extras": [], "nights": 2}),
]


class Surface:
    """A surface block fed through the real A2UI handler (engine side, same thread here)."""

    def __init__(self, *operations: dict[str, Any]) -> None:
        self.agent = UIAgent(ScriptedChatClient([]), env=BlockEnv(user="ann", clock=lambda: 1_767_225_600.0))
        install_a2ui(self.agent)
        self.agent.pipeline.begin_segment("t1", 0)
        if operations:
            self.send(*operations)

    def send(self, *operations: dict[str, Any]) -> None:
        content = {"a2ui_operations": list(operations)}
        self.agent.pipeline.process(ChatUpdate(contents=[ActivityContent(activity_id="a1", activity_type="a2ui-surface", content=content, replace=True)], message_id="m1"))

    @property
    def block(self) -> SurfaceBlock:
        [block] = [b for b in self.agent.pipeline.blocks if isinstance(b, SurfaceBlock) and b.surface_id == "s"]
        return block


class _Host(App[None]):
    def __init__(self, block: SurfaceBlock, *, write_back: bool = False) -> None:
        super().__init__()
        self.block = block
        self.write_back = write_back
        self.values: list[tuple[str, Any]] = []
        self.actions: list[tuple[str, str]] = []

    def compose(self) -> ComposeResult:
        yield view_for(self.block)

    def on_mount(self) -> None:
        for theme in THEMES:
            self.register_theme(theme)
        self.theme = "tandem-dark"

    @property
    def view(self) -> SurfaceView:
        return self.query_one(SurfaceView)

    def on_surface_view_value_changed(self, message: SurfaceView.ValueChanged) -> None:
        self.values.append((message.path, message.value))
        if self.write_back:  # what the app does on the engine thread
            message.block.set_value(message.path, message.value)
            self.view.refresh_block()

    def on_surface_view_action_fired(self, message: SurfaceView.ActionFired) -> None:
        self.actions.append((message.component_id, message.scope))


def _text(widget: Static) -> str:
    return str(widget.render())


class TestFrame:
    async def test_view_for_and_frame_title_names_the_agent(self) -> None:
        surface = Surface(create("Tandem [b]app[/b]\x1b[2J"), components({"id": "root", "component": "Text", "text": "[@click=app.quit]hi"}))
        app = _Host(surface.block)
        async with app.run_test():
            view = app.view
            assert view.id == "t-a2ui_2f_s"
            assert Content.from_markup(view.border_title or "").plain == "Agent UI · Tandem [b]app[/b] [2J"
            assert _text(view.widget_for("root")) == "[@click=app.quit]hi"  # shown literally, never markup

    async def test_status_building_then_ready(self) -> None:
        surface = Surface()
        surface.agent.pipeline.process(ChatUpdate(contents=[ActivityContent(activity_id="a1", activity_type="a2ui-surface", content={"surfaceId": "s", "status": "building"})], message_id="m1"))
        app = _Host(surface.block)
        async with app.run_test() as pilot:
            status = app.view.query_one(".surface-view--status", Static)
            assert status.display and "building" in _text(status)
            surface.send(*FORM)
            app.view.refresh_block()
            await pilot.pause()
            assert not status.display and app.view.widget_for("name") is not None

    async def test_invalid_a2ui_shows_an_error_line_and_the_rest(self) -> None:
        surface = Surface(
            create(),
            components({"id": "root", "component": "Column", "children": ["ok"]}, {"id": "ok", "component": "Text", "text": "still here"}),
            components({"id": "bad", "component": "Button"}),
            {"version": "v0.9", "updateDataModel": {"surfaceId": "nope", "path": "/x", "value": 1}},
        )
        app = _Host(surface.block)
        async with app.run_test() as pilot:
            error = app.view.query_one(".surface-view--error", Static)
            assert error.display and _text(error).startswith("⚠ Invalid UI from the agent")
            assert app.view.has_class("-invalid")
            assert _text(app.view.widget_for("ok")) == "still here"
            await pilot.press("tab")
            assert app.is_running

    async def test_placeholder_until_the_child_arrives(self) -> None:
        surface = Surface(create(), components({"id": "root", "component": "Row", "children": ["a", "b"]}, {"id": "a", "component": "Text", "text": "A"}))
        app = _Host(surface.block)
        async with app.run_test() as pilot:
            assert isinstance(app.view.widget_for("b"), PlaceholderComponent)
            surface.send(components({"id": "b", "component": "Text", "text": "B"}))
            app.view.refresh_block()
            await pilot.pause()
            assert _text(app.view.widget_for("b")) == "B"

    async def test_deleted_surface_says_so(self) -> None:
        surface = Surface(*FORM)
        app = _Host(surface.block)
        async with app.run_test() as pilot:
            surface.send({"version": "v0.9", "deleteSurface": {"surfaceId": "s"}})
            app.view.refresh_block()
            await pilot.pause()
            assert app.view.has_class("-deleted") and "removed" in _text(app.view.query_one(".surface-view--status", Static))
            assert app.view.widget_for("name") is None


class TestBinding:
    async def test_typing_posts_value_changed_per_keystroke(self) -> None:
        app = _Host(Surface(*FORM).block)
        async with app.run_test() as pilot:
            await pilot.click("#t-name Input")
            await pilot.press("A", "n", "n")
            assert app.values == [("/name", "A"), ("/name", "An"), ("/name", "Ann")]

    async def test_a_model_write_shows_in_the_view(self) -> None:
        surface = Surface(*FORM)
        app = _Host(surface.block)
        async with app.run_test() as pilot:
            surface.block.set_value("/name", "Bea")
            surface.block.set_value("/room", ["single"])
            app.view.refresh_block()
            await pilot.pause()
            assert app.view.query_one("#t-name Input", Input).value == "Bea"
            radios = list(app.view.query("#t-room RadioButton").results(RadioButton))
            assert [r.value for r in radios] == [True, False]
            assert app.values == []  # a model write is not echoed back as an edit

    async def test_typing_ahead_of_the_engine_keeps_every_keystroke(self) -> None:
        surface = Surface(*FORM)
        app = _Host(surface.block)
        async with app.run_test() as pilot:
            await pilot.click("#t-name Input")
            await pilot.press("A", "n", "n")
            surface.block.set_value("/name", "A")  # the engine catches up with the first key only
            app.view.refresh_block()
            await pilot.pause()
            assert app.view.query_one("#t-name Input", Input).value == "Ann"

    async def test_choices_slider_and_date(self) -> None:
        app = _Host(Surface(*FORM).block, write_back=True)
        async with app.run_test(size=(80, 50)) as pilot:
            await pilot.click("#t-room RadioButton")
            app.view.query_one("#t-extras SelectionList", SelectionList).select(1)
            await pilot.pause()
            app.view.query_one(SliderBar).focus()
            await pilot.press("right", "right", "end", "left")
            app.view.query_one("#t-date Input", Input).focus()
            await pilot.press(*"2026-13")
            date = app.view.widget_for("date")
            assert date is not None and date.has_class("-invalid")
            await pilot.press("backspace", "backspace", *"05-01")
            assert not date.has_class("-invalid")
            # Invalid dates stay in the input (with a message) and are never written to the model.
            assert app.values == [
                ("/room", ["single"]),
                ("/extras", ["late"]),
                ("/nights", 3), ("/nights", 4), ("/nights", 5), ("/nights", 4),
                ("/date", "2026-05-01"),
            ]

    @pytest.mark.parametrize(
        ("text", "date", "time", "ok"),
        [("2026-05-01", True, False, True), ("2026-5-1", True, False, False), ("18:30", False, True, True),
         ("2026-05-01T18:30", True, True, True), ("2026-05-01", True, True, True), ("nope", False, False, False), ("", True, False, True)],
    )
    def test_iso_validation(self, text: str, date: bool, time: bool, ok: bool) -> None:
        assert (iso_error(text, date=date, time=time) is None) is ok

    def test_iso_bounds(self) -> None:
        assert iso_error("2026-04-30", date=True, time=False, minimum="2026-05-01") == "Too early: from 2026-05-01."


class TestChecksAndActions:
    async def test_checks_disable_then_enable_the_button(self) -> None:
        app = _Host(Surface(*FORM).block, write_back=True)
        async with app.run_test() as pilot:
            submit = app.view.widget_for("submit")
            assert isinstance(submit, ButtonComponent)
            button = submit.query_one(Button)
            assert button.disabled and submit.has_class("-blocked")
            assert "Name is required" in _text(submit.query_one(".a2ui-button--message", Static))
            await pilot.click("#t-name Input")
            await pilot.press("A")
            assert not button.disabled and not submit.has_class("-blocked")
            assert str(button.label) == "Book"
            await pilot.press("backspace")
            assert button.disabled

    async def test_click_posts_action_fired(self) -> None:
        surface = Surface(*FORM, data("/name", "Ann"))
        app = _Host(surface.block)
        async with app.run_test() as pilot:
            await pilot.click("#t-submit Button")
            assert app.actions == [("submit", "/")]

    async def test_disabled_button_posts_nothing(self) -> None:
        app = _Host(Surface(*FORM).block)
        async with app.run_test() as pilot:
            await pilot.click("#t-submit Button")
            assert app.actions == []

    async def test_template_buttons_fire_with_their_scope(self) -> None:
        surface = Surface(
            create(),
            components(
                {"id": "root", "component": "List", "children": {"componentId": "pick", "path": "/items"}},
                {"id": "pick", "component": "Button", "child": "pick-text", "action": {"event": {"name": "pick", "context": {"item": {"path": "label"}}}}},
                {"id": "pick-text", "component": "Text", "text": {"path": "label"}},
            ),
            data("/items", [{"label": "one"}, {"label": "two"}]),
        )
        app = _Host(surface.block)
        async with app.run_test() as pilot:
            second = app.view.widget_for("pick@/items/1")
            assert second is not None and str(second.query_one(Button).label) == "two"
            await pilot.click(second.query_one(Button))
            assert app.actions == [("pick", "/items/1")]

    async def test_unknown_component_is_a_fallback_whose_action_works(self) -> None:
        surface = Surface(create(), components({"id": "root", "component": "Map", "zoom": 3, "action": {"event": {"name": "map"}}}))
        app = _Host(surface.block)
        async with app.run_test() as pilot:
            fallback = app.view.widget_for("root")
            assert isinstance(fallback, FallbackComponent)
            assert '"zoom": 3' in _text(fallback.query_one(".a2ui-fallback--props", Static))
            await pilot.click(fallback.query_one(Button))
            assert app.actions == [("root", "/")]


class TestRebuild:
    async def test_structure_change_keeps_focus_and_typing(self) -> None:
        surface = Surface(*FORM)
        app = _Host(surface.block)
        async with app.run_test() as pilot:
            await pilot.click("#t-name Input")
            await pilot.press("Z")
            first = app.view.widget_for("name")
            surface.send(components({"id": "root", "component": "Column", "children": ["intro", "name", "room", "extras", "nights", "date", "submit"]}, {"id": "intro", "component": "Text", "text": "Hello"}))
            app.view.refresh_block()
            await pilot.pause()
            rebuilt = app.view.widget_for("name")
            assert rebuilt is not first
            field = rebuilt.query_one(Input)
            assert field.value == "Z" and app.focused is field

    async def test_same_structure_updates_in_place(self) -> None:
        surface = Surface(*FORM)
        app = _Host(surface.block)
        async with app.run_test() as pilot:
            first = app.view.widget_for("name")
            surface.send(components({"id": "name", "component": "TextField", "label": "Full name", "value": {"path": "/name"}}))
            app.view.refresh_block()
            await pilot.pause()
            assert app.view.widget_for("name") is first


class TestModal:
    async def test_trigger_opens_and_escape_closes(self) -> None:
        surface = Surface(
            create(),
            components(
                {"id": "root", "component": "Modal", "trigger": "open", "content": "body"},
                {"id": "open", "component": "Text", "text": "Details"},
                {"id": "body", "component": "Column", "children": ["text", "field"]},
                {"id": "text", "component": "Text", "text": "Inside"},
                {"id": "field", "component": "TextField", "label": "Note", "value": {"path": "/note"}},
            ),
        )
        app = _Host(surface.block)
        async with app.run_test() as pilot:
            await pilot.click("#t-root Button")
            await pilot.pause()
            assert isinstance(app.screen, SurfaceModal)
            app.screen.query_one(Input).focus()
            await pilot.press("x")
            assert app.values == [("/note", "x")]  # inputs in the modal still reach the view
            await pilot.press("escape")
            await pilot.pause()
            assert not isinstance(app.screen, SurfaceModal)


@pytest.mark.parametrize(
    ("markdown", "plain"),
    [("**bold** and *it*", "bold and it"), ("- item", "• item"), ("# Title", "Title"), ("[b]x[/b] `c`", "[b]x[/b] c"), ("a\x1b[2Jb", "a[2Jb")],
)
def test_inline_markdown_is_data(markdown: str, plain: str) -> None:
    assert inline_markdown(markdown).plain == plain


async def test_filterable_choice_picker_filters() -> None:
    options = [{"label": "Single", "value": "single"}, {"label": "Double", "value": "double"}, {"label": "Suite", "value": "suite"}]
    surface = Surface(
        create(),
        components(
            {"id": "root", "component": "Column", "children": ["one", "many"]},
            {"id": "one", "component": "ChoicePicker", "filterable": True, "options": options, "value": {"path": "/one"}},
            {"id": "many", "component": "ChoicePicker", "filterable": True, "variant": "multipleSelection", "options": options, "value": {"path": "/many"}},
        ),
    )
    app = _Host(surface.block)
    async with app.run_test(size=(80, 40)) as pilot:
        app.view.query_one("#t-one .a2ui-choice--filter", Input).focus()
        await pilot.press(*"su")
        assert [r.display for r in app.view.query("#t-one RadioButton").results(RadioButton)] == [False, False, True]
        app.view.query_one("#t-many .a2ui-choice--filter", Input).focus()
        await pilot.press(*"ou")
        selection = app.view.query_one("#t-many SelectionList", SelectionList)
        assert [selection.get_option_at_index(i).disabled for i in range(3)] == [True, False, True]
        assert app.values == []  # filtering is not an edit
