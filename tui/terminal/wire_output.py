"""What the app writes to the terminal: only the cells that changed, no faster than the link takes them.

`WireOutput`, owned by the app, sits where Textual hands a frame to the driver (`App._display`,
the one place a compositor update becomes terminal text; the app's override delegates to it):

- each update (`LayoutUpdate`, `ChopsUpdate`) is applied to a model of the screen
  (`tui.terminal.screen_rows.ScreenRows`), which writes only changed cells and turns a scrolled
  band into one scroll-region operation;
- while the previous frame is still on its way (the driver's writer thread has not flushed it, or
  the terminal has not yet said it has shown it: `tui.terminal.wire_driver`), frames are merged
  in the model and the latest state goes out once the output drained: the cadence follows the
  link, and no more than one frame queues anywhere between the app and the person; on a slow
  link (the terminal's answers give its rate) a frame goes out in pieces of what the link
  carries in `wire_driver.PIECE_SECONDS`, its bottom rows first (`ScreenRows.render`'s budget);
- what was typed (`display_typed_input`, painted alone by `tui.terminal.input_paint`) goes out at
  once, queued behind the frame on its way;
- synchronized output (DEC 2026), the cursor's position and the glyph-fallback driver
  (`tui.terminal.glyphs`) apply as before: the frame is still written by `App._display`.

UI thread, except the drain callback (the writer or input thread, which only schedules on the UI loop).
`--repaint changes|all` (or `$TANDEM_REPAINT`) chooses; `all` is Textual's own output, also the
fallback when this Textual lacks the seams used (`seams_available`). Measured by
`tests/perf/bench_wire.py` and `tests/perf/bench_keys_slow_link.py`; the seams are checked by
`tests/tui/test_wire_output.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, cast

from rich.color import ColorSystem
from rich.console import Console, RenderableType
from textual._compositor import ChopsUpdate, CompositorUpdate, LayoutUpdate
from textual.app import App
from textual.widgets import Input, TextArea

from tandem.tui.terminal.screen_rows import ScreenRows
from tandem.tui.terminal.wire_driver import ANSWER_PATIENCE_SECONDS, wire_driver

if TYPE_CHECKING:
    import asyncio

    from textual.screen import Screen

__all__ = ["REPAINT_CHOICES", "REPAINT_ENV", "WireOutput", "choose_repaint", "seams_present", "wire_driver"]

REPAINT_ENV = "TANDEM_REPAINT"
"""The environment variable that chooses the output mode when `--repaint` is not given."""

REPAINT_CHOICES = ("changes", "all")
"""`changes`: write only what changed, paced by the link (the default); `all`: Textual's own output."""


def choose_repaint(flag: str | None, environ: Mapping[str, str], configured: str | None = None) -> str:
    """The output mode: `--repaint`, else `$TANDEM_REPAINT`, else the config file's `repaint`, else `changes`.

    Raises:
        SystemExit: an unknown mode (one line naming the choices).
    """
    chosen = flag or environ.get(REPAINT_ENV, "").strip().lower() or configured or "changes"
    if chosen not in REPAINT_CHOICES:
        source = "--repaint" if flag else f"${REPAINT_ENV}"
        raise SystemExit(f"tandem: {source} must be one of {', '.join(REPAINT_CHOICES)} (got {chosen[:20]!r})")
    return chosen


def seams_present() -> bool:
    """Whether this Textual has the private seams the row output relies on (else: Textual's own output)."""
    return (
        callable(getattr(App, "_display", None))
        and callable(getattr(App, "_begin_update", None))
        and all(hasattr(ChopsUpdate(chops=[], spans=[], chop_ends=[]), name) for name in ("chops", "spans", "chop_ends"))
        and all(name in LayoutUpdate.__init__.__code__.co_varnames for name in ("strips", "region"))
    )


class _RowsUpdate(CompositorUpdate):
    """A frame of the screen model: what `App._display` writes between the synchronized-output marks
    (with `rows`, only those rows of it; with `budget`, a piece of about that many characters)."""

    def __init__(self, model: ScreenRows, failed: Callable[[BaseException], None], rows: set[int] | None = None,
                 budget: int | None = None) -> None:
        self.model = model
        self.failed = failed
        self.rows = rows
        self.budget = budget
        self.length = 0
        """The characters rendered."""

    def render_segments(self, console: Console) -> str:
        try:
            text = self.model.render(console._color_system or ColorSystem.TRUECOLOR, self.rows, self.budget)
            self.length = len(text)
            return text
        except Exception as error:  # a bug here must not end the app: Textual's output takes over
            self.failed(error)
            return ""


