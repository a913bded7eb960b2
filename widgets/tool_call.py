"""A tool call as a compact card with its status, expanding to arguments and result."""

from __future__ import annotations

from typing import Any, ClassVar, NamedTuple

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Collapsible, Static

from tandem.core.blocks.tool_call import ToolCallBlock, ToolStatus
from tandem.widgets.block_view import BlockView
from tandem.widgets.sanitize import agent_line, agent_text, pretty_json, reveal, revealed_text
from tandem.core.agent_json import loads_agent_json

__all__ = ["ToolCallView", "STATUS_LABELS"]

STATUS_LABELS: dict[ToolStatus, tuple[str, str]] = {
    ToolStatus.STREAMING_ARGUMENTS: ("…", "preparing"),
    ToolStatus.RUNNING: ("↻", "running"),
    ToolStatus.SUCCEEDED: ("✓", "done"),
    ToolStatus.FAILED: ("✗", "failed"),
    ToolStatus.DENIED: ("⊘", "denied"),
    ToolStatus.CANCELLED: ("⊘", "cancelled"),
}
"""Symbol and word per status: the card reads without colour."""

SHOWN_CHARACTERS = 100_000
"""How much of a tool call's arguments or result the card shows. An agent can send megabytes; a
Static of that size takes seconds to lay out on every repaint. The card says how much more there
is; the whole value stays in the block, the log and the export."""

_STATUS_CLASSES = {
    ToolStatus.STREAMING_ARGUMENTS: "-streaming",
    ToolStatus.RUNNING: "-running",
    ToolStatus.SUCCEEDED: "-done",
    ToolStatus.FAILED: "-failed",
    ToolStatus.DENIED: "-denied",
    ToolStatus.CANCELLED: "-cancelled",
}


