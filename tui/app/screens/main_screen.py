"""The main screen: the conversation, the composer, the state panel, the status line, the footer."""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, ClassVar

from textual import events
from textual.app import ComposeResult
from textual.actions import SkipAction
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.reactive import reactive, var
from textual.widget import Widget
from textual.widgets import Static

from tandem.tui.app.composer import COMPOSER_HINT, Composer, ComposerInput
from tandem.tui.app.conversation import Conversation, Mounting
from tandem.tui.app.screens.resumed_lines import ResumedLines
from tandem.tui.app.status_line import RESTORING_LABEL, STARTING_LABEL, STATUS_LABELS, status_line
from tandem.tui.terminal.flush_frame import HeldFrames
from tandem.tui.terminal.screen_compositor import keep_layout_map

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    # The screen paints before core and the block widgets are imported (see `mount_state_panel`).
    from tandem.core.blocks.base import Block
    from tandem.core.turns import Status
    from tandem.tui.app.attachments_bar import AttachmentsBar
    from tandem.widgets.a2ui_image import ImageComponent
    from tandem.tui.app.focus import FocusKeeper
    from tandem.tui.app.session import Session
    from tandem.widgets import ApprovalView, BlockView, ErrorView, StateConflictView
    from tandem.widgets.a2ui_surface import SurfaceView
    from tandem.widgets.state_panel import StatePanel

__all__ = ["MainScreen", "STATUS_LABELS"]

NARROW_COLUMNS = 100
"""Below this width the screen gets the `-narrow` class (a slimmer state panel)."""


