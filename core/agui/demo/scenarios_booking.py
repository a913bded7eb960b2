"""The A2UI demo scenario: a room booking form the agent draws, the human fills in and submits.

The form is an A2UI v0.9 surface carried by ``ACTIVITY_SNAPSHOT`` events (activity type
``a2ui-surface``, content ``{"a2ui_operations": [...]}``): first a ``building`` status, then the
whole surface. Pressing *Book* sends the ``submit_booking`` event in a new run, either in
``forwardedProps.a2uiAction.userAction`` (the A2UI middleware convention) or as a user message
describing it (any client); the agent answers, turns the form into a confirmation
(``updateComponents`` + ``updateDataModel``), and removes it (``deleteSurface``) when the human
presses *Close*, which sends ``close_booking`` in a later run.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ag_ui.core import ActivitySnapshotEvent, RunAgentInput

from .history import last_user_message, message_text
from .script import Pause, RunContext, Step

__all__ = [
    "ACTIVITY_TYPE",
    "ACTION_MESSAGE_PREFIX",
    "BASIC_CATALOG_ID",
    "CLOSE_EVENT",
    "ROOM_TYPES",
    "SUBMIT_EVENT",
    "SURFACE_ID",
    "action",
    "booking",
    "booking_form",
    "read_action",
]

ACTIVITY_TYPE = "a2ui-surface"
"""The AG-UI activity type that carries A2UI operations."""
BASIC_CATALOG_ID = "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"
"""The A2UI v0.9 basic catalog."""
SURFACE_ID = "booking"
"""The booking form's surface id."""
SUBMIT_EVENT = "submit_booking"
"""The event the *Book* button sends."""
CLOSE_EVENT = "close_booking"
"""The event the confirmation's *Close* button sends."""
ACTION_MESSAGE_PREFIX = "[A2UI user action]"
"""How a user message carrying an A2UI event begins (the "message" delivery form)."""

ROOM_TYPES = (("Single", "single"), ("Double", "double"), ("Suite", "suite"))
"""The room types offered: (label, value)."""

_VERSION = "v0.9"


def _message(kind: str, **body: Any) -> dict[str, Any]:
    return {"version": _VERSION, kind: {"surfaceId": SURFACE_ID, **body}}


def _path(path: str) -> dict[str, str]:
    return {"path": path}


def booking_form() -> list[dict[str, Any]]:
    """The A2UI messages that create the booking form, in order."""
    required_name = {
        "condition": {"call": "required", "args": {"value": _path("/guest/name")}},
        "message": "Enter the guest's name to book.",
    }
    components = [
        {"id": "root", "component": "Column", "children": ["title", "name", "room", "check-in", "breakfast", "status", "submit"]},
        {"id": "title", "component": "Text", "text": "Book a room", "variant": "h2"},
        {"id": "name", "component": "TextField", "label": "Guest name", "value": _path("/guest/name")},
        {
            "id": "room",
            "component": "ChoicePicker",
            "label": "Room type",
            "variant": "mutuallyExclusive",
            "options": [{"label": label, "value": value} for label, value in ROOM_TYPES],
            "value": _path("/guest/room"),
        },
        {"id": "check-in", "component": "DateTimeInput", "label": "Check-in date", "enableDate": True, "value": _path("/guest/checkIn")},
        {"id": "breakfast", "component": "CheckBox", "label": "Breakfast included", "value": _path("/guest/breakfast")},
        {"id": "status", "component": "Text", "text": _path("/status"), "variant": "caption"},
        {
            "id": "submit",
            "component": "Button",
            "child": "submit-label",
            "variant": "primary",
            "checks": [required_name],
            "action": {
                "event": {
                    "name": SUBMIT_EVENT,
                    "context": {
                        "name": _path("/guest/name"),
                        "roomType": _path("/guest/room"),
                        "checkIn": _path("/guest/checkIn"),
                        "breakfast": _path("/guest/breakfast"),
                    },
                }
            },
        },
        {"id": "submit-label", "component": "Text", "text": "Book"},
    ]
    data = {"guest": {"name": "", "room": ["double"], "checkIn": "", "breakfast": False}, "status": "Fill in the form, then press Book."}
    return [
        _message("createSurface", catalogId=BASIC_CATALOG_ID, theme={"agentDisplayName": "Demo concierge"}),
        _message("updateComponents", components=components),
        _message("updateDataModel", path="/", value=data),
    ]


