"""The names of a resolved A2UI tree's widgets (render keys), and what decides whether a newer tree can update them in place."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tandem.core.a2ui import ResolvedComponent

__all__ = ["STRUCTURAL_PROPS", "render_keys", "tree_signature"]

# Properties whose change alters what a renderer composes: a change rebuilds the surface.
STRUCTURAL_PROPS: dict[str, tuple[str, ...]] = {
    "TextField": ("variant",),
    "ChoicePicker": ("variant", "options", "filterable"),
    "Slider": ("min", "max", "step"),
    "DateTimeInput": ("enableDate", "enableTime"),
    "Divider": ("axis",),
    "Tabs": ("tabs",),
    "Modal": (),
    "List": ("direction",),  # (a vertical list may hold its rows in pages)
}


def render_keys(root: ResolvedComponent) -> Iterator[tuple[str, ResolvedComponent]]:
    """(render key, component) pre-order, the key unique even when the agent reuses a child.

    The key is `ResolvedComponent.key`, suffixed `#2`, `#3`… for a repeated reference, so the
    same tree always yields the same keys: they name the widgets across rebuilds.
    """
    seen: dict[str, int] = {}

    def visit(node: ResolvedComponent) -> Iterator[tuple[str, ResolvedComponent]]:
        count = seen.get(node.key, 0) + 1
        seen[node.key] = count
        yield (node.key if count == 1 else f"{node.key}#{count}"), node
        for child in node.children:
            yield from visit(child)

    yield from visit(root)


def tree_signature(root: ResolvedComponent) -> tuple[Any, ...]:
    """What must stay equal for an in-place update: keys, types, slots, structural props."""
    return tuple(
        (
            key,
            node.type,
            node.placeholder,
            tuple((slot, len(children)) for slot, children in node.slots.items()),
            repr([node.props.get(name) for name in STRUCTURAL_PROPS.get(node.type, ())]),
            node.action_kind,
        )
        for key, node in render_keys(root)
    )
