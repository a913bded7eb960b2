"""The shared-state side panel: committed state as a tree, proposals as diffs, direct edits."""

from __future__ import annotations

import copy

from collections.abc import Callable
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Button, Input, Static, Tree
from textual.widgets.tree import TreeNode, UnknownNodeID

from tandem.core.agent_json import dumps_agent_json, loads_agent_json
from tandem.core.state.agent_state import AgentState
from tandem.core.state.concurrent import seen_values
from tandem.core.state.paths import pointer_of
from tandem.widgets.proposal_diff import diff_lines, proposal_title, value_at
from tandem.widgets.sanitize import agent_text, sanitize
from tandem.widgets.state_conflict import StateConflictList
from tandem.widgets.state_tree import StateTree, StateTreeWidget
from tandem.widgets.state_tree import short_value as _short

# (`diff_lines` and `proposal_title` are imported from here by the tests: they stay importable.)
__all__ = ["StatePanel", "diff_lines", "proposal_title"]


class _StateScroll(VerticalScroll, can_focus=False):
    """The panel's scrolling part. Not a focus stop of its own: the tree and the proposal
    buttons inside it are, so Tab goes from the tree straight on to the next widget."""


class StatePanel(Vertical, can_focus=False):
    """The shared state: the committed value as a tree, each pending proposal as a diff.

    Owns a Tree (node data: the JSON pointer of the field; ⚠ marks a field in conflict) kept
    in step by a `StateTree`, which changes only the nodes of fields that changed and builds a
    closed field's children when it is opened; the conflict cards (`StateConflictList`), one
    card per proposal with Accept / Reject, the divergence and conflict notices, and an Input for editing a leaf.
    Reads the `AgentState` on the UI thread in `refresh_state()` (the app calls it when the
    state changed) and never writes it: Accept/Reject post `StatePanel.ProposalDecided`, an edit
    posts `StatePanel.EditRequested` with an RFC 6902 patch. Every key and value is sanitised.
    """

    DEFAULT_CSS: ClassVar[str] = """
    StatePanel {
        height: 1fr;
        padding: 0 1;
        & > .state-panel--title { text-style: bold; color: $text-primary; }
        & > .state-panel--divergence { color: $text-warning; display: none; }
        & > .state-panel--conflicts { color: $text-error; display: none; }
        &.-diverged > .state-panel--divergence { display: block; }
        &.-conflicted > .state-panel--conflicts { display: block; }
        & > .state-panel--scroll { height: 1fr; }
        & Tree { height: auto; max-height: 100%; background: transparent; }
        & .state-panel--proposal { height: auto; margin: 1 0 0 0; padding: 0 1; border: round $warning; }
        & .state-panel--proposal-title { color: $text-warning; text-style: bold; }
        /* The ids are for the debug view (F3): the main screen's stylesheet shows them there. */
        & .state-panel--proposal-id { color: $text-muted; display: none; }
        & .state-panel--diff.-added { color: $text-success; }
        & .state-panel--diff.-removed { color: $text-error; }
        & .state-panel--diff.-changed { color: $text-warning; }
        & .state-panel--proposal Horizontal { height: auto; }
        & .state-panel--proposal Button { margin: 0 1 0 0; min-width: 10; }
        & > .state-panel--editor { display: none; }
        &.-editing > .state-panel--editor { display: block; }
        & > .state-panel--empty { color: $text-muted; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("e", "edit", "Edit field", id="tandem.edit_state"),
        Binding("v", "view", "View value", id="tandem.view_state"),
        Binding("escape", "cancel_edit", "Cancel edit", show=False),
    ]
    """
    | Key(s) | Description |
    | :- | :- |
    | e / enter (on a leaf) | Edit the selected field; Enter in the field commits. |
    | v | Read the selected value in full (a scrollable viewer, Markdown rendered, with copy). |
    | escape | Cancel the edit. |
    """

    class ProposalDecided(Message):
        """Accept or Reject was pressed; handled as `on_state_panel_proposal_decided`."""

        def __init__(self, panel: StatePanel, proposal_id: str, accept: bool) -> None:
            super().__init__()
            self.panel = panel
            """The panel that posted it."""
            self.proposal_id = proposal_id
            """The proposal decided on."""
            self.accept = accept
            """True to commit it, False to drop it."""

        @property
        def control(self) -> StatePanel:
            """The panel."""
            return self.panel

    class EditRequested(Message):
        """The human edited a field; handled as `on_state_panel_edit_requested`."""

        def __init__(self, panel: StatePanel, patch: list[dict[str, Any]], seen: dict[str, Any] | None = None) -> None:
            super().__init__()
            self.panel = panel
            """The panel that posted it."""
            self.patch = patch
            """RFC 6902 operations for `AgentState.edit`."""
            self.seen = seen
            """What the person saw of each field when they began editing (`core.state.concurrent`)."""

        @property
        def control(self) -> StatePanel:
            """The panel."""
            return self.panel

    def __init__(
        self,
        state: AgentState | None = None,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        disabled: bool = False,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        self.state = state
        """The state shown; replace it with `set_state()`."""
        self._editing: str | None = None
        self._seen_document: Any = None
        self._seen_conflicts: list[Any] = []
        """The committed state when the editor opened (read-only: a value read never changes)."""
        self.proposer: Callable[[str], str | None] | None = None
        """What made a proposal, by proposal id (e.g. the tool whose call it predicts), for its
        card's title; set by the host (None, or a None answer: "The agent")."""
        self._shown_proposals: list[tuple[str, str, list[tuple[str, str, str]]]] | None = None
        self._tree: StateTree | None = None
        self._shown_conflict_notice = True  # (unknown until the first paint)

    def compose(self) -> ComposeResult:
        yield Static(Content("state"), classes="state-panel--title")
        yield Static(classes="state-panel--divergence")
        yield Static(classes="state-panel--conflicts")
        with _StateScroll(classes="state-panel--scroll"):
            yield Static(Content("no shared state"), classes="state-panel--empty")
            tree: Tree[str] = StateTreeWidget(Text("state"), data="")
            tree.show_root = False
            yield tree
            yield StateConflictList(classes="state-panel--field-conflicts")
            yield Vertical(classes="state-panel--proposals")
        yield Input(classes="state-panel--editor")

    def on_mount(self) -> None:
        self.refresh_state()

    @on(Tree.NodeSelected)
    def _node_selected(self, event: Tree.NodeSelected[str]) -> None:
        event.stop()
        if not event.node.allow_expand:
            self._start_edit(event.node)

    @on(Input.Submitted, ".state-panel--editor")
    def _edit_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        path = self._editing
        if path is None or self.state is None:
            return
        try:
            old = value_at(self.state.committed, path)
        except (KeyError, IndexError, ValueError):
            old = None
        value = _parse_edit(event.value, old)
        seen_document = self._seen_document
        self._stop_edit()
        patch = [{"op": "replace", "path": path, "value": value}]
        # What the field held when the editor opened: an edit someone made meanwhile is not overwritten unseen.
        self.post_message(self.EditRequested(self, patch, seen_values(seen_document or {}, patch, self._seen_conflicts)))

    @on(Button.Pressed, ".state-panel--accept, .state-panel--reject")
    def _proposal_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        proposal_id = getattr(event.button, "proposal_id", None)
        if proposal_id is not None:
            self.post_message(self.ProposalDecided(self, proposal_id, event.button.has_class("state-panel--accept")))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel_edit":
            return self._editing is not None
        return True

    def action_edit(self) -> None:
        """Edit the field under the tree cursor (leaves only)."""
        node = self._cursor_node()
        if node is not None and not node.allow_expand and node.data is not None:
            self._start_edit(node)

    def action_view(self) -> None:
        """Read the value under the tree cursor in full (any field, a leaf or an object)."""
        from tandem.widgets.value_viewer import ValueViewer  # Markdown loads only when asked

        node = self._cursor_node()
        if node is None or node.data is None or self.state is None:
            return
        try:
            value = value_at(self.state.committed, node.data)
        except (KeyError, IndexError, ValueError):
            return
        self.app.push_screen(ValueViewer(node.data, value))

    def _cursor_node(self) -> TreeNode[str] | None:
        """The node under the tree's cursor; the first one when the cursor was never moved (Tab
        focuses the tree with no line under its cursor, and `v` or `e` would do nothing)."""
        tree: Tree[str] = self.query_one(Tree)
        if tree.cursor_node is None and tree.last_line >= 0:
            tree.cursor_line = 0
        return tree.cursor_node

    def action_cancel_edit(self) -> None:
        """Close the editor without committing."""
        self._stop_edit()

    def set_state(self, state: AgentState | None) -> None:
        """Show another state object (a new conversation)."""
        self.state = state
        self._shown_proposals = None
        self.refresh_state()

    def refresh_state(self) -> None:
        """Repaint the tree, the proposals, divergence and conflicts from the state (UI thread)."""
        empty = self.query(".state-panel--empty")
        if not empty:
            return  # not composed yet: `on_mount` paints it (a shared conversation's state can come first)
        state = self.state
        committed = state.committed if state is not None else None
        empty.first().display = committed is None
        self._paint_tree(committed, _conflicted(state))
        self._paint_notices(state)
        self.query_one(StateConflictList).show(state.field_conflicts if state is not None else [])
        self._paint_proposals(state)

    def _paint_tree(self, committed: Any, conflicted: frozenset[str] = frozenset()) -> None:
        tree: Tree[str] = self.query_one(Tree)
        tree.display = committed is not None
        if self._tree is None or self._tree.tree is not tree:
            self._tree = StateTree(tree)
        cursor = tree.cursor_node
        if not self._tree.show(committed, conflicted):
            return
        if cursor is not None and cursor is not tree.root and _in_tree(tree, cursor):
            # Nodes added or removed above the cursor move its line: keep it on its field. Now,
            # not after the next refresh: an arrow key handled in between moved from the old
            # line and was then undone (keys lost while the agent writes). Reading `last_line`
            # numbers the changed tree's lines first.
            _ = tree.last_line
            tree.move_cursor(cursor)
        # Changing lines on idle does not always trigger a new layout; without it the tree can
        # keep a height of 0 and vanish.
        self.call_after_refresh(tree.refresh, layout=True)

    @on(Tree.NodeExpanded)
    def _node_expanded(self, event: Tree.NodeExpanded[str]) -> None:
        # A container's children are built when it is first opened (see `StateTree`).
        if self._tree is not None and event.node.tree is self._tree.tree:
            self._tree.fill(event.node)

    def _paint_notices(self, state: AgentState | None) -> None:
        diverged = state is not None and state.diverged
        self.set_class(diverged, "-diverged")
        if state is not None and diverged:
            self.query_one(".state-panel--divergence", Static).update(
                Content("⚠ out of sync with the agent: ") + agent_text(state.divergence or "")
            )
        conflicts = state.conflicts if state is not None else []
        self.set_class(bool(conflicts), "-conflicted")
        if not conflicts and not self._shown_conflict_notice:
            return  # an update lays the panel out again: not on every state change
        self._shown_conflict_notice = bool(conflicts)
        lines = [
            Content("⚠ conflict at ")
            + agent_text(conflict.path or "/")
            + Content(": you set ")
            + agent_text(_short(conflict.human_value))
            + Content(", the agent proposes ")
            + agent_text(_short(conflict.agent_value))
            for conflict in conflicts
        ]
        self.query_one(".state-panel--conflicts", Static).update(Content("\n").join(lines))

    def _paint_proposals(self, state: AgentState | None) -> None:
        shown: list[tuple[str, str, list[tuple[str, str, str]]]] = []
        if state is not None:
            for proposal_id in state.proposals:
                proposer = self._proposer_of(proposal_id)
                try:
                    operations = state.proposal_diff(proposal_id)
                    clashes = state.proposal_conflicts(proposal_id)
                except Exception as exc:  # a broken proposal still shows, with why it cannot be shown
                    self.log.warning("proposal", proposal_id, "cannot be shown:", exc)
                    title = f"{sanitize(proposer or '').strip() or 'The agent'} proposes a change"
                    shown.append((proposal_id, title, [("!", "-removed", "cannot be shown against the committed state")]))
                    continue
                # The diff is what accepting gives (merged like any agent write); fields the
                # person changed since keep the person's value and would become conflicts.
                lines = diff_lines(state.committed, operations)
                lines += [("⚠", "-removed", f"{sanitize(label)}: yours stays (you changed it since)") for label in clashes]
                shown.append((proposal_id, proposal_title(proposer, operations), lines))
        if shown == self._shown_proposals:
            return
        self._shown_proposals = shown
        container = self.query_one(".state-panel--proposals", Vertical)
        container.remove_children()
        container.mount_all(_proposal_card(proposal_id, title, lines) for proposal_id, title, lines in shown)

    def _proposer_of(self, proposal_id: str) -> str | None:
        if self.proposer is None:
            return None
        try:
            return self.proposer(proposal_id)
        except Exception as exc:  # a title is not worth a crash
            self.log.warning("no proposer for", proposal_id, exc)
            return None

    def _start_edit(self, node: TreeNode[str]) -> None:
        if node.data is None or self.state is None:
            return
        self._editing = node.data
        self._seen_document = self.state.committed
        # As shown now: a conflict's late value may change before the edit is sent.
        self._seen_conflicts = [copy.copy(c) for c in self.state.open_conflicts]
        try:
            value = value_at(self._seen_document, node.data)
        except (KeyError, IndexError, ValueError):
            return
        editor = self.query_one(".state-panel--editor", Input)
        editor.value = sanitize(value) if isinstance(value, str) else sanitize(dumps_agent_json(value))
        editor.placeholder = f"new value for {sanitize(node.data)}"
        self.add_class("-editing")
        editor.focus()
        self.refresh_bindings()

    def _stop_edit(self) -> None:
        self._editing = None
        self.remove_class("-editing")
        self.query_one(Tree).focus()
        self.refresh_bindings()


