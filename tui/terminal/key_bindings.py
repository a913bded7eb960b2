"""What Textual would do with a key, read from its private binding chains and message fields.

The keys' owner (`tui.app.key_order.KeyOrder`) holds type-ahead behind a key whose binding has not
run yet; whether a key may run a binding, would be dropped, or was consumed on its way up is only
known from Textual's internals (Textual 8.2.8: `Screen._modal_binding_chain`, `_binding_chain`,
`Message._sender`, `_stop_propagation`), kept here so that an upgrade has one place to look.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual import events
    from textual.app import App

__all__ = ["consumed_on_its_way_up", "forget_sender", "may_run_a_binding", "taken_nowhere"]


def may_run_a_binding(app: App[object], event: events.Key) -> bool:
    """Whether `event`, not consumed where focus is, matches a non-priority binding of the screen
    (or the modal screen's chain): its binding then runs only when the key bubbled up to the app."""
    focused = app.focused
    if focused is not None and focused.check_consume_key(event.key, event.character):
        return False
    try:
        chain = app.screen._modal_binding_chain
    except Exception:  # no screen yet, or the app is closing
        return False
    return any(
        not binding.priority
        for _node, bindings in chain
        for binding in bindings.key_to_bindings.get(event.key, ())
    )


def taken_nowhere(app: App[object], event: events.Key) -> bool:
    """Whether `event` would be dropped where focus is now (no binding, not typed)."""
    focused = app.focused
    if focused is not None and focused.check_consume_key(event.key, event.character):
        return False
    try:
        chain = app.screen._binding_chain
    except Exception:
        return False
    return not any(event.key in bindings.key_to_bindings for _node, bindings in chain)


def forget_sender(event: events.Key) -> None:
    """Textual stops a key that the app sent on the screen's hop back to the app (while still
    delivering it there); without a sender, a stop means that a widget consumed it."""
    event._sender = None


def consumed_on_its_way_up(event: events.Key) -> bool:
    """Whether a widget stopped `event` on its way up (its binding will not run at the app)."""
    return bool(event._stop_propagation)
