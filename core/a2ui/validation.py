"""Tandem's own checks on what an agent sends, beyond a2ui-core's relaxed validation.

a2ui-core (0.4) lets through what the v0.9 schemas reject: properties a component does not have
(the deprecated Button `enabled` and `primary` among them), function arguments of the wrong
type (`length` with `min: "5"`, `numeric` bounds as strings), an `openUrl` whose url is not a
URI, a `returnType` that contradicts the function. Those make the whole batch invalid, as the
schema says. What Tandem merely cannot honour — a component type or a function its catalog
lacks — is reported but the rest is still rendered (see `Finding.rejects`). Messages are
sentences naming the component and the property, never pydantic's internal paths.
Pure functions over JSON; they never raise on agent input.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from tandem.core.a2ui.catalog import CatalogProfile, rendering_catalog

__all__ = ["Finding", "check_components", "child_refs", "find_cycle", "readable", "readable_details", "SUPPORTED_VERSION"]

SUPPORTED_VERSION = re.compile(r"^v0\.9(\.\d+)?$")
"""The protocol versions a message may carry: v0.9 and its patch releases (v0.9.1)."""

_DEPRECATED = {
    ("Button", "enabled"): "v0.9 removed it: a Button is disabled by its `checks`",
    ("Button", "primary"): 'v0.9 removed it: use `variant: "primary"`',
}
_URI_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:\S+$")
# pydantic's validator wrappers inside a dotted path: `function-after[_check(), Model]`, ...
_PYDANTIC_SEGMENT = re.compile(r"(?:function-(?:after|before|wrap|plain)|tagged-union|union|chain|lax-or-strict|default|nullable|model|json-or-python)\[[^\[\]]*\]\.?")
_TYPE_TAG = re.compile(r"^(?:str|int|float|bool|list|dict|none|[A-Z]\w*)$")
_INPUT_SHOULD = re.compile(r"\s*\(input should be [^)]*\)")
_DOUBLE_DOT = re.compile(r"(?<=\w)\.\.(?=\w)")
_TYPE_WORDS = (
    ("dictionary or instance of DataBinding", 'a data binding ({"path": ...})'),
    ("dictionary or instance of FunctionCall", "a function call"),
)


@dataclass(frozen=True)
class Finding:
    """One problem in an updateComponents batch."""

    path: str
    """JSON Pointer into the message body (`/components/2/checks/0/condition`)."""
    message: str
    """A sentence for the person and the agent: component type and id, property, what is wrong."""
    rejects: bool = True
    """True: the batch is invalid and nothing of it is applied. False: Tandem cannot honour this
    part (unknown component type or function) but renders the rest, and tells the agent."""


@functools.cache
def _properties(component_type: str) -> frozenset[str] | None:
    """The properties the catalog's schema declares for a component type (None: unknown type)."""
    try:
        schema = rendering_catalog().resolved_component_schema(component_type)
    except Exception:  # a2ui-core on a name it does not know
        return None
    if not isinstance(schema, Mapping):
        return None
    names: set[str] = set()
    for part in [schema, *(schema.get("allOf") or [])]:
        if isinstance(part, Mapping) and isinstance(part.get("properties"), Mapping):
            names.update(part["properties"])
    return frozenset(names) if names else None


@functools.cache
def _return_type(function: str) -> str | None:
    api = rendering_catalog().get_function(function)
    value = getattr(api, "return_type", None) if api is not None else None
    return str(value) if value is not None else None


def _label(component: Mapping[str, Any], index: int) -> str:
    kind = component.get("component")
    cid = component.get("id")
    who = f"{kind} " if isinstance(kind, str) else ""
    return f"{who}'{cid}'" if isinstance(cid, str) else f"{who}component #{index + 1}"


def _is_dynamic(value: Any) -> bool:
    return isinstance(value, Mapping) and ("path" in value or "call" in value)


