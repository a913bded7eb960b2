"""Where keys go and where the cursor goes: type-ahead, the first focus, and focus after a decision, a form or an action."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from textual import events

from tandem.tui.app.key_order import KeyOrder

if TYPE_CHECKING:
    from textual.app import App

    from tandem.core.blocks import ApprovalBlock, Block
    from tandem.tui.app.screens.main_screen import MainScreen

__all__ = ["FIRST_FOCUS_SECONDS", "FocusKeeper"]

FIRST_FOCUS_SECONDS = 5.0
"""Keys typed as `tandem` starts, before anything has focus, wait this long at most for the composer."""


class FocusKeeper:
    """The one owner of keys and focus in the app.

    Owns the type-ahead (`keys`, a `KeyOrder`), the wait for the first focus, and every move of
    the cursor the app makes on its own: to the composer after a decision, a form's submit or a
    surface action; to the form the agent waits on; to an approval's Review button after "Decide
    later"; to the pending decision (F4). UI thread only. Lifecycle: built with the app; the app
    hands `keys` every key it reads (`KeyOrder.key_read`) and every key that bubbled up to it
    (`KeyOrder.key_bubbled`).
    """

    def __init__(self, app: App[Any], screen: Callable[[], MainScreen | None],
                 route: Callable[[events.Key], Awaitable[None]]) -> None:
        """
        Args:
            app: Says what has focus; runs the callbacks after a refresh.
            screen: The main screen (None before it is made).
            route: What Textual does with a key the app read (the app's own `on_event`).
        """
        self._app = app
        self._screen = screen
        self.keys = KeyOrder(app, route, focus_promised=self._focus_promised)
        """The keys typed ahead, held behind a key whose binding has not run yet."""
        self._first_focus_by = time.monotonic() + FIRST_FOCUS_SECONDS
        """Until the composer first has focus (then 0): keys that arrive while nothing has focus wait for it."""

    def _focus_promised(self) -> bool:
        """Whether an input that is disabled (or not focused yet) takes the focus in a moment."""
        main = self._screen()
        if main is None or self._app.screen is not main:
            return False
        if self._first_focus_by:
            # Keys typed right after `tandem` (an SSH user does not wait for the first frame) are
            # read as the app starts, before the main screen's mount focused the composer: with
            # nothing focused Textual would drop them. They wait for that first focus.
            if self._app.focused is None and time.monotonic() < self._first_focus_by:
                return True
            self._first_focus_by = 0.0
        return main.composer.focus_promised

    # -- where the cursor goes -------------------------------------------------------------------

    def to_composer_when_ready(self) -> None:
        """After a decision or a surface action the person types next: the composer takes the
        cursor once it is enabled again (not the first focusable widget Textual would pick, at the
        top of the conversation, which scrolls the view away)."""
        main = self._screen()
        if main is not None:
            main.composer.take_focus_when_ready()

    def approval_closed(self, block: Block, decided: bool) -> None:
        """An approval's modal closed: after a decision the person types next; after "Decide
        later", Enter reopens it."""
        main = self._screen()
        if main is None:
            return
        if decided:
            main.composer.take_focus_when_ready()
        else:
            # At once, on the main screen under the closing modal: keys typed right after Esc must
            # find the button already focused. Text typed on goes to the composer, which takes a
            # draft while the decision waits.
            self.focus_review_button(block)
            main.composer.drafting = True

    def waiting_changed(self, pending: list[Block]) -> None:
        """The agent waits on the person for `pending`: the cursor goes into the form, after the refresh."""
        self._app.call_after_refresh(self._focus_waiting_form, pending)

    def _focus_waiting_form(self, pending: list[Block], attempts: int = 50) -> None:
        """Put the cursor in the form the agent waits on, if the composer's disabling left it nowhere.

        Approvals have their modal; an input request or UI action is answered inline. Only a
        field takes the cursor, never a button (a UI action of Run/Decline alone keeps none): the
        Enter that ends what the person was typing would press it. A form whose fields are still
        being mounted is tried again after each refresh, `attempts` times at most.
        """
        from textual.widgets import Button

        from tandem.core.blocks import ApprovalBlock
        from tandem.widgets.schema_form import SchemaForm

        main = self._screen()
        if main is None or self._app.screen is not main:
            return
        focused = main.focused
        composer = main.composer
        if focused is not None and focused is not composer.input and focused is not composer.moved_focus_to:
            return  # the person is working somewhere on purpose
        for block in pending:
            if isinstance(block, ApprovalBlock) or not getattr(block, "actionable", False):
                continue
            view = main.conversation.view_of(block)
            if view is None or not view.is_mounted:
                # Its view is still being mounted (a loaded machine: the status came first).
                if attempts > 1:
                    self._app.call_after_refresh(self._focus_waiting_form, pending, attempts - 1)
                    return
                continue
            if attempts > 1 and any(form.composing for form in view.query(SchemaForm)):
                # Its submit button may be focusable already; the first field is where typing goes.
                self._app.call_after_refresh(self._focus_waiting_form, pending, attempts - 1)
                return
            targets = [w for w in view.query("*") if w.focusable and not isinstance(w, Button)]
            if targets:
                targets[0].focus()
                return

    def go_to_decision(self, pending: list[Block], *, review: Callable[[ApprovalBlock], object]) -> None:
        """Reach the decision the agent waits on from anywhere (F4, or the command palette).

        An approval reopens its modal (`review`); a question, UI action or form is scrolled into
        view and its first control takes the cursor (a button too: the person asked to go there).
        """
        from tandem.core.blocks import ApprovalBlock

        main = self._screen()
        if not pending:
            self._app.notify("Nothing is waiting for your decision.", title="Decide", markup=False)
            return
        block = pending[0]
        if isinstance(block, ApprovalBlock):
            review(block)
            return
        if main is None:
            return
        # Wherever it is: a question asked early in a long answer is far above the mounted views.
        main.conversation.reveal(block, then=lambda _view: self._focus_decision_view(block))

    def _focus_decision_view(self, block: Block, attempts: int = 20) -> None:
        main = self._screen()
        view = main.conversation.view_of(block) if main is not None else None
        if view is None:
            return
        targets = [widget for widget in view.query("*") if widget.focusable]
        if not targets and attempts > 1:
            # Just mounted (`reveal`): its form's fields come over the next frames.
            self._app.call_after_refresh(self._focus_decision_view, block, attempts - 1)
            return
        view.scroll_visible(animate=False)
        if targets:
            targets[0].focus()

    def focus_review_button(self, block: Block) -> None:
        """After "Decide later", put the cursor on the approval's Review button (Enter reopens it);
        otherwise nothing has focus (the composer is disabled while the agent waits)."""
        main = self._screen()
        view = main.conversation.view_of(block) if main is not None else None
        if main is None or view is None:
            return
        for button in view.query(".approval-view--review"):
            if button.focusable:
                view.scroll_visible(animate=False)
                # On the main screen, not the app: the modal may still be on top while it closes,
                # and the screen gives its remembered focus back when it resumes.
                main.set_focus(button)
                return
