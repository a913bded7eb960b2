"""Resolving a surface's components for rendering: bindings evaluated, templates stamped.

a2ui-core's `GenericBinder` does the per-component work (schema-driven binding resolution, the
two-way setters, checks); this module walks the component tree from the root, stamps one child
per data item for templates, and leaves placeholders for children that have not arrived yet.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import regex
from a2ui.core.resolution import ComponentContext, DataContext, GenericBinder
from a2ui.core.state import ComponentModel, SurfaceModel

from tandem.core.a2ui.catalog import BASIC_COMPONENT_TYPES
from tandem.core.json_pointer import escape

__all__ = ["CheckResult", "ResolveStopped", "ResolvedComponent", "resolve_component", "walk", "scope_key"]

log = logging.getLogger(__name__)

MAX_DEPTH = 48
"""Deeper trees (or reference cycles) stop with a placeholder instead of recursing forever."""

_CHECK_KEYS = frozenset({"isValid", "validationErrors", "validationResult", "checks"})
_REGEX_TIMEOUT = 0.05  # seconds: an agent's validationRegexp must not hang the engine


class ResolveStopped(Exception):
    """A resolution was stopped by its caller's `stop` before it finished (nothing was changed)."""


@dataclass(frozen=True)
class CheckResult:
    """Whether a component's checks pass: buttons are disabled while `valid` is false."""

    valid: bool
    messages: tuple[str, ...] = ()
    """The failing checks' messages, in declaration order (agent text: sanitise before display)."""


@dataclass(frozen=True)
class ResolvedComponent:
    """One component instance ready to render. Built on demand; a snapshot, never updated.

    A component stamped by a template appears once per data item, each with its own `scope`.
    """

    id: str
    """The component id (agent-chosen: encode before using it in a widget id)."""
    type: str
    """The component type (`Text`, `Button`, ...); "" for a placeholder."""
    scope: str = "/"
    """The data-model path relative bindings resolve against ("/" or a template item's path)."""
    props: dict[str, Any] = field(default_factory=dict)
    """Resolved properties: bindings and function calls evaluated, JSON-ready. Structural
    properties (`children`, `child`, `tabs[].child`, `trigger`, `content`) keep their raw ids;
    `action` keeps its raw definition (fire it with `SurfaceBlock.fire_action`)."""
    bindings: dict[str, str] = field(default_factory=dict)
    """Two-way bound properties → absolute data-model paths (write with `SurfaceBlock.set_value`)."""
    slots: dict[str, tuple[ResolvedComponent, ...]] = field(default_factory=dict)
    """Children by role: `children` (Row, Column, List), `child` (Card, Button), `tabs` (Tabs, in
    tab order), `trigger` and `content` (Modal)."""
    check: CheckResult = CheckResult(True)
    """The component's checks (and a TextField's `validationRegexp`)."""
    placeholder: bool = False
    """Referenced but not arrived yet (or a reference cycle / too deep)."""
    refusal: str | None = None
    """Why this component's action cannot run here (a function outside its catalog), if so."""

    @property
    def key(self) -> str:
        """Unique within the rendered tree: the id, plus the data scope for template stamps."""
        return self.id if self.scope == "/" else f"{self.id}@{self.scope}"

    @property
    def supported(self) -> bool:
        """Whether the basic catalog defines this type (others render as a labelled fallback)."""
        return self.type in BASIC_COMPONENT_TYPES

    @property
    def children(self) -> tuple[ResolvedComponent, ...]:
        """Every child, slot by slot."""
        return tuple(child for slot in self.slots.values() for child in slot)

    @property
    def action_kind(self) -> str | None:
        """"event", "functionCall" or None: what firing this component's action does."""
        action = self.props.get("action")
        if isinstance(action, dict):
            for kind in ("event", "functionCall"):
                if kind in action:
                    return kind
        return None


def scope_key(key: str) -> str:
    """A data-model key as one JSON Pointer token."""
    return escape(key)


def _json_ready(value: Any) -> Any:
    try:
        return json.loads(json.dumps(value, default=_fallback))
    except (TypeError, ValueError):
        return str(value)


