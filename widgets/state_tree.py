"""The state panel's tree kept in step with the committed state, changing only what changed."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from itertools import compress, islice
from operator import is_not
from typing import Any, ClassVar, NamedTuple, cast

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.geometry import Region
from textual.strip import Strip
from textual.widgets import Tree
from textual.widgets.tree import NodeID, TreeNode

from tandem.core.agent_json import dumps_agent_json
from tandem.core.json_pointer import escape
from tandem.widgets.sanitize import sanitize

__all__ = ["StateTree", "StateTreeWidget", "short_value"]

_NOTHING: Any = object()
"""What the tree showed before its first `show` (no value is identical to it)."""


def short_value(value: Any, limit: int = 60) -> str:
    """A one-line, sanitised JSON rendering of a value."""
    text = value if isinstance(value, str) else dumps_agent_json(value, ensure_ascii=False)
    text = sanitize(text).replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _keys(value: dict[str, Any] | list[Any]) -> list[str]:
    return [str(key) for key in value] if isinstance(value, dict) else [str(index) for index in range(len(value))]


def _values(value: dict[str, Any] | list[Any]) -> list[Any]:
    return list(value.values()) if isinstance(value, dict) else value


def _label(key: str, value: Any, mark: str) -> str:
    if isinstance(value, dict):
        return f"{mark}{sanitize(key)} {{{len(value)}}}"
    if isinstance(value, list):
        return f"{mark}{sanitize(key)} [{len(value)}]"
    return f"{mark}{sanitize(key)}: {short_value(value)}"


class StateTreeWidget(Tree[str]):
    """The state panel's `Tree`, measuring a line's label without rendering it, and asking for its
    own style once per render pass, not once per line.

    Owns a cache of label widths by node id. Textual's `Tree` measures every line's label (by
    rendering it) each time it rebuilds its lines, after any node changed; here a width is the
    icon's plus the label's cell length (`get_label_width`), kept until the node gets another
    label (`set_label` gives it a new `Text`; the state tree never changes a label in place), so
    a change costs the lines it touches, not the whole tree. UI thread only.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._label_widths: dict[NodeID, tuple[Text, int]] = {}
        """(label, its cell width) by node id, valid while the node still has that label."""
        self._icon_widths: dict[str, int] = {}
        self._pass_style: Style | None = None
        """The widget's style during one `render_lines` pass."""

    def get_label_width(self, node: TreeNode[str]) -> int:
        icon = (self.ICON_NODE_EXPANDED if node.is_expanded else self.ICON_NODE) if node.allow_expand else ""
        icon_width = self._icon_widths.get(icon)
        if icon_width is None:
            icon_width = self._icon_widths[icon] = cell_len(icon)
        label = node._label  # (always a `Text`: `TreeNode` processes the label it is given)
        cached = self._label_widths.get(node._id)
        if cached is not None and cached[0] is label:
            return icon_width + cached[1]
        width = label.cell_len
        self._label_widths[node._id] = (label, width)
        return icon_width + width

    def render_lines(self, crop: Region) -> list[Strip]:
        # Textual's `Tree.render_line` asks for `rich_style` (a walk up the DOM for the background
        # and colours) for every line it renders, a cached line too: the same for all lines of one
        # pass, so it is asked once per pass.
        self._pass_style = self.rich_style
        try:
            return super().render_lines(crop)
        finally:
            self._pass_style = None

    def render_line(self, y: int) -> Strip:
        style = self._pass_style if self._pass_style is not None else self.rich_style
        scroll_x, scroll_y = self.scroll_offset
        return self._render_line(y + scroll_y, scroll_x, scroll_x + self.size.width, style)

    def _build(self) -> None:
        super()._build()
        lines = self._tree_lines_cached or []
        if len(self._label_widths) > 2 * len(lines) + 64:
            # Removed nodes' widths: keep only the nodes on a line now (collapsed ones are re-measured).
            widths = self._label_widths
            self._label_widths = {line.node._id: widths[line.node._id] for line in lines if line.node._id in widths}


class _Pair(NamedTuple):
    """One container before and after a write, by position: its keys and values, and how far they agree."""

    new: dict[str, Any] | list[Any]
    old_values: Sequence[Any]
    new_keys: Sequence[str] | range
    new_values: Sequence[Any]
    common: int
    """Positions below this hold the same key in both (an array's indexes; an object's keys, in order)."""
    changed: Sequence[int]
    """The positions below `common` to look at again: whose values are not the same objects (sorted)."""
    force: bool
    """Every built node is looked at again (the conflict marks moved)."""
    pointer: str
    """The container's JSON pointer."""


