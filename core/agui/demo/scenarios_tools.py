"""Tool demo scenarios: a backend tool (weather) and two client tools (steps, haiku)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from ag_ui.core import ToolCall, ToolMessage

from .history import message_text, parse_json_object, tool_call_args
from .script import Pause, RunContext, Step

__all__ = ["TASK_STEPS", "haiku", "haiku_result", "steps", "steps_result", "weather", "weather_location"]

DEFAULT_LOCATION = "Lisbon"
_LOCATION_RE = re.compile(r"\b(?:in|for|at)\s+([A-Za-z][A-Za-z .'\-]{0,40})")
_TRAILING_WORDS = re.compile(r"\s+(?:today|tomorrow|now|please|right now|this week)\s*$", re.IGNORECASE)
_CONDITIONS = ("sunny", "partly cloudy", "overcast", "light rain", "windy")

TASK_STEPS = (
    "Collect the pull requests merged since the last release",
    "Write the changelog",
    "Bump the version number",
    "Run the full test suite",
    "Tag the release and push the tag",
    "Announce the release to the team",
)
"""The steps the human-in-the-loop scenario proposes, in order."""

HAIKU = {
    "japanese": ["古池や", "蛙飛び込む", "水の音"],
    "english": ["An old silent pond", "A frog jumps into the pond", "Splash! Silence again"],
}


def weather_location(request: str) -> str:
    """Return the place named after "in"/"for"/"at" in ``request``, or a default."""
    match = _LOCATION_RE.search(request)
    if not match:
        return DEFAULT_LOCATION
    place = _TRAILING_WORDS.sub("", match.group(1).strip(" .'-"))
    return place.title() if place else DEFAULT_LOCATION


def _weather_report(location: str) -> dict[str, Any]:
    """Return a made-up but deterministic weather report for ``location``."""
    seed = sum((index + 1) * ord(char) for index, char in enumerate(location.lower()))
    return {
        "location": location,
        "temperature_c": seed % 30 - 2,
        "conditions": _CONDITIONS[seed % len(_CONDITIONS)],
        "humidity": 30 + seed % 60,
        "wind_kph": 5 + seed % 35,
    }


def weather(ctx: RunContext, request: str) -> Iterator[Step]:
    """Backend tool rendering: ``get_weather`` runs on the server and returns its result."""
    s = ctx.script
    location = weather_location(request)
    parent = s.message_id()
    yield from s.text(f"Let me check the weather in {location}.", message_id=parent)
    call_id = s.tool_call_id()
    yield from s.tool_call("get_weather", {"location": location}, parent_message_id=parent, call_id=call_id)
    yield Pause(0.4)
    report = _weather_report(location)
    yield s.tool_result(call_id, json.dumps(report))
    yield from s.text(
        f"It is **{report['temperature_c']} °C** and {report['conditions']} in {location}, "
        f"with {report['humidity']}% humidity and wind at {report['wind_kph']} km/h.\n\n"
        "*(Made-up data: this is the demo agent.)*"
    )
    yield s.finished()


def steps(ctx: RunContext) -> Iterator[Step]:
    """Human in the loop: propose steps through the client tool ``generate_task_steps``.

    The run ends with the call unanswered (``pendingToolCallIds``); the client
    shows the steps, lets the person pick, and answers with a tool message.
    """
    s = ctx.script
    parent = s.message_id()
    yield from s.text("Here is my plan for the release. Untick the steps you don't want, then confirm.",
                      message_id=parent)
    call_id = s.tool_call_id()
    args = {"steps": [{"description": text, "status": "enabled"} for text in TASK_STEPS]}
    yield from s.tool_call("generate_task_steps", args, parent_message_id=parent, call_id=call_id)
    yield s.finished(pending_tool_call_ids=[call_id])


def _selected(step: Any) -> bool:
    """Whether a step of the person's answer is selected."""
    if not isinstance(step, dict):
        return False
    return step.get("status") in ("enabled", "selected") or step.get("selected") is True


def steps_result(ctx: RunContext, call: ToolCall, result: ToolMessage) -> Iterator[Step]:
    """Continue after the person answered ``generate_task_steps``.

    The tool message holds ``{"accepted": true, "steps": [...]}`` (only steps
    whose status is "enabled" or "selected" are carried out; without ``steps``
    the proposed ones are) or ``{"accepted": false}``.
    """
    s = ctx.script
    answer = parse_json_object(message_text(result.content))
    if answer is None or not isinstance(answer.get("accepted"), bool):
        yield from s.text(
            'I could not read your answer. I expected JSON like `{"accepted": true, "steps": [...]}` '
            'or `{"accepted": false}`, so I did nothing.'
        )
    elif not answer["accepted"]:
        yield from s.text("Understood: you rejected the plan, so I won't carry out any of the steps.")
    else:
        chosen = answer.get("steps")
        if not isinstance(chosen, list):
            chosen = tool_call_args(call).get("steps", [])
        selected = [str(step.get("description", "")) for step in chosen if _selected(step)]
        if not selected:
            yield from s.text("You accepted the plan but selected no steps, so there is nothing to do.")
        else:
            lines = "\n".join(f"{number}. {text} — done" for number, text in enumerate(selected, start=1))
            yield from s.text(f"Carrying out the {len(selected)} step(s) you selected:\n\n{lines}\n\nAll done.")
    yield s.finished()


def haiku(ctx: RunContext) -> Iterator[Step]:
    """Tool-based generative UI: the client renders ``generate_haiku``'s arguments."""
    s = ctx.script
    parent = s.message_id()
    yield from s.text("Here is a haiku for you.", message_id=parent)
    call_id = s.tool_call_id()
    yield from s.tool_call("generate_haiku", HAIKU, parent_message_id=parent, call_id=call_id, chunk_size=12)
    yield s.finished(pending_tool_call_ids=[call_id])


def haiku_result(ctx: RunContext, call: ToolCall, result: ToolMessage) -> Iterator[Step]:
    """Continue after the client rendered the haiku."""
    if result.error:
        text = f"The client could not show the haiku: {result.error}"
    else:
        text = "Bashō wrote that one in 1686. Ask `/demo haiku` for it again."
    yield from ctx.script.text(text)
    yield ctx.script.finished()
