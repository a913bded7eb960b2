"""WeatherView: the get_weather result as a one-line card."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static

from tandem.core.blocks import ToolCallBlock
from tandem.widgets import WeatherView, view_for


class _Host(App[None]):
    def __init__(self, view: WeatherView) -> None:
        super().__init__()
        self.view = view

    def compose(self) -> ComposeResult:
        yield self.view


async def test_weather_result_is_summarised() -> None:
    block = ToolCallBlock("call-w", call_id="call-w", name="get_weather")
    block.activate()
    block.finish_arguments({"location": "Oslo"})
    block.set_result('{"location": "Oslo", "temperature_c": 4, "conditions": "[red]snow[/]", "humidity": 80, "wind_kph": 12}')
    view = view_for(block)
    assert isinstance(view, WeatherView)
    async with _Host(view).run_test():
        summary = str(view.query_one(".tool-call-view--summary", Static).render())
        assert summary == "☀ Oslo · 4 °C · [red]snow[/] · humidity 80% · wind 12 km/h"
        assert view.has_class("-done")


async def test_no_summary_without_a_result() -> None:
    block = ToolCallBlock("call-w", call_id="call-w", name="get_weather")
    block.activate()
    block.append_arguments('{"loc')
    view = WeatherView(block)
    async with _Host(view).run_test():
        assert not view.query_one(".tool-call-view--summary").display