def _calls(value: Any, pointer: str, prop: str) -> Iterator[tuple[str, str, Mapping[str, Any], bool]]:
    """(pointer, property path, call, is_action) for every function call inside a property value."""
    if isinstance(value, Mapping):
        if isinstance(value.get("call"), str):
            yield pointer, prop, value, prop.endswith("functionCall")
        for key, item in value.items():
            if isinstance(key, str):
                yield from _calls(item, f"{pointer}/{key}", f"{prop}.{key}")
    elif isinstance(value, list):
        for position, item in enumerate(value):
            yield from _calls(item, f"{pointer}/{position}", f"{prop}[{position}]")


def _argument_problems(name: str, args: Any) -> list[str]:
    """What is wrong with a basic function's literal arguments that a2ui-core lets through."""
    if not isinstance(args, Mapping):
        return []
    problems: list[str] = []
    if name == "length":
        if "min" not in args and "max" not in args:
            problems.append("`length` needs `min` or `max`")
        for bound in ("min", "max"):
            value = args.get(bound)
            if bound in args and not _is_dynamic(value) and not (isinstance(value, int) and not isinstance(value, bool) and value >= 0):
                problems.append(f"`length` `{bound}` must be a whole number of at least 0, not {_show(value)}")
    elif name == "numeric":
        for bound in ("min", "max"):
            value = args.get(bound)
            if bound in args and not _is_dynamic(value) and not (isinstance(value, (int, float)) and not isinstance(value, bool)):
                problems.append(f"`numeric` `{bound}` must be a number, not {_show(value)}")
    elif name == "openUrl":
        url = args.get("url")
        if isinstance(url, str) and not _URI_SCHEME.match(url.strip()):
            problems.append(f"`openUrl` `url` must be an absolute URI (like https://example.com), not {_show(url)}")
    return problems


def _show(value: Any) -> str:
    text = repr(value) if not isinstance(value, str) else f'"{value}"'
    return text if len(text) <= 40 else text[:39] + "…"


def check_components(components: Any, profile: CatalogProfile, known_types: Mapping[str, str]) -> list[Finding]:
    """The problems of one updateComponents batch, in the order of its components.

    Args:
        components: The batch's `components` (anything: a non-list is a2ui-core's to reject).
        profile: The surface's catalog: which component types and functions it has.
        known_types: Component id → type already on the surface (an update may omit the type).
    """
    findings: list[Finding] = []
    if not isinstance(components, list):
        return findings
    for index, component in enumerate(components):
        if not isinstance(component, Mapping):
            continue
        base = f"/components/{index}"
        who = _label(component, index)
        kind = component.get("component")
        if kind is None and isinstance(component.get("id"), str):
            kind = known_types.get(component["id"])
        if isinstance(kind, str) and kind not in profile.component_types:
            findings.append(Finding(f"{base}/component", f"{who}: the {profile.name} catalog has no component {kind!r}; it is shown as unsupported", rejects=False))
        declared = _properties(kind) if isinstance(kind, str) and kind in profile.component_types else None
        if declared is not None:
            for prop in component:
                if prop not in declared:
                    why = _DEPRECATED.get((str(kind), prop), f"the catalog's {kind} declares no such property")
                    findings.append(Finding(f"{base}/{prop}", f"{who}: unknown property `{prop}` ({why})"))
        for prop, value in component.items():
            if prop in ("id", "component") or not isinstance(prop, str):
                continue
            for pointer, where, call, is_action in _calls(value, f"{base}/{prop}", prop):
                name = call["call"]
                if name not in profile.functions:
                    doing = "the button is disabled" if is_action else "the value stays empty"
                    findings.append(Finding(pointer, f"{who}: `{where}` calls {name!r}, which is not a function of the {profile.name} catalog this client runs; {doing}", rejects=False))
                    continue
                declared_return = _return_type(name)
                given = call.get("returnType")
                if isinstance(given, str) and declared_return not in (None, "any") and given != declared_return:
                    findings.append(Finding(f"{pointer}/returnType", f"{who}: `{where}` says {name} returns {given!r}, but it returns {declared_return!r}"))
                for problem in _argument_problems(name, call.get("args")):
                    findings.append(Finding(f"{pointer}/args", f"{who}: `{where}`: {problem}"))
    return findings


