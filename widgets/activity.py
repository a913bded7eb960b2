"""Activity and plan blocks shown as progress."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import ProgressBar, Static

from tandem.core.blocks.misc import ActivityBlock
from tandem.widgets.block_view import BlockView
from tandem.widgets.sanitize import agent_line, agent_text, pretty_json, revealed_text, sanitize

__all__ = ["ActivityView"]

_STEP_MARKS = {"completed": "✓", "done": "✓", "in_progress": "▸", "running": "▸", "failed": "✗", "skipped": "–"}

PROGRESS_KINDS = ("step", "subagent")
"""Activity types core makes from AG-UI's STEP_* and SUBAGENT_* events: `{name, status, …}`, one line each."""

_PROGRESS_MARKS = {"running": "▸", "finished": "✓", "success": "✓", "error": "✗", "failed": "✗"}


def progress_line(kind: str, value: Any) -> Content | None:
    """The one line of a step or subagent activity (`▸ step: plan`, `✓ subagent: writer`), or None
    when the content is not the `{name, status}` core maps those events to."""
    if not isinstance(value, dict):
        return None
    # A subagent that finished in a later stream than it started is known by its run id only.
    name = value.get("name") if isinstance(value.get("name"), str) else value.get("subagentRunId")
    if not isinstance(name, str):
        return None
    status = str(value.get("status", "running"))
    mark = _PROGRESS_MARKS.get(status, "·")
    line = Content(f"{mark} {kind}: ") + agent_line(name)
    description = value.get("description")
    if isinstance(description, str) and description:
        line = line + Content(" — ") + agent_text(description)
    if status not in ("running", "finished", "success"):
        line = line + Content(" (") + agent_text(status) + Content(")")
    message = value.get("message")
    if isinstance(message, str) and message:
        line = line + Content(": ") + agent_text(message)
    return line


def _steps(value: Any) -> list[dict[str, Any]] | None:
    """The plan's steps, when the activity content has a list of steps (dicts or strings)."""
    if not isinstance(value, dict):
        return None
    steps = value.get("steps")
    if not isinstance(steps, list):
        return None
    return [step if isinstance(step, dict) else {"description": str(step)} for step in steps]


class ActivityView(BlockView):
    """Progress or a plan: a title line, a progress bar when the content has steps or a fraction,
    and the steps with a mark each (✓ done, ▸ in progress, ✗ failed, · pending).

    A step or subagent (AG-UI STEP_* / SUBAGENT_* events) is one line, its title: a mark, the kind
    and the name (`▸ step: retrieve` while running, `✓ step: retrieve` once finished); class `-progress`.
    Owns a title Static, a ProgressBar and a body Static. Unknown shapes show as JSON.
    UI thread only.
    """

    DEFAULT_CSS: ClassVar[str] = """
    ActivityView {
        height: auto;
        margin: 0 0 1 0;
        padding: 0 1;
        border-left: outer $accent;
        & > .activity-view--title { color: $text-accent; text-style: bold; }
        & > ProgressBar { height: 1; }
        & > .activity-view--error { color: $text-error; }
        &.-progress { margin: 0; color: $text-muted; }
        &.-progress > .activity-view--title { color: $text-muted; text-style: none; }
    }
    """

    def compose(self) -> ComposeResult:
        yield Static(classes="activity-view--title")
        yield ProgressBar(total=100, show_eta=False)
        yield Static(classes="activity-view--body")
        yield Static(classes="activity-view--error")

    def update_from_block(self) -> None:
        block = self.block
        assert isinstance(block, ActivityBlock)
        value = block.value
        bar = self.query_one(ProgressBar)
        body = self.query_one(".activity-view--body", Static)
        line = progress_line(block.activity_type, value) if block.activity_type in PROGRESS_KINDS else None
        self.set_class(line is not None, "-progress")
        if line is not None:
            self.query_one(".activity-view--title", Static).update(line)
            bar.display = False
            body.display = False
            self._show_error(block)
            return
        body.display = True
        title = sanitize(block.activity_type)
        heading = value.get("title") if isinstance(value, dict) else None
        if isinstance(heading, str):
            title = f"{title}: {sanitize(heading)}"
        self.query_one(".activity-view--title", Static).update(Content(title))
        steps = _steps(value)
        if steps is not None:
            done = sum(1 for step in steps if str(step.get("status", "")).lower() in ("completed", "done"))
            bar.display = True
            bar.update(total=max(len(steps), 1), progress=done)
            lines = []
            for step in steps:
                mark = _STEP_MARKS.get(str(step.get("status", "")).lower(), "·")
                text = step.get("description", step.get("title", step.get("name", "")))
                lines.append(Content(f"{mark} ") + agent_text(text))
            body.update(Content("\n").join(lines))
        elif isinstance(value, dict) and isinstance(fraction := value.get("progress"), (int, float)):
            progress = float(fraction)
            bar.display = True
            bar.update(total=1.0 if progress <= 1 else 100.0, progress=progress)
            message = value.get("message")
            body.update(agent_text(message) if isinstance(message, str) else Content(""))
        else:
            bar.display = False
            body.update(agent_text(pretty_json(value)))
        self._show_error(block)

    def _show_error(self, block: ActivityBlock) -> None:
        error = self.query_one(".activity-view--error", Static)
        error.display = block.error is not None
        error.update(revealed_text(block.error or ""))