def _parse_edit(text: str, old: Any) -> Any:
    """The typed value of an edit: strings stay text, other fields parse as JSON when they can."""
    if isinstance(old, str):
        return text
    try:
        return loads_agent_json(text)
    except ValueError:
        return text


def _in_tree(tree: Tree[str], node: TreeNode[str]) -> bool:
    """Whether `node` is still one of `tree`'s nodes (not removed since)."""
    try:
        return tree.get_node_by_id(node.id) is node
    except UnknownNodeID:
        return False


def _conflicted(state: AgentState | None) -> frozenset[str]:
    """The JSON pointers of the fields in open conflict (marked ⚠ in the tree)."""
    if state is None:
        return frozenset()
    pointers = (pointer_of(state.committed, c.path) for c in state.open_conflicts)
    return frozenset(p for p in pointers if p is not None)


def _proposal_card(proposal_id: str, title: str, lines: list[tuple[str, str, str]]) -> Vertical:
    accept = Button(Content("✓ Accept"), variant="success", compact=True, classes="state-panel--accept")
    reject = Button(Content("✗ Reject"), variant="error", compact=True, classes="state-panel--reject")
    accept.proposal_id = proposal_id  # type: ignore[attr-defined]
    reject.proposal_id = proposal_id  # type: ignore[attr-defined]
    diff = [Static(Content(f"{symbol} ") + Content(text), classes=f"state-panel--diff {css}") for symbol, css, text in lines]
    return Vertical(
        Static(Content(title), classes="state-panel--proposal-title"),  # sanitised by proposal_title
        Static(Content("id ") + agent_text(proposal_id), classes="state-panel--proposal-id"),
        *diff,
        Horizontal(accept, reject),
        classes="state-panel--proposal",
    )
