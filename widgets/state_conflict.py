"""State conflicts: a field both writers changed, with both values and keep mine / take the agent's / edit."""

from __future__ import annotations

import json
import time
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Button, Input, Static

from tandem.core.state.conflicts import FieldConflict, Resolution
from tandem.core.state.fields import MISSING
from tandem.widgets.sanitize import agent_text, sanitize

__all__ = ["StateConflictView", "StateConflictList", "conflict_value_text"]

_OUTCOMES = {"mine": "kept yours", "agent": "took the agent's", "edit": "wrote a new value"}
_PEOPLE_OUTCOMES = {"mine": "kept the first edit", "agent": "took the later edit", "edit": "wrote a new value"}


def conflict_value_text(value: Any, limit: int = 60) -> str:
    """A one-line, sanitised rendering of one side's value (`removed` for a removed field)."""
    if value is MISSING:
        return "(removed)"
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = sanitize(text).replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _when(at: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(at))


class StateConflictView(Vertical):
    """One conflicted field: both values with their authors and times, and the three choices.

    Owns the rendering of one `FieldConflict` (read on the UI thread, never written) and an
    Input for a third value. Posts `StateConflictView.Resolved`; the app carries it to the
    engine. A settled conflict shows one line saying how it was settled.
    """

    DEFAULT_CSS: ClassVar[str] = """
    StateConflictView {
        height: auto;
        margin: 1 0 0 0;
        padding: 0 1;
        border: round $error;
        & .state-conflict-view--title { color: $text-error; text-style: bold; }
        & .state-conflict-view--mine { color: $text-primary; }
        & .state-conflict-view--agent { color: $text-warning; }
        & Horizontal { height: auto; }
        & Button { margin: 0 1 0 0; min-width: 10; }
        & Input { display: none; }
        &.-editing Input { display: block; }
        &.-resolved { border: round $surface-lighten-2; }
        &.-resolved .state-conflict-view--title { color: $text-muted; text-style: none; }
    }
    """

    class Resolved(Message):
        """The person chose; handled as `on_state_conflict_view_resolved`."""

        def __init__(self, view: StateConflictView, conflict_id: str, resolution: Resolution, value: Any = None) -> None:
            super().__init__()
            self.view = view
            """The view that posted it."""
            self.conflict_id = conflict_id
            """The conflict settled."""
            self.resolution = resolution
            """`mine`, `agent` or `edit`."""
            self.value = value
            """The new value, for `edit`."""

        @property
        def control(self) -> StateConflictView:
            """The view."""
            return self.view

    def __init__(self, conflict: FieldConflict, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.conflict = conflict
        """The conflict shown (a live object of the engine's state: read, never written)."""
        self.set_class(conflict.resolved, "-resolved")

    def compose(self) -> ComposeResult:
        conflict = self.conflict
        if conflict.resolution is not None:
            yield Static(
                Content("✓ ") + agent_text(conflict.label)
                + Content(f": {(_PEOPLE_OUTCOMES if conflict.between_people else _OUTCOMES)[conflict.resolution]} ")
                + agent_text(f"({conflict.resolved_by}, {_when(conflict.resolved_at or 0.0)})"),
                classes="state-conflict-view--title",
            )
            return
        yield Static(Content("⚠ conflict at ") + agent_text(conflict.label), classes="state-conflict-view--title")
        # Between two people (a shared conversation) each side is named; else it is yours and the agent's.
        people = conflict.between_people
        kept, other = (f"{conflict.mine_by}'s", f"{conflict.agent_by}'s") if people else ("yours", "agent's")
        yield Static(
            agent_text(f"{kept}: ") + agent_text(conflict_value_text(conflict.mine))
            + Content(" — ") + agent_text(f"{conflict.mine_by}, {_when(conflict.mine_at)}"),
            classes="state-conflict-view--mine",
        )
        yield Static(
            agent_text(f"{other}: ") + agent_text(conflict_value_text(conflict.agent))
            + Content(" — ") + agent_text(f"{conflict.agent_by}, {_when(conflict.agent_at)} ({conflict.source})"),
            classes="state-conflict-view--agent",
        )
        with Horizontal():
            yield Button(agent_text(f"Keep {kept}") if people else Content("Keep mine"), variant="primary", compact=True,
                         classes="state-conflict-view--mine-button")
            yield Button(agent_text(f"Take {other}") if people else Content("Take the agent's"), variant="warning",
                         compact=True, classes="state-conflict-view--agent-button")
            yield Button(Content("Edit…"), compact=True, classes="state-conflict-view--edit-button")
        yield Input(placeholder="new value (JSON, or text)", classes="state-conflict-view--editor")

    @on(Button.Pressed, ".state-conflict-view--mine-button")
    def _keep_mine(self, event: Button.Pressed) -> None:
        event.stop()
        self.post_message(self.Resolved(self, self.conflict.id, "mine"))

    @on(Button.Pressed, ".state-conflict-view--agent-button")
    def _take_agents(self, event: Button.Pressed) -> None:
        event.stop()
        self.post_message(self.Resolved(self, self.conflict.id, "agent"))

    @on(Button.Pressed, ".state-conflict-view--edit-button")
    def _edit(self, event: Button.Pressed) -> None:
        event.stop()
        editor = self.query_one(Input)
        mine = self.conflict.mine
        editor.value = "" if mine is MISSING else sanitize(mine if isinstance(mine, str) else json.dumps(mine))
        self.add_class("-editing")
        editor.focus()

    @on(Input.Submitted, ".state-conflict-view--editor")
    def _edit_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.remove_class("-editing")
        self.post_message(self.Resolved(self, self.conflict.id, "edit", _typed(event.value, self.conflict.mine)))


def _typed(text: str, old: Any) -> Any:
    """Strings stay text; other fields parse as JSON when they can (as the state panel's edits)."""
    if isinstance(old, str):
        return text
    try:
        return json.loads(text)
    except ValueError:
        return text


class StateConflictList(Vertical):
    """Every conflict of the shared state, open ones first with their choices, settled ones as a line.

    Owns one `StateConflictView` per conflict; `show()` (UI thread) remounts them only when a
    conflict appeared, changed or was settled.
    """

    DEFAULT_CSS: ClassVar[str] = """
    StateConflictList { height: auto; }
    """

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._shown: list[tuple[Any, ...]] | None = None

    def show(self, conflicts: list[FieldConflict]) -> None:
        """Show `conflicts` (open first)."""
        ordered = [c for c in conflicts if not c.resolved] + [c for c in conflicts if c.resolved]
        key = [(c.id, c.resolution, conflict_value_text(c.agent), c.agent_at) for c in ordered]
        if key == self._shown:
            return
        self._shown = key
        self.remove_children()
        self.mount_all(StateConflictView(conflict) for conflict in ordered)
