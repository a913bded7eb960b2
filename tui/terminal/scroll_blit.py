"""Which lines of a layout only moved: a band of the screen whose content scrolled, and what else must be painted.

When a conversation follows a stream, every layout scrolls it a few lines: each widget in it
keeps its size and moves up by the same number of rows. Textual's layout (`Compositor.reflow`,
Textual 8.2.8, pinned) marks every widget whose place changed as dirty, old place and new, so
each frame renders the whole visible conversation again for a few new lines.
`find_blit` compares the layout's map with the last one and finds the band (the moved widgets'
common clip) and the distance; its lines can be taken from the lines composed last time
(`tui.terminal.screen_compositor`), and it lists the regions that still need painting: the rows
scrolled into the band, and, at their old and new places and at the place the band's move
carries their old content to, every widget in the band that did not move with it. Pure
functions of the two maps and the widgets' styles; UI thread (they read widgets).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import NamedTuple

from textual.geometry import Region
from textual.map_geometry import MapGeometry
from textual.widget import Widget

__all__ = ["Blit", "find_blit", "shifted"]


class Blit(NamedTuple):
    """The content of `band` (screen coordinates) moved down by `lines` rows (up when negative)."""

    band: Region
    lines: int

    def exposed(self) -> Region:
        """The rows of the band whose content was outside it before the move (they are painted anew)."""
        band, lines = self.band, self.lines
        if lines < 0:
            return Region(band.x, band.bottom + lines, band.width, -lines)
        return Region(band.x, band.y, band.width, lines)


def shifted(region: Region, blit: Blit) -> Region | None:
    """Where the band's move carries what `region` showed inside the band (None: nowhere in the band)."""
    inside = region.intersection(blit.band)
    if not inside:
        return None
    moved = inside.translate((0, blit.lines)).intersection(blit.band)
    return moved or None


def _moved_only(old: MapGeometry, new: MapGeometry) -> bool:
    """Whether a widget only moved up or down (its lines are the same lines).

    The painting order of siblings is renumbered when one is added, and a child's container
    grows with the stream: neither changes how the widget's own lines look.
    """
    before, after = old.region, new.region
    return (
        before.y != after.y
        and before.x == after.x
        and before.width == after.width
        and before.height == after.height
        and old.virtual_size == new.virtual_size
        and old.container_size.width == new.container_size.width
        and old.dock_gutter == new.dock_gutter
    )


def _plain_rows(widget: Widget) -> bool:
    """Whether every row of `widget` looks the same: a container drawing only its background
    (`Widget.render`), with no edge, padding or title above or below, no keylines and no hatch."""
    if not widget.is_container or type(widget).render is not Widget.render:
        return False
    styles = widget.styles
    return (
        styles.border_top[0] in ("", "none")
        and styles.border_bottom[0] in ("", "none")
        and styles.outline_top[0] in ("", "none")
        and styles.outline_bottom[0] in ("", "none")
        and not styles.padding.top
        and not styles.padding.bottom
        and styles.keyline[0] == "none"
        and styles.hatch in (None, "none")
        and widget.border_title is None
        and widget.border_subtitle is None
    )


