"""The A2UI `DateTimeInput` renderer, with the ISO 8601 check and the reading it shows below."""

from __future__ import annotations

import datetime
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import Input, Static

from tandem.core.a2ui import ResolvedComponent
from tandem.widgets.a2ui_input import InputComponent
from tandem.widgets.sanitize import sanitize

__all__ = ["DateTimeComponent", "human_datetime", "iso_error"]


def iso_error(text: str, *, date: bool, time: bool, minimum: object = None, maximum: object = None) -> str | None:
    """Why `text` is not an acceptable ISO 8601 value for a DateTimeInput, or None if it is.

    An empty value is acceptable (not chosen yet); `min`/`max` compare like values.
    """
    if not text:
        return None
    parsers: list[tuple[str, Any]] = []
    if date and time:
        parsers, expected = [("datetime", datetime.datetime.fromisoformat)], "a date and time like 2026-05-01T18:30"
    elif date:
        parsers, expected = [("date", datetime.date.fromisoformat)], "a date like 2026-05-01"
    elif time:
        parsers, expected = [("time", datetime.time.fromisoformat)], "a time like 18:30"
    else:
        parsers = [("date", datetime.date.fromisoformat), ("datetime", datetime.datetime.fromisoformat), ("time", datetime.time.fromisoformat)]
        expected = "an ISO 8601 date or time"
    for _kind, parse in parsers:
        try:
            value = parse(text)
        except ValueError:
            continue
        for bound, too in ((minimum, "early"), (maximum, "late")):
            if isinstance(bound, str) and bound:
                try:
                    limit = parse(bound)
                    out = value < limit if too == "early" else value > limit
                except (ValueError, TypeError):
                    continue
                if out:
                    return f"Too {too}: {'from' if too == 'early' else 'until'} {bound}."
        return None
    return f"Expected {expected}."


def human_datetime(text: str) -> str | None:
    """An ISO 8601 date, time or date-time as a person reads it, or None if `text` is none.

    `2026-05-01T18:30:00Z` → "Fri 1 May 2026, 18:30 UTC"; `2026-05-01` → "Fri 1 May 2026";
    `18:30` → "18:30". English names, whatever the locale: the A2UI value itself is ISO.
    """
    if not text:
        return None
    parsers: list[Any] = [datetime.datetime.fromisoformat, datetime.date.fromisoformat, datetime.time.fromisoformat]
    for parse in parsers:
        try:
            value = parse(text)
        except ValueError:
            continue
        if isinstance(value, datetime.datetime):
            if "T" not in text.upper() and " " not in text:
                continue  # a bare date parses as midnight: let the date parser say "date"
            zone = value.tzname() if value.tzinfo is not None else None
            zone_text = "" if zone is None else " UTC" if value.utcoffset() == datetime.timedelta(0) else f" {zone}"
            return f"{_DAYS[value.weekday()]} {value.day} {_MONTHS[value.month - 1]} {value.year}, {value:%H:%M}{zone_text}"
        if isinstance(value, datetime.date):
            return f"{_DAYS[value.weekday()]} {value.day} {_MONTHS[value.month - 1]} {value.year}"
        return f"{value:%H:%M}"
    return None


_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")

_PLACEHOLDERS = {(True, True): "YYYY-MM-DDTHH:MM", (True, False): "YYYY-MM-DD", (False, True): "HH:MM"}


class DateTimeComponent(InputComponent):
    """A `DateTimeInput`: an `Input` accepting ISO 8601 only, the value as a person reads it
    below ("Fri 1 May 2026, 18:30"); invalid text stays local, with a message."""

    DEFAULT_CSS: ClassVar[str] = """
    DateTimeComponent > .a2ui-datetime--human { color: $text-secondary; height: auto; }
    """

    def model_value(self, node: ResolvedComponent) -> Any:
        value = node.props.get("value")
        return sanitize(value) if isinstance(value, str) else ""

    def compose(self) -> ComposeResult:
        yield self._label()
        placeholder = _PLACEHOLDERS.get(self._enabled(), "ISO 8601 date or time")
        yield Input(self._model, placeholder=placeholder, classes="a2ui-input--control")
        yield Static(classes="a2ui-datetime--human")
        yield self._message()

    def on_mount(self) -> None:
        super().on_mount()
        self._show_human(self.shown_value())

    def _show_human(self, text: str) -> None:
        human = human_datetime(text.strip())
        static = self.query_one(".a2ui-datetime--human", Static)
        static.update(Content(human or ""))
        static.display = human is not None

    def _enabled(self) -> tuple[bool, bool]:
        return bool(self.node.props.get("enableDate")), bool(self.node.props.get("enableTime"))

    def shown_value(self) -> Any:
        return self.query_one(Input).value

    def show_value(self, value: Any) -> None:
        control = self.query_one(Input)
        with control.prevent(Input.Changed):
            control.value = "" if value is None else str(value)
        self._show_human(control.value)

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        date, time = self._enabled()
        error = iso_error(event.value.strip(), date=date, time=time, minimum=self.node.props.get("min"), maximum=self.node.props.get("max"))
        self._paint_checks(self.node, error)
        self._show_human(event.value if error is None else "")
        if error is None:
            self.write(event.value.strip())

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
