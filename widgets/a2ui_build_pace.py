"""How many components of a giant A2UI surface one step of its build may take, from what the steps cost."""

from __future__ import annotations

from typing import ClassVar

__all__ = ["BuildPace"]


class BuildPace:
    """The measured cost per component of each UI-thread step of a surface's build, and the batch it allows.

    A batch of the build is three steps of the UI thread, each taking time in proportion to its
    components: building the widgets (`build`), mounting them (`mount`: Textual registers each and
    matches the stylesheet against it) and the page's first layout (`layout`). Anything else the UI
    thread does (a key, a frame) waits behind whichever step runs, so the batch is sized for the
    costliest step to take about `STEP_SECONDS`. Costs are kept per component, each step's as a
    moving average of what it measured (a step slowed by a collection or a busy machine shrinks the
    next batches, which recover as steps get cheaper again). Owned by one `SurfaceView`; UI thread only.
    """

    STEP_SECONDS: ClassVar[float] = 0.025
    """What one step may take: a key waits behind a few of them (the mount and layout of one batch,
    a frame). Each batch costs a frame too (the screen's layout and paint, tens of milliseconds
    whatever its size): at 12 ms, 5,000 rows took twice the CPU of 200-row batches; at 40 ms keys
    waited longer (`tests/perf/bench_surface_pty.py`, a shared machine)."""
    FIRST: ClassVar[int] = 24
    """Components of a batch before anything was measured."""
    MOST: ClassVar[int] = 200
    """Components of a batch however cheap they proved (a page of rows is laid out at once)."""
    WEIGHT: ClassVar[float] = 0.5
    """Weight of a new measurement in a step's average."""

    def __init__(self) -> None:
        self._costs: dict[str, float] = {}  # step -> seconds per component

    def note(self, step: str, components: int, seconds: float) -> None:
        """Record that `step` took `seconds` for `components` (ignored for none)."""
        if components <= 0 or seconds < 0:
            return
        cost = seconds / components
        known = self._costs.get(step)
        self._costs[step] = cost if known is None else known + self.WEIGHT * (cost - known)

    def cost(self, step: str) -> float | None:
        """Seconds per component of `step` (None: not measured yet)."""
        return self._costs.get(step)

    def batch(self) -> int:
        """Components the next batch may take: the costliest step at about `STEP_SECONDS`, 1 to `MOST`."""
        if not self._costs:
            return self.FIRST
        worst = max(self._costs.values())
        if worst <= 0:
            return self.MOST
        return max(1, min(self.MOST, int(self.STEP_SECONDS / worst)))
