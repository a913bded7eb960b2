"""The A2UI surface view: an agent's declarative UI rendered natively inside the conversation."""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable
from typing import Any, ClassVar

from pydantic import JsonValue
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from tandem.core.a2ui import ResolvedComponent, SurfaceBlock
from tandem.widgets.a2ui_build_pace import BuildPace
from tandem.widgets.a2ui_components import (
    ButtonComponent,
    CardComponent,
    FallbackComponent,
    LayoutComponent,
    ModalComponent,
    PagedLayoutComponent,
    PlaceholderComponent,
    SurfaceModal,
    TabsComponent,
)
from tandem.widgets.a2ui_inputs import InputComponent
from tandem.widgets.a2ui_leaves import LEAF_RENDERERS
from tandem.widgets.a2ui_render_keys import render_keys
from tandem.widgets.a2ui_resolve import ResolvedTree, TreeResolver, resolved_tree
from tandem.widgets.block_view import BlockView
from tandem.widgets.screen_turn import screen_turn
from tandem.widgets.sanitize import agent_text, safe_id

__all__ = ["SurfaceView", "render_keys"]

_STATUS_TEXT = {
    "building": "… the agent is building this UI",
    "retrying": "↻ the agent is retrying this UI",
    "failed": "✗ the agent could not build this UI",
    "deleted": "⊘ the agent removed this UI",
}

_STALLED_TEXT = "✗ the agent's run ended before this UI was complete"

_PROGRESS_TEXT = "… building this UI: {built:,} of {total:,} components shown"

_MODAL_PREFIX = "modal:"
"""Render keys of an open modal's content widgets (they live on the modal screen)."""