class ToolCallView(BlockView):
    """One tool call: a one-line card (symbol, tool name, status) that expands to details.

    Owns a `Collapsible` whose body (built when the card is first opened) shows the
    pretty-printed arguments (the raw text while they stream) and the result or error. The
    status is a CSS class (`-streaming`, `-running`, `-done`, `-failed`, `-denied`,
    `-cancelled`). Typed tool views subclass it and override `summary()` to show the result in
    their own way. UI thread only.
    """

    DEFAULT_CSS: ClassVar[str] = """
    ToolCallView {
        height: auto;
        margin: 0 0 1 0;
        & > Collapsible {
            border-top: none;
            border-left: outer $secondary;
            padding: 0 0 0 1;
            background: $surface;
        }
        /* Textual paints an unfocused title in $block-cursor-blurred-foreground without its
           background: black on black in the high-contrast theme. Hover and focus keep theirs. */
        & CollapsibleTitle { color: $foreground; }
        & .tool-call-view--summary { padding: 0 0 0 2; }
        & .tool-call-view--label { color: $text-muted; text-style: bold; }
        & .tool-call-view--args, & .tool-call-view--result { color: $text; }
        & .tool-call-view--error { color: $text-error; }
        &.-running > Collapsible { border-left: outer $accent; }
        &.-done > Collapsible { border-left: outer $success; }
        &.-failed > Collapsible { border-left: outer $error; }
        &.-denied > Collapsible, &.-cancelled > Collapsible { border-left: outer $warning; }
        &.-failed CollapsibleTitle { color: $text-error; }
        &.-denied CollapsibleTitle, &.-cancelled CollapsibleTitle { color: $text-warning; }
    }
    """

    def __init__(self, block: ToolCallBlock, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(block, name=name, id=id, classes=classes)
        # The status class goes on before mounting (added after, it would restyle the whole card),
        # without a restyle now: the card is styled when it mounts.
        self.add_class(_STATUS_CLASSES[block.status], update=False)
        self._parts: _Parts | None = None
        self._details: _Details | None = None

    @property
    def tool(self) -> ToolCallBlock:
        """The block, typed."""
        assert isinstance(self.block, ToolCallBlock)
        return self.block

    def compose(self) -> ComposeResult:
        # The parts are kept, not queried: a repaint that comes while the card is being removed
        # (its children already gone, its own unmount not yet run) must not fail to find them.
        # "-collapsed" is the class the Collapsible adds on mount: given now, that costs no restyle.
        # The details are built when the card is first opened (`_opened`): most cards never are,
        # and a card costs half the widgets without them.
        # A plain card has no summary (only typed views override `summary`): no widget for it.
        summarised = type(self).summary is not ToolCallView.summary
        self._parts = _Parts(
            collapsible=Collapsible(title=self._title(), collapsed=True, classes="-collapsed"),  # type: ignore[arg-type]
            summary=Static(classes="tool-call-view--summary") if summarised else None,
        )
        self._details = None
        yield self._parts.collapsible
        if self._parts.summary is not None:
            yield self._parts.summary

    @on(Collapsible.Expanded)
    def _opened(self, event: Collapsible.Expanded) -> None:
        parts = self._parts
        if parts is None or event.collapsible is not parts.collapsible or self._details is not None:
            return
        contents = parts.collapsible.query(Collapsible.Contents)
        if not contents:
            return  # being removed
        details = _Details(
            args=Static(classes="tool-call-view--args"),
            result_label=Static(Content("result"), classes="tool-call-view--label tool-call-view--result-label"),
            result=Static(classes="tool-call-view--result"),
        )
        self._details = details
        self._paint_details(details)
        body = Vertical(Static(Content("arguments"), classes="tool-call-view--label"), details.args, details.result_label, details.result)
        contents.first().mount(body)

    def update_from_block(self) -> None:
        parts = self._parts
        if parts is None:
            return  # not composed: mounting paints the block
        block = self.tool
        status_class = _STATUS_CLASSES[block.status]
        if not self.has_class(status_class):
            # One restyle of the card for the status change, not one per class.
            self.remove_class(*_STATUS_CLASSES.values(), update=False)
            self.add_class(status_class)
        parts.collapsible.title = self._title()  # type: ignore[assignment]
        if self._details is not None:
            self._paint_details(self._details)
        if parts.summary is not None:
            summary = self.summary()
            parts.summary.display = summary is not None
            if summary is not None:
                parts.summary.update(summary)

    def _title(self) -> Content:
        symbol, word = STATUS_LABELS[self.tool.status]
        return Content(f"{symbol} ") + agent_line(self.tool.name) + Content(f" · {word}")

    def _paint_details(self, details: _Details) -> None:
        block = self.tool
        details.args.update(revealed_text(self._arguments_text()))
        result = details.result
        if block.error:
            result.set_class(True, "tool-call-view--error")
            result.update(revealed_text(_at_most(block.error)))
        else:
            result.set_class(False, "tool-call-view--error")
            result.update(agent_text("" if block.result is None else _at_most(pretty_json(decoded_result(block.result)))))
        has_result = block.result is not None or block.error is not None
        result.display = has_result
        details.result_label.display = has_result

    def summary(self) -> Content | None:
        """A short always-visible rendering of the call (typed tool views override). None: none."""
        return None

    def _arguments_text(self) -> str:
        block = self.tool
        if block.arguments is not None:
            text = _at_most(pretty_json(block.arguments))
            if block.arguments_error:
                text += "\n" + reveal(_at_most(block.arguments_error))
            return text
        streamed = block.arguments_text
        # Only what is shown is sanitised: the arguments may be far longer than the card shows.
        return _at_most(reveal(streamed[:SHOWN_CHARACTERS]), len(streamed)) or "…"


def _at_most(text: str, length: int | None = None) -> str:
    """`text`, cut at `SHOWN_CHARACTERS` with a line saying how much was left out.

    Args:
        text: what to show (already sanitised, or sanitised by the caller after the cut).
        length: the length of the whole value `text` begins, when `text` is already a part of it.
    """
    length = len(text) if length is None else length
    if length <= SHOWN_CHARACTERS:
        return text
    return f"{text[:SHOWN_CHARACTERS]}\n… {length - SHOWN_CHARACTERS:,} more characters not shown"


class _Parts(NamedTuple):
    """The widgets of a composed card that a repaint updates."""

    collapsible: Collapsible
    summary: Static | None


class _Details(NamedTuple):
    """The widgets of an opened card's details that a repaint updates."""

    args: Static
    result_label: Static
    result: Static


def decoded_result(result: Any) -> Any:
    """Tool results often arrive as JSON text: show the value when it decodes."""
    if isinstance(result, str):
        try:
            return loads_agent_json(result)
        except ValueError:
            return result
    return result
