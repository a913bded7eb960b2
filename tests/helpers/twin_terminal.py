"""Two emulated terminals side by side: what the app wrote, and what Textual's own output would show.

`Twin` holds two pyte screens. The app (a `TandemApp` subclass from `twin_app`) runs with a
driver that is not headless: everything it writes goes to the *wire* screen. Before each frame
is written, the same compositor update rendered by Textual's own code (every cell of every dirty
region, then the cursor) goes to the *reference* screen. After the frame, both must show the same
cells (character, colours, attributes) and the cursor at the same place.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from typing import Any
from unittest.mock import patch

import pyte
from rich.control import Control
from textual._compositor import ChopsUpdate, CompositorUpdate, LayoutUpdate
from textual.drivers.headless_driver import HeadlessDriver
from textual.pilot import Pilot
from textual.strip import Strip

from tandem.tui.app.app import TandemApp

Cell = tuple[Any, ...]


def cells(screen: pyte.Screen) -> list[list[Cell]]:
    """Every cell of the screen: its character and all its attributes."""
    return [[tuple(screen.buffer[y][x]) for x in range(screen.columns)] for y in range(screen.lines)]


def differences(wire: pyte.Screen, reference: pyte.Screen, limit: int = 6) -> list[str]:
    """A readable list of the rows that differ (empty: the screens are equal)."""
    found: list[str] = []
    if (wire.columns, wire.lines) != (reference.columns, reference.lines):
        return [f"size {wire.columns}x{wire.lines} != {reference.columns}x{reference.lines}"]
    for y, (a, b) in enumerate(zip(cells(wire), cells(reference), strict=True)):
        if a != b:
            x = next(x for x in range(len(a)) if a[x] != b[x])
            found.append(f"row {y} col {x}: wire {wire.display[y]!r} {a[x]} / reference {reference.display[y]!r} {b[x]}")
            if len(found) >= limit:
                break
    if (wire.cursor.x, wire.cursor.y) != (reference.cursor.x, reference.cursor.y):
        found.append(f"cursor {(wire.cursor.x, wire.cursor.y)} != {(reference.cursor.x, reference.cursor.y)}")
    return found


class Twin:
    """The wire terminal, the reference terminal, and what was written to each."""

    def __init__(self, columns: int, rows: int, translate: Callable[[str], str] | None = None) -> None:
        self.wire = pyte.Screen(columns, rows)
        self.reference = pyte.Screen(columns, rows)
        self._wire_stream = pyte.Stream(self.wire)
        self._reference_stream = pyte.Stream(self.reference)
        for stream in (self._wire_stream, self._reference_stream):
            stream.feed("\x1b[?7l")  # no autowrap: Textual's driver turns it off in a real terminal
        self.translate = translate
        self.writes: list[str] = []
        """Every write the app made, in order."""
        self.reference_bytes = 0
        self.frames = 0
        self.checking = True
        """Compare after every frame (off while the test holds the wire back on purpose)."""
        self.mismatches: list[str] = []
        self.compared = 0
        """Frames compared so far."""

    @property
    def wire_bytes(self) -> int:
        return sum(len(text.encode()) for text in self.writes)

    def feed_wire(self, text: str) -> None:
        self.writes.append(text)
        self._wire_stream.feed(text)

    def feed_reference(self, text: str) -> None:
        if self.translate is not None:
            text = self.translate(text)
        self.reference_bytes += len(text.encode())
        self._reference_stream.feed(text)

    def resize(self, columns: int, rows: int) -> None:
        """What a terminal window does when it is resized: both screens keep what fits.

        Until the app repainted the whole screen at the new size, frames drawn for the old size
        land on the new one (as in a real terminal before the app heard of the resize): those
        leave different debris in the two screens, so they are not compared.
        """
        self.wire.resize(rows, columns)
        self.reference.resize(rows, columns)
        self.checking = False

    def repainted_whole(self, columns: int, rows: int) -> None:
        """The app wrote a full frame of this size: once it matches the terminal, compare again."""
        if (columns, rows) == (self.wire.columns, self.wire.lines):
            self.checking = True

    def check(self) -> None:
        self.frames += 1
        if self.checking:
            self.compared += 1
        if self.checking and not self.mismatches:
            found = differences(self.wire, self.reference)
            if found:
                self.mismatches = [f"after frame {self.frames}:", *found]

    def fresh(self, strips: list[Strip], console: Any) -> pyte.Screen:
        """A new terminal painted whole from `strips` by Textual's own code (what the screen should be)."""
        from textual.geometry import Region

        screen = pyte.Screen(self.wire.columns, self.wire.lines)
        text = "\x1b[?7l" + LayoutUpdate([[strip] for strip in strips], Region(0, 0, self.wire.columns, len(strips))).render_segments(console)
        pyte.Stream(screen).feed(self.translate(text) if self.translate is not None else text)
        screen.cursor.x, screen.cursor.y = self.wire.cursor.x, self.wire.cursor.y
        return screen


