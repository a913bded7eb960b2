"""Segments written as terminal text: SGR codes sent only for what changes between two styles.

Textual writes every segment as `ESC[<all of its style>m text ESC[0m`; the pen keeps the
terminal's current attributes and colours instead. Any thread (the SGR cache is a plain dict
whose worst race is a recomputed entry).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.color import ColorSystem
from rich.segment import Segment
from rich.style import Style
from textual.strip import SGR_STYLES

__all__ = ["Pen", "render_row"]

_Sgr = tuple[str, str, str]
"""A style's SGR parameters: attributes, foreground, background (each "" when unset)."""

_PLAIN: _Sgr = ("", "", "")
_SGR_CACHE: dict[tuple[Style, ColorSystem], _Sgr] = {}


def _sgr(style: Style, color_system: ColorSystem) -> _Sgr:
    """The style's SGR parameters, as Textual's `Strip.render_ansi` computes them, split in three."""
    key = (style, color_system)
    cached = _SGR_CACHE.get(key)
    if cached is not None:
        return cached
    attributes = style._attributes & style._set_attributes
    codes = ";".join(SGR_STYLES[bit] for bit in range(attributes.bit_length()) if attributes & (1 << bit))
    color, bgcolor = style._color, style._bgcolor
    foreground = "" if color is None else ";".join(color.downgrade(color_system).get_ansi_codes())
    background = "" if bgcolor is None else ";".join(bgcolor.downgrade(color_system).get_ansi_codes(False))
    if len(_SGR_CACHE) > 8192:  # styles carry per-line metadata: bound the cache
        _SGR_CACHE.clear()
    parts = _SGR_CACHE[key] = (codes, foreground, background)
    return parts


class Pen:
    """Writes segments with their colours, sending SGR codes only for what changes between them.

    Textual writes every segment as `ESC[<all of its style>m text ESC[0m`. The pen keeps the
    terminal's current attributes and colours: between two styles with the same attributes it
    sends only the colour that changed (39/49 for the default), else a reset and the whole style.
    """

    __slots__ = ("color_system", "out", "sgr")

    def __init__(self, color_system: ColorSystem, out: list[str]) -> None:
        self.sgr = _PLAIN
        self.color_system = color_system
        self.out = out

    def write(self, segments: Iterable[Segment]) -> None:
        append = self.out.append
        color_system = self.color_system
        for text, style, control in segments:
            if control:
                append(text)
                continue
            sgr = _PLAIN if style is None else _sgr(style, color_system)
            if sgr != self.sgr:
                append(self._change(self.sgr, sgr))
                self.sgr = sgr
            link = None if style is None else style._link
            if link:
                assert style is not None
                append(f"\x1b]8;id={style._link_id};{link}\x1b\\{text}\x1b]8;;\x1b\\")
            else:
                append(text)

    @staticmethod
    def _change(old: _Sgr, new: _Sgr) -> str:
        if old[0] == new[0]:
            params = []
            if old[1] != new[1]:
                params.append(new[1] or "39")
            if old[2] != new[2]:
                params.append(new[2] or "49")
            return f"\x1b[{';'.join(params)}m"
        # Different attributes: from a reset, so that none of the old ones leaks into the new style.
        full = ";".join(part for part in new if part)
        return f"\x1b[0;{full}m" if full else "\x1b[0m"

    def reset(self) -> None:
        if self.sgr != _PLAIN:
            self.out.append("\x1b[0m")
            self.sgr = _PLAIN


def render_row(row: Sequence[Segment], color_system: ColorSystem = ColorSystem.TRUECOLOR) -> str:
    """The row's segments as terminal text, colours written only where they change, reset at the end."""
    out: list[str] = []
    pen = Pen(color_system, out)
    pen.write(row)
    pen.reset()
    return "".join(out)

