"""The A2UI surface block: one surface, its data model, its status, its errors and its actions."""

from __future__ import annotations

import datetime
import json
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlparse

from a2ui.core import A2uiError, MessageProcessor
from a2ui.core.resolution import DataContext
from a2ui.core.schema.v0_9.client_to_server import A2uiClientAction, A2uiValidationError
from a2ui.core.state import SurfaceModel
from pydantic import JsonValue, ValidationError

from tandem.core.a2ui.catalog import BASIC_CATALOG_ID, CatalogProfile, catalog_profile, new_processor
from tandem.core.a2ui.operations import InboundError, SurfaceStatus, message_type
from tandem.core.a2ui.resolved import CheckResult, ResolvedComponent, resolve_component, walk
from tandem.core.a2ui.validation import SUPPORTED_VERSION, Finding, check_components, child_refs, find_cycle, readable, readable_details
from tandem.core.blocks.base import Block
from tandem.core.log_entries import HumanWrite

__all__ = ["ActionStatus", "ActionResult", "SurfaceError", "SurfaceBlock", "agent_display_name"]

log = logging.getLogger(__name__)

ActionStatus = Literal["sent", "ran", "needs_confirmation", "refused", "disabled"]
"""What firing an action did: an event queued for the agent, a local function run, an URL
waiting for the human's confirmation, refused (not allowed), or disabled (a check fails)."""

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


@dataclass(frozen=True)
class SurfaceError:
    """A VALIDATION_FAILED error: shown on the surface and reported to the agent once."""

    surface_id: str
    path: str
    message: str

    def payload(self) -> dict[str, JsonValue]:
        """The error as the v0.9 client-to-server `error` object (validated by a2ui-core's model)."""
        model = A2uiValidationError.model_validate({"code": "VALIDATION_FAILED", "surfaceId": self.surface_id, "path": self.path or "/", "message": self.message})
        return model.model_dump(mode="json", by_alias=True)