def find_blit(old_map: Mapping[Widget, MapGeometry], new_map: Mapping[Widget, MapGeometry]) -> tuple[Blit, set[Region]] | None:
    """The band that scrolled between two layouts and the regions to paint besides its moved rows, or None.

    None when no visible widget only moved, or the band's container moved or draws something on
    its rows other than a plain background.
    """
    moved: dict[int, list[Widget]] = {}
    for widget, geometry in new_map.items():
        old = old_map.get(widget)
        if old is not None and old is not geometry and _moved_only(old, geometry) and (
            geometry.clip.overlaps(geometry.region) or old.clip.overlaps(old.region)
        ):
            moved.setdefault(geometry.region.y - old.region.y, []).append(widget)
    if not moved:
        return None
    lines, widgets = max(moved.items(), key=lambda item: len(item[1]))
    found = _band_of(widgets[0], old_map, new_map)
    if found is None:
        return None
    band, behind = found
    if not band or abs(lines) >= band.height:
        return None
    blit = Blit(band, lines)
    regions = {blit.exposed()}
    for widget, geometry in new_map.items():
        old = old_map.get(widget)
        if old is geometry or widget in behind:
            continue
        if old is None:
            _add_places(regions, (geometry,), blit)
        elif old == geometry:
            if geometry.clip.overlaps(geometry.region) and geometry.clip.intersection(geometry.region).overlaps(band):
                _add_places(regions, (geometry,), blit)  # (still while the band moved)
        elif (old.region.x, old.region.width) == (geometry.region.x, geometry.region.width) and (
            (geometry.region.y - old.region.y == lines and _moved_only(old, geometry)) or _plain_rows(widget)
        ):
            _add_uncovered(regions, old, geometry, blit)
        else:
            _add_places(regions, (old, geometry), blit)
    for widget, old in old_map.items():
        if widget not in new_map and widget not in behind:
            _add_places(regions, (old,), blit)
    return blit, regions


def _add_places(regions: set[Region], geometries: Iterable[MapGeometry], blit: Blit) -> None:
    """A widget the band's move does not carry: its old and new places, and where the move puts its old cells."""
    for geometry in geometries:
        visible = geometry.clip.intersection(geometry.region)
        if visible:
            regions.add(visible)
            moved = shifted(visible, blit)
            if moved is not None:
                regions.add(moved)


def _add_uncovered(regions: set[Region], old: MapGeometry, new: MapGeometry, blit: Blit) -> None:
    """A widget whose rows the band's move carries (it moved with the band, or all its rows look
    alike): only the cells where its moved rows and its new place differ, and outside the band its places."""
    band = blit.band
    before = old.clip.intersection(old.region)
    after = new.clip.intersection(new.region)
    carried = shifted(before, blit) if before else None
    now = after.intersection(band) if after else None
    for region in (before, after):
        if region and not band.contains_region(region):
            regions.add(region)
    if not carried and not now:
        return
    if not carried or not now or (carried.x, carried.width) != (now.x, now.width):
        regions.update(region for region in (carried, now) if region)
        return
    x, width = now.x, now.width
    for top, bottom in _row_difference((carried.y, carried.bottom), (now.y, now.bottom)):
        regions.add(Region(x, top, width, bottom - top))


def _row_difference(a: tuple[int, int], b: tuple[int, int]) -> list[tuple[int, int]]:
    """The rows in exactly one of the ranges [a0, a1) and [b0, b1)."""
    low, high = max(a[0], b[0]), min(a[1], b[1])
    if low >= high:
        return [part for part in (a, b) if part[0] < part[1]]
    parts = [(min(a[0], b[0]), low), (high, max(a[1], b[1]))]
    return [part for part in parts if part[0] < part[1]]


def _band_of(widget: Widget, old_map: Mapping[Widget, MapGeometry],
             new_map: Mapping[Widget, MapGeometry]) -> tuple[Region, set[Widget]] | None:
    """The band `widget` scrolls in (the clip its scroll container gives its children) and the
    widgets behind it (that container and its ancestors), or None when the container moved or
    draws more than a plain background on the band's rows."""
    child, node = widget, widget.parent
    while isinstance(node, Widget):
        geometry, old = new_map.get(node), old_map.get(node)
        if geometry is not None and old is not None and old.region == geometry.region and old.clip == geometry.clip:
            # (Its virtual size grows with the stream: the rows it draws do not.)
            if not _plain_rows(node):
                return None
            inner, inner_before = new_map.get(child), old_map.get(child)
            if inner is None or inner_before is None or inner.clip != inner_before.clip:
                return None
            behind = {node}
            for ancestor in node.ancestors:
                if isinstance(ancestor, Widget):
                    before, after = old_map.get(ancestor), new_map.get(ancestor)
                    if before != after and not (
                        before is not None and after is not None and before.region == after.region
                        and before.clip == after.clip and _plain_rows(ancestor)
                    ):
                        return None
                    behind.add(ancestor)
            return inner.clip, behind
        child, node = node, node.parent
    return None
