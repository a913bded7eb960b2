"""Building one A2UI surface from the agent's messages: what a2ui-core applies, and the checks it
does not make (the protocol version, the catalog, all-or-nothing component batches, cycles, what
Tandem cannot honour, what the end of a run leaves missing)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from a2ui.core import A2uiError, MessageProcessor
from a2ui.core.schema.v0_9.client_to_server import A2uiValidationError
from a2ui.core.state import SurfaceModel
from pydantic import JsonValue

from tandem.core.a2ui.catalog import BASIC_CATALOG_ID, CatalogProfile, catalog_profile, new_processor
from tandem.core.a2ui.operations import message_type
from tandem.core.a2ui.validation import SUPPORTED_VERSION, Finding, check_components, child_refs, find_cycle, readable, readable_details

__all__ = ["SurfaceBuilder", "SurfaceError"]


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


_SUPPORTED = "the v0.9 basic and minimal catalogs"


def _component_ids(components: Any) -> list[str]:
    if not isinstance(components, list):
        return []
    return [c["id"] for c in components if isinstance(c, dict) and isinstance(c.get("id"), str)]


class SurfaceBuilder:
    """Applies the agent's A2UI messages to one surface, reporting (never raising) what is wrong.

    Owns the a2ui-core processor (the surface model: components and data model), the surface's
    id (`surface_id`: "" until a message names it), the catalog createSurface named, the actions
    it refuses to run, what was created (a repeat is not an error) and which problems it reported
    once. Reports through `report`. Owned by one `SurfaceBlock`; engine thread only.
    """

    def __init__(self, surface_id: str, report: Callable[[SurfaceError], None]) -> None:
        self.surface_id = surface_id
        self.processor: MessageProcessor = new_processor()
        self.catalog_id: str | None = None
        self.profile: CatalogProfile = catalog_profile(BASIC_CATALOG_ID)  # type: ignore[assignment]
        self.refused_actions: dict[str, str] = {}
        self._report = report
        self._created: dict[str, Any] | None = None
        self._create_rejected = False
        self._unhonoured: dict[str, str] = {}
        self._end_reported = False

    @property
    def surface(self) -> SurfaceModel | None:
        """The a2ui-core surface model (None before createSurface and after deleteSurface)."""
        return self.processor.model.get_surface(self.surface_id) if self.surface_id else None

    @property
    def live(self) -> bool:
        return self.surface is not None

    def apply(self, message: dict[str, Any]) -> Literal["created", "deleted"] | None:
        """Apply one A2UI message; problems are reported, not raised (a2ui-core may still raise
        on agent input: the block reports that). Returns "created" or "deleted" when the message
        did that."""
        kind = message_type(message)
        body = dict(message.get(kind) or {}) if kind else {}
        version = message.get("version")
        if not isinstance(version, str) or not SUPPORTED_VERSION.match(version):
            # As a2ui-core's relaxed mode and the conformance suite: a message must say which
            # protocol it speaks; guessing would render a v0.8 or v1.0 message as something else.
            what = f"version {version!r}" if "version" in message else "no `version`"
            self._report(SurfaceError(self.surface_id, "/version", f"{kind or 'message'} with {what}: this client speaks A2UI v0.9 (\"version\": \"v0.9\")"))
            return None
        if kind == "createSurface":
            return self._create(message, body)
        if kind == "deleteSurface":
            if self.live:
                self.processor.process_messages([message])
            return "deleted"
        if not self.live:
            if not self._create_rejected:  # the rejected createSurface was reported once
                self._report(SurfaceError(self.surface_id, "/", f"{kind} for surface {self.surface_id!r}, which does not exist (createSurface first)"))
            return None
        if kind == "updateDataModel" and "path" not in body:
            body["path"] = "/"
        if kind == "updateComponents":
            self._update_components(message, body)
            return None
        self._process({**message, str(kind): body})
        return None

    def _create(self, message: dict[str, Any], body: dict[str, Any]) -> Literal["created"] | None:
        if self.live:
            if body == self._created:
                # The same createSurface again: a second carrier or a replaced snapshot delivering
                # what was applied already. The surface is exactly what the agent asked for, so
                # this repeat is not reported (the relaxed reading; any difference is an error).
                return None
            self._report(SurfaceError(self.surface_id, "/createSurface", f"surface {self.surface_id!r} already exists: this createSurface was not applied (send deleteSurface first to recreate it)"))
            return None
        catalog_id = body.get("catalogId")
        profile = catalog_profile(catalog_id)
        if not isinstance(catalog_id, str) or not catalog_id:
            self._create_rejected = True
            self._report(SurfaceError(self.surface_id, "/createSurface/catalogId", f"createSurface for {self.surface_id!r} has no `catalogId`: v0.9 requires one (this client renders {_SUPPORTED})"))
            return None
        if profile is None:
            self._create_rejected = True
            self._report(SurfaceError(self.surface_id, "/createSurface/catalogId", f"catalog {catalog_id!r} is not one this client renders ({_SUPPORTED}): the surface was not created"))
            return None
        self.catalog_id = catalog_id
        self.profile = profile
        self._created = dict(body)
        self._create_rejected = False
        self.processor = new_processor()
        self._process({**message, "createSurface": {**body, "catalogId": BASIC_CATALOG_ID}})
        return "created"

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
            self.processor.process_messages([{**message, "updateComponents": body}])
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
            self.processor.process_messages([message])
        except A2uiError as exc:
            self._report(SurfaceError(self.surface_id, "/", readable(str(exc).splitlines()[0])))

    def run_ended(self) -> None:
        """Report, once, what streaming order excused until now: no root component, children
        referenced but never sent (the relaxed reading lets a child come before its parent, not
        never)."""
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
