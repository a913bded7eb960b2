"""Keys first: the bridge holds stream flushes until typed input is painted, for a bounded time.

The bridge runs against a recording target and a fake clock (no app, no sleeping): a timer is
recorded with its due time and fired by the test, `call_after_refresh` callbacks are fired when
the test says the frame was painted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tandem.tui import bridge as bridge_module
from tandem.tui.bridge import Bridge


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class _Timer:
    def __init__(self, due: float, callback: Callable[[], Any]) -> None:
        self.due = due
        self.callback = callback
        self.stopped = False

    def stop(self) -> None:
        self.stopped = True


class _Target:
    """Records what the bridge asks of the app."""

    def __init__(self, clock: _Clock) -> None:
        self.clock = clock
        self.timers: list[_Timer] = []
        self.after_refresh: list[Callable[[], Any]] = []
        self.flushed: list[list[Any]] = []

    def post_message(self, message: Any) -> bool:
        return True

    def set_timer(self, delay: float, callback: Callable[[], Any]) -> _Timer:
        timer = _Timer(self.clock.now + delay, callback)
        self.timers.append(timer)
        return timer

    def call_after_refresh(self, callback: Callable[[], Any]) -> bool:
        self.after_refresh.append(callback)
        return True

    def painted(self) -> None:
        callbacks, self.after_refresh = self.after_refresh, []
        for callback in callbacks:
            callback()

    def fire_due(self) -> None:
        for timer in list(self.timers):
            if not timer.stopped and timer.due <= self.clock.now:
                self.timers.remove(timer)
                timer.callback()

    def bridge_blocks_added(self, blocks: list[Any]) -> None: ...

    def bridge_blocks_changed(self, blocks: list[Any]) -> None:
        self.flushed.append(blocks)

    def bridge_status_changed(self, status: Any) -> None: ...

    def bridge_state_changed(self, state: Any) -> None: ...


class _Block:
    id = "b1"


@pytest.fixture
def setup(monkeypatch: pytest.MonkeyPatch) -> tuple[Bridge, _Target, _Clock]:
    clock = _Clock()
    monkeypatch.setattr(bridge_module.time, "monotonic", clock)
    target = _Target(clock)
    bridge = Bridge(None, target, frame_seconds=0.03, input_hold_seconds=0.1)  # type: ignore[arg-type]
    return bridge, target, clock


def _change(bridge: Bridge) -> None:
    bridge._on_block_changed(_Block())  # type: ignore[arg-type]  # (engine side: records, posts a wake-up)


class TestKeysFirst:
    def test_without_input_a_change_is_flushed_at_once(self, setup: tuple[Bridge, _Target, _Clock]) -> None:
        bridge, target, _clock = setup
        _change(bridge)
        bridge.wake()
        assert len(target.flushed) == 1

    def test_a_change_waits_until_the_input_is_painted(self, setup: tuple[Bridge, _Target, _Clock]) -> None:
        bridge, target, clock = setup
        bridge.hold_for_input()
        _change(bridge)
        bridge.wake()
        assert target.flushed == []  # held: the key's frame goes first
        clock.now += 0.01
        target.painted()  # the key was painted: the held flush goes at the next frame boundary
        target.fire_due()
        assert len(target.flushed) == 1
        assert bridge.statistics().held_for_input == 1

    def test_the_hold_is_bounded(self, setup: tuple[Bridge, _Target, _Clock]) -> None:
        bridge, target, clock = setup
        bridge.hold_for_input()
        _change(bridge)
        bridge.wake()
        clock.now += 0.05
        target.fire_due()
        assert target.flushed == []
        clock.now += 0.06  # the input was never painted: the stream goes on after the hold
        target.fire_due()
        assert len(target.flushed) == 1

    def test_typing_without_pause_still_lets_the_stream_through(self, setup: tuple[Bridge, _Target, _Clock]) -> None:
        bridge, target, clock = setup
        for _ in range(40):  # a key every 20 ms for 0.8 s, never painted in between
            bridge.hold_for_input()
            _change(bridge)
            bridge.wake()
            clock.now += 0.02
            target.fire_due()
        assert len(target.flushed) >= 6  # at least one flush per hold window

    def test_later_input_keeps_holding_until_its_own_frame(self, setup: tuple[Bridge, _Target, _Clock]) -> None:
        bridge, target, clock = setup
        bridge.hold_for_input()
        first_frame = list(target.after_refresh)
        target.after_refresh.clear()
        bridge.hold_for_input()
        _change(bridge)
        bridge.wake()
        for callback in first_frame:  # the first key's frame: the second key is not painted yet
            callback()
        clock.now += 0.04
        target.fire_due()
        assert target.flushed == []
        target.painted()
        target.fire_due()
        assert len(target.flushed) == 1