def _pair(old: dict[str, Any] | list[Any], new: dict[str, Any] | list[Any], pointer: str, force: bool) -> _Pair:
    if isinstance(new, list):
        new_keys: Sequence[str] | range = range(len(new))
        old_values: Sequence[Any] = cast(list[Any], old)  # (the same type as `new`: the caller checks)
        new_values: Sequence[Any] = new
        common = min(len(old), len(new))
    else:
        old_keys, new_keys = _keys(old), _keys(new)
        old_values, new_values = _values(old), _values(new)
        # Keys keep their order when values change; a removed or inserted key ends the run of matches.
        common, limit = 0, min(len(old_keys), len(new_keys))
        if old_keys[:limit] == new_keys[:limit]:  # the usual (values written, keys added at the end): in C
            common = limit
        while common < limit and old_keys[common] == new_keys[common]:
            common += 1
    # (the values that are not the same objects, found by a scan in C)
    changed: Sequence[int] = range(common) if force else list(compress(range(common), map(is_not, old_values, new_values)))
    return _Pair(new, old_values, new_keys, new_values, common, changed, force, pointer)


def _span(count: int, chunk: int) -> int:
    """How many fields each child of a node showing `count` fields stands for: 1 (the fields
    themselves) up to `chunk` fields, else ranges of `chunk`, `chunk`², ... (at most `chunk` ranges)."""
    span = 1
    while count > span * chunk:
        span *= chunk
    return span


def _range_label(keys: Sequence[str] | range, start: int, stop: int) -> str:
    """`[0 … 99]` for an array's items; an object's first and last keys for its fields."""
    if isinstance(keys, range):
        return f"[{start} … {stop - 1}]"
    return f"{short_value(keys[start], 24)} … {short_value(keys[stop - 1], 24)}"


