"""Change notification: subscribers, subscriptions, and isolation of failing callbacks."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["Subscription", "Notifier", "Coalescer"]

log = logging.getLogger(__name__)

T = TypeVar("T")


class Subscription:
    """A handle on one subscriber; `close()` unsubscribes. Idempotent, safe during a notification."""

    __slots__ = ("_notifier", "_callback")  # one per block a view follows: 100,000 in a long thread

    def __init__(self, notifier: Notifier[object], callback: Callable[[object], None]) -> None:
        self._notifier: Notifier[object] | None = notifier
        self._callback = callback

    @property
    def active(self) -> bool:
        """Whether the subscriber still receives notifications."""
        return self._notifier is not None

    def close(self) -> None:
        """Stop receiving notifications."""
        if self._notifier is not None:
            self._notifier._remove(self)
            self._notifier = None

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class Notifier(Generic[T]):
    """A list of subscribers notified synchronously, in subscription order.

    Owns its subscriptions. A subscriber that raises is logged and isolated, like Textual's
    `Signal`. Subscribing during a notification takes effect from the next one; unsubscribing
    takes effect at once, and never makes the notification skip another subscriber.
    Engine thread only.
    """

    __slots__ = ("_subscriptions",)  # one per block: 100,000 in a long thread

    def __init__(self) -> None:
        self._subscriptions: list[Subscription] = []

    def subscribe(self, callback: Callable[[T], None]) -> Subscription:
        """Call `callback(value)` on every notification until the subscription is closed."""
        subscription = Subscription(self, callback)  # type: ignore[arg-type]
        # Copy-on-write: a notification in progress keeps iterating over the old list.
        self._subscriptions = [*self._subscriptions, subscription]
        return subscription

    def notify(self, value: T) -> None:
        """Call every active subscriber with `value` (nothing to do, and no cost, without any)."""
        for subscription in self._subscriptions:
            if subscription._notifier is None:  # closed during this notification
                continue
            try:
                subscription._callback(value)
            except Exception:
                log.exception("subscriber %r failed", subscription._callback)

    def __len__(self) -> int:
        return len(self._subscriptions)

    def _remove(self, subscription: Subscription) -> None:
        self._subscriptions = [s for s in self._subscriptions if s is not subscription]


class Coalescer(Generic[T]):
    """Turns many notifications into at most one call per value per flush.

    `mark(value)` remembers `value` (once, however often it is marked) and, the first time after
    a flush, asks `schedule` to call `flush` later (for example `loop.call_soon`, so a burst of
    changes handled in one go of the loop costs one call per changed value). `flush()` calls
    `callback(value)` for each value marked since the last flush, in the order they were first
    marked; a caller that must keep its output in order flushes before it writes anything else.
    Owns the marked values; one thread (the one that marks and flushes).
    """

    def __init__(self, callback: Callable[[T], None], schedule: Callable[[Callable[[], None]], object]) -> None:
        self._callback = callback
        self._schedule = schedule
        self._marked: dict[int, T] = {}
        self._scheduled = False

    @property
    def pending(self) -> bool:
        """Whether some value was marked since the last flush."""
        return bool(self._marked)

    def mark(self, value: T) -> None:
        """Call `callback(value)` at the next flush."""
        marked = self._marked
        if id(value) not in marked:
            marked[id(value)] = value
        if not self._scheduled:
            self._scheduled = True
            self._schedule(self.flush)

    def flush(self) -> None:
        """Call the callback once for each marked value, oldest mark first."""
        self._scheduled = False
        while self._marked:
            marked, self._marked = self._marked, {}
            for value in marked.values():
                try:
                    self._callback(value)
                except Exception:
                    log.exception("coalesced callback %r failed", self._callback)
