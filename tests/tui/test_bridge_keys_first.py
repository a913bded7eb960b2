"""Keys first and work per frame: the bridge holds stream flushes until typed input is painted
(for a bounded time), and spaces flushes by what painting the last ones cost.

The bridge runs against a recording target and a fake clock (no app, no sleeping): a timer is
recorded with its due time and fired by the test, `call_after_refresh` callbacks are fired when
the test says the frame was painted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tandem.tui.app import bridge as bridge_module
from tandem.tui.app.bridge import Bridge


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0
        self.cpu = 5.0
        """The UI thread's CPU seconds (what `time.thread_time` returns)."""

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
    monkeypatch.setattr(bridge_module.time, "thread_time", lambda: clock.cpu)
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


class TestWorkPerFrame:
    def _stream(self, bridge: Bridge, target: _Target, clock: _Clock, cpu_per_flush: float, seconds: float) -> int:
        """Changes every 5 ms for `seconds`; each flush costs `cpu_per_flush` of UI CPU. Returns flushes."""
        before = len(target.flushed)
        for _ in range(int(seconds / 0.005)):
            _change(bridge)
            if not bridge.pacer.timer_pending:  # (the app gets one wake-up per batch of changes)
                flushes = len(target.flushed)
                bridge.wake()
                if len(target.flushed) > flushes:
                    clock.cpu += cpu_per_flush
            clock.now += 0.005
            flushes = len(target.flushed)
            target.fire_due()
            if len(target.flushed) > flushes:
                clock.cpu += cpu_per_flush
        return len(target.flushed) - before

    def test_cheap_frames_come_at_the_frame_rate(self, setup: tuple[Bridge, _Target, _Clock]) -> None:
        bridge, target, clock = setup
        flushes = self._stream(bridge, target, clock, cpu_per_flush=0.002, seconds=2.0)
        assert 50 <= flushes <= 70  # 1/0.03 s for 2 s
        assert bridge.statistics().gap == pytest.approx(0.03)

    def test_costly_frames_come_less_often_and_keep_the_share(self, setup: tuple[Bridge, _Target, _Clock]) -> None:
        bridge, target, clock = setup
        flushes = self._stream(bridge, target, clock, cpu_per_flush=0.02, seconds=2.0)
        share = flushes * 0.02 / 2.0
        assert share <= bridge_module.STREAM_SHARE * 1.15
        assert flushes >= 2.0 / bridge_module.MAX_FRAME_SECONDS  # never stalled

    def test_a_fast_stream_that_costs_60_ms_a_flush_is_painted_about_twice_a_second(
        self, setup: tuple[Bridge, _Target, _Clock]
    ) -> None:
        # What a 2,000 tokens/s stream costs a flush at 120x40 (pty bench): at 0.15 of a core that
        # is a flush every 0.4 s (it was capped at 0.25 s: four a second, 0.24 of a core).
        bridge, target, clock = setup
        flushes = self._stream(bridge, target, clock, cpu_per_flush=0.06, seconds=4.0)
        # (the gap grows from the frame rate in halving steps: a few quicker flushes first)
        assert 4.0 / 0.5 <= flushes <= 13, flushes

    def test_very_costly_frames_still_come_every_max_frame(self, setup: tuple[Bridge, _Target, _Clock]) -> None:
        bridge, target, clock = setup
        flushes = self._stream(bridge, target, clock, cpu_per_flush=0.2, seconds=2.0)
        assert flushes >= 2.0 / bridge_module.MAX_FRAME_SECONDS - 1
        assert bridge.statistics().gap == pytest.approx(bridge_module.MAX_FRAME_SECONDS)

    def test_a_short_costly_stream_keeps_the_share_from_its_first_flushes(
        self, setup: tuple[Bridge, _Target, _Clock]
    ) -> None:
        # A firehose turn lasts a second or two: a gap that grew in halving steps spent most of it
        # at three or four flushes a second (~0.25 of a core for 80 ms flushes). Up at once, only
        # the flush after the first (at the frame rate, before any cost is known) comes early.
        bridge, target, clock = setup
        flushes = self._stream(bridge, target, clock, cpu_per_flush=0.08, seconds=2.0)
        assert flushes * 0.08 / 2.0 <= bridge_module.STREAM_SHARE * 1.4, flushes
        assert flushes >= 2.0 / bridge_module.MAX_FRAME_SECONDS  # never stalled


