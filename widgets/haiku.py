"""The `generate_haiku` tool call, shown as the poem in both languages."""

from __future__ import annotations

from typing import ClassVar

from textual.content import Content

from tandem.widgets.sanitize import agent_text
from tandem.widgets.tool_call import ToolCallView

__all__ = ["HaikuView"]


def _lines(value: object) -> list[str]:
    if isinstance(value, list):
        return [str(line) for line in value if isinstance(line, (str, int, float))]
    if isinstance(value, str):
        return value.splitlines()
    return []


class HaikuView(ToolCallView):
    """A `generate_haiku` call: the tool card plus the Japanese and English lines side by side.

    Reads the arguments `japanese` and `english` (lists of 3 lines). UI thread only.
    """

    DEFAULT_CSS: ClassVar[str] = """
    HaikuView > .tool-call-view--summary {
        padding: 0 2;
        color: $text;
        text-style: italic;
    }
    """

    def summary(self) -> Content | None:
        arguments = self.tool.arguments or {}
        japanese, english = _lines(arguments.get("japanese")), _lines(arguments.get("english"))
        if not japanese and not english:
            return None
        rows: list[Content] = []
        for index in range(max(len(japanese), len(english))):
            left = japanese[index] if index < len(japanese) else ""
            right = english[index] if index < len(english) else ""
            row = agent_text(left)
            if right:
                row = row + Content("   ") + agent_text(right).stylize("dim") if left else agent_text(right)
            rows.append(row)
        return Content("\n").join(rows)