class StateTree:
    """Keeps a `Tree` showing a JSON value, touching only the nodes whose values changed.

    Owns the value each node shows (by node id), the fields each range node stands for and the
    set of nodes whose children are built. A committed state is copy-on-write (no write changes a
    value in place: see `core.state.merge`), so an unchanged field is the same object as before
    and its whole subtree is skipped with one identity test: a refresh costs the size of the
    change plus the width of the containers along it, not the size of the state. A collapsed
    node's children are built when it is first expanded (`fill`): a large state costs only what
    can be seen. A container of more than `CHUNK` fields shows them in collapsed ranges of
    `CHUNK` (`[0 … 99]`; ranges of ranges beyond `CHUNK`² fields), as debuggers show long
    arrays: an agent appending to a list of 100,000 items touches one range, not 100,000 lines,
    and the person opens the range they want. Node data is the field's JSON pointer (None on a
    range node); labels are sanitised; ⚠ marks a field in conflict. UI thread only.
    """

    CHUNK: ClassVar[int] = 100
    """The most fields a node shows before it groups them in ranges."""

    def __init__(self, tree: Tree[str]) -> None:
        self.tree = tree
        self._shown: Any = _NOTHING
        self._conflicted: frozenset[str] = frozenset()
        self._values: dict[NodeID, Any] = {}
        """The value each built node shows (containers and ranges: the container their children show)."""
        self._ranges: dict[NodeID, tuple[int, int, str]] = {}
        """What a range node stands for: the positions [start, stop) of its container's fields, and the container's pointer."""
        self._filled: set[NodeID] = set()
        """Container and range nodes whose children are built."""
        self._changed = False

    def show(self, value: Any, conflicted: frozenset[str] = frozenset()) -> bool:
        """Make the tree show `value`, with the fields at the `conflicted` pointers marked ⚠.

        Top-level objects and arrays start expanded; every other container starts collapsed
        and keeps what the person made of it. Returns True when any node changed.
        """
        self._changed = False
        force = conflicted != self._conflicted  # marks moved: look at every built node once
        self._conflicted = conflicted
        old, self._shown = self._shown, value
        root = self.tree.root
        if old is value and not force:
            return False
        if value is None:
            self._clear()
        elif isinstance(value, (dict, list)) and type(old) is type(value):
            self._sync(root, _pair(old, value, "", force), 0, len(old), len(value), top=True)
        else:  # the first value, a scalar, or an object that became an array: start again
            self._clear()
            if isinstance(value, (dict, list)):
                self._add_fields(root, value, 0, len(value), "", top=True)
            else:
                root.add_leaf(Text(short_value(value)), data="")
                self._changed = True
        if not root.is_expanded:
            root.expand()
        return self._changed

    def fill(self, node: TreeNode[str]) -> None:
        """Build the children of a container or range node collapsed until now (on expanding it)."""
        if node.id in self._filled or node.id not in self._values:
            return
        value = self._values[node.id]
        if not isinstance(value, (dict, list)):
            return
        fields = self._ranges.get(node.id)
        if fields is not None:
            self._add_fields(node, value, *fields, top=False)
        elif node.data is not None:
            self._add_fields(node, value, 0, len(value), node.data, top=False)

    def range_of(self, node: TreeNode[str]) -> tuple[int, int] | None:
        """The positions [start, stop) of its container's fields a range node stands for (None: not a range node)."""
        fields = self._ranges.get(node.id)
        return None if fields is None else fields[:2]

    def _clear(self) -> None:
        if self.tree.root.children:
            self.tree.root.remove_children()
            self._changed = True
        self._values.clear()
        self._ranges.clear()
        self._filled.clear()

    def _add_fields(self, parent: TreeNode[str], container: dict[str, Any] | list[Any], start: int, stop: int,
                    pointer: str, *, top: bool) -> None:
        """Add the children showing fields [start, stop) of `container`: the fields, or ranges of them."""
        self._filled.add(parent.id)
        span = _span(stop - start, self.CHUNK)
        if span > 1:
            keys = _keys(container) if isinstance(container, dict) else range(len(container))
            for low in range(start, stop, span):
                self._add_range(parent, container, keys, low, min(low + span, stop), pointer)
            return
        if isinstance(container, list):
            for index in range(start, stop):
                self._add(parent, str(index), container[index], f"{pointer}/{index}", top=top)
        else:
            for key, item in islice(container.items(), start, stop):
                key = str(key)
                self._add(parent, key, item, f"{pointer}/{escape(key)}", top=top)

    def _add_range(self, parent: TreeNode[str], container: Any, keys: Sequence[str] | range, start: int, stop: int,
                   pointer: str) -> None:
        node = parent.add(Text(_range_label(keys, start, stop)), data=None)
        self._values[node.id] = container
        self._ranges[node.id] = (start, stop, pointer)
        self._changed = True

    def _add(self, parent: TreeNode[str], key: str, item: Any, path: str, *, top: bool) -> None:
        mark = "⚠ " if path in self._conflicted else ""
        self._changed = True
        if isinstance(item, (dict, list)):
            node = parent.add(Text(_label(key, item, mark)), data=path)
            self._values[node.id] = item
            if top:  # built and opened now; deeper containers wait until they are opened
                self._add_fields(node, item, 0, len(item), path, top=False)
                node.expand()
        else:
            node = parent.add_leaf(Text(_label(key, item, mark)), data=path)
            self._values[node.id] = item

    def _forget(self, node: TreeNode[str]) -> None:
        for child in node.children:
            self._forget(child)
        self._values.pop(node.id, None)
        self._ranges.pop(node.id, None)
        self._filled.discard(node.id)

    def _remove(self, nodes: Sequence[TreeNode[str]]) -> None:
        for node in nodes:
            self._forget(node)
            node.remove()
            self._changed = True

    def _sync(self, parent: TreeNode[str], pair: _Pair, start: int, old_stop: int, new_stop: int, *, top: bool = False) -> None:
        """`parent` shows fields [start, old_stop) of `pair`'s old container: make it show [start, new_stop) of the new one."""
        if parent.id not in self._filled:
            return  # collapsed and never opened: `fill` builds it from the value shown then
        children = list(parent.children)
        span = _span(new_stop - start, self.CHUNK)
        if span != _span(old_stop - start, self.CHUNK):  # regrouped: the container crossed a range size
            self._remove(children)
            self._add_fields(parent, pair.new, start, new_stop, pair.pointer, top=top)
            return
        changed, common = pair.changed, pair.common
        if span == 1:
            # Only the changed and the added fields are spelt out: a write to one item of a long
            # list costs its change, not the list's length.
            kept = max(0, min(common, old_stop, new_stop) - start)
            for index in changed[bisect_left(changed, start):bisect_left(changed, start + kept)]:
                key = str(pair.new_keys[index])
                self._sync_node(children[index - start], key, pair.old_values[index], pair.new_values[index],
                                f"{pair.pointer}/{escape(key)}", pair.force, top=top)
            self._remove(children[kept:])
            if kept < new_stop - start:
                self._add_fields(parent, pair.new, start + kept, new_stop, pair.pointer, top=top)
            return
        kept = 0
        for node in children:
            low, old_high, _ = self._ranges[node.id]
            high = min(low + span, new_stop)
            if high <= low or min(old_high, high) > common:
                break  # the fields from here on moved, or are gone: their ranges are built again
            kept += 1
            self._values[node.id] = pair.new
            if high != old_high:
                self._ranges[node.id] = (low, high, pair.pointer)
                node.set_label(Text(_range_label(pair.new_keys, low, high)))
                self._changed = True
            if high != old_high or bisect_left(changed, low) < bisect_left(changed, high):
                self._sync(node, pair, low, old_high, high)
        self._remove(children[kept:])
        for low in range(start + kept * span, new_stop, span):
            self._add_range(parent, pair.new, pair.new_keys, low, min(low + span, new_stop), pair.pointer)

    def _sync_node(self, node: TreeNode[str], key: str, old: Any, new: Any, path: str, force: bool, *, top: bool) -> None:
        label = _label(key, new, "⚠ " if path in self._conflicted else "")
        if str(node.label) != label:
            node.set_label(Text(label))
            self._changed = True
        self._values[node.id] = new
        container = isinstance(new, (dict, list))
        if container and type(old) is type(new):
            self._sync(node, _pair(old, new, path, force), 0, len(old), len(new))
            return
        if node.children:
            for child in node.children:
                self._forget(child)
            node.remove_children()
            self._changed = True
        self._filled.discard(node.id)
        if node.allow_expand != container:
            node.allow_expand = container
            self._changed = True
        if container and (node.is_expanded or top):
            self._add_fields(node, new, 0, len(new), path, top=False)
            if not node.is_expanded:
                node.expand()  # a top-level container opens, as when it is added