class TestStatus:
    def test_a_turn_that_streamed_and_ended_between_two_flushes_is_still_reported(
        self, setup: tuple[Bridge, _Target, _Clock]
    ) -> None:
        # The app holds the collector for a streaming turn (`tui.terminal.garbage`): a fast turn that began
        # and ended while the UI thread did not flush (busy, or starved on a loaded machine) must
        # not look like it never streamed. The final status still comes last.
        from tandem.core.turns import Status

        bridge, target, _clock = setup
        seen: list[Status] = []
        target.bridge_status_changed = seen.append  # type: ignore[method-assign]
        bridge._on_status_changed(Status.STREAMING)
        bridge._on_status_changed(Status.IDLE)
        bridge.flush()
        assert seen == [Status.STREAMING, Status.IDLE]
        bridge._on_status_changed(Status.STREAMING)
        bridge.flush()
        bridge._on_status_changed(Status.IDLE)
        bridge.flush()
        assert seen == [Status.STREAMING, Status.IDLE, Status.STREAMING, Status.IDLE]  # once each

    @staticmethod
    def _costly_flush(bridge: Bridge, clock: _Clock) -> None:
        """Two flushes, the UI thread spending 50 ms between them: the next one is paced ~1/3 s away."""
        _change(bridge)
        bridge.wake()
        clock.cpu += 0.05  # (a modal closing, say)
        clock.now += 0.05
        _change(bridge)
        bridge.wake()
        assert bridge.statistics().gap > 0.3

    def test_a_decisions_status_change_keeps_the_frame_rate_while_a_paced_flush_waits(
        self, setup: tuple[Bridge, _Target, _Clock]
    ) -> None:
        # After a decision the UI thread spent ~50 ms closing the modal: the stream's pacing put the
        # next flush a third of a second away, and with it "the agent goes on" (the composer stayed
        # disabled meanwhile, and on a loaded machine the keys typed for it ran out of their wait).
        from tandem.core.turns import Status

        bridge, target, clock = setup
        posted: list[Any] = []
        target.post_message = lambda message: posted.append(message) or True  # type: ignore[method-assign]
        seen: list[Status] = []
        target.bridge_status_changed = seen.append  # type: ignore[method-assign]
        bridge._on_status_changed(Status.AWAITING_INPUT)
        self._costly_flush(bridge, clock)
        posted.clear()
        clock.now += 0.01
        _change(bridge)
        bridge.wake()
        assert bridge.pacer.timer_pending  # the change is paced ...
        bridge._on_status_changed(Status.STREAMING)  # the decision reached the engine
        assert len(posted) == 2, "the status change posts its own wake-up while one is on its way"
        bridge.wake()
        clock.now += 0.03  # ... the status comes at the frame rate, with the change
        target.fire_due()
        assert seen == [Status.AWAITING_INPUT, Status.STREAMING] and len(target.flushed) == 3
        assert [timer.stopped for timer in target.timers] == [True]  # the paced flush's timer

    @classmethod
    def _streaming_with_a_paced_change(cls, bridge: Bridge, target: _Target, clock: _Clock) -> list[Any]:
        """A turn streaming after a costly flush, one more change since: the statuses painted, as a list."""
        from tandem.core.turns import Status

        seen: list[Status] = []
        target.bridge_status_changed = seen.append  # type: ignore[method-assign]
        bridge._on_status_changed(Status.STREAMING)
        cls._costly_flush(bridge, clock)
        clock.now += 0.01
        _change(bridge)
        return seen

    def test_the_end_of_a_turn_goes_with_the_streams_flushes(self, setup: tuple[Bridge, _Target, _Clock]) -> None:
        # Painted on its own, the end of a fast turn cost a second layout of the screen for the
        # changes that come right after it (the app's UI CPU for a 10,000-event turn doubled).
        from tandem.core.turns import Status

        bridge, target, clock = setup
        seen = self._streaming_with_a_paced_change(bridge, target, clock)
        bridge._on_status_changed(Status.IDLE)
        bridge.wake()
        clock.now += 0.1
        target.fire_due()
        assert seen == [Status.STREAMING] and len(target.flushed) == 2  # paced, as the change is
        clock.now += 0.3
        target.fire_due()
        assert seen == [Status.STREAMING, Status.IDLE] and len(target.flushed) == 3

    def test_the_stop_the_person_asked_for_keeps_the_frame_rate(self, setup: tuple[Bridge, _Target, _Clock]) -> None:
        # Esc mid-stream: "stopped" waited for the stream's paced gap (up to half a second) like the
        # end of any turn. The person asked for it and waits to see it: the next frame.
        from tandem.core.turns import Status

        bridge, target, clock = setup
        seen = self._streaming_with_a_paced_change(bridge, target, clock)
        bridge.wake()
        assert bridge.pacer.timer_pending  # the change is paced ...
        bridge.expect_status()  # Esc
        bridge._on_status_changed(Status.IDLE)  # the engine stopped the turn
        bridge.wake()
        clock.now += 0.03  # ... the stop comes at the frame rate, with the change
        target.fire_due()
        assert seen == [Status.STREAMING, Status.IDLE] and len(target.flushed) == 3
        # Asked once, it is spent: the next turn's end goes with the stream's flushes again.
        bridge._on_status_changed(Status.STREAMING)
        clock.cpu += 0.05
        clock.now += 0.05
        _change(bridge)
        bridge.wake()
        flushed = len(target.flushed)
        assert bridge.statistics().gap > 0.1
        clock.now += 0.01
        bridge._on_status_changed(Status.IDLE)
        bridge.wake()
        clock.now += 0.03
        target.fire_due()
        assert len(target.flushed) == flushed and seen == [Status.STREAMING, Status.IDLE]  # still paced

    def test_content_alone_keeps_the_paced_gap(self, setup: tuple[Bridge, _Target, _Clock]) -> None:
        bridge, target, clock = setup
        self._costly_flush(bridge, clock)
        clock.now += 0.01
        _change(bridge)
        bridge.wake()
        clock.now += 0.1
        target.fire_due()
        assert len(target.flushed) == 2  # still waiting: the stream keeps its share
        clock.now += 0.3
        target.fire_due()
        assert len(target.flushed) == 3
