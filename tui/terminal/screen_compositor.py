"""The screen's compositor: a layout that keeps the map it built, and lines that only moved reused (a scroll blit)."""

from __future__ import annotations

from typing import Any

from textual._compositor import ChopsUpdate, Compositor, LayoutUpdate, ReflowResult
from textual.geometry import Region, Size
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget

from tandem.tui.terminal.screen_rows import ScreenRows
from tandem.tui.terminal.scroll_blit import Blit, find_blit, shifted

__all__ = ["MapKeepingCompositor", "composed_lines", "keep_layout_map"]


class MapKeepingCompositor(Compositor):
    """A `Compositor` whose layout leaves the full map valid, and whose paint after a scroll renders
    only the lines that changed. UI thread only.

    Owns the lines it composed last (`composed`, a `ScreenRows` target: every update it renders
    is applied there) and the blit a layout planned for the next paint (`tui.terminal.scroll_blit`).

    Textual 8.2.8 (pinned): `Compositor.reflow` builds the full map but leaves the "full map
    invalidated" flag as the screen's layout set it, so the first `Widget.region` asked after a
    layout arranged the whole screen again. The map `reflow` built is the one `full_map` would
    build (same root, same size, every widget), so the flag is cleared with it.

    A layout that scrolled a band (the conversation following a stream) marks as dirty only what
    did not move with it (`find_blit`) instead of every moved widget; the next partial paint takes
    the band's other lines from the composed ones, moved, and sends them whole with the rendered
    ones (a `ChopsUpdate` like Textual's, so any output takes it). A second layout before that
    paint, a scroll-only layout or a full paint drops the plan (the band is painted whole).
    """

    def __init__(self) -> None:
        super().__init__()
        self.composed = ScreenRows()
        """The screen's lines as this compositor last composed them."""
        self._blit: Blit | None = None
        self.blits = 0
        """Paints that reused moved lines (for tests and benchmarks)."""
        self.blitted_lines = 0
        """Lines reused instead of rendered (for tests and benchmarks)."""

    def reflow(self, parent: Widget, size: Size) -> ReflowResult:
        old_map = self._full_map
        dirty_before = set(self._dirty_regions)
        result = super().reflow(parent, size)
        self._full_map_invalidated = False
        self._plan_blit(parent, size, old_map, dirty_before)
        return result

    def reflow_visible(self, parent: Widget, size: Size) -> set[Widget]:
        self.drop_blit()
        return super().reflow_visible(parent, size)

    def _plan_blit(self, parent: Widget, size: Size, old_map: Any, dirty_before: set[Region]) -> None:
        composed = self.composed
        screen_region = size.region
        if (
            screen_region in self._dirty_regions
            or not isinstance(parent, Screen)
            or not parent.is_current
            or parent.app.is_inline
        ):
            self.drop_blit()
            if isinstance(parent, Screen) and not parent.is_current:
                composed.valid = False  # (its dirty regions go to the screen on top, unpainted here)
            return
        found = find_blit(old_map, self._full_map)
        if found is None:
            return  # (a blit already planned still holds: what changed since is marked dirty)
        if self._blit is not None or not composed.valid or (composed.width, composed.height) != tuple(size):
            self.drop_blit()
            if not composed.valid:
                self._dirty_regions.add(screen_region)  # one whole paint, and the next scroll is blitted
            return
        blit, regions = found
        for region in dirty_before:
            moved = shifted(region, blit)
            if moved is not None:
                regions.add(moved)
        self._dirty_regions.clear()
        self._dirty_regions.update(dirty_before, regions)
        self._blit = blit

    def take_blit(self) -> Blit | None:
        """The planned blit, no longer planned (`restore_blit` plans it again): for a paint of one widget between a layout and its paint."""
        blit, self._blit = self._blit, None
        return blit

    def restore_blit(self, blit: Blit | None) -> None:
        """Plan `blit` again (from `take_blit`)."""
        if blit is not None:
            self._blit = blit

    def drop_blit(self) -> None:
        """Give up the planned blit: its band is painted whole."""
        if self._blit is not None:
            self._dirty_regions.add(self._blit.band)
            self._blit = None

    def render_full_update(self, simplify: bool = False) -> LayoutUpdate:
        self._blit = None
        update = super().render_full_update(simplify)
        region = update.region
        self.composed.apply_full(update.strips, region.width, region.height)
        return update

    def render_partial_update(self) -> ChopsUpdate | None:
        blit, self._blit = self._blit, None
        composed = self.composed
        moved: list[int] = []
        if blit is not None and composed.valid:
            band = blit.band
            moved = composed.shift_band(band.x, band.right, band.y, band.bottom, blit.lines)
        update = self._render_spans()
        if not composed.valid:
            return update
        if update is not None:
            composed.apply_chops(update.chops, update.spans, update.chop_ends)
        if not moved:
            return update
        self.blits += 1
        self.blitted_lines += len(moved)
        height, width = composed.height, composed.width
        if update is None:
            chops: list[Any] = [{} for _ in range(height)]
            ends: list[list[int]] = [[] for _ in range(height)]
            spans: list[tuple[int, int, int]] = []
        else:
            chops, ends = list(update.chops), list(update.chop_ends)
            taken = set(moved)
            spans = [span for span in update.spans if span[0] not in taken]
        target = composed.target
        for y in moved:
            # (Whole rows from the composed lines: the rendered cells are already in them.)
            chops[y] = {0: Strip(target[y], width)}
            ends[y] = [width]
            spans.append((y, 0, width))
        spans.sort()
        return ChopsUpdate(chops, spans, ends)


    def _render_spans(self) -> ChopsUpdate | None:
        """Textual's partial update (`Compositor.render_partial_update`), each widget rendered only on
        the rows where a dirty span crosses it and widgets in front of it left a cell of the span unpainted.

        Textual renders every widget whose clip meets the dirty regions' bounding box, each over
        all its visible lines: a scrollbar's thumb, dirty on every row, had the whole conversation
        rendered on every frame. The chops of each span's row are the same: widgets are taken front
        to back, the first one to cover a chop wins, and one whose chops there are all taken is not rendered.
        """
        regions = self._dirty_regions.copy()
        self._dirty_regions.clear()
        if not regions:
            return None
        screen = self.size.region
        spans = [(y, x1, x2) for y, x1, x2 in self._regions_to_spans(regions) if 0 <= y < screen.height]
        if not spans:
            return None
        by_row: dict[int, list[tuple[int, int]]] = {}
        for y, x1, x2 in spans:
            by_row.setdefault(y, []).append((x1, x2))
        cuts = self.cuts
        chops: list[dict[int, Strip | None]] = [dict.fromkeys(cut_set[:-1]) for cut_set in cuts]
        for widget, (region, clip) in self.visible_widgets.items():
            visible = region.intersection(clip)
            if not visible:
                continue
            left, right = visible.x, visible.right
            rows = [y for y in visible.line_range if y in by_row and _uncovered(chops[y], cuts[y], by_row[y], left, right)]
            for top, bottom in _runs(rows):
                strips = widget.render_lines(Region(left - region.x, top - region.y, visible.width, bottom - top))
                first_cut, last_cut = left, right
                for y, strip in zip(range(top, bottom), strips):
                    line = chops[y]
                    final_cuts = [cut for cut in cuts[y] if last_cut >= cut >= first_cut]
                    for cut, piece in zip(final_cuts, strip.divide([cut - left for cut in final_cuts[1:]])):
                        if line.get(cut) is None:
                            line[cut] = piece
        chop_ends = [cut_set[1:] for cut_set in cuts]
        return ChopsUpdate(chops, spans, chop_ends)


def _uncovered(line: dict[int, Strip | None], cut_set: list[int], spans: list[tuple[int, int]], left: int, right: int) -> bool:
    """Whether a chop of `line` that meets both [left, right) and one of `spans` is still unpainted."""
    for x1, x2 in spans:
        start, end = max(x1, left), min(x2, right)
        if start >= end:
            continue
        for index in range(len(cut_set) - 1):
            if cut_set[index] < end and cut_set[index + 1] > start and line.get(cut_set[index]) is None:
                return True
    return False


def _runs(rows: list[int]) -> list[tuple[int, int]]:
    """Ascending row numbers as runs of consecutive rows [top, bottom)."""
    runs: list[tuple[int, int]] = []
    for y in rows:
        if runs and runs[-1][1] == y:
            runs[-1] = (runs[-1][0], y + 1)
        else:
            runs.append((y, y + 1))
    return runs


def keep_layout_map(screen: Screen[Any]) -> None:
    """Give `screen` a `MapKeepingCompositor` (call in its `__init__`, before its first layout)."""
    screen._compositor = MapKeepingCompositor()


def composed_lines(screen: Screen[Any]) -> list[Strip]:
    """Every line of `screen` as its compositor composes it now (UI thread)."""
    return screen._compositor.render_strips()
