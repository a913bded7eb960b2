"""Change notification: subscriptions, unsubscribing mid-notification, failing subscribers."""

from __future__ import annotations

import logging

import pytest

from tandem.core import Subscription, TextBlock
from tandem.core.notify import Notifier


class TestSubscriptions:
    def test_subscribers_are_called_in_order(self) -> None:
        notifier: Notifier[int] = Notifier()
        calls: list[str] = []
        notifier.subscribe(lambda v: calls.append(f"a{v}"))
        notifier.subscribe(lambda v: calls.append(f"b{v}"))
        notifier.notify(1)
        assert calls == ["a1", "b1"]

    def test_close_stops_notifications_and_is_idempotent(self) -> None:
        notifier: Notifier[int] = Notifier()
        calls: list[int] = []
        subscription = notifier.subscribe(calls.append)
        notifier.notify(1)
        subscription.close()
        subscription.close()
        notifier.notify(2)
        assert calls == [1]
        assert not subscription.active
        assert len(notifier) == 0

    def test_subscription_is_a_context_manager(self) -> None:
        notifier: Notifier[int] = Notifier()
        calls: list[int] = []
        with notifier.subscribe(calls.append) as subscription:
            assert isinstance(subscription, Subscription)
            notifier.notify(1)
        notifier.notify(2)
        assert calls == [1]


class TestDuringNotification:
    def test_unsubscribing_itself_does_not_skip_the_next_subscriber(self) -> None:
        notifier: Notifier[int] = Notifier()
        calls: list[str] = []
        subscriptions: list[Subscription] = []

        def once(value: int) -> None:
            calls.append(f"once{value}")
            subscriptions[0].close()

        subscriptions.append(notifier.subscribe(once))
        notifier.subscribe(lambda v: calls.append(f"b{v}"))
        notifier.subscribe(lambda v: calls.append(f"c{v}"))
        notifier.notify(1)
        notifier.notify(2)
        assert calls == ["once1", "b1", "c1", "b2", "c2"]

    def test_unsubscribing_a_later_subscriber_stops_it_at_once(self) -> None:
        notifier: Notifier[int] = Notifier()
        calls: list[str] = []
        later: list[Subscription] = []
        notifier.subscribe(lambda v: later[0].close())
        later.append(notifier.subscribe(lambda v: calls.append("later")))
        notifier.subscribe(lambda v: calls.append("last"))
        notifier.notify(1)
        assert calls == ["last"]

    def test_subscribing_during_a_notification_takes_effect_next_time(self) -> None:
        notifier: Notifier[int] = Notifier()
        calls: list[str] = []

        def add_one(value: int) -> None:
            if value == 1:
                notifier.subscribe(lambda v: calls.append(f"new{v}"))

        notifier.subscribe(add_one)
        notifier.notify(1)
        notifier.notify(2)
        assert calls == ["new2"]


class TestFailingSubscriber:
    def test_a_failing_subscriber_is_logged_and_isolated(self, caplog: pytest.LogCaptureFixture) -> None:
        notifier: Notifier[int] = Notifier()
        calls: list[int] = []

        def broken(value: int) -> None:
            raise RuntimeError("widget exploded")

        notifier.subscribe(broken)
        notifier.subscribe(calls.append)
        with caplog.at_level(logging.ERROR, logger="tandem.core.notify"):
            notifier.notify(1)
            notifier.notify(2)
        assert calls == [1, 2]
        failures = [r for r in caplog.records if r.name == "tandem.core.notify"]
        assert len(failures) == 2
        assert failures[0].exc_info is not None and "widget exploded" in str(failures[0].exc_info[1])


class TestBlockChanges:
    def test_block_notifies_on_change_until_unsubscribed(self) -> None:
        block = TextBlock("b1")
        seen: list[str] = []
        subscription = block.on_changed(lambda b: seen.append(b.text))  # type: ignore[attr-defined]
        block.append("Hel")
        block.append("lo")
        subscription.close()
        block.append("!")
        assert seen == ["Hel", "Hello"]
        assert block.version == 3

    def test_unsubscribing_from_a_block_during_its_notification(self) -> None:
        block = TextBlock("b1")
        calls: list[str] = []
        subscriptions: list[Subscription] = []

        def first(changed: object) -> None:
            calls.append("first")
            subscriptions[0].close()

        subscriptions.append(block.on_changed(first))
        block.on_changed(lambda b: calls.append("second"))
        block.append("a")
        block.append("b")
        assert calls == ["first", "second", "second"]