class WireOutput:
    """The app's row output: compositor updates go through a screen model that writes only what changed.

    Owns the model (`ScreenRows`), whether it is on (`repaint`), and the wait for the driver's
    output to drain (at most one frame in flight; the frames in between merge in the model).
    Owned by the app, whose `_display` (Textual's seam) hands every frame to `display`. UI thread,
    except `_drained_from_thread` (the driver's writer thread). Lifecycle: built with the app, set
    `repaint` before it runs; falls back to Textual's own output for good if the model fails.
    """

    def __init__(self, app: App[Any]) -> None:
        self._app = app
        self.repaint = "changes" if seams_present() else "all"
        """`changes` (only what changed, paced by the link) or `all` (Textual's own output); set before running."""
        self.model = ScreenRows()
        self.frames = 0
        """Frames written through the model."""
        self.deferred = 0
        """Updates merged into a later frame because the output had not drained."""
        self.overtaken = 0
        """Frames of typed input written while the output had not drained (`display_typed_input`)."""
        self.pieces = 0
        """Frames written in pieces on a slow link, the rest left for later (`_write`)."""
        self._waiting = False
        self._typed_rows: set[int] | None = None
        self._patience: asyncio.TimerHandle | None = None

    def display_typed_input(self, screen: Screen[Any], update: RenderableType) -> None:
        """`_display` of a frame that paints only what was typed (`tui.terminal.input_paint`).

        Its rows go out at once even while the last frame is still on its way: they queue behind
        it at the driver instead of waiting for the UI thread to learn that it arrived (a stream
        step can hold that news back tens of milliseconds). The stream's rows merged meanwhile
        still wait for the output to drain.
        """
        if isinstance(update, ChopsUpdate):
            self._typed_rows = {y for y, _x1, _x2 in update.spans}
        try:
            self._app._display(screen, update)
        finally:
            self._typed_rows = None

    # -- the seam ----------------------------------------------------------------------------

    def display(self, screen: Screen[Any], renderable: RenderableType | None) -> None:
        """What the app's `_display` does: the frame goes into the model, and out when the link took the last."""
        app = self._app
        self.cursor_to_focused_input()
        model = self.model
        if (
            self.repaint != "changes"
            or renderable is None
            or app._batch_count
            or app.is_inline
            or app.is_headless
            or not app._running
            or app._closed
            or app._driver is None
        ):
            App._display(app, screen, renderable)
            return
        try:
            if isinstance(renderable, LayoutUpdate):
                region = renderable.region
                model.apply_full(renderable.strips, region.width, region.height)
                followed = True
            elif isinstance(renderable, ChopsUpdate) and self._follows(model, renderable, screen):
                model.apply_chops(renderable.chops, renderable.spans, renderable.chop_ends)
                model.valid = followed = True
            else:
                followed = False
        except Exception as error:  # a bug here must not end the app: Textual's output takes over
            self._failed(error)
            App._display(app, screen, renderable)
            return
        if not followed:
            # Something the model cannot follow: Textual writes it, and the next full update resyncs.
            model.valid = False
            App._display(app, screen, renderable)
            return
        self._present(screen)

    @staticmethod
    def _follows(model: ScreenRows, update: ChopsUpdate, screen: Screen[Any]) -> bool:
        """Whether the model can take this partial update: it holds the screen, or the update is all of it."""
        width, height = screen.outer_size
        if model.valid:
            return (model.width, model.height) == (width, height)
        spans = update.spans
        if len(spans) != height or any(x1 > 0 or x2 < width for _y, x1, x2 in spans):
            return False
        model.resize(width, height)
        return True

    def _present(self, screen: Screen[Any]) -> None:
        """Write the model's frame, unless the last one is still on its way (then when it arrived)."""
        if self._backlogged():
            typed = self._typed_rows
            if typed is not None and self.model.valid:
                self.overtaken += 1
                self._write(screen, typed)
                return
            self.deferred += 1
            self._app.post_display_hook()
            return
        if not self.model.pending and self._cursor_still():
            self._app.post_display_hook()  # nothing visible changed: not even the synchronized-output marks
            return
        self._waiting = False
        self._write(screen)

    def _write(self, screen: Screen[Any], rows: set[int] | None = None) -> None:
        """Write the model's pending rows (or only `rows` of them) as one frame, or as much of it
        as the link carries in a moment (`wire_piece`): the next piece once the terminal showed this."""
        self.frames += 1
        driver = self._app._driver
        piece = getattr(driver, "wire_piece", None)
        budget = None if rows is not None or piece is None else piece()
        update = _RowsUpdate(self.model, self._failed, rows, budget)
        # A `CompositorUpdate` (as Textual's own): `_display` writes its `render_segments` in a sync.
        App._display(self._app, screen, cast(RenderableType, update))
        mark = getattr(driver, "wire_mark", None)
        if mark is not None:
            mark(update.length)  # (the terminal says when it has shown this frame)
        if budget is not None and self.model.pending:
            self.pieces += 1
            self._backlogged()  # (the rest goes once this piece arrived)

    def _failed(self, error: BaseException) -> None:
        """The model failed (a bug): from now on Textual's own output, starting with a whole screen."""
        app = self._app
        app.log.error(f"row output failed, Textual's own output from now on: {error!r}")
        self.repaint = "all"
        self.model = ScreenRows()
        if app._running and not app._closed:
            app.call_later(app.refresh)

    def cursor_to_focused_input(self) -> None:
        """Put the terminal's (hidden) cursor where the focused text input's cursor is drawn.

        Textual places it only when an input's focus, selection or scroll changes, and any
        `Input`'s selection watcher moves it, focused or not. Read each frame, so the cursor
        follows wherever the input is drawn (input methods open their popups there, and screen
        readers and magnifiers look there).
        """
        focused = self._app.focused
        if isinstance(focused, (TextArea, Input)):
            self._app.cursor_position = focused.cursor_screen_offset

    def _cursor_still(self) -> bool:
        app = self._app
        cursor = app.screen.outer_size.clamp_offset(app.cursor_position)
        return bool(cursor == getattr(app, "_previous_cursor_position", None))

    def _backlogged(self) -> bool:
        """Whether the last frame is still on its way; if so, send the model once it arrived."""
        when_drained = getattr(self._app._driver, "wire_when_drained", None)
        if when_drained is None:
            return False
        # Asked again on every frame (not only once per wait): a lost wake-up cannot hold output back.
        self._waiting = True
        if when_drained(self._drained_from_thread):
            loop = self._app._loop
            if self._patience is None and loop is not None and not loop.is_closed():
                # A terminal that stops answering holds the output back no longer than this
                # (a plain loop timer: this may run outside the app's context, see `_drained`).
                self._patience = loop.call_later(ANSWER_PATIENCE_SECONDS + 0.1, self._patience_over)
            return True
        self._waiting = False
        return False

    def _patience_over(self) -> None:
        self._patience = None
        self._drained()

    def _drained_from_thread(self) -> None:
        loop = self._app._loop
        try:
            if loop is not None and not loop.is_closed():
                loop.call_soon_threadsafe(self._drained)
        except RuntimeError:  # the loop closed meanwhile: the app is gone, nothing to paint
            pass

    def _drained(self) -> None:
        app = self._app
        if not self._waiting or app._closed or not app._running:
            return
        if app._batch_count:
            # Textual writes nothing during a batch update, and while one holds the frame back it
            # runs after-refresh callbacks at once (this would loop until the batch ends): a
            # frame later, then. (A plain loop timer: this runs from the driver's thread through
            # call_soon_threadsafe, outside the app's context, where a Textual Timer fails at its
            # first tick and again when the app stops its timers on quit.)
            loop = app._loop
            if loop is not None and not loop.is_closed():
                loop.call_later(1 / 60, self._drained)
            return
        self._waiting = False
        if self.model.valid and self.repaint == "changes":
            self._present(app.screen)

    # -- when the terminal lost what it showed -------------------------------------------------

    def terminal_reset(self) -> None:
        """The terminal's screen was cleared or may be garbled: write every row in the next frame."""
        app = self._app
        self.model.invalidate()
        self._waiting = False
        if app._running and not app._closed:
            app.refresh()

    def resized(self) -> None:
        """The terminal was resized: it may have reflowed, cleared or cropped its screen, even
        back to the same size. Until Textual repaints the whole screen at the new size, its own
        output goes out."""
        self.model.valid = False
        self.terminal_reset()