def child_refs(properties: Mapping[str, Any]) -> list[str]:
    """The component ids a component's properties reference (children, child, tabs, modal parts)."""
    refs: list[str] = []
    children = properties.get("children")
    if isinstance(children, list):
        refs.extend(c for c in children if isinstance(c, str))
    elif isinstance(children, Mapping) and isinstance(children.get("componentId"), str):
        refs.append(children["componentId"])
    for key in ("child", "trigger", "content"):
        if isinstance(properties.get(key), str):
            refs.append(properties[key])
    tabs = properties.get("tabs")
    if isinstance(tabs, list):
        refs.extend(t["child"] for t in tabs if isinstance(t, Mapping) and isinstance(t.get("child"), str))
    return refs


def find_cycle(graph: Mapping[str, list[str]]) -> list[str] | None:
    """A reference cycle (`["root", "c1", "root"]`) in a component graph, or None.

    A cycle is invalid whatever order the components arrive in, so unlike a missing child it
    is an error at once (a2ui-core's relaxed mode lets it through; Tandem would only show a
    placeholder where the loop closes).
    """
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for start in graph:
        if state.get(start):
            continue
        path: list[str] = []
        stack: list[tuple[str, int]] = [(start, 0)]
        while stack:
            node, index = stack.pop()
            if index == 0:
                state[node] = 1
                path.append(node)
            children = graph.get(node, [])
            if index < len(children):
                stack.append((node, index + 1))
                child = children[index]
                if state.get(child) == 1:
                    return [*path[path.index(child) :], child]
                if not state.get(child) and child in graph:
                    stack.append((child, 0))
            else:
                state[node] = 2
                path.pop()
    return None


def readable(text: str) -> str:
    """a2ui-core's message without pydantic's internal path segments and explanations."""
    previous = None
    while previous != text:  # innermost first: the wrappers nest
        previous, text = text, _PYDANTIC_SEGMENT.sub("", text)
    text = _INPUT_SHOULD.sub("", text)
    for internal, plain in _TYPE_WORDS:
        text = text.replace(internal, plain)
    return _DOUBLE_DOT.sub(".", text).replace(".'", "'").strip()


def _segments(path: str) -> list[str]:
    """A detail path's segments without pydantic's union-member tags (`str`, `DataBinding`)."""
    return [p for p in readable(path).strip(".").split(".") if p and not _TYPE_TAG.match(p)]


def readable_details(details: list[tuple[str | None, str]], components: Any) -> list[tuple[str, str]]:
    """(JSON Pointer, sentence) per problem of a rejected updateComponents batch.

    a2ui-core reports `components.<id>.<property>...` paths, one detail per union member it
    tried; the members' complaints about one property become one sentence, which names the
    component's type and id and the property, and the pointer indexes the component.
    """
    merged: dict[tuple[str, str], list[str]] = {}
    for path, message in details:
        pointer, who, prop = _locate(path, components)
        merged.setdefault((pointer, who + (f"`{prop}`: " if prop else "")), []).append(readable(message))
    sentences = []
    for (pointer, head), messages in merged.items():
        expected = [m[len("Expected ") : m.index(", received")] for m in messages if m.startswith("Expected ") and ", received" in m]
        if len(expected) == len(messages) > 1:
            received = messages[0][messages[0].index(", received") :]
            text = "Expected " + " or ".join(dict.fromkeys(expected)) + received
        else:
            text = "; ".join(dict.fromkeys(messages))
        sentences.append((pointer, head + text))
    return sentences


def _locate(path: str | None, components: Any) -> tuple[str, str, str]:
    parts = _segments(path or "")
    if len(parts) >= 2 and parts[0] == "components" and isinstance(components, list):
        cid = parts[1]
        index = next((i for i, c in enumerate(components) if isinstance(c, Mapping) and c.get("id") == cid), None)
        if index is None and cid.isdigit() and int(cid) < len(components):
            index = int(cid)
        if index is not None:
            component = components[index]
            who = _label(component, index) if isinstance(component, Mapping) else f"component #{index + 1}"
            return f"/components/{index}" + "".join(f"/{p}" for p in parts[2:]), f"{who}: ", ".".join(parts[2:])
    return "/", "", ""
