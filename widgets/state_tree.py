"""The state panel's tree kept in step with the committed state, changing only what changed."""

from __future__ import annotations

from itertools import compress
from operator import is_not
from typing import Any

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.geometry import Region
from textual.strip import Strip
from textual.widgets import Tree
from textual.widgets.tree import NodeID, TreeNode

from tandem.core.agent_json import dumps_agent_json
from tandem.widgets.sanitize import sanitize

__all__ = ["StateTree", "StateTreeWidget", "short_value"]

_NOTHING: Any = object()
"""What the tree showed before its first `show` (no value is identical to it)."""


def short_value(value: Any, limit: int = 60) -> str:
    """A one-line, sanitised JSON rendering of a value."""
    text = value if isinstance(value, str) else dumps_agent_json(value, ensure_ascii=False)
    text = sanitize(text).replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def escape_pointer_part(part: str) -> str:
    """One key as a JSON pointer token (RFC 6901)."""
    return part.replace("~", "~0").replace("/", "~1")


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

    Textual's `Tree` measures every line's label each time it rebuilds its lines (after any
    node changed) to find its width, by rendering the label (a copy, a style pass, the toggle
    icon assembled in front): a state with a list of a thousand items that grows while a turn
    streams paid that for every item on every frame. The width is the icon's plus the label's
    (styles do not change widths), which is what `Tree.get_label_width` invites a subclass to
    compute directly. Measuring a label is still a pass over its text, and the tree rebuilds
    every line after any change (an item appended to a list of 10,000 measured all 10,000), so
    each node's label width is kept until the node gets another label (`set_label` gives it a
    new `Text`; the state tree never changes a label in place). Owns that width cache.
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


class StateTree:
    """Keeps a `Tree` showing a JSON value, touching only the nodes whose values changed.

    Owns the value each node shows (by node id) and the set of container nodes whose children
    are built. A committed state is copy-on-write (no write changes a value in place: see
    `core.state_merge`), so an unchanged field is the same object as before and its whole
    subtree is skipped with one identity test: a refresh costs the size of the change plus the
    width of the containers along it, not the size of the state. A collapsed node's children
    are built when it is first expanded (`fill`): a large state costs only what can be seen.
    Node data is the field's JSON pointer; labels are sanitised; ⚠ marks a field in conflict.
    UI thread only.
    """

    def __init__(self, tree: Tree[str]) -> None:
        self.tree = tree
        self._shown: Any = _NOTHING
        self._conflicted: frozenset[str] = frozenset()
        self._values: dict[NodeID, Any] = {}
        """The value each built node shows (containers: the container their children show)."""
        self._filled: set[NodeID] = set()
        """Container nodes whose children are built."""
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
            self._sync_children(root, old, value, "", force, top=True)
        else:  # the first value, a scalar, or an object that became an array: start again
            self._clear()
            if isinstance(value, (dict, list)):
                self._add_children(root, value, "", top=True)
            else:
                root.add_leaf(Text(short_value(value)), data="")
                self._changed = True
        if not root.is_expanded:
            root.expand()
        return self._changed

    def fill(self, node: TreeNode[str]) -> None:
        """Build the children of a container node that was collapsed until now (on expanding it)."""
        if node.id in self._filled or node.id not in self._values:
            return
        value = self._values[node.id]
        if isinstance(value, (dict, list)) and node.data is not None:
            self._add_children(node, value, node.data)

    def _clear(self) -> None:
        if self.tree.root.children:
            self.tree.root.remove_children()
            self._changed = True
        self._values.clear()
        self._filled.clear()

    def _add_children(self, parent: TreeNode[str], value: dict[str, Any] | list[Any], pointer: str, *, top: bool = False) -> None:
        self._filled.add(parent.id)
        for key, item in zip(_keys(value), _values(value)):
            self._add(parent, key, item, f"{pointer}/{escape_pointer_part(key)}", top=top)

    def _add(self, parent: TreeNode[str], key: str, item: Any, path: str, *, top: bool) -> None:
        mark = "⚠ " if path in self._conflicted else ""
        self._changed = True
        if isinstance(item, (dict, list)):
            node = parent.add(Text(_label(key, item, mark)), data=path)
            self._values[node.id] = item
            if top:  # built and opened now; deeper containers wait until they are opened
                self._add_children(node, item, path)
                node.expand()
        else:
            node = parent.add_leaf(Text(_label(key, item, mark)), data=path)
            self._values[node.id] = item

    def _forget(self, node: TreeNode[str]) -> None:
        for child in node.children:
            self._forget(child)
        self._values.pop(node.id, None)
        self._filled.discard(node.id)

    def _sync_children(self, parent: TreeNode[str], old: Any, new: Any, pointer: str, force: bool, *, top: bool = False) -> None:
        """`parent` shows the children of `old` (same type as `new`): make it show `new`'s."""
        if parent.id not in self._filled:
            return  # collapsed and never opened: `fill` builds it from the value shown then
        children = list(parent.children)
        if isinstance(new, list):
            # An array's keys are its indexes: only the changed and the added ones are spelt out,
            # so a write to one item of a long list costs its change, not the list's length.
            new_keys: list[str] | range = range(len(new))
            new_values, old_values = new, old
            common = min(len(children), len(new), len(old))
            if force:
                changed: Any = range(common)
            else:  # (the items that are not the same objects, found by a scan in C)
                changed = compress(range(common), map(is_not, old, new))
        else:
            new_keys = _keys(new)
            new_values = _values(new)
            old_values = _values(old)
            common = min(len(children), len(new_keys), len(old_values))
            # Keys keep their order when values change; a removed key ends the run of matches.
            old_keys = _keys(old)
            same = 0
            while same < common and old_keys[same] == new_keys[same]:
                same += 1
            common = same
            changed = range(common)
        for index in changed:
            before, after = old_values[index], new_values[index]
            if before is after and not force:
                continue
            key = str(new_keys[index])
            self._sync_node(children[index], key, before, after, f"{pointer}/{escape_pointer_part(key)}", force, top=top)
        for child in children[common:]:
            self._forget(child)
            child.remove()
            self._changed = True
        for index in range(common, len(new_keys)):
            key = str(new_keys[index])
            self._add(parent, key, new_values[index], f"{pointer}/{escape_pointer_part(key)}", top=top)

    def _sync_node(self, node: TreeNode[str], key: str, old: Any, new: Any, path: str, force: bool, *, top: bool) -> None:
        label = _label(key, new, "⚠ " if path in self._conflicted else "")
        if str(node.label) != label:
            node.set_label(Text(label))
            self._changed = True
        self._values[node.id] = new
        container = isinstance(new, (dict, list))
        if container and type(old) is type(new):
            self._sync_children(node, old, new, path, force)
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
            self._add_children(node, new, path)
            if not node.is_expanded:
                node.expand()  # a top-level container opens, as when it is added
