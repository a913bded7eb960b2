"""Hypothesis strategies for shared-state documents and JSON patches that apply to them.

`documents` are small JSON objects with identity arrays (lists of `{"id": …, "v": …}`);
`patches(document)` draws one to three operations, each against what the ones before it made, so
every drawn patch applies (jsonpatch agrees).
"""

from __future__ import annotations

from typing import Any

import jsonpatch
from hypothesis import strategies as st

scalars = st.one_of(st.none(), st.booleans(), st.integers(2, 9), st.text("xy", max_size=2))
idents = st.sampled_from(["i0", "i1", "i2", "i3", 4, 5])


def _identity_arrays(children: st.SearchStrategy[Any]) -> st.SearchStrategy[list[Any]]:
    return st.lists(st.tuples(idents, children), min_size=1, max_size=4, unique_by=lambda t: t[0]).map(
        lambda items: [{"id": ident, "v": value} for ident, value in items]
    )


documents = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.dictionaries(st.sampled_from(["a", "b", "v"]), children, max_size=3),
        st.lists(scalars, max_size=3),
        _identity_arrays(children),
    ),
    max_leaves=10,
).map(lambda value: value if isinstance(value, dict) else {"a": value})
values = st.one_of(
    scalars,
    st.builds(lambda ident, v: {"id": ident, "v": v}, idents, scalars),  # an element, maybe a repeated id
    st.builds(lambda v: {"v": v}, scalars),  # an element without an id
    documents,
)


def _pointers(document: Any, prefix: str = "") -> list[str]:
    found = [prefix]
    if isinstance(document, dict):
        for key, value in document.items():
            found.extend(_pointers(value, f"{prefix}/{key}"))
        found.append(f"{prefix}/new")
    elif isinstance(document, list):
        for index, value in enumerate(document):
            found.extend(_pointers(value, f"{prefix}/{index}"))
        found += [f"{prefix}/-", f"{prefix}/{len(document)}"]
    return found


@st.composite
def patches(draw: st.DrawFn, document: Any) -> list[dict[str, Any]]:
    """One to three operations, each against what the ones before it made (all of them apply)."""
    patch: list[dict[str, Any]] = []
    current = document
    for _ in range(draw(st.integers(1, 3))):
        pointers = [p for p in _pointers(current) if p]
        kind = draw(st.sampled_from(["add", "add", "replace", "remove", "move", "copy"]))
        path = draw(st.sampled_from(pointers))
        if kind in ("add", "replace"):
            operation: dict[str, Any] = {"op": kind, "path": path, "value": draw(values)}
        elif kind == "remove":
            operation = {"op": "remove", "path": path}
        else:
            sources = [p for p in pointers if not p.endswith(("-", "new"))]
            if not sources:
                continue
            operation = {"op": kind, "from": draw(st.sampled_from(sources)), "path": path}
        try:
            current = jsonpatch.apply_patch(current, [operation])
        except Exception:  # jsonpatch refuses it: draw another
            continue
        patch.append(operation)
    return patch
