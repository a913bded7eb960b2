"""The A2UI surface block: one surface, its data model, its status, its errors and its actions."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator
from typing import Any

from a2ui.core import A2uiError
from a2ui.core.resolution import DataContext
from a2ui.core.schema.v0_9.client_to_server import A2uiClientAction
from a2ui.core.state import SurfaceModel
from pydantic import JsonValue, ValidationError

from tandem.core.a2ui.actions import ActionResult, ActionStatus, json_ready, run_function, timestamp
from tandem.core.a2ui.catalog import CatalogProfile
from tandem.core.a2ui.operations import InboundError, SurfaceStatus
from tandem.core.a2ui.surface_builder import SurfaceBuilder, SurfaceError
from tandem.core.a2ui.resolved import CheckResult, ResolvedComponent, resolve_component, walk
from tandem.core.a2ui.validation import readable
from tandem.core.blocks.base import Block
from tandem.core.log_entries import HumanWrite

__all__ = ["ActionStatus", "ActionResult", "SurfaceError", "SurfaceBlock", "agent_display_name"]

log = logging.getLogger(__name__)

# C0 controls (newline and tab too: a name is one line), DEL, C1; then collapse whitespace.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_NAME_LIMIT = 48


def agent_display_name(name: object, fallback: str = "agent") -> str:
    """An agent-chosen display name made safe for a frame title: one line, no controls, short."""
    text = _CONTROL.sub(" ", name) if isinstance(name, str) else ""
    text = " ".join(text.split())
    if len(text) > _NAME_LIMIT:
        text = text[: _NAME_LIMIT - 1] + "…"
    return text or fallback


class SurfaceBlock(Block):
    """One A2UI surface in the conversation, owned by the agent that created it.

    Owns its `SurfaceBuilder` (the a2ui-core processor and surface model: components and the
    local data model, built from the agent's messages), the lifecycle status, the validation
    errors (shown, never raised),
    the fired actions and what is still to be reported to the agent. Engine thread only: the
    UI calls `set_value`, `check_results`, `resolve`, `fire_action` through the bridge.
    Lifecycle: emitted on the first A2UI it receives; it keeps receiving updates (from later
    segments and runs too) until `deleteSurface`, after which it shows the surface as removed.
    """

    kind = "a2ui_surface"

    def __init__(self, id: str, *, surface_id: str, agent_id: str, **kwargs: Any) -> None:
        super().__init__(id, **kwargs)
        self.agent_id = agent_id
        """The agent (server) that created the surface: its data model goes to it only."""
        self.status: SurfaceStatus = "building"
        self.status_errors: list[str] = []
        """The agent's own generation errors (retrying, failed)."""
        self.errors: list[SurfaceError] = []
        """Validation errors in what the agent sent, oldest first."""
        self.fired: list[dict[str, JsonValue]] = []
        """Event actions the human fired, oldest first (restored from the log on replay)."""
        self._builder = SurfaceBuilder(surface_id, self._report)
        self._unsent_actions: list[dict[str, JsonValue]] = []
        self._unreported: list[SurfaceError] = []
        self._run_over = False

    # -- what the surface holds --------------------------------------------------------------

    @property
    def surface_id(self) -> str:
        """The A2UI surface id ("" until a message names it, for a status-only activity)."""
        return self._builder.surface_id

    @surface_id.setter
    def surface_id(self, surface_id: str) -> None:
        self._builder.surface_id = surface_id

    @property
    def surface(self) -> SurfaceModel | None:
        """The a2ui-core surface model (None before createSurface and after deleteSurface)."""
        return self._builder.surface

    @property
    def catalog_id(self) -> str | None:
        """The catalog id createSurface named (as sent)."""
        return self._builder.catalog_id

    @property
    def profile(self) -> CatalogProfile:
        """The surface's catalog: the component types and functions it may use."""
        return self._builder.profile

    @property
    def refused_actions(self) -> dict[str, str]:
        """Component id → why its functionCall action cannot run (shown on the disabled button)."""
        return self._builder.refused_actions

    @property
    def live(self) -> bool:
        """Whether the surface exists (created and not deleted)."""
        return self.surface is not None

    @property
    def send_data_model(self) -> bool:
        """Whether createSurface asked for the data model with every request (to its agent only)."""
        surface = self.surface
        return bool(surface and surface.send_data_model)

    @property
    def display_name(self) -> str:
        """The agent's name for the frame: theme `agentDisplayName`, else the author, sanitised."""
        surface = self.surface
        theme_name = surface.theme.get("agentDisplayName") if surface else None
        return agent_display_name(theme_name, agent_display_name(self.author, "agent"))

    @property
    def frame_title(self) -> str:
        """The frame's title: always says the surface is the agent's, so it cannot pass as the app's."""
        return f"Agent UI · {self.display_name}"

    @property
    def theme(self) -> dict[str, JsonValue]:
        """The surface theme as sent (primaryColor, agentDisplayName, ...)."""
        surface = self.surface
        return json_ready(surface.theme) if surface else {}  # type: ignore[return-value]

    def data_model(self) -> JsonValue:
        """A copy of the whole local data model."""
        surface = self.surface
        return json_ready(surface.data_model.get("/")) if surface else None

    def get_value(self, path: str) -> JsonValue:
        """The data model value at a JSON Pointer (None if absent)."""
        surface = self.surface
        return json_ready(surface.data_model.get(path)) if surface else None

    @property
    def error_line(self) -> str | None:
        """One line summarising what went wrong (validation or generation), or None."""
        if self.status == "failed":
            detail = self.status_errors[-1] if self.status_errors else "the agent could not build this UI"
            return f"UI generation failed: {detail}"
        if self.errors:
            last = self.errors[-1]
            more = f" (+{len(self.errors) - 1} more)" if len(self.errors) > 1 else ""
            return f"Invalid UI from the agent at {last.path}: {last.message}{more}"
        return None

    # -- rendering ---------------------------------------------------------------------------

    def resolve(self, component_id: str = "root", scope: str = "/") -> ResolvedComponent:
        """Resolve a component (and its subtree) for rendering; a placeholder if it is missing."""
        surface = self.surface
        if surface is None:
            return ResolvedComponent(component_id, "", scope, placeholder=True)
        return resolve_component(surface, component_id, scope, refused=self.refused_actions)

    def tree(self, stop: Callable[[], bool] | None = None) -> ResolvedComponent | None:
        """The resolved tree from the root, or None while there is no surface.

        Raises:
            ResolveStopped: `stop`, asked before each component, returned True.
        """
        surface = self.surface
        if surface is None:
            return None
        return resolve_component(surface, surface.root_id or "root", refused=self.refused_actions, stop=stop)

    def iter_components(self) -> Iterator[tuple[int, ResolvedComponent]]:
        """(depth, component) pairs of the tree from the root, pre-order."""
        root = self.tree()
        if root is not None:
            yield from walk(root)

    def check_results(self, component_id: str, scope: str = "/") -> CheckResult:
        """Whether the component's checks pass now, with the failing checks' messages."""
        surface = self.surface
        if surface is None or surface.components_model.get(component_id) is None:
            return CheckResult(False, ("This component is not available.",))
        return resolve_component(surface, component_id, scope, depth=1).check

    # -- local writes ------------------------------------------------------------------------

    def set_value(self, path: str, value: JsonValue, *, record: bool = True, who: str | None = None) -> bool:
        """Write the local data model (an input changed): synchronous, nothing goes to the agent.

        Args:
            path: An absolute JSON Pointer (a `ResolvedComponent.bindings` value).
            value: The new value.
            record: Log it as a human write, so a restored thread shows what the person typed.
            who: Who typed it (a shared conversation's guest); the conversation's person by default.

        Returns:
            Whether the write was applied (False without a live surface or with a bad path).
        """
        surface = self.surface
        if surface is None or not isinstance(path, str) or not path.startswith("/"):
            return False
        try:
            surface.data_model.set(path, value)
        except (A2uiError, ValueError, TypeError, KeyError, IndexError) as exc:
            log.warning("could not write %s on surface %s: %s", path, self.surface_id, exc)
            return False
        if record:
            self.env.write("a2ui_input", self.id, {"path": path, "value": value}, who=who)
        self.changed()
        return True

    # -- actions -----------------------------------------------------------------------------

    def fire_action(self, component_id: str, scope: str = "/", *, who: str | None = None) -> ActionResult:
        """Fire the component's action, as a click on it does.

        `event` actions resolve their context against the data model, are logged as a human
        write and wait to be sent to the agent in a new run (`take_actions`). `functionCall`
        actions run only the basic catalog's functions; `openUrl` only returns an http(s) URL
        for the UI to open after the human confirms. Never raises for agent mistakes.
        """
        surface, action = self.surface, self._action(component_id)
        if surface is None or action is None:
            return ActionResult("refused", message="This control has no action.")
        if component_id in self.refused_actions:
            return ActionResult("refused", message=self.refused_actions[component_id])
        check = self.check_results(component_id, scope)
        if not check.valid:
            return ActionResult("disabled", message="; ".join(check.messages) or "A check fails.")
        data = DataContext(surface, scope)
        if isinstance(action.get("event"), dict):
            return self._fire_event(data, component_id, action, who)
        if isinstance(action.get("functionCall"), dict):
            return run_function(data, action["functionCall"], self.profile)
        return ActionResult("refused", message="The action is neither an event nor a function call.")

    def fires_event(self, component_id: str) -> bool:
        """Whether the component's action is an `event` for the agent (not a local function call or link)."""
        action = self._action(component_id)
        return action is not None and isinstance(action.get("event"), dict)

    def _action(self, component_id: str) -> dict[str, Any] | None:
        """The component's `action` as the agent wrote it (None: no such component, or no action)."""
        surface = self.surface
        model = surface.components_model.get(component_id) if surface else None
        action = model.properties.get("action") if model else None
        return action if isinstance(action, dict) else None

    def _fire_event(self, data: DataContext, component_id: str, action: dict[str, Any], who: str | None) -> ActionResult:
        try:
            event = data.resolve_action(action)["event"]
            payload = {
                "name": event.get("name"),
                "surfaceId": self.surface_id,
                "sourceComponentId": component_id,
                "timestamp": timestamp(self.env.clock()),
                "context": json_ready(event.get("context") or {}),
            }
            checked = A2uiClientAction.model_validate(payload).model_dump(mode="json", by_alias=True)
        except (A2uiError, ValidationError, TypeError, KeyError, ValueError) as exc:
            log.warning("A2UI event on %s/%s is malformed: %s", self.surface_id, component_id, exc)
            self._report(SurfaceError(self.surface_id, f"/components/{component_id}/action", f"invalid event action: {exc}"))
            self.changed()
            return ActionResult("refused", message="The agent's action definition is invalid.")
        self.env.write("a2ui_action", self.id, {"action": checked, "data_model": self.data_model()}, who=who)
        self.fired.append(checked)
        self._unsent_actions.append(checked)
        self.changed()
        return ActionResult("sent", action=checked)

    @property
    def unsent_actions(self) -> list[dict[str, JsonValue]]:
        """Fired events not sent to the agent yet (a copy), oldest first."""
        return list(self._unsent_actions)

    @property
    def unreported_errors(self) -> list[SurfaceError]:
        """Validation errors not reported to the agent yet (a copy), oldest first."""
        return list(self._unreported)

    def mark_sent(self, action: dict[str, JsonValue]) -> None:
        """The app delivered `action` itself (as a message): it no longer rides in forwardedProps."""
        if action in self._unsent_actions:
            self._unsent_actions.remove(action)

    def take_actions(self) -> list[dict[str, JsonValue]]:
        """The fired events not yet sent, oldest first; they count as sent from now on."""
        actions, self._unsent_actions = self._unsent_actions, []
        return actions

    def take_errors(self) -> list[SurfaceError]:
        """The validation errors not yet reported to the agent; they count as reported from now on."""
        errors, self._unreported = self._unreported, []
        return errors

    # -- inbound (the handler calls these) ---------------------------------------------------

    def apply(self, messages: list[dict[str, Any]]) -> None:
        """Apply A2UI messages in order. Invalid ones are recorded as errors, never raised."""
        if messages:
            self._run_over = False
        for message in messages:
            try:
                outcome = self._builder.apply(message)
            except Exception as exc:  # a2ui-core on agent input: an error line, not a crash
                log.warning("A2UI message rejected on surface %s: %s", self.surface_id, exc)
                self._report(SurfaceError(self.surface_id, "/", readable(f"{type(exc).__name__}: {exc}")))
                continue
            if outcome == "deleted":
                self.status = "deleted"
            elif outcome == "created" and self.status in ("deleted", "ready"):
                self.status = "building"
        self.changed()

    def _report(self, error: SurfaceError) -> None:
        self.errors.append(error)
        self._unreported.append(error)

    def report_inbound(self, errors: list[InboundError]) -> None:
        """Record errors found while reading the carrier (not A2UI at all, malformed lists)."""
        for error in errors:
            self._report(SurfaceError(error.surface_id or self.surface_id, error.path or "/", error.message))
        if errors:
            self.changed()

    def set_status(self, status: SurfaceStatus | None, errors: list[str] | None = None) -> None:
        """Apply a lifecycle status (None: ready once a root exists, unless failed or deleted)."""
        if errors:
            self.status_errors.extend(errors)
        if status is not None:
            self.status = status
        elif self.status not in ("failed", "deleted"):
            surface = self.surface
            if surface is not None and surface.components_model.get(surface.root_id or "root") is not None:
                self.status = "ready"
        self.changed()

    def complete(self) -> None:
        """The segment that emitted the surface ended: a surface still without a root is stalled,
        and what streaming order excused until now is reported once (`SurfaceBuilder.run_ended`)."""
        self._run_over = True
        self._builder.run_ended()
        super().complete()

    @property
    def stalled(self) -> bool:
        """Whether the run that was building this surface ended before it got a root."""
        return self._run_over and self.status == "building"

    # -- the log -----------------------------------------------------------------------------

    def restore(self, write: HumanWrite) -> None:
        """Re-apply a logged human write during replay: inputs rewrite the data model; a fired
        action comes back fired (with the data model as it was sent) and is never sent again."""
        surface = self.surface
        if write.kind == "a2ui_input" and surface is not None:
            path, value = write.payload.get("path"), write.payload.get("value")
            if isinstance(path, str):
                self.set_value(path, value, record=False)
        elif write.kind == "a2ui_action":
            action = write.payload.get("action")
            if isinstance(action, dict):
                self.fired.append(action)
            snapshot = write.payload.get("data_model")
            if surface is not None and isinstance(snapshot, dict):
                surface.data_model.set("/", snapshot)
            self.changed()

    def content(self) -> dict[str, Any]:
        root = self.tree()
        return {
            "surface_id": self.surface_id,
            "agent_id": self.agent_id,
            "display_name": self.display_name,
            "status": "stalled" if self.stalled else self.status,
            "catalog_id": self.catalog_id,
            "send_data_model": self.send_data_model,
            "data_model": self.data_model(),
            "components": [{"id": c.id, "type": c.type, "scope": c.scope} for _d, c in walk(root)] if root else [],
            "errors": [e.payload() for e in self.errors],
            "status_errors": list(self.status_errors),
            "fired": list(self.fired),
        }