def _timestamp(seconds: float) -> str:
    moment = datetime.datetime.fromtimestamp(seconds, tz=datetime.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _json_ready(value: Any) -> JsonValue:
    return json.loads(json.dumps(value, default=str))


_SUPPORTED = "the v0.9 basic and minimal catalogs"


def _component_ids(components: Any) -> list[str]:
    if not isinstance(components, list):
        return []
    return [c["id"] for c in components if isinstance(c, dict) and isinstance(c.get("id"), str)]


class SurfaceBlock(Block):
    """One A2UI surface in the conversation, owned by the agent that created it.

    Owns the a2ui-core processor and surface model (components and the local data model), the
    agent's display name, the lifecycle status, the validation errors (shown, never raised),
    the fired actions and what is still to be reported to the agent. Engine thread only: the
    UI calls `set_value`, `check_results`, `resolve`, `fire_action` through the bridge.
    Lifecycle: emitted on the first A2UI it receives; it keeps receiving updates (from later
    segments and runs too) until `deleteSurface`, after which it shows the surface as removed.
    """

    kind = "a2ui_surface"

    def __init__(self, id: str, *, surface_id: str, agent_id: str, **kwargs: Any) -> None:
        super().__init__(id, **kwargs)
        self.surface_id = surface_id
        """The A2UI surface id ("" until a message names it, for a status-only activity)."""
        self.agent_id = agent_id
        """The agent (server) that created the surface: its data model goes to it only."""
        self.status: SurfaceStatus = "building"
        self.status_errors: list[str] = []
        """The agent's own generation errors (retrying, failed)."""
        self.errors: list[SurfaceError] = []
        """Validation errors in what the agent sent, oldest first."""
        self.catalog_id: str | None = None
        """The catalog id createSurface named (as sent)."""
        self.profile: CatalogProfile = catalog_profile(BASIC_CATALOG_ID)  # type: ignore[assignment]
        """The surface's catalog: the component types and functions it may use."""
        self.refused_actions: dict[str, str] = {}
        """Component id → why its functionCall action cannot run (shown on the disabled button)."""
        self.fired: list[dict[str, JsonValue]] = []
        """Event actions the human fired, oldest first (restored from the log on replay)."""
        self._processor: MessageProcessor = new_processor()
        self._unsent_actions: list[dict[str, JsonValue]] = []
        self._unreported: list[SurfaceError] = []
        self._created: dict[str, Any] | None = None
        self._create_rejected = False
        self._unhonoured: dict[str, str] = {}
        self._run_over = False
        self._end_reported = False

    # -- what the surface holds --------------------------------------------------------------

    @property
    def surface(self) -> SurfaceModel | None:
        """The a2ui-core surface model (None before createSurface and after deleteSurface)."""
        return self._processor.model.get_surface(self.surface_id) if self.surface_id else None

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
        return _json_ready(surface.theme) if surface else {}  # type: ignore[return-value]

    def data_model(self) -> JsonValue:
        """A copy of the whole local data model."""
        surface = self.surface
        return _json_ready(surface.data_model.get("/")) if surface else None

    def get_value(self, path: str) -> JsonValue:
        """The data model value at a JSON Pointer (None if absent)."""
        surface = self.surface
        return _json_ready(surface.data_model.get(path)) if surface else None

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

    def tree(self) -> ResolvedComponent | None:
        """The resolved tree from the root, or None while there is no surface."""
        surface = self.surface
        return None if surface is None else resolve_component(surface, surface.root_id or "root", refused=self.refused_actions)

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

    def set_value(self, path: str, value: JsonValue, *, record: bool = True) -> bool:
        """Write the local data model (an input changed): synchronous, nothing goes to the agent.

        Args:
            path: An absolute JSON Pointer (a `ResolvedComponent.bindings` value).
            value: The new value.
            record: Log it as a human write, so a restored thread shows what the person typed.

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
            self.env.write("a2ui_input", self.id, {"path": path, "value": value})
        self.changed()
        return True

    # -- actions -----------------------------------------------------------------------------

    def fire_action(self, component_id: str, scope: str = "/") -> ActionResult:
        """Fire the component's action, as a click on it does.

        `event` actions resolve their context against the data model, are logged as a human
        write and wait to be sent to the agent in a new run (`take_actions`). `functionCall`
        actions run only the basic catalog's functions; `openUrl` only returns an http(s) URL
        for the UI to open after the human confirms. Never raises for agent mistakes.
        """
        surface = self.surface
        model = surface.components_model.get(component_id) if surface else None
        action = model.properties.get("action") if model else None
        if surface is None or model is None or not isinstance(action, dict):
            return ActionResult("refused", message="This control has no action.")
        if component_id in self.refused_actions:
            return ActionResult("refused", message=self.refused_actions[component_id])
        check = self.check_results(component_id, scope)
        if not check.valid:
            return ActionResult("disabled", message="; ".join(check.messages) or "A check fails.")
        data = DataContext(surface, scope)
        if isinstance(action.get("event"), dict):
            return self._fire_event(data, component_id, action)
        if isinstance(action.get("functionCall"), dict):
            return self._run_function(data, action["functionCall"])
        return ActionResult("refused", message="The action is neither an event nor a function call.")

    def _fire_event(self, data: DataContext, component_id: str, action: dict[str, Any]) -> ActionResult:
        try:
            event = data.resolve_action(action)["event"]
            payload = {
                "name": event.get("name"),
                "surfaceId": self.surface_id,
                "sourceComponentId": component_id,
                "timestamp": _timestamp(self.env.clock()),
                "context": _json_ready(event.get("context") or {}),
            }
            checked = A2uiClientAction.model_validate(payload).model_dump(mode="json", by_alias=True)
        except (A2uiError, ValidationError, TypeError, KeyError, ValueError) as exc:
            log.warning("A2UI event on %s/%s is malformed: %s", self.surface_id, component_id, exc)
            self._report(SurfaceError(self.surface_id, f"/components/{component_id}/action", f"invalid event action: {exc}"))
            self.changed()
            return ActionResult("refused", message="The agent's action definition is invalid.")
        self.env.write("a2ui_action", self.id, {"action": checked, "data_model": self.data_model()})
        self.fired.append(checked)
        self._unsent_actions.append(checked)
        self.changed()
        return ActionResult("sent", action=checked)

    def _run_function(self, data: DataContext, call: dict[str, Any]) -> ActionResult:
        name = call.get("call")
        if not isinstance(name, str) or name not in self.profile.functions:
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
        return ActionResult("ran", value=_json_ready(value))

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
                self._apply_one(message)
            except Exception as exc:  # a2ui-core on agent input: an error line, not a crash
                log.warning("A2UI message rejected on surface %s: %s", self.surface_id, exc)
                self._report(SurfaceError(self.surface_id, "/", readable(f"{type(exc).__name__}: {exc}")))
        self.changed()

    def _apply_one(self, message: dict[str, Any]) -> None:
        kind = message_type(message)
        body = dict(message.get(kind) or {}) if kind else {}
        version = message.get("version")
        if not isinstance(version, str) or not SUPPORTED_VERSION.match(version):
            # As a2ui-core's relaxed mode and the conformance suite: a message must say which
            # protocol it speaks; guessing would render a v0.8 or v1.0 message as something else.
            what = f"version {version!r}" if "version" in message else "no `version`"
            self._report(SurfaceError(self.surface_id, "/version", f"{kind or 'message'} with {what}: this client speaks A2UI v0.9 (\"version\": \"v0.9\")"))
            return
        if kind == "createSurface":
            self._create(message, body)
            return
        if kind == "deleteSurface":
            if self.live:
                self._processor.process_messages([message])
            self.status = "deleted"
            return
        if not self.live:
            if not self._create_rejected:  # the rejected createSurface was reported once
                self._report(SurfaceError(self.surface_id, "/", f"{kind} for surface {self.surface_id!r}, which does not exist (createSurface first)"))
            return
        if kind == "updateDataModel" and "path" not in body:
            body["path"] = "/"
        if kind == "updateComponents":
            self._update_components(message, body)
            return
        self._process({**message, str(kind): body})

    def _create(self, message: dict[str, Any], body: dict[str, Any]) -> None:
        if self.live:
            if body == self._created:
                # The same createSurface again: a second carrier or a replaced snapshot delivering
                # what was applied already. The surface is exactly what the agent asked for, so
                # this repeat is not reported (the relaxed reading; any difference is an error).
                return
            self._report(SurfaceError(self.surface_id, "/createSurface", f"surface {self.surface_id!r} already exists: this createSurface was not applied (send deleteSurface first to recreate it)"))
            return
        catalog_id = body.get("catalogId")
        profile = catalog_profile(catalog_id)
        if not isinstance(catalog_id, str) or not catalog_id:
            self._create_rejected = True
            self._report(SurfaceError(self.surface_id, "/createSurface/catalogId", f"createSurface for {self.surface_id!r} has no `catalogId`: v0.9 requires one (this client renders {_SUPPORTED})"))
            return
        if profile is None:
            self._create_rejected = True
            self._report(SurfaceError(self.surface_id, "/createSurface/catalogId", f"catalog {catalog_id!r} is not one this client renders ({_SUPPORTED}): the surface was not created"))
            return
        self.catalog_id = catalog_id
        self.profile = profile
        self._created = dict(body)
        self._create_rejected = False
        self._processor = new_processor()
        self._process({**message, "createSurface": {**body, "catalogId": BASIC_CATALOG_ID}})
        if self.status in ("deleted", "ready"):
            self.status = "building"

    def _update_components(self, message: dict[str, Any], body: dict[str, Any]) -> None:
        """All or nothing: a batch with one invalid component changes nothing (reported per
        problem). What Tandem cannot honour (an unknown type or function) is reported, and
        the rest renders."""
        surface = self.surface
        assert surface is not None
        components = body.get("components")
        known = {cid: model.type for cid in _component_ids(components) if (model := surface.components_model.get(cid)) is not None}
        findings = check_components(components, self.profile, known)
        graph = {cid: child_refs(model.properties) for cid, model in surface.components_model.entries}
        for component in components if isinstance(components, list) else []:
            if isinstance(component, dict) and isinstance(component.get("id"), str):
                graph[component["id"]] = child_refs(component)
        cycle = find_cycle(graph)
        if cycle is not None:
            findings.append(Finding("/components", "circular component reference: " + " → ".join(repr(c) for c in cycle) + " (a component cannot contain itself)"))
        rejected = [f for f in findings if f.rejects]
        if rejected:
            for finding in rejected:
                self._report(SurfaceError(self.surface_id, finding.path, finding.message))
            return
        try:
            self._processor.process_messages([{**message, "updateComponents": body}])
        except A2uiError as exc:
            details = getattr(exc, "details", None) or []
            if not details:
                self._report(SurfaceError(self.surface_id, "/", readable(str(exc).splitlines()[0])))
            pairs = [(getattr(detail, "path", None), str(getattr(detail, "message", detail))) for detail in details]
            for path, text in readable_details(pairs, components):
                self._report(SurfaceError(self.surface_id, path, text))
            return
        for finding in findings:
            if finding.path not in self._unhonoured:
                self._unhonoured[finding.path] = finding.message
                self._report(SurfaceError(self.surface_id, finding.path, finding.message))
            if "/action/functionCall" in finding.path and isinstance(components, list):
                index = int(finding.path.split("/")[2])
                cid = components[index].get("id") if isinstance(components[index], dict) else None
                if isinstance(cid, str):
                    self.refused_actions[cid] = finding.message

    def _process(self, message: dict[str, Any]) -> None:
        try:
            self._processor.process_messages([message])
        except A2uiError as exc:
            self._report(SurfaceError(self.surface_id, "/", readable(str(exc).splitlines()[0])))

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
        """The segment that emitted the surface ended: a surface still without a root is stalled.

        What streaming order excused until now is reported once: no root component, children
        referenced but never sent (the relaxed reading lets a child come before its parent, not
        never)."""
        self._run_over = True
        surface = self.surface
        if surface is not None and not self._end_reported:
            self._end_reported = True
            model = surface.components_model
            root = surface.root_id or "root"
            if model.get(root) is None and len(model) > 0:
                self._report(SurfaceError(self.surface_id, "/", f"the run ended and surface {self.surface_id!r} still has no root component (id \"root\"): nothing of it is shown"))
            else:
                missing = sorted({ref for cid, c in model.entries for ref in child_refs(c.properties) if model.get(ref) is None})
                if missing:
                    names = ", ".join(repr(m) for m in missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
                    self._report(SurfaceError(self.surface_id, "/", f"the run ended and these referenced components were never sent: {names}"))
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