def _confirmation(reference: str, summary: str) -> list[dict[str, Any]]:
    """The messages that turn the form into a confirmation with a *Close* button."""
    components = [
        {"id": "root", "component": "Column", "children": ["title", "status", "close"]},
        {"id": "title", "component": "Text", "text": "Booking confirmed", "variant": "h2"},
        {"id": "close", "component": "Button", "child": "close-label", "action": {"event": {"name": CLOSE_EVENT, "context": {"reference": reference}}}},
        {"id": "close-label", "component": "Text", "text": "Close"},
    ]
    return [
        _message("updateComponents", components=components),
        _message("updateDataModel", path="/status", value=f"✓ Confirmed {reference}: {summary}"),
    ]


def _activity(ctx: RunContext, content: dict[str, Any], message_id: str) -> ActivitySnapshotEvent:
    return ActivitySnapshotEvent(message_id=message_id, activity_type=ACTIVITY_TYPE, content={"surfaceId": SURFACE_ID, **content})


def booking(ctx: RunContext, _request: str) -> Iterator[Step]:
    """Draw the booking form: a ``building`` status, then the whole surface."""
    s = ctx.script
    surface_message = f"{s.run_id}-surface"
    yield from s.text("Here is a booking form. Fill it in and press **Book**; nothing is sent to me until you do.")
    yield _activity(ctx, {"status": "building"}, surface_message)
    yield Pause(0.3)
    yield _activity(ctx, {"a2ui_operations": booking_form()}, surface_message)
    yield s.finished()


def read_action(run_input: RunAgentInput) -> dict[str, Any] | None:
    """The A2UI event this request carries, or None.

    Read from ``forwardedProps.a2uiAction.userAction`` first, else from a last user message
    in the "message" delivery form (``[A2UI user action] … The event follows as data:`` and
    the v0.9 ``{"version", "action"}`` JSON).
    """
    props = run_input.forwarded_props
    if isinstance(props, dict):
        wrapper = props.get("a2uiAction")
        user_action = wrapper.get("userAction") if isinstance(wrapper, dict) else None
        if isinstance(user_action, dict) and isinstance(user_action.get("name"), str):
            return user_action
    messages = run_input.messages
    user = last_user_message(run_input)
    if user is None or not messages or messages[-1] is not user:
        return None
    text = message_text(user.content)
    if not text.startswith(ACTION_MESSAGE_PREFIX) or "{" not in text:
        return None
    try:
        payload = json.loads(text[text.index("{") :])
    except ValueError:
        return None
    found = payload.get("action") if isinstance(payload, dict) else None
    return found if isinstance(found, dict) and isinstance(found.get("name"), str) else None


def _reference(context: dict[str, Any]) -> str:
    seed = sum((index + 1) * ord(char) for index, char in enumerate(json.dumps(context, sort_keys=True)))
    return f"BK-{seed % 100000:05d}"


def _summary(context: dict[str, Any]) -> tuple[str, str]:
    """(Markdown answer, one-line summary) of a submitted booking."""
    name = str(context.get("name") or "").strip() or "the guest"
    rooms = context.get("roomType")
    room = (rooms[0] if isinstance(rooms, list) and rooms else rooms) or "double"
    check_in = str(context.get("checkIn") or "").strip()
    breakfast = context.get("breakfast") is True
    labels = dict((value, label.lower()) for label, value in ROOM_TYPES)
    room_label = labels.get(str(room), str(room))
    when = f"from {check_in}" if check_in else "(no check-in date given: I'll hold it for today)"
    extra = "with breakfast" if breakfast else "without breakfast"
    line = f"a {room_label} room for {name} {when}, {extra}"
    return f"Done: I booked **{line}**.", line


def action(ctx: RunContext, event: dict[str, Any]) -> Iterator[Step]:
    """Answer an A2UI event: confirm a submitted booking, or remove the surface on close."""
    s = ctx.script
    name = event.get("name")
    raw_context = event.get("context")
    context: dict[str, Any] = raw_context if isinstance(raw_context, dict) else {}
    if event.get("surfaceId") not in (None, SURFACE_ID):
        yield from s.text(f"I received the UI event `{name}`, but I have no surface `{event.get('surfaceId')}` in this demo.")
    elif name == SUBMIT_EVENT:
        answer, line = _summary(context)
        reference = _reference(context)
        yield from s.text(f"{answer} Your reference is `{reference}`.")
        yield _activity(ctx, {"a2ui_operations": _confirmation(reference, line)}, f"{s.run_id}-surface")
    elif name == CLOSE_EVENT:
        yield from s.text("Closed the booking form. Ask me to **book** again any time.")
        yield _activity(ctx, {"a2ui_operations": [_message("deleteSurface")]}, f"{s.run_id}-surface")
    else:
        yield from s.text(f"I received the UI event `{name}`, but the booking form only knows `{SUBMIT_EVENT}` and `{CLOSE_EVENT}`.")
    yield s.finished()