def _fallback(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", exclude_none=True)
    if hasattr(value, "value"):
        return value.value
    return str(value)


def _binding_path(value: Any) -> str | None:
    if isinstance(value, dict) and "componentId" not in value and isinstance(value.get("path"), str):
        return value["path"]
    return None


def _regex_failure(model: ComponentModel, value: Any) -> str | None:
    pattern = model.properties.get("validationRegexp")
    if model.type != "TextField" or not isinstance(pattern, str) or not isinstance(value, str) or not value:
        return None
    try:
        matched = regex.fullmatch(pattern, value, timeout=_REGEX_TIMEOUT)
    except (regex.error, TimeoutError) as exc:
        log.warning("validationRegexp of %s unusable: %s", model.id, exc)
        return None
    return None if matched else "The value does not have the expected format."


def _resolve_props(surface: SurfaceModel, model: ComponentModel, scope: str) -> tuple[dict[str, Any], dict[str, str], CheckResult]:
    data = DataContext(surface, scope)
    binder = GenericBinder(ComponentContext(model, data, surface.components_model))
    try:
        snapshot = dict(binder.snapshot)
    finally:
        binder.dispose()
    raw = model.properties
    props: dict[str, Any] = {}
    for key, value in snapshot.items():
        if key in _CHECK_KEYS or callable(value):
            continue
        props[key] = _json_ready(value)
    if "action" in raw:
        props["action"] = _json_ready(raw["action"])
    # Dynamic strings nested in item lists (tab titles, option labels) are not bound by the binder.
    for list_key, item_key in (("tabs", "title"), ("options", "label")):
        items = props.get(list_key)
        if isinstance(items, list):
            props[list_key] = [
                {**item, item_key: _json_ready(data.resolve_dynamic_value(item[item_key]))} if isinstance(item, dict) and isinstance(item.get(item_key), dict) else item
                for item in items
            ]
    bindings = {key: data.resolve_path(path) for key, value in raw.items() if (path := _binding_path(value))}
    messages = [str(m) for m in snapshot.get("validationErrors") or []]
    valid = bool(snapshot.get("isValid", True))
    regex_message = _regex_failure(model, props.get("value"))
    if regex_message is not None:
        valid = False
        messages.append(regex_message)
    return props, bindings, CheckResult(valid, tuple(messages))


def _child_refs(model: ComponentModel, props: dict[str, Any], surface: SurfaceModel, scope: str) -> dict[str, list[tuple[str, str]]]:
    """Slot → [(child id, data scope)], templates expanded against the data model."""
    slots: dict[str, list[tuple[str, str]]] = {}
    raw = model.properties
    children = raw.get("children")
    if isinstance(children, list):
        slots["children"] = [(c, scope) for c in children if isinstance(c, str)]
    elif isinstance(children, dict) and isinstance(children.get("componentId"), str):
        data = DataContext(surface, scope)
        base = data.resolve_path(children["path"]) if isinstance(children.get("path"), str) else data.resolve_path(".")
        items = surface.data_model.get(base)
        prefix = base.rstrip("/")
        if isinstance(items, list):
            keys = [str(i) for i in range(len(items))]
        elif isinstance(items, dict):
            keys = [scope_key(k) for k in items]
        else:
            keys = []
        slots["children"] = [(children["componentId"], f"{prefix}/{k}") for k in keys]
    for name in ("child", "trigger", "content"):
        if isinstance(raw.get(name), str):
            slots[name] = [(raw[name], scope)]
    tabs = raw.get("tabs")
    if isinstance(tabs, list):
        slots["tabs"] = [(t["child"], scope) for t in tabs if isinstance(t, dict) and isinstance(t.get("child"), str)]
    return slots


def resolve_component(
    surface: SurfaceModel,
    component_id: str,
    scope: str = "/",
    *,
    depth: int = MAX_DEPTH,
    refused: Mapping[str, str] | None = None,
    stop: Callable[[], bool] | None = None,
    _seen: frozenset[str] = frozenset(),
) -> ResolvedComponent:
    """Resolve `component_id` in `scope` and its subtree.

    Never raises for agent mistakes: a missing child, a cycle or excessive depth becomes a
    placeholder; a binding that fails to evaluate resolves to None.

    Raises:
        ResolveStopped: `stop` (asked before each component) returned True: a surface of
            thousands of components takes seconds to resolve, which its caller may no longer need.
    """
    if stop is not None and stop():
        raise ResolveStopped(component_id)
    model = surface.components_model.get(component_id)
    key = f"{component_id}@{scope}"
    if model is None or depth <= 0 or key in _seen:
        return ResolvedComponent(component_id, "", scope, placeholder=True)
    try:
        props, bindings, check = _resolve_props(surface, model, scope)
    except Exception as exc:  # a2ui-core evaluating agent expressions: show, don't crash
        log.warning("could not resolve A2UI component %s: %s", component_id, exc)
        props, bindings, check = {k: _json_ready(v) for k, v in model.properties.items()}, {}, CheckResult(True)
    seen = _seen | {key}
    slots = {
        name: tuple(resolve_component(surface, child, child_scope, depth=depth - 1, refused=refused, stop=stop, _seen=seen) for child, child_scope in refs)
        for name, refs in _child_refs(model, props, surface, scope).items()
    }
    return ResolvedComponent(component_id, model.type, scope, props, bindings, slots, check, refusal=(refused or {}).get(component_id))


def walk(node: ResolvedComponent, depth: int = 0) -> Iterator[tuple[int, ResolvedComponent]]:
    """Pre-order (depth, component) pairs of a resolved tree."""
    yield depth, node
    for child in node.children:
        yield from walk(child, depth + 1)
