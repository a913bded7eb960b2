"""A surface's resolved tree with its widgets' names, worked out on the UI thread or, for a large surface, in a thread of its own."""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from textual.message import Message
from textual.widget import Widget

from tandem.core.a2ui import ResolvedComponent, ResolveStopped, SurfaceBlock
from tandem.widgets.a2ui_render_keys import render_keys, tree_signature

__all__ = ["ResolvedTree", "TreeResolver", "resolved_tree"]


@dataclass(frozen=True)
class ResolvedTree:
    """A resolved tree and what the surface view needs of it before building a widget (immutable)."""

    root: ResolvedComponent
    nodes: dict[str, ResolvedComponent]
    """Every component by render key (`render_keys`)."""
    names: dict[int, str]
    """Render keys by `id()` of the component."""
    signature: tuple[Any, ...]
    """`tree_signature`: equal signatures update widgets in place."""


def resolved_tree(block: SurfaceBlock, stop: Callable[[], bool] | None = None) -> ResolvedTree | None:
    """The block's tree resolved, keyed and signed (None without a surface); any thread.

    Raises:
        ResolveStopped: `stop` returned True before the tree was resolved.
    """
    root = block.tree(stop)
    if root is None:
        return None
    nodes = dict(render_keys(root))
    return ResolvedTree(root, nodes, {id(node): key for key, node in nodes.items()}, tree_signature(root))


class TreeResolver:
    """Resolves one surface block's tree in a daemon thread and hands the result to its widget.

    Owns the thread under way (one at a time) and its stop flag. Resolving binds every component
    against the data model (about a millisecond each) and naming and signing the tree walks it
    again: for thousands of components that held the UI thread, and every key, for seconds. The
    thread is a daemon that stops at the next component once `stop` is called (the widget
    unmounted, or the app quitting): a quit never waits for a resolution nobody will see. The
    result arrives as `TreeResolver.Done`, posted to the widget. `start` and `stop` on the UI
    thread; the work in its own thread.
    """

    class Done(Message):
        """A resolution ended: `tree` (None without a surface), or `failed` (the engine changed the
        surface as it was read: the widget resolves it again on its own thread)."""

        def __init__(self, token: object, tree: ResolvedTree | None, failed: bool) -> None:
            super().__init__()
            self.token = token
            """Which thread resolved it (`TreeResolver.finished` tells whether it is the current one)."""
            self.tree = tree
            self.failed = failed

    def __init__(self, widget: Widget, block: Callable[[], SurfaceBlock]) -> None:
        self._widget = widget
        self._block = block
        self._stopped: threading.Event | None = None  # the flag of the thread under way

    @property
    def busy(self) -> bool:
        """Whether a resolution is under way."""
        return self._stopped is not None

    def start(self) -> None:
        """Resolve the block's current tree in a new thread (the caller checks `busy` first)."""
        stopped = self._stopped = threading.Event()
        widget, block = self._widget, self._block()

        def work() -> None:
            try:
                tree, failed = resolved_tree(block, stopped.is_set), False
            except ResolveStopped:
                return
            except Exception:  # (the engine thread changed the surface as it was read)
                tree, failed = None, True
            if not stopped.is_set():
                widget.post_message(TreeResolver.Done(stopped, tree, failed))

        # The thread runs in a copy of this context: Textual finds the app through it.
        context = contextvars.copy_context()
        threading.Thread(target=context.run, args=(work,), name="tandem-surface-resolve", daemon=True).start()

    def finished(self, done: TreeResolver.Done) -> bool:
        """Take `done` as the end of the thread under way (a new one may start); False when it
        came from a thread stopped since, whose result is to be ignored."""
        if done.token is not self._stopped:
            return False
        self._stopped = None
        return True

    def stop(self) -> None:
        """Stop the thread under way at its next component; its result is never posted. Idempotent."""
        if self._stopped is not None:
            self._stopped.set()
            self._stopped = None
