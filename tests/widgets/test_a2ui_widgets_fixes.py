"""Widget fixes: fractional sliders, refused function-call buttons, stalled surfaces, readable
CheckBox without label and DateTimeInput, links in Text."""

from __future__ import annotations

from typing import Any

import pytest
from tests.helpers.a2ui_official import BASIC, Host, drawn_text, feed
from textual.widgets import Button, Static

from tandem.widgets.a2ui_components import TextComponent, inline_markdown
from tandem.widgets.a2ui_inputs import human_datetime
from tandem.widgets.a2ui_slider import SliderBar, default_step
from tandem.widgets.a2ui_surface import SurfaceView

pytestmark = pytest.mark.filterwarnings("ignore::a2ui.core.resolution.MissingDataBindingWarning")


def surface(*components: dict[str, Any], data: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [
        {"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": BASIC}},
        {"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": list(components)}},
    ]
    if data is not None:
        messages.append({"version": "v0.9", "updateDataModel": {"surfaceId": "s", "path": "/", "value": data}})
    return messages


class TestSlider:
    @pytest.mark.parametrize(
        ("low", "high", "value", "step"),
        [(0, 1, 0.45, 0.01), (0, 1, 0, 0.01), (1, 5, 2, 1), (0, 100, 40, 1), (0, 1000, 10, 10), (0, 10, 2.5, 0.1), (-1, 1, 0.5, 0.02)],
    )
    def test_default_step_fits_the_range(self, low: float, high: float, value: float, step: float) -> None:
        assert default_step(low, high, value) == pytest.approx(step)

    async def test_a_fractional_progress_slider_shows_and_writes_fractions(self) -> None:
        fed = feed(surface({"id": "root", "component": "Slider", "value": {"path": "/progress"}, "max": 1}, data={"progress": 0.45}))
        [block] = fed.blocks
        app = Host([block])
        async with app.run_test(size=(60, 10)) as pilot:
            bar = app.query_one(SliderBar)
            assert bar.value == 0.45 and drawn_text(bar).rstrip().endswith("0.45")
            bar.focus()
            await pilot.press("right")
            await pilot.pause()
            assert block.get_value("/progress") == pytest.approx(0.46)
            await pilot.press("left", "left")
            await pilot.pause()
            assert block.get_value("/progress") == pytest.approx(0.44)

    async def test_a_whole_range_keeps_whole_steps(self) -> None:
        fed = feed(surface({"id": "root", "component": "Slider", "value": {"path": "/n"}, "min": 1, "max": 5}, data={"n": 2}))
        app = Host(fed.blocks)
        async with app.run_test(size=(60, 10)) as pilot:
            app.query_one(SliderBar).focus()
            await pilot.press("right")
            await pilot.pause()
            assert fed.blocks[0].get_value("/n") == 3


class TestRefusedFunctionCall:
    async def test_the_button_is_disabled_and_says_why(self) -> None:
        button = {"id": "root", "component": "Button", "child": "t", "action": {"functionCall": {"call": "launch", "args": {}}}}
        fed = feed(surface(button, {"id": "t", "component": "Text", "text": "Launch"}))
        assert len(fed.errors()) == 1
        app = Host(fed.blocks)
        async with app.run_test(size=(120, 10)) as pilot:
            await pilot.pause()
            view = app.query_one(SurfaceView)
            widget = view.widget_for("root")
            assert widget is not None and widget.query_one(Button).disabled and widget.has_class("-blocked")
            assert "'launch', which is not a function of the basic catalog" in drawn_text(widget).replace("\n", " ")


class TestStalled:
    async def test_a_surface_without_root_after_the_run_ended_no_longer_says_building(self) -> None:
        fed = feed(surface({"id": "orphan", "component": "Text", "text": "x"}))
        [block] = fed.blocks
        app = Host([block])
        async with app.run_test(size=(80, 10)) as pilot:
            status = app.query_one(".surface-view--status", Static)
            assert "building" in str(status.render())
            fed.agent.pipeline.end_segment()
            app.query_one(SurfaceView).refresh_block()
            await pilot.pause()
            assert str(status.render()) == "✗ the agent's run ended before this UI was complete"
            assert app.query_one(SurfaceView).has_class("-stalled")


class TestReadableInputs:
    async def test_a_check_box_without_label_says_so(self) -> None:
        fed = feed(surface({"id": "root", "component": "CheckBox", "label": "", "value": True}))
        app = Host(fed.blocks)
        async with app.run_test(size=(60, 6)) as pilot:
            await pilot.pause()
            shown = drawn_text(app.query_one(SurfaceView).widget_for("root"))  # type: ignore[arg-type]
            assert "✓" in shown and "(no label)" in shown

    async def test_a_date_time_input_shows_a_date_a_person_reads(self) -> None:
        field = {"id": "root", "component": "DateTimeInput", "label": "When", "enableDate": True, "enableTime": True, "value": {"path": "/at"}}
        fed = feed(surface(field, data={"at": "2026-05-01T18:30:00Z"}))
        app = Host(fed.blocks)
        async with app.run_test(size=(60, 10)) as pilot:
            await pilot.pause()
            widget = app.query_one(SurfaceView).widget_for("root")
            assert widget is not None and "Fri 1 May 2026, 18:30 UTC" in drawn_text(widget)

    @pytest.mark.parametrize(
        ("text", "human"),
        [("2026-05-01", "Fri 1 May 2026"), ("18:30", "18:30"), ("2026-05-01T18:30", "Fri 1 May 2026, 18:30"), ("soon", None), ("", None)],
    )
    def test_human_datetime(self, text: str, human: str | None) -> None:
        assert human_datetime(text) == human


class TestLinks:
    def test_only_safe_schemes_become_links(self) -> None:
        links: list[str] = []
        content = inline_markdown("[a](https://a.org) [b](javascript:alert(1)) [c](mailto:x@y.org) [d](file:///etc)", links)
        assert content.plain == "a b c d"
        assert links == ["https://a.org", "mailto:x@y.org"]

    async def test_clicking_a_link_posts_it_for_the_app_to_confirm(self) -> None:
        clicked: list[str] = []

        class LinkHost(Host):
            def on_text_component_link_clicked(self, message: TextComponent.LinkClicked) -> None:
                clicked.append(message.href)

        fed = feed(surface({"id": "root", "component": "Text", "text": "See [the docs](https://example.com/docs) now"}))
        app = LinkHost(fed.blocks)
        async with app.run_test(size=(60, 8)) as pilot:
            text = app.query_one(TextComponent)
            await pilot.click(text, offset=(6, 0))
            await pilot.pause()
            assert clicked == ["https://example.com/docs"]
            await pilot.click(text, offset=(1, 0))  # "See": not a link
            await pilot.pause()
            assert clicked == ["https://example.com/docs"]
