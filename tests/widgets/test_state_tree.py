"""StateTree: the state panel's tree changes only what changed, and always shows the value."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from rich.cells import cell_len
from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from tandem.core.state.agent_state import AgentState
from tandem.widgets import StatePanel
from tandem.core.json_pointer import escape as escape_pointer_part
from tandem.widgets.state_tree import StateTree, StateTreeWidget, short_value
from tests.helpers.waits import wait_for


def _tree() -> tuple[Tree[str], StateTree]:
    tree: Tree[str] = Tree(Text("state"), data="")
    return tree, StateTree(tree)


def _visible(tree: Tree[str]) -> list[tuple[int, str, str | None]]:
    """(depth, label, pointer) of every node a person can see: the children of open nodes."""
    lines: list[tuple[int, str, str | None]] = []

    def walk(node: TreeNode[str], depth: int) -> None:
        for child in node.children:
            lines.append((depth, child.label.plain, child.data))
            if child.is_expanded:
                walk(child, depth + 1)

    walk(tree.root, 0)
    return lines


def _expected(value: Any, opened: set[str]) -> list[tuple[int, str, str | None]]:
    """What the tree should show for `value`, written from the value alone: top-level containers
    open, deeper ones open when their pointer is in `opened`."""
    if value is None:
        return []
    if not isinstance(value, (dict, list)):
        return [(0, short_value(value), "")]
    lines: list[tuple[int, str, str | None]] = []

    def walk(container: Any, pointer: str, depth: int) -> None:
        items = container.items() if isinstance(container, dict) else enumerate(container)
        for key, item in items:
            path = f"{pointer}/{escape_pointer_part(str(key))}"
            if isinstance(item, dict):
                lines.append((depth, f"{key} {{{len(item)}}}", path))
            elif isinstance(item, list):
                lines.append((depth, f"{key} [{len(item)}]", path))
            else:
                lines.append((depth, f"{key}: {short_value(item)}", path))
            if isinstance(item, (dict, list)) and (depth == 0 or path in opened):
                walk(item, path, depth + 1)

    walk(value, "", 0)
    return lines


def _node(tree: Tree[str], pointer: str) -> TreeNode[str] | None:
    stack = list(tree.root.children)
    while stack:
        node = stack.pop()
        if node.data == pointer:
            return node
        stack.extend(node.children)
    return None


def test_appending_to_a_list_adds_one_node_and_keeps_the_others() -> None:
    tree, mirror = _tree()
    items = [{"id": n, "title": f"item {n}"} for n in range(3)]
    value: dict[str, Any] = {"title": "firehose", "items": items}
    assert mirror.show(value)
    items_node = tree.root.children[1]
    before = list(items_node.children)
    # Copy-on-write, as the state writes: a new top object and list, the old elements shared.
    value = {**value, "items": [*items, {"id": 3, "title": "item 3"}]}
    assert mirror.show(value)
    assert tree.root.children[1] is items_node and items_node.label.plain == "items [4]"
    assert list(items_node.children)[:3] == before  # the same nodes, not rebuilt
    assert _visible(tree) == _expected(value, set())


def test_an_unchanged_state_changes_no_node() -> None:
    tree, mirror = _tree()
    value = {"a": {"b": [1, 2, {"c": "x"}]}, "d": True}
    mirror.show(value)
    nodes = [node for node in tree._tree_nodes.values()]
    assert not mirror.show(value)  # the same value
    assert not mirror.show(copy.deepcopy(value))  # an equal one, compared field by field
    assert list(tree._tree_nodes.values()) == nodes


def test_a_collapsed_container_is_built_when_opened_from_its_latest_value() -> None:
    tree, mirror = _tree()
    mirror.show({"a": {"b": {"c": 1}}})
    b = _node(tree, "/a/b")
    assert b is not None and not b.is_expanded and not b.children and b.allow_expand
    mirror.show({"a": {"b": {"c": 2, "d": 3}}})  # changed while collapsed
    assert b.label.plain == "b {2}" and not b.children
    mirror.fill(b)
    b.expand()
    assert [child.label.plain for child in b.children] == ["c: 2", "d: 3"]


def test_conflict_marks_follow_the_conflicts_on_an_unchanged_value() -> None:
    tree, mirror = _tree()
    value = {"a": 1, "b": {"c": 2}}
    mirror.show(value, frozenset({"/a", "/b"}))
    assert [label for _, label, _ in _visible(tree)] == ["⚠ a: 1", "⚠ b {1}", "c: 2"]
    assert mirror.show(value, frozenset({"/b/c"}))
    assert [label for _, label, _ in _visible(tree)] == ["a: 1", "b {1}", "⚠ c: 2"]


def test_kinds_that_change_rebuild_what_they_must() -> None:
    tree, mirror = _tree()
    for value in ({"a": 1}, {"a": {"x": 1}}, {"a": [1, 2]}, {"a": "text"}, [1, {"b": 2}], "scalar", None, {"z": []}):
        mirror.show(value)
        assert _visible(tree) == _expected(value, set()), value


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.random()
    if depth >= 3 or kind < 0.5:
        return rng.choice([0, 1, 2.5, True, None, "a", "b/c", "~x", "a long text " * rng.randint(1, 8)])
    if kind < 0.75:
        return {rng.choice("pqrstu"): _random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))}
    return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]


def _edit(rng: random.Random, value: Any, depth: int = 0) -> Any:
    """`value` with one random change, copy-on-write (what is not on the changed path is shared)."""
    if not isinstance(value, (dict, list)) or depth > 3 or rng.random() < 0.15:
        return _random_value(rng, depth)
    if isinstance(value, dict):
        keys = list(value)
        choice = rng.random()
        if not keys or choice < 0.2:
            return {**value, rng.choice("pqrstuvw"): _random_value(rng, depth + 1)}
        key = rng.choice(keys)
        if choice < 0.35:
            return {k: v for k, v in value.items() if k != key}
        return {**value, key: _edit(rng, value[key], depth + 1)}
    choice = rng.random()
    if not value or choice < 0.25:
        return [*value, _random_value(rng, depth + 1)]
    index = rng.randrange(len(value))
    if choice < 0.4:
        return value[:index] + value[index + 1 :]
    if choice < 0.5:
        return [_random_value(rng, depth + 1), *value]
    return [*value[:index], _edit(rng, value[index], depth + 1), *value[index + 1 :]]


def test_random_edits_show_what_a_fresh_tree_would_show() -> None:
    for seed in range(20):
        rng = random.Random(seed)
        tree, mirror = _tree()
        value: Any = {"title": "t", "items": [], "doc": {"p": {"q": 1}}}
        opened: set[str] = set()
        for _ in range(60):
            value = _edit(rng, value)
            mirror.show(value)
            opened = _sometimes_open_one(rng, tree, mirror)
            assert _visible(tree) == _expected(value, opened), (seed, value)


class _Host(App[None]):
    def __init__(self, panel: StatePanel) -> None:
        super().__init__()
        self.panel = panel

    def compose(self) -> ComposeResult:
        yield self.panel


async def test_opening_a_field_in_the_panel_shows_its_fields() -> None:
    state = AgentState({"recipe": {"steps": {"first": "mix", "second": "bake"}}})
    panel = StatePanel(state)
    async with _Host(panel).run_test(size=(60, 20)) as pilot:
        tree: Tree[str] = panel.query_one(Tree)
        await wait_for(pilot, lambda: _node(tree, "/recipe/steps") is not None, "the steps field")
        state.apply_delta([{"op": "replace", "path": "/recipe/steps/first", "value": "whisk"}])
        panel.refresh_state()
        steps = _node(tree, "/recipe/steps")
        assert steps is not None and not steps.children  # closed: not built yet
        tree.move_cursor(steps)
        tree.focus()
        await pilot.press("space")  # opens the node under the cursor
        await wait_for(pilot, lambda: [c.label.plain for c in steps.children] == ["first: whisk", "second: bake"], "its fields")


class TestLabelWidth:
    """`StateTreeWidget` measures a label without rendering it, to the same width Textual renders."""

    def test_the_width_is_the_rendered_width(self) -> None:
        from textual.widgets._tree import NULL_STYLE

        from tandem.widgets.state_tree import StateTreeWidget

        widget = StateTreeWidget(Text("state"), data="")
        labels = ["count: 3", "⚠ items [1000]", "名前 {2}", "👍🏽 thumbs", "e\u0301 combining", "", "x" * 80]
        checked = 0
        for label in labels:
            for allow_expand in (True, False):
                for expanded in (True, False):
                    node = widget.root.add(label, allow_expand=allow_expand, expand=expanded)
                    rendered = widget.render_label(node, NULL_STYLE, NULL_STYLE).cell_len
                    assert widget.get_label_width(node) == rendered, (label, allow_expand, expanded)
                    checked += 1
        assert checked == len(labels) * 4

    async def test_the_panel_uses_it_and_its_width_follows_the_longest_label(self) -> None:
        from tandem.widgets.state_tree import StateTreeWidget

        class _Host(App[None]):
            def compose(self) -> ComposeResult:
                yield StatePanel()

        app = _Host()
        async with app.run_test(size=(100, 30)) as pilot:
            panel = app.query_one(StatePanel)
            state = AgentState()
            state.apply_snapshot({"items": [f"item {n}" for n in range(50)], "name": "x" * 40})
            panel.set_state(state)
            tree = app.query_one(Tree)
            assert isinstance(tree, StateTreeWidget)

            def built() -> bool:
                return tree.virtual_size.height >= 52

            for _ in range(200):
                if built():
                    break
                await pilot.pause(0.02)
            assert built()
            # The widest line ("name: " and the 40 quoted x's, after the guides) sets the width.
            widest = max(tree.get_label_width(line.node) + line._get_guide_width(tree.guide_depth, tree.show_root)
                         for line in tree._tree_lines)
            assert tree.virtual_size.width == widest
            assert widest >= len("name: ") + 40


def _fresh(value: Any, conflicted: frozenset[str], opened: set[str]) -> Tree[str]:
    """A tree built from scratch for `value`, with the containers at the `opened` pointers opened."""
    tree, mirror = _tree()
    mirror.show(value, conflicted)
    pending = True
    while pending:  # open level by level: a nested container's node exists once its parent is built
        pending = False
        for node in list(tree._tree_nodes.values()):
            if node.data in opened and node.allow_expand and not node.is_expanded:
                mirror.fill(node)
                node.expand()
                pending = True
    return tree


def test_random_edits_and_conflict_marks_equal_a_tree_built_from_scratch() -> None:
    """The incremental update (changed array items found by identity, only their keys spelt out)
    gives the labels, marks and label widths a tree built from scratch gives, after random
    copy-on-write writes and conflict marks that come and go."""
    for seed in range(20):
        rng = random.Random(1000 + seed)
        widget = StateTreeWidget(Text("state"), data="")
        mirror = StateTree(widget)
        value: Any = {"items": [{"done": False}, 1, "x"], "doc": {"p": {"q": 1}}}
        for _ in range(60):
            value = _edit(rng, value)
            pointers = [n.data for n in widget._tree_nodes.values() if n.data]
            conflicted = frozenset(rng.sample(pointers, min(len(pointers), rng.randint(0, 2))))
            mirror.show(value, conflicted)
            opened = _sometimes_open_one(rng, widget, mirror)
            assert _visible(widget) == _visible(_fresh(value, conflicted, opened)), (seed, value, conflicted)
            for node in widget._tree_nodes.values():  # the cached widths are the labels' widths now
                icon = (widget.ICON_NODE_EXPANDED if node.is_expanded else widget.ICON_NODE) if node.allow_expand else ""
                assert widget.get_label_width(node) == cell_len(icon) + node.label.cell_len


def _sometimes_open_one(rng: Any, tree: Any, mirror: Any) -> set[str]:
    """Now and then the person opens a closed nested container (as the panel does on
    NodeExpanded); returns the pointers of every open node."""
    if rng.random() < 0.3:
        closed = [n for n in tree._tree_nodes.values() if n.allow_expand and not n.is_expanded and n.data]
        if closed:
            node = rng.choice(closed)
            mirror.fill(node)
            node.expand()
    return {n.data for n in tree._tree_nodes.values() if n.is_expanded and n.data}


class _TwoTrees(App[None]):
    def compose(self) -> ComposeResult:
        for tree in (StateTreeWidget("state", id="ours"), Tree("state", id="textuals")):
            for index in range(30):
                item = tree.root.add(f"{index} {{2}}", expand=index % 3 == 0)
                item.add_leaf(f"title: item {index}")
                item.add_leaf("done: false")
            tree.root.expand()
            yield tree


async def test_its_lines_are_textuals_and_its_style_is_asked_once_a_pass() -> None:
    from textual.geometry import Region

    app = _TwoTrees()
    async with app.run_test(size=(60, 30)) as pilot:
        await pilot.pause()
        ours, textuals = app.query_one("#ours", StateTreeWidget), app.query_one("#textuals", Tree)
        ours.styles.height = textuals.styles.height = 25
        await pilot.pause()
        asked = 0
        style_of = type(ours).rich_style.fget  # type: ignore[attr-defined]

        def counted(widget: Any) -> Any:
            nonlocal asked
            asked += widget is ours
            return style_of(widget)

        type(ours).rich_style = property(counted)  # type: ignore[method-assign,assignment]
        try:
            crop = Region(0, 0, ours.size.width, ours.size.height)
            lines = ours.render_lines(crop)
        finally:
            del type(ours).rich_style  # (back to the inherited property)
        assert asked == 1
        assert len(lines) == 25
        assert [line.text for line in lines] == [line.text for line in textuals.render_lines(crop)]


class TestRanges:
    """A container of more than `StateTree.CHUNK` fields shows them in collapsed ranges."""

    def test_a_long_list_shows_ranges_and_a_range_opens_on_its_items(self) -> None:
        tree, mirror = _tree()
        mirror.show({"items": list(range(250))})
        items = tree.root.children[0]
        assert items.label.plain == "items [250]" and items.is_expanded
        ranges = list(items.children)
        assert [r.label.plain for r in ranges] == ["[0 … 99]", "[100 … 199]", "[200 … 249]"]
        assert all(r.data is None and r.allow_expand and not r.is_expanded and not r.children for r in ranges)
        assert [mirror.range_of(r) for r in ranges] == [(0, 100), (100, 200), (200, 250)]
        mirror.fill(ranges[1])
        assert [(c.label.plain, c.data) for c in ranges[1].children][:2] == [("100: 100", "/items/100"), ("101: 101", "/items/101")]
        assert len(ranges[1].children) == 100

    def test_appending_to_a_long_list_touches_its_last_range_only(self) -> None:
        tree, mirror = _tree()
        items = [{"n": n} for n in range(1000)]
        mirror.show({"items": items})
        ranges = list(tree.root.children[0].children)
        mirror.fill(ranges[-1])
        ranges[-1].expand()
        last_items = list(ranges[-1].children)
        nodes_before = len(tree._tree_nodes)
        mirror.show({"items": [*items, {"n": 1000}]})  # copy-on-write: the old items shared
        after = list(tree.root.children[0].children)
        assert after[:10] == ranges and [r.label.plain for r in after[-2:]] == ["[900 … 999]", "[1000 … 1000]"]
        assert list(ranges[-1].children) == last_items  # the open range was not rebuilt
        assert len(tree._tree_nodes) == nodes_before + 1  # one range node, nothing else
        mirror.show({"items": [*items[:950], {"n": "x"}]})  # shrinks into the last range, which changed
        assert [r.label.plain for r in tree.root.children[0].children][-1] == "[900 … 950]"
        assert [c.label.plain for c in ranges[-1].children][-1] == "950 {1}"

    def test_a_very_long_list_is_ranges_of_ranges_and_costs_no_node_per_item(self) -> None:
        tree, mirror = _tree()
        mirror.show({"items": list(range(100_000))})
        tops = list(tree.root.children[0].children)
        assert [t.label.plain for t in tops[:2]] == ["[0 … 9999]", "[10000 … 19999]"] and len(tops) == 10
        assert len(tree._tree_nodes) < 20
        mirror.fill(tops[3])
        assert [c.label.plain for c in tops[3].children][:2] == ["[30000 … 30099]", "[30100 … 30199]"]

    def test_a_long_object_shows_ranges_named_by_their_keys(self) -> None:
        tree, mirror = _tree()
        mirror.show({"fields": {f"k{n:03}": n for n in range(150)}})
        ranges = list(tree.root.children[0].children)
        assert [r.label.plain for r in ranges] == ["k000 … k099", "k100 … k149"]
        mirror.fill(ranges[1])
        assert [(c.label.plain, c.data) for c in ranges[1].children][0] == ("k100: 100", "/fields/k100")

    def test_random_edits_with_ranges_equal_a_tree_built_from_scratch(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """With ranges of 3 (so the random values of a few fields cross range sizes both ways,
        and ranges of ranges appear), writes, conflict marks and opened ranges give what a tree
        built from scratch gives."""
        monkeypatch.setattr(StateTree, "CHUNK", 3)
        for seed in range(30):
            rng = random.Random(5000 + seed)
            widget = StateTreeWidget(Text("state"), data="")
            mirror = StateTree(widget)
            value: Any = {"items": [{"done": False}, 1, "x", 2, 3], "doc": {"p": {"q": 1}}}
            for _ in range(60):
                value = _grow(rng, _edit(rng, value))
                pointers = [n.data for n in widget._tree_nodes.values() if n.data]
                conflicted = frozenset(rng.sample(pointers, min(len(pointers), rng.randint(0, 2))))
                mirror.show(value, conflicted)
                opened = _sometimes_open_any(rng, widget, mirror)
                fresh_widget = StateTreeWidget(Text("state"), data="")
                fresh = StateTree(fresh_widget)
                fresh.show(value, conflicted)
                _open(fresh_widget, fresh, opened)
                assert _visible(widget) == _visible(fresh_widget), (seed, value, conflicted)


def _grow(rng: random.Random, value: Any) -> Any:
    """Now and then a long list or object in the top-level fields (copy-on-write), to cross range sizes."""
    if isinstance(value, dict) and rng.random() < 0.2:
        key = rng.choice(["items", "doc", "many"])
        size = rng.choice([2, 3, 4, 9, 10, 11, 28])
        old = value.get(key)
        if isinstance(old, list) and rng.random() < 0.6:
            return {**value, key: [*old, *range(size)]}
        if rng.random() < 0.5:
            return {**value, key: {f"k{n}": n for n in range(size)}}
        return {**value, key: list(range(size))}
    return value


def _open_key(node: TreeNode[str], mirror: StateTree) -> Any:
    """What names a node across trees: its pointer, or for a range node, its container's and its first position."""
    fields = mirror.range_of(node)
    if fields is None:
        return node.data
    parent = node.parent
    while parent is not None and mirror.range_of(parent) is not None:
        parent = parent.parent
    return (None if parent is None else parent.data, fields[0], fields[1])


def _sometimes_open_any(rng: random.Random, tree: Tree[str], mirror: StateTree) -> set[Any]:
    """`_sometimes_open_one`, ranges included; returns the keys of every open node."""
    if rng.random() < 0.5:
        closed = [n for n in tree._tree_nodes.values() if n.allow_expand and not n.is_expanded and n is not tree.root]
        if closed:
            node = rng.choice(closed)
            mirror.fill(node)
            node.expand()
    return {_open_key(n, mirror) for n in tree._tree_nodes.values() if n.is_expanded and n is not tree.root}


def _open(tree: Tree[str], mirror: StateTree, opened: set[Any]) -> None:
    pending = True
    while pending:  # level by level: a nested node exists once its parent is built
        pending = False
        for node in list(tree._tree_nodes.values()):
            if node.allow_expand and not node.is_expanded and node is not tree.root and _open_key(node, mirror) in opened:
                mirror.fill(node)
                node.expand()
                pending = True
