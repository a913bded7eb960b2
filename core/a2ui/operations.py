"""Reading A2UI out of what AG-UI carries: activity snapshots, tool results and bare messages.

Pure functions over JSON: they find the A2UI messages and the generation's lifecycle status and
never raise on malformed input (what cannot be read becomes an `InboundError`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import JsonValue

__all__ = [
    "ACTIVITY_TYPE",
    "MESSAGE_TYPES",
    "SurfaceStatus",
    "InboundError",
    "Inbound",
    "message_type",
    "message_surface_id",
    "from_activity",
    "from_tool_result",
    "from_message",
    "looks_like_a2ui",
]

ACTIVITY_TYPE = "a2ui-surface"
"""The AG-UI activity type that carries A2UI operations."""

MESSAGE_TYPES = ("createSurface", "updateComponents", "updateDataModel", "deleteSurface")
"""The v0.9 server-to-client messages."""

SurfaceStatus = Literal["building", "retrying", "failed", "ready", "deleted"]
"""Where a surface's generation is: streaming in, retried after errors, failed, shown, removed."""

_STATUSES = {"building", "retrying", "failed"}


@dataclass(frozen=True)
class InboundError:
    """Something that could not be read as A2UI; reported to the agent as VALIDATION_FAILED."""

    surface_id: str
    path: str
    message: str


@dataclass
class Inbound:
    """What one activity, tool result or message part carried."""

    messages: list[dict[str, Any]] = field(default_factory=list)
    """The A2UI messages, in order, each with its `version`."""
    status: SurfaceStatus | None = None
    """The generation's lifecycle status, when the carrier states one."""
    status_errors: list[str] = field(default_factory=list)
    """Errors that came with a retrying or failed status (the agent's, not ours)."""
    errors: list[InboundError] = field(default_factory=list)
    """What could not be read."""
    surface_id: str | None = None
    """The surface the carrier names, when no message does (a status-only snapshot)."""

    @property
    def empty(self) -> bool:
        """Whether nothing A2UI was found."""
        return not self.messages and self.status is None and not self.errors


def message_type(message: dict[str, Any]) -> str | None:
    """The message's type (`createSurface`, ...), or None if it names none or several."""
    found = [name for name in MESSAGE_TYPES if name in message]
    return found[0] if len(found) == 1 else None


def message_surface_id(message: dict[str, Any]) -> str | None:
    """The surface id a message names, if it is readable."""
    kind = message_type(message)
    body = message.get(kind) if kind else None
    surface_id = body.get("surfaceId") if isinstance(body, dict) else None
    return surface_id if isinstance(surface_id, str) and surface_id else None


def _decode(value: JsonValue, depth: int = 3) -> JsonValue:
    """JSON text → value, repeatedly: tool results are often encoded twice."""
    while isinstance(value, str) and depth > 0:
        text = value.strip()
        if not text or text[0] not in "[{\"":
            return value
        try:
            value = json.loads(text)
        except ValueError:
            return value
        depth -= 1
    return value


def looks_like_a2ui(value: JsonValue) -> bool:
    """Whether a (possibly encoded) tool result holds A2UI operations."""
    decoded = _decode(value)
    return isinstance(decoded, dict) and "a2ui_operations" in decoded


def _read_operations(raw: JsonValue, inbound: Inbound, where: str) -> None:
    raw = _decode(raw)
    if isinstance(raw, dict) and isinstance(raw.get("messages"), list) and message_type(raw) is None:
        raw = raw["messages"]  # the `{"messages": [...]}` wrapper a2ui-core also reads
    if isinstance(raw, dict):
        raw = [raw]
    if not isinstance(raw, list):
        inbound.errors.append(InboundError(inbound.surface_id or "", where, "a2ui_operations must be a list of messages"))
        return
    for index, item in enumerate(raw):
        item = _decode(item)
        if not isinstance(item, dict) or message_type(item) is None:
            inbound.errors.append(
                InboundError(
                    (message_surface_id(item) if isinstance(item, dict) else None) or inbound.surface_id or "",
                    f"{where}/{index}",
                    "not an A2UI message: expected exactly one of " + ", ".join(MESSAGE_TYPES),
                )
            )
            continue
        inbound.messages.append(dict(item))


def _read_status(content: dict[str, Any], inbound: Inbound) -> None:
    status = content.get("status")
    if isinstance(status, dict):  # {"status": {"state": "retrying", "errors": [...]}}
        content = {**content, **status}
        status = status.get("state") or status.get("status")
    if isinstance(status, str) and status in _STATUSES:
        inbound.status = status  # type: ignore[assignment]
    errors = content.get("errors")
    if isinstance(errors, list):
        inbound.status_errors.extend(_error_text(e) for e in errors)
    error = content.get("error")
    if error is not None:
        inbound.status_errors.append(_error_text(error))
        inbound.status = inbound.status or "failed"


def _error_text(error: Any) -> str:
    if isinstance(error, str):
        return error
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return error["message"]
    return json.dumps(error, ensure_ascii=False, default=str)


def from_activity(content: JsonValue) -> Inbound:
    """Read an `a2ui-surface` activity's content: operations and/or a lifecycle status."""
    inbound = Inbound()
    content = _decode(content)
    if not isinstance(content, dict):
        inbound.errors.append(InboundError("", "", "the a2ui-surface activity content is not an object"))
        return inbound
    surface_id = content.get("surfaceId") or content.get("surface_id")
    inbound.surface_id = surface_id if isinstance(surface_id, str) and surface_id else None
    _read_status(content, inbound)
    if "a2ui_operations" in content:
        _read_operations(content["a2ui_operations"], inbound, "/a2ui_operations")
    return inbound


def from_tool_result(result: JsonValue, error: str | None = None) -> Inbound:
    """Read a tool result: `{"a2ui_operations": [...]}` or `{"error": ...}`, possibly encoded twice."""
    inbound = Inbound()
    decoded = _decode(result)
    if isinstance(decoded, dict):
        surface_id = decoded.get("surfaceId")
        inbound.surface_id = surface_id if isinstance(surface_id, str) and surface_id else None
        if "a2ui_operations" in decoded:
            _read_operations(decoded["a2ui_operations"], inbound, "/a2ui_operations")
        if "error" in decoded or "status" in decoded:
            _read_status(decoded, inbound)
    if error is not None and inbound.messages:
        inbound.status_errors.append(error)
        inbound.status = "failed"
    return inbound


def from_message(message: dict[str, Any], status: str | None = None, surface_id: str | None = None) -> Inbound:
    """Read one bare A2UI message part (`A2UIMessageContent`)."""
    inbound = Inbound(surface_id=surface_id)
    if message:
        _read_operations([message], inbound, "")
    if status is not None:
        _read_status({"status": status}, inbound)
    return inbound