class SurfaceView(BlockView):
    """An A2UI surface: a frame naming the agent, a status line, an error line and the components.

    Owns the rendered widgets, keyed by render key (`render_keys`). A newer block version
    updates them in place while the structure is the same; otherwise the tree is rebuilt,
    keeping focus and unsent typing by key. Inputs post `ValueChanged`, buttons `ActionFired`;
    the app forwards both to the engine thread (`tui.app.a2ui_actions`). UI thread only.
    State classes: `-building`, `-retrying`, `-failed`, `-deleted`, `-stalled`, `-invalid`.
    A tree of more than `MOUNT_BATCH` components is resolved in a thread (`TreeResolver`) and
    mounted in batches, a frame between them (the rest of a Row, Column or List's children wait
    in `_later`, built from the newest snapshot), each batch sized by what the last ones cost
    (`BuildPace`), so that keys are handled while thousands of components mount.
    """

    MOUNT_BATCH: ClassVar[int] = 200
    """Components above which a tree is resolved in a thread and built in batches (each component
    costs about a millisecond or two to build, mount and lay out: thousands at once kept Esc and
    Ctrl+Q waiting for seconds), and a vertical layout's children above which it holds them in pages."""

    DEFAULT_CSS: ClassVar[str] = """
    SurfaceView {
        height: auto;
        margin: 0 0 1 0;
        padding: 0 1;
        border: round $secondary;
        border-title-color: $text-secondary;
        & > .surface-view--status { color: $text-muted; height: auto; }
        & > .surface-view--error { color: $text-error; height: auto; }
        & > .surface-view--tree { height: auto; }
        &.-failed, &.-stalled { border: round $error; }
        &.-deleted { border: round $panel; }
        &.-deleted > .surface-view--tree { display: none; }
    }
    """

    class ValueChanged(Message):
        """An input changed: write `value` at `path` in the surface's local data model.

        Handled by the app as `on_surface_view_value_changed` (→ `handle_value_changed` on the
        engine thread). Nothing goes to the agent.
        """

        def __init__(self, block: SurfaceBlock, path: str, value: JsonValue) -> None:
            super().__init__()
            self.block = block
            """The surface."""
            self.path = path
            """An absolute JSON Pointer into the data model."""
            self.value = value
            """The new value."""

    class ActionFired(Message):
        """A button (or any component with an action) was pressed.

        Handled by the app as `on_surface_view_action_fired` (→ `handle_surface_action` on the
        engine thread, which fires it and sends the event or asks before opening a URL).
        """

        def __init__(self, block: SurfaceBlock, component_id: str, scope: str) -> None:
            super().__init__()
            self.block = block
            """The surface."""
            self.component_id = component_id
            """The component whose action fires."""
            self.scope = scope
            """Its data scope ("/" or a template item's path)."""

    def __init__(self, block: SurfaceBlock, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(block, name=name, id=id, classes=classes)
        self._widgets: dict[str, Widget] = {}
        self._signature: tuple[Any, ...] | None = None
        self._modal: tuple[str, SurfaceModal] | None = None
        self._tree = Vertical(classes="surface-view--tree")
        self._newest_nodes: dict[str, ResolvedComponent] = {}  # the newest snapshot, by render key
        self._newest_names: dict[int, str] = {}  # ... its render keys by node id
        self._resolver = TreeResolver(self, lambda: self.surface)
        self._pace = BuildPace()
        self._room: int | None = None  # components the build under way may still make (None: no limit)
        self._later: deque[tuple[str, deque[str]]] = deque()  # (container's key, its children's keys) to mount
        self._generation = 0  # a rebuild starts a new one: batches of an older tree stop
        self._built = 0  # components of the tree under way built so far
        self._resolving = 0  # components of the surface being resolved in a thread (0: none)
        self._resolve_again = False  # the block changed while it was
        self._status_shown: tuple[str | None, str | None] | None = None  # (status, progress) on the status line

    @property
    def surface(self) -> SurfaceBlock:
        """The block, typed."""
        assert isinstance(self.block, SurfaceBlock)
        return self.block

    def compose(self) -> ComposeResult:
        yield Static(classes="surface-view--status")
        yield Static(classes="surface-view--error")
        yield self._tree

    def update_from_block(self) -> None:
        block = self.surface
        self.border_title = agent_text(block.frame_title)
        for name in _STATUS_TEXT:
            self.set_class(block.status == name, f"-{name}")
        self.set_class(block.stalled, "-stalled")
        error = self.query_one(".surface-view--error", Static)
        line = block.error_line
        error.update(Content("⚠ ") + agent_text(line) if line else Content(""))
        error.display = line is not None
        self.set_class(line is not None, "-invalid")
        self._show_tree()
        self._show_status()

    def _show_tree(self) -> None:
        """Render the block's tree: resolved here, or in a thread for a surface of more components than one batch."""
        surface = self.surface.surface
        if surface is None or len(surface.components_model) <= self.MOUNT_BATCH:
            self._render_tree(resolved_tree(self.surface))
        elif self._resolver.busy:
            self._resolve_again = True  # (the newer version is resolved when this one is in)
        else:
            self._resolving = len(surface.components_model)
            self._resolver.start()

    @on(TreeResolver.Done)
    def _resolved(self, done: TreeResolver.Done) -> None:
        done.stop()
        if not self._resolver.finished(done):
            return
        self._resolving = 0
        # (failed: the engine thread changed the surface as it was read: read it here)
        self._render_tree(resolved_tree(self.surface) if done.failed else done.tree)
        if self._resolve_again:
            self._resolve_again = False
            self._show_tree()
        self._show_status()

    def on_unmount(self) -> None:
        super().on_unmount()
        self._resolver.stop()
        self._generation += 1  # (the batches left stop)

    def _show_status(self) -> None:
        """The status line: the block's status, and how much of the tree is built while batches remain."""
        block = self.surface
        # The run ended without a root: "building" would promise something that is not coming.
        status = _STALLED_TEXT if block.stalled else _STATUS_TEXT.get(block.status)
        if block.status == "retrying" and block.status_errors:
            status = f"{status}: {block.status_errors[-1]}"
        progress = None
        if self._resolving:
            progress = _PROGRESS_TEXT.format(built=0, total=self._resolving)
        elif self._later:
            progress = _PROGRESS_TEXT.format(built=self._built, total=len(self._newest_nodes))
        if (status, progress) == self._status_shown:
            return
        self._status_shown = (status, progress)
        parts = ([agent_text(status)] if status else []) + ([Content(progress)] if progress else [])
        status_line = self.query_one(".surface-view--status", Static)
        status_line.update(Content(" · ").join(parts))
        status_line.display = bool(parts)

    # -- the component tree ------------------------------------------------------------------

    def widget_for(self, key: str) -> Widget | None:
        """The widget rendering the component with render key `key` (tests, focus)."""
        return self._widgets.get(key)

    def _render_tree(self, resolved: ResolvedTree | None) -> None:
        if resolved is None:
            if self._widgets:
                self._generation += 1
                self._later.clear()
                self._replace_tree(Vertical(classes="surface-view--tree"))
                self._widgets = {}
                self._signature = None
            return
        root, signature, keys = resolved.root, resolved.signature, resolved.nodes
        self._newest_nodes = keys
        self._newest_names = resolved.names
        if signature == self._signature:
            for key, node in keys.items():
                for name in (key, f"{_MODAL_PREFIX}{key}"):
                    widget = self._widgets.get(name)
                    if widget is not None:
                        widget.update_node(node)  # type: ignore[attr-defined]
            return
        focused = self._focused_key()
        old = self._widgets
        self._signature = signature
        self._widgets = {k: w for k, w in old.items() if k.startswith(_MODAL_PREFIX)}
        self._generation += 1
        self._later.clear()
        self._built = 0
        self._room = self._pace.batch() if len(keys) > self.MOUNT_BATCH else None
        try:
            tree = self._build(root, self._newest_names)
        finally:
            self._room = None
        for key, widget in self._widgets.items():
            previous = old.get(key)
            if isinstance(widget, InputComponent) and isinstance(previous, InputComponent) and previous is not widget:
                widget.carry_from(previous)
        self._replace_tree(Vertical(tree, classes="surface-view--tree"), focused if focused in self._widgets else None)
        if self._later:
            self.run_worker(self._mount_later(self._generation), group="surface-mount", exit_on_error=False)

    async def _mount_later(self, generation: int) -> None:
        """Mount the components `_render_tree` left for later, a batch (`BuildPace`) at a time.

        Each batch is three steps of the UI thread with turns of its loop between them (building
        the widgets, mounting them, the frame that lays out their page), each sized to take about
        `BuildPace.STEP_SECONDS`: a key waits behind one step at a time.
        """
        await screen_turn(self)
        while self._later and generation == self._generation and self.is_attached:
            parent_key, keys = self._later[0]
            parent = self._widgets.get(parent_key)
            batch: list[Widget] = []
            room = self._room = self._pace.batch()
            started = time.perf_counter()
            # The build stops at the batch's size or its time, whichever comes first: a batch
            # of components costlier than the last ones measured still ends within its step.
            deadline = started + BuildPace.STEP_SECONDS
            try:
                while keys and self._room > 0 and parent is not None and (not batch or time.perf_counter() < deadline):
                    node = self._newest_nodes.get(keys.popleft())
                    if node is not None:
                        batch.append(self._build(node, self._newest_names))
            finally:
                built, self._room = room - self._room, None
            self._pace.note("build", built, time.perf_counter() - started)
            if not keys or parent is None:
                self._later.popleft()
            if parent is None or not parent.is_attached or not batch:
                continue
            assert isinstance(parent, LayoutComponent)  # (only a Row, Column or List leaves children for later)
            await asyncio.sleep(0)
            if generation != self._generation or not parent.is_attached:
                return
            await parent.add_rows(batch, self._pace, built)
            self._show_status()
            if not await screen_turn(self):
                return
        if generation == self._generation and self.is_attached:
            self._show_status()

    def _children(self, node: ResolvedComponent, names: dict[int, str]) -> list[Widget]:
        """The widgets of a Row, Column or List's children: those the build has room for; the rest wait in `_later`."""
        children = node.slots.get("children", ())
        built: list[Widget] = []
        for index, child in enumerate(children):
            if self._room is not None and self._room <= 0:
                self._later.append((names[id(node)], deque(names[id(rest)] for rest in children[index:])))
                break
            built.append(self._build(child, names))
        return built

    def _replace_tree(self, tree: Vertical, focus: str | None = None) -> None:
        # A fresh container: the old one's removal is asynchronous, and its widgets' ids would
        # clash with the new ones until it completes.
        old, self._tree = self._tree, tree
        old.remove()
        mounted = self.mount(tree, after=old)
        if focus is not None:
            self.call_later(self._refocus, mounted, focus)

    def _build(self, node: ResolvedComponent, names: dict[int, str]) -> Widget:
        key = names[id(node)]
        widget_id = safe_id(key)
        if node.placeholder:
            widget: Widget = PlaceholderComponent(node, id=widget_id)
        elif node.type in ("Row", "Column", "List"):
            paged = LayoutComponent.is_vertical(node) and len(node.slots.get("children", ())) > self.MOUNT_BATCH
            layout = PagedLayoutComponent if paged else LayoutComponent
            widget = layout(node, self._children(node, names), id=widget_id)
        elif node.type == "Card":
            widget = CardComponent(node, [self._build(child, names) for child in node.slots.get("child", ())], id=widget_id)
        elif node.type == "Tabs":
            widget = TabsComponent(node, [self._build(child, names) for child in node.slots.get("tabs", ())], id=widget_id)
        elif node.type == "Modal":
            widget = ModalComponent(node, id=widget_id)
        elif node.type in LEAF_RENDERERS and node.supported:
            widget = LEAF_RENDERERS[node.type](node, id=widget_id)
        else:
            widget = FallbackComponent(node, [self._build(child, names) for child in node.children], id=widget_id)
        widget.add_class("a2ui-component", update=False)  # (styled when it mounts: not one style pass per widget now)
        self._widgets[key] = widget
        if self._room is not None:
            self._room -= 1
            self._built += 1
        return widget

    def _focused_key(self) -> str | None:
        focused = self.app.focused if self.is_attached else None
        node: Any = focused
        while node is not None and node is not self:
            for key, widget in self._widgets.items():
                if widget is node:
                    return key
            node = node.parent
        return None

    async def _refocus(self, mounted: Awaitable[None], key: str) -> None:
        await mounted
        widget = self._widgets.get(key)
        if widget is None:
            return
        target = widget if widget.focusable else next((w for w in widget.query("*") if w.focusable), None)
        if target is not None:
            target.focus()

    # -- component messages ------------------------------------------------------------------

    @on(InputComponent.Edited)
    def _edited(self, message: InputComponent.Edited) -> None:
        message.stop()
        self.post_message(self.ValueChanged(self.surface, message.path, message.value))

    @on(ButtonComponent.Clicked)
    def _clicked(self, message: ButtonComponent.Clicked) -> None:
        message.stop()
        self.post_message(self.ActionFired(self.surface, message.node.id, message.node.scope))

    @on(ModalComponent.Opened)
    def _open_modal(self, message: ModalComponent.Opened) -> None:
        message.stop()
        root = self.surface.tree()
        key = next((k for k, w in self._widgets.items() if w is message.modal), None)
        if root is None or key is None or self._modal is not None:
            return
        current = dict(render_keys(root)).get(key)
        content = current.slots.get("content", ()) if current is not None else ()
        if not content:
            return
        names = {id(node): f"{_MODAL_PREFIX}{k}" for k, node in render_keys(root)}
        modal = SurfaceModal(self, agent_text(self.surface.frame_title), self._build(content[0], names))
        self._modal = (key, modal)
        self.app.push_screen(modal, lambda _result: self._modal_closed())

    def _modal_closed(self) -> None:
        self._modal = None
        for key in [k for k in self._widgets if k.startswith(_MODAL_PREFIX)]:
            del self._widgets[key]
