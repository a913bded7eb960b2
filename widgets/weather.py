"""The `get_weather` tool call, shown as a small weather card."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.content import Content

from tandem.widgets.sanitize import agent_text
from tandem.widgets.tool_call import ToolCallView, decoded_result

__all__ = ["WeatherView"]


def _field(result: dict[str, Any], key: str, suffix: str = "") -> Content | None:
    value = result.get(key)
    if value is None or isinstance(value, (dict, list)):
        return None
    return agent_text(f"{value}{suffix}")


class WeatherView(ToolCallView):
    """A `get_weather` call: the tool card plus location, temperature, conditions, humidity, wind.

    Reads the result keys location, temperature_c, conditions, humidity and wind_kph; missing
    keys are left out. UI thread only.
    """

    DEFAULT_CSS: ClassVar[str] = """
    WeatherView > .tool-call-view--summary {
        color: $text;
        background: $boost;
    }
    """

    def summary(self) -> Content | None:
        result = decoded_result(self.tool.result)
        if not isinstance(result, dict):
            location = (self.tool.arguments or {}).get("location")
            return Content("☁ ") + agent_text(location) if isinstance(location, str) and not self.tool.finished else None
        parts: list[Content] = []
        place = _field(result, "location")
        if place is not None:
            parts.append(place.stylize("bold"))
        for key, suffix, label in (
            ("temperature_c", " °C", ""),
            ("conditions", "", ""),
            ("humidity", "%", "humidity "),
            ("wind_kph", " km/h", "wind "),
        ):
            value = _field(result, key, suffix)
            if value is not None:
                parts.append(Content(label) + value)
        if not parts:
            return None
        return Content("☀ ") + Content(" · ").join(parts)