class MainScreen(HeldFrames):
    """Lays out the conversation view, composer, state panel and status line.

    Owns the layout and what the status line says. Shows one `Session`: its changes come in
    through `blocks_added`, `blocks_changed`, `set_status` and `set_waiting`, and what the person
    asks (the composer's message, the widgets' decisions, retries, proposals, state edits,
    conflicts and surface actions) goes to the session's typed commands; where the cursor goes
    after a decision or an action is the `FocusKeeper`'s. UI thread only. Lifecycle: the first frame
    shows the welcome, the composer and "starting"; the footer is mounted right after it; once
    the engine is up, the app calls `mount_state_panel` (the panel needs core, which is imported
    after that first frame). A resumed thread whose stored tail kept the lines the conversation
    showed (`tui.app.stored_lines`) has them drawn over the conversation in that first frame, until
    the session calls `lines.drop` once the replayed blocks are there. Its stylesheet (`themes.MAIN_SCREEN_TCSS`) is loaded by the app,
    whose default screen it is. What is typed is painted ahead of the stream's layout
    (`tui.terminal.input_paint.InputFirstPaint`).
    """

    AUTO_FOCUS = "ComposerInput"
    """When the screen comes back without a focused widget (e.g. after a modal), only the
    composer may take focus: Textual's default picks the first focusable widget in the DOM,
    which is inside the state panel, even while the panel is hidden."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.cancel_turn", "Cancel", id="tandem.cancel"),
        Binding("f2", "app.toggle_panel", "State panel", id="tandem.toggle_panel"),
        Binding("f3", "app.toggle_debug", "Debug", show=False, id="tandem.toggle_debug"),
        Binding("f4", "app.go_to_decision", "Decide", id="tandem.go_to_decision"),
        Binding("f6", "focus_conversation", "Focus conversation", show=False, id="tandem.focus_conversation"),
        # On the screen, not the conversation: it follows the stream again from wherever focus is
        # (the composer holding text, a form's field), as the "new content below" line promises.
        Binding("ctrl+end", "follow", "Follow", show=False, id="tandem.follow"),
    ]
    """
    | Key | Description |
    | :- | :- |
    | escape | Cancel the running turn. |
    | f2 | Show or hide the shared-state panel. |
    | f3 | Show or hide debug blocks (protocol traffic). |
    | f4 | Go to the decision the agent waits on (reopens an approval's modal). |
    | f6 | Move focus to the conversation (then End follows the stream again). |
    | ctrl+end | Jump to the end of the conversation and follow the stream again, wherever focus is. |
    """

    def paints_alone(self, widget: Widget) -> bool:
        # The composer only: it sits outside the conversation, where the stream's layout moves nothing.
        return isinstance(widget, ComposerInput)

    def _frame_held_back(self) -> bool:
        # A flush's frame held while its mounts settle (`tui.terminal.flush_frame`) keeps a key waiting too.
        return self.frames_held or super()._frame_held_back()

    def streams(self, widget: Widget) -> bool:
        conversation = self.conversation
        return widget is conversation or conversation in widget.ancestors

    def input_serial(self) -> int:
        bridge = getattr(self.app, "bridge", None)
        return 0 if bridge is None else bridge.input_serial

    def typed_input(self, widget: Widget) -> object:
        # Its text and cursor: what a key changes (a cursor blink does not).
        return (widget.text, widget.selection) if isinstance(widget, ComposerInput) else None

    status: reactive[Status | None] = reactive(None, init=False)
    """The conversation's status, as last painted; None until the engine reported one ("starting")."""
    panel_visible = var(False)
    """Whether the state panel shows."""

    def __init__(self, *, session: Session, focus: FocusKeeper, welcome: Content | None = None,  # type: ignore[no-untyped-def]
                 timestamps=None, bar: Widget | None = None, name: str | None = None) -> None:
        super().__init__(name=name)
        self._bar = bar
        self.session = session
        """The conversation this screen shows, and where what the person asks of it goes."""
        self._focus = focus
        keep_layout_map(self)
        self._welcome = welcome
        self._timestamps = timestamps
        self._title: str | None = None
        self.restoring = False
        """A resumed thread's stored blocks or lines stand in for the conversation (the status line says so)."""
        self.lines = ResumedLines(self)
        """The lines the resumed thread showed when it was closed, and those to keep when it is left."""
        self.preview: Callable[[], Sequence[Block] | None] | None = None
        """Reads the blocks shown until the conversation's own come (a resumed thread's stored
        last screenful, `ThreadLibrary.preview`): see `show_preview`."""
        self._connecting = False
        self._sharing: str | None = None

    def compose(self) -> ComposeResult:
        if self._bar is not None:
            yield self._bar  # the open conversations, above this one (shown from two on)
        yield Conversation(welcome=self._welcome, timestamps=self._timestamps, id="conversation")
        yield Composer(placeholder=COMPOSER_HINT, id="composer")
        stored = self.lines.first_frame()
        yield Static(Content(RESTORING_LABEL if stored is not None else STARTING_LABEL), id="status-line")
        if stored is not None:
            # Over the conversation, in the first frame: the screen as the thread was left.
            self.restoring = True
            yield stored

    def on_mount(self) -> None:
        self.composer.focus_input()
        # The footer comes right after the first frame: composed, it would add a fifth of the
        # start-up time (its stylesheet and key widgets) to that frame, where it shows no keys yet
        # anyway (Textual's footer fills in its keys after a refresh).
        self.call_after_refresh(self._mount_footer)

    async def _mount_footer(self) -> None:
        if self.is_attached:  # not when the app quit before its second frame
            from tandem.widgets.key_footer import KeyFooter  # (after the first frame, as the footer)

            await self.mount(KeyFooter())
            # Textual's footer shows keys only after a bindings update that follows its mount; the
            # composer took focus before it, so without this it stays empty until something else
            # changes the keys (in the browser, the first turn: no terminal event comes first).
            self.refresh_bindings()

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(event.size.width < NARROW_COLUMNS, "-narrow")
        if self.lines.widget is not None and event.size != self.lines.widget.screen_size:
            self.lines.drop_soon()

    @property
    def conversation(self) -> Conversation:
        """The conversation view."""
        return self.query_one(Conversation)

    @property
    def composer(self) -> Composer:
        """The composer."""
        return self.query_one(Composer)

    @property
    def state_panel(self) -> StatePanel:
        """The shared-state panel (mounted once the engine is up).

        Raises:
            NoMatches: the engine is not up yet.
        """
        from tandem.widgets.state_panel import StatePanel

        return self.query_one(StatePanel)

    @property
    def state_panel_mounted(self) -> bool:
        """Whether `mount_state_panel` mounted the panel yet."""
        return bool(self.query("#state-panel"))

    async def mount_state_panel(self) -> None:
        """Mount the (hidden) state panel; imports the block widgets, so call it after the first frame."""
        from tandem.widgets.state_panel import StatePanel

        if not self.query(StatePanel):
            panel = StatePanel(id="state-panel", classes="" if self.panel_visible else "-hidden")
            await self.mount(panel, before=self.conversation)
            if self.panel_visible:
                await self.lines.drop(when_painted=False)  # they span the panel's columns

    async def show_preview(self) -> None:
        """Show what `preview` reads (a resumed thread's stored last blocks, see
        `Conversation.show_preview`) until the conversation's own blocks come, and return once it
        is drawn. Call once, after the first frame (which stays as light as a new thread's): the
        engine's start (imports, the log's replay) would otherwise share the interpreter with it.
        """
        preview, self.preview = self.preview, None
        blocks = preview() if preview is not None else None
        mounted = self.conversation.show_preview(blocks) if blocks else None
        if mounted is None:
            return
        self.restoring = True
        self._paint_status_line()
        await mounted
        painted = asyncio.Event()
        self.call_after_refresh(painted.set)
        await painted.wait()
        painted = asyncio.Event()
        self.call_after_refresh(painted.set)
        await painted.wait()

    def drop_preview(self) -> None:
        """Remove the stored last blocks, or lines (the restore failed)."""
        self.lines.drop_soon()
        self.conversation.drop_preview()
        self.restoring = False
        self._paint_status_line()

    def set_status(self, status: Status) -> None:
        """Show the conversation's status (also the first time, when it replaces "starting")."""
        self.restoring = False
        self.status = status
        if status.value != "streaming":
            self._connecting = False  # a turn that ended is no longer connecting, whatever comes late
        self._paint_status_line()

    def set_connecting(self, retrying: bool) -> None:
        """Say (while a turn streams) that the agent refused the connection and it is tried again."""
        self._connecting = retrying
        self._paint_status_line()

    def set_title(self, title: str | None) -> None:
        """Show the saved thread's title after the status, labelled "thread:" (None: no title)."""
        self._title = title
        self._paint_status_line()

    def set_sharing(self, sharing: str | None) -> None:
        """Show how the conversation is shared, after the title (None: it is not)."""
        self._sharing = sharing
        self._paint_status_line()

    def watch_status(self, status: Status | None) -> None:
        self._paint_status_line()
        # The app's check_action hides "Cancel" unless a turn runs.
        self.app.refresh_bindings()

    def _paint_status_line(self) -> None:
        line = status_line(self.status, restoring=self.restoring, connecting=self._connecting, title=self._title,
                           sharing=self._sharing)
        self.query_one("#status-line", Static).update(line)

    def watch_panel_visible(self, visible: bool) -> None:
        if visible:
            self.lines.drop_soon()  # they span the panel's columns
        for panel in self.query("#state-panel"):
            panel.set_class(not visible, "-hidden")
            if not visible and self.focused is not None and panel in self.focused.ancestors:
                # A hidden widget keeps focus otherwise, and what is typed goes nowhere.
                if self.composer.input.disabled:
                    self.set_focus(None)  # the composer takes it when it is enabled again
                else:
                    self.composer.focus_input()

    def action_focus_conversation(self) -> None:
        self.conversation.scroller.focus()

    def action_follow(self) -> None:
        self.conversation.jump_to_end()

    def on_key(self, event: events.Key) -> None:
        from textual.widgets import Button

        # A printable key bubbled up unused from a button (Review… after "Decide later"), or with
        # nothing focused: the composer takes it as a draft when it can (`Composer.take_typed`).
        focused = self.focused
        if (focused is None or isinstance(focused, Button)) and self.composer.take_typed(event):
            event.stop()
            event.prevent_default()

    def on_composer_input_scroll_requested(self, message: ComposerInput.ScrollRequested) -> None:
        message.stop()
        scroller = self.conversation.scroller
        # End means "follow the stream again" (the scroller's own End does the same).
        # A conversation too short to scroll raises SkipAction from Textual's page actions: from
        # a message handler (not a binding) nothing catches it and the app would exit.
        with contextlib.suppress(SkipAction):
            getattr(scroller, f"action_{message.action}")()

    def set_waiting(self, reason: str | None) -> None:
        """Say why the composer waits (None: it accepts input; it takes focus back if it lost it)."""
        self.composer.reason = reason
        if reason is None and self.app.focused is None:
            self.composer.focus_input()

    def blocks_added(self, blocks: list[Block]) -> Mounting:
        """New blocks from the bridge (UI thread); returns the mounts this started."""
        return self.conversation.add_blocks(blocks)

    def blocks_changed(self, blocks: list[Block]) -> None:
        """Changed blocks from the bridge (UI thread)."""
        self.conversation.refresh_blocks(blocks)

    # -- what the person asks of the conversation ------------------------------------------------

    def on_composer_sent(self, message: Composer.Sent) -> None:
        message.stop()
        # A worker of the app, as every session command: it outlives a switch of screens.
        self.app.run_worker(self.session.commands.send(message.text), group="send", exit_on_error=False)

    def on_attachments_bar_send_requested(self, message: AttachmentsBar.SendRequested) -> None:
        message.stop()
        self.session.commands.send_attachments(message.text, message.attachments)

    def on_image_component_load_requested(self, message: ImageComponent.LoadRequested) -> None:
        message.stop()
        self.run_worker(self._load_picture(message.component, message.url), group="pictures", exit_on_error=False)

    async def _load_picture(self, component: ImageComponent, url: str) -> None:
        from tandem.tui.app.picture_loader import PictureLoadError, fetch_picture

        try:
            data = await fetch_picture(url)
        except PictureLoadError as exc:
            component.failed(str(exc))
            return
        component.show(data)

    def on_block_view_decision_requested(self, message: BlockView.DecisionRequested) -> None:
        message.stop()
        self.session.commands.decide(message.block, message.command)
        self._focus.to_composer_when_ready()

    def on_approval_view_review_requested(self, message: ApprovalView.ReviewRequested) -> None:
        message.stop()
        self.session.approvals.review(message.block)

    def on_error_view_retry_requested(self, message: ErrorView.RetryRequested) -> None:
        message.stop()
        self.session.commands.retry()

    def on_state_panel_proposal_decided(self, message: StatePanel.ProposalDecided) -> None:
        message.stop()
        commands = self.session.commands
        (commands.accept if message.accept else commands.reject)(message.proposal_id)

    def on_state_panel_edit_requested(self, message: StatePanel.EditRequested) -> None:
        message.stop()
        self.session.commands.edit(message.patch, message.seen)

    def on_state_conflict_view_resolved(self, message: StateConflictView.Resolved) -> None:
        message.stop()
        self.session.commands.resolve(message.conflict_id, message.resolution, message.value)

    def on_surface_view_value_changed(self, message: SurfaceView.ValueChanged) -> None:
        message.stop()
        self.session.commands.set_value(message.block, message.path, message.value)

    def on_surface_view_action_fired(self, message: SurfaceView.ActionFired) -> None:
        message.stop()
        self.session.commands.act(message.block, message.component_id, message.scope)
        self._focus.to_composer_when_ready()
