"""Keys arrive where they were typed: a key that may move focus holds the keys typed after it.

Textual hands each key to the widget focused *when the app reads it*; a key that nothing consumes
(Tab, Esc, a letter bound on a modal) bubbles up and runs its binding only when it reaches the app,
several queue hops later. Keys read in the same batch (bunched over SSH, or pasted without
bracketed paste) would all have gone to the old focus by then. So a key that may run a binding
holds the keys behind it until that binding ran (or the key was consumed on the way up), and they
are then delivered to whatever has focus.

A binding may also move focus later, through messages (Enter on a form's Book button: the press
travels up to the app, which then focuses the composer). A held key that nothing would take where
focus is right after the binding waits a little longer, until focus moves or the hold ran out.

A hold runs out after `HOLD_LIMIT` seconds *and* `HOLD_CHECKS` of its checks (one per pass of the
UI loop at most, `_CHECK_SECONDS` apart): what it waits for is work of this loop, so its bound is
counted in the loop's own passes (a starved loop takes longer than the whole limit for one pass),
and the wall time keeps it from ending early on a fast one.

After a decision the composer is promised the focus but stays disabled until the engine has the
decision: keys nothing takes meanwhile are held for it too (`focus_promised`, bounded by
`Composer.FOCUS_PROMISE_SECONDS`).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar

from textual import events
from textual.app import App

from tandem.tui.terminal.key_bindings import consumed_on_its_way_up, forget_sender, may_run_a_binding, taken_nowhere

__all__ = ["KeyOrder"]


class KeyOrder:
    """Holds the keys typed behind a key whose binding has not run yet, then delivers them in order.

    Owned by the app's `FocusKeeper` (`tui.app.focus`); owns the held keys and the key they wait
    on. UI thread only. The app hands it every key it reads (`key_read`) and every key that
    bubbled up to it (`key_bubbled`); a key goes on through `route` (Textual's own handling).
    A key waits on its predecessor only when that one may run a binding: one the focused widget
    does not take as text (`Widget.check_consume_key`) and that some binding in the focus chain
    names. Typing into an input never waits. A key consumed on its way up releases the others at
    the next check; if it never arrives (its widget was removed meanwhile) they go when the hold
    runs out (`HOLD_LIMIT` seconds and `HOLD_CHECKS` checks, see the module). After a binding ran,
    a held key nothing would take waits for focus to move (see the module), and so does one typed
    while `focus_promised` says an input is about to take the focus.
    """

    HOLD_LIMIT: ClassVar[float] = 0.5
    """A hold runs out once this many seconds passed, whatever happened to the key waited on ..."""

    HOLD_CHECKS: ClassVar[int] = 40
    """... and the held keys were checked this many times since it began (passes of the UI loop)."""

    _CHECK_SECONDS: ClassVar[float] = 0.01

    def __init__(
        self,
        app: App[Any],
        route: Callable[[events.Key], Awaitable[None]],
        *,
        focus_promised: Callable[[], bool] = lambda: False,
    ) -> None:
        """
        Args:
            app: Says what has focus and which bindings apply; runs the checks' timer.
            route: What Textual does with a key the app read (the app's own `on_event`).
            focus_promised: Whether an input that is disabled right now takes the focus in a
                moment (the composer after a decision, until the engine has it).
        """
        self._app = app
        self._route = route
        self._focus_promised = focus_promised
        self._checks = 0
        """Checks of the held keys so far (`_check`): the UI loop's progress while keys are held."""
        self._awaited: events.Key | None = None
        self._awaited_since = 0.0
        self._awaited_checks = 0
        self._held: deque[events.Key] = deque()
        self._check_pending = False
        self._bound_focus: object | None = None
        """What had focus right after the awaited key's binding ran (None as well when nothing had)."""
        self._orphans_until = 0.0
        """Until when held keys nothing takes may wait for focus to move (0: no such wait)."""
        self._orphans_checks = 0
        """... and until which check (both must have passed)."""

    async def key_read(self, event: events.Key, *, held: bool = False) -> None:
        """A key the app read (not forwarded), or a `held` one whose turn came: hold it behind the
        key it waits on, or do what Textual does with a new key (priority bindings, else forward to
        focus) and note whether the keys behind it must wait for its binding."""
        if not held and (self._held or not self._settled() or self._waits_for_promised_focus(event)):
            self._held.append(event)
            self._check_later()
            return
        may_bind = may_run_a_binding(self._app, event)
        if may_bind:
            forget_sender(event)
        await self._route(event)
        if may_bind and event.is_forwarded:  # not taken by a priority binding: on its way up
            self._awaited = event
            self._awaited_since = time.monotonic()
            self._awaited_checks = self._checks

    def key_bubbled(self, event: events.Key) -> None:
        """A key reached the app on its way up (`App.on_key`): if it is the awaited one, Textual's
        own handler runs its binding right after; the held keys go once the whole message is handled."""
        if event is self._awaited:
            self._app.call_next(self._release, event)

    def _waits_for_focus(self, event: events.Key) -> bool:
        """A held key nothing takes, right after a binding ran, while focus has not moved yet."""
        if not self._orphans_until:
            return False
        waiting = time.monotonic() < self._orphans_until or self._checks < self._orphans_checks
        if self._app.focused is self._bound_focus and waiting and taken_nowhere(self._app, event):
            return True
        self._orphans_until = 0.0  # focus moved, time is up, or the key is taken: the wait is over
        return False

    def _waits_for_promised_focus(self, event: events.Key) -> bool:
        """A key nothing takes where focus is, while the input it was typed for is about to take it."""
        return self._focus_promised() and taken_nowhere(self._app, event)

    def _settled(self) -> bool:
        awaited = self._awaited
        if awaited is None:
            return True
        ran_out = (time.monotonic() - self._awaited_since > self.HOLD_LIMIT
                   and self._checks - self._awaited_checks >= self.HOLD_CHECKS)
        if consumed_on_its_way_up(awaited) or ran_out:
            self._awaited = None  # consumed on its way up (or lost): nothing more will come of it
            return True
        return False

    async def _release(self, event: events.Key) -> None:
        if event is self._awaited:
            self._awaited = None
        if self._held:
            self._bound_focus = self._app.focused
            self._orphans_until = time.monotonic() + self.HOLD_LIMIT
            self._orphans_checks = self._checks + self.HOLD_CHECKS
        await self._deliver_held()

    async def _deliver_held(self) -> None:
        held = self._held
        while held and self._settled() and not self._waits_for_focus(held[0]) and not self._waits_for_promised_focus(held[0]):
            await self.key_read(held.popleft(), held=True)
        if held:
            self._check_later()

    def _check_later(self) -> None:
        if not self._check_pending:
            self._check_pending = True
            self._app.set_timer(self._CHECK_SECONDS, self._check)

    async def _check(self) -> None:
        self._check_pending = False
        self._checks += 1
        await self._deliver_held()
