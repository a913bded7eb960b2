"""What firing an A2UI surface's action does (`ActionResult`), and the local functions a surface
may run."""

from __future__ import annotations

import datetime
import json
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlparse

from a2ui.core import A2uiError
from a2ui.core.resolution import DataContext
from pydantic import JsonValue

from tandem.core.a2ui.catalog import CatalogProfile

__all__ = ["ActionStatus", "ActionResult", "json_ready", "run_function", "timestamp"]

ActionStatus = Literal["sent", "ran", "needs_confirmation", "refused", "disabled"]
"""What firing an action did: an event queued for the agent, a local function run, an URL
waiting for the human's confirmation, refused (not allowed), or disabled (a check fails)."""

@dataclass(frozen=True)
class ActionResult:
    """What `SurfaceBlock.fire_action` did; the UI acts on it (confirm a URL, show a refusal)."""

    status: ActionStatus
    action: dict[str, JsonValue] | None = None
    """For `sent`: the `{name, surfaceId, sourceComponentId, timestamp, context}` payload."""
    url: str | None = None
    """For `needs_confirmation`: the http(s) URL to open once the human agrees."""
    value: JsonValue = None
    """For `ran`: the function's result."""
    message: str | None = None
    """Why it was refused or disabled."""


def timestamp(seconds: float) -> str:
    moment = datetime.datetime.fromtimestamp(seconds, tz=datetime.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def json_ready(value: Any) -> JsonValue:
    return json.loads(json.dumps(value, default=str))


def run_function(data: DataContext, call: dict[str, Any], profile: CatalogProfile) -> ActionResult:
    """Run a `functionCall` action: only the catalog's functions; `openUrl` only returns an
    http(s) URL for the UI to open once the human confirms. Never raises for agent mistakes."""
    name = call.get("call")
    if not isinstance(name, str) or name not in profile.functions:
        return ActionResult("refused", message=f"{name!s:.40} is not a function this client runs.")
    if name == "openUrl":
        args = data.resolve_dynamic_value(call.get("args") or {})
        url = args.get("url") if isinstance(args, dict) else None
        scheme = urlparse(url).scheme.lower() if isinstance(url, str) else ""
        if scheme not in ("http", "https"):
            return ActionResult("refused", message="Only http and https links can be opened.")
        return ActionResult("needs_confirmation", url=url)
    try:
        value = data.resolve_dynamic_value(call)
    except A2uiError as exc:
        return ActionResult("refused", message=str(exc))
    return ActionResult("ran", value=json_ready(value))