def twin_driver(twin: Twin, base: type[Any] = HeadlessDriver) -> type[Any]:
    """A driver that is not headless and writes into the twin's wire terminal."""

    class TwinDriver(base):  # type: ignore[valid-type,misc]
        @property
        def is_headless(self) -> bool:
            return False

        def write(self, data: str) -> None:
            twin.feed_wire(data)

    return TwinDriver


def twin_app(twin: Twin, context_factory: Callable[..., Any], **kwargs: Any) -> TandemApp:
    """A TandemApp over `context_factory` whose frames also paint the twin's reference terminal.

    Like the harness's `Scripted.app()`: no approval guard, fast frames.
    """

    class TwinApp(TandemApp):
        def _display(self, screen: Any, renderable: Any) -> None:
            writes = (
                isinstance(renderable, CompositorUpdate)
                and not self._batch_count
                and self._running
                and not self._closed
                and self._driver is not None
                and not (isinstance(renderable, ChopsUpdate) and not renderable.spans)
            )
            if writes:
                self.wire.cursor_to_focused_input()  # what the app's own `_display` does first: both see one cursor
                cursor = self.screen.outer_size.clamp_offset(self.cursor_position)
                self.feed_reference_frame(renderable.render_segments(self.console) + Control.move_to(*cursor).segment.text)
            super()._display(screen, renderable)
            if writes:
                if isinstance(renderable, LayoutUpdate):
                    twin.repainted_whole(renderable.region.width, renderable.region.height)
                twin.check()

        def feed_reference_frame(self, text: str) -> None:
            twin.feed_reference(text)

    kwargs.setdefault("frame_seconds", 0.005)
    kwargs.setdefault("approval_guard_seconds", 0.0)
    # The console's colour system comes from the environment (TERM=xterm alone means 16 colours).
    # Pin it: Textual's `Strip.render` caches its text whatever console asks, so strips cached by an
    # earlier app of this process (in another colour system) would make the reference disagree with
    # the wire for a reason that has nothing to do with the row output.
    with patch.dict(os.environ, {"COLORTERM": "truecolor"}):
        app = TwinApp(context_factory, demo=True, **kwargs)
    app.driver_class = twin_driver(twin)
    return app


async def run_twin(app: TandemApp, twin: Twin, scenario: Callable[[Pilot[Any]], Awaitable[None]]) -> None:
    """Run the app in the twin's terminal size until `scenario(pilot)` returns; re-raise what it raised."""
    failure: list[BaseException] = []

    async def auto_pilot(pilot: Pilot[Any]) -> None:
        try:
            await scenario(pilot)
        except BaseException as error:  # noqa: BLE001 - handed back to the test below
            failure.append(error)
        finally:
            app.exit()

    await app.run_async(headless=False, size=(twin.wire.columns, twin.wire.lines), auto_pilot=auto_pilot)
    if failure:
        raise failure[0]
