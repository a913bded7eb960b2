"""What the human does on A2UI surfaces, carried to the engine: input values and fired actions."""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual import work
from textual.app import App

if TYPE_CHECKING:
    from tandem.core.a2ui import ActionResult, SurfaceBlock
    from tandem.core.context import AgentContext
    from tandem.tui.app.bridge import Bridge
    from tandem.tui.app.screens.main_screen import MainScreen
    from tandem.widgets.a2ui_components import TextComponent
    from tandem.widgets.a2ui_surface import SurfaceView

__all__ = ["SurfaceActions"]

log = logging.getLogger(__name__)


class SurfaceActions(App[None]):
    """Hands `SurfaceView`'s messages to `tui.app.a2ui_actions` on the engine thread.

    Mixed into `TandemApp`; reads the app's attributes annotated below, owns none. A value
    typed into a surface goes into its local data model (nothing reaches the agent); a fired
    action sends its event in a new run, or asks before opening a link with the same modal as a
    link in a message (`OpenLink`).
    """

    context: AgentContext | None
    bridge: Bridge
    _url_opener: Callable[[str], object]
    _confirm_link: Callable[[str], object]

    if TYPE_CHECKING:

        @property
        def main(self) -> MainScreen: ...

    def on_surface_view_value_changed(self, message: SurfaceView.ValueChanged) -> None:
        from tandem.tui.app.a2ui_actions import handle_value_changed

        message.stop()
        block, path, value = message.block, message.path, message.value
        future = self.bridge.to_engine(lambda: handle_value_changed(block, path, value))
        future.add_done_callback(_log_failure)

    def on_text_component_link_clicked(self, message: TextComponent.LinkClicked) -> None:
        # A link in a surface's Text is opened as one in a message: scheme checked, human asked.
        message.stop()
        self._confirm_link(message.href)

    def on_surface_view_action_fired(self, message: SurfaceView.ActionFired) -> None:
        message.stop()
        self._fire_surface_action(message.block, message.component_id, message.scope)
        # After Book (or any action) the cursor goes back to the composer; otherwise Textual moves
        # it to the first focusable widget at the top of the conversation and the view scrolls away.
        self.main.composer.take_focus_when_ready()

    @work(exit_on_error=False, group="surface-actions")
    async def _fire_surface_action(self, block: SurfaceBlock, component_id: str, scope: str) -> None:
        from tandem.core.a2ui import ActionResult, find_outbox
        from tandem.core.errors import TandemError
        from tandem.tui.app.a2ui_actions import handle_surface_action
        from tandem.widgets.sanitize import sanitize

        context = self.context
        if context is None:
            return

        async def fire() -> ActionResult:
            outbox = find_outbox(context.agent)
            if outbox is None:
                return ActionResult("disabled", message="This conversation does not deliver A2UI events.")
            return await handle_surface_action(
                context, outbox, block, component_id, scope, self._confirm_url_from_engine, open_url=self._open_checked_url
            )

        try:
            result = await self.bridge.run_on_engine(fire)
        except TandemError as exc:
            self.notify(sanitize(str(exc)), title="Not sent", severity="warning", markup=False)
            return
        if result.status in ("refused", "disabled") and result.message:
            self.notify(sanitize(result.message), title="Not done", severity="warning", markup=False)

    def _confirm_url_from_engine(self, url: str) -> asyncio.Future[bool]:
        """Ask with the `OpenLink` modal whether to open `url` (called on the engine loop)."""
        from tandem.tui.app.links import check_link
        from tandem.tui.app.screens.open_link import OpenLink

        answer: concurrent.futures.Future[bool] = concurrent.futures.Future()

        def ask() -> None:
            link = check_link(url)
            if link.refusal is not None:
                self.notify(link.refusal, title="Link not opened", severity="warning", markup=False)
                answer.set_result(False)
                return
            self.push_screen(OpenLink(link.url), callback=lambda opened: answer.set_result(bool(opened)))

        def not_asked(posted: concurrent.futures.Future[None]) -> None:
            if posted.exception() is not None and not answer.done():
                answer.set_result(False)  # the app is closing: nothing is opened

        self.bridge.to_ui(ask).add_done_callback(not_asked)
        return asyncio.wrap_future(answer)

    def _open_checked_url(self, url: str) -> None:
        """Open `url` on the UI thread (called on the engine thread, after the human agreed)."""
        from tandem.tui.app.links import check_link

        checked = check_link(url).url  # what the modal showed: control characters removed
        self.bridge.to_ui(lambda: self._url_opener(checked))


def _log_failure(future: concurrent.futures.Future[object]) -> None:
    if not future.cancelled() and future.exception() is not None:
        log.warning("an A2UI input value was not written: %s", future.exception())
