"""A picture in the terminal: decoded in bounded memory, drawn as well as the terminal can, alt text always.

Decoding (`decode_picture`) reads the header first and refuses a picture whose claimed size is
over `PIXEL_LIMIT` before a pixel is decoded (a decompression bomb costs nothing), with Pillow's
own bomb check turned into the same refusal. Nothing a picture carries reaches the terminal but
the drawing: half blocks are our own cells (two pixels a cell, `▀` with a foreground and a
background colour); the Kitty graphics protocol and Sixel are drawn by `textual-image` when the
app detected them before it started (`tui.cli.app_main`). Modes: `auto` (the best known),
`blocks` (half blocks), `none` (alt text only). UI thread.
"""

from __future__ import annotations

import base64
import binascii
import io
import re
import sys
import warnings
from typing import TYPE_CHECKING, ClassVar

from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from textual.app import ComposeResult
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from tandem.widgets.sanitize import agent_text

if TYPE_CHECKING:
    from PIL.Image import Image as PILImage
    from rich.console import Console, ConsoleOptions, RenderResult

__all__ = ["MAX_DATA_URL_BYTES", "PIXEL_LIMIT", "HalfBlocks", "Picture", "PictureError", "data_url_bytes",
           "decode_picture", "graphics_protocol"]

PIXEL_LIMIT = 40_000_000
"""Pixels a picture may claim (a 40-megapixel photo; 100,000 × 100,000 is refused unread)."""

MAX_DATA_URL_BYTES = 16 * 1024 * 1024
"""Characters of a `data:` URL's payload decoded at most."""

_DATA_URL = re.compile(r"data:(image/[\w.+-]+)?(;[\w=.+-]+)*?(;base64)?,", re.IGNORECASE)


class PictureError(Exception):
    """A picture cannot be shown: not a picture Pillow reads, damaged, or over the pixel limit."""


def data_url_bytes(url: str) -> bytes:
    """The bytes of a `data:image/...;base64,` URL.

    Raises:
        PictureError: not a base64 image data URL, over `MAX_DATA_URL_BYTES`, or bad base64.
    """
    match = _DATA_URL.match(url)
    if match is None or not match.group(3):
        raise PictureError("not a base64 image data: URL")
    payload = url[match.end():]
    if len(payload) > MAX_DATA_URL_BYTES:
        raise PictureError(f"the data: URL holds more than {MAX_DATA_URL_BYTES // (1024 * 1024)} MB")
    try:
        return base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise PictureError(f"the data: URL is not valid base64 ({exc})") from None


def decode_picture(data: bytes, max_pixels: int = PIXEL_LIMIT) -> PILImage:
    """The picture in `data` as RGB, decoded only if its header claims at most `max_pixels`.

    Raises:
        PictureError: see the class; the message says why (and the claimed size when too large).
    """
    from PIL import Image

    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            image = Image.open(io.BytesIO(data))
            width, height = image.size
            if width * height > max_pixels:
                raise PictureError(f"the picture claims {width:,} × {height:,} pixels, over the limit of "
                                   f"{max_pixels:,}; not decoded")
            image.load()
            return image.convert("RGB")
        except PictureError:
            raise
        except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
            raise PictureError(f"refused as a decompression bomb: {exc}") from None
        except (OSError, SyntaxError, ValueError, MemoryError) as exc:
            raise PictureError(f"not a picture that can be shown ({type(exc).__name__})") from None


def graphics_protocol() -> str | None:
    """`kitty` or `sixel` when `textual-image` found one before the app started, else None.

    Only reads what was imported: `textual-image` asks the terminal when it is imported, which
    cannot happen once Textual reads the terminal (`tui.cli.app_main` imports it beforehand).
    """
    module = sys.modules.get("textual_image.renderable")
    if module is None:
        return None
    name = getattr(getattr(module, "Image", None), "__module__", "")
    return "kitty" if name.endswith(".tgp") else "sixel" if name.endswith(".sixel") else None


class HalfBlocks:
    """A Rich renderable: an RGB picture as cells of two pixels (`▀`: the upper pixel in the
    foreground colour, the lower in the background), sized into a box of `columns` × `rows` cells
    (a cell is about twice as tall as wide) the way A2UI's `fit` says, as CSS `object-fit` does:
    `scaleDown` (the default: shrunk to fit, never enlarged), `contain` (scaled to fit), `cover`
    (scaled to fill the box, the overflow cropped around the centre), `fill` (stretched to the
    box), `none` (its own size, cropped to the box around the centre)."""

    def __init__(self, image: PILImage, columns: int, rows: int, fit: str = "scaleDown") -> None:
        from PIL import Image

        width, height = max(image.size[0], 1), max(image.size[1], 1)
        box = (max(1, columns), max(2, rows * 2))
        across, down = box[0] / width, box[1] / height
        if fit == "fill":
            size = box
        else:
            scale = {"contain": min(across, down), "cover": max(across, down), "none": 1.0}.get(
                fit, min(1.0, across, down))
            size = (max(1, round(width * scale)), max(2, round(height * scale)))
        picture = image.resize(size, Image.Resampling.BILINEAR) if size != image.size else image
        self.shown = (0.0, 0.0, 1.0, 1.0)
        """The part of the picture shown, as fractions of its width and height (left, top, right, bottom)."""
        if size[0] > box[0] or size[1] > box[1]:  # `cover`, `none`: what overflows the box is cut
            left, top = max(0, (size[0] - box[0]) // 2), max(0, (size[1] - box[1]) // 2)
            right, bottom = left + min(size[0], box[0]), top + min(size[1], box[1])
            picture = picture.crop((left, top, right, bottom))
            self.shown = (left / size[0], top / size[1], right / size[0], bottom / size[1])
        self.image = picture
        self.columns = picture.size[0]
        self.rows = (picture.size[1] + 1) // 2

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        pixels = self.image.load()
        width, height = self.image.size
        styles: dict[tuple[object, object], Style] = {}
        for top in range(0, height, 2):
            for x in range(width):
                upper = pixels[x, top]  # type: ignore[index]
                lower = pixels[x, top + 1] if top + 1 < height else upper  # type: ignore[index]
                style = styles.get((upper, lower))
                if style is None:
                    style = styles[(upper, lower)] = Style(color=Color.from_rgb(*upper[:3]),  # type: ignore[index]
                                                           bgcolor=Color.from_rgb(*lower[:3]))  # type: ignore[index]
                yield Segment("▀", style)
            yield Segment.line()


class Picture(Widget):
    """One picture and its alt text (always shown, sanitised: it comes from an agent or a file name).

    Owns the decoded picture (or the reason it cannot be shown) and its drawing. Built with the
    bytes, or with none (a placeholder until `show(bytes)`: a URL the person has not asked to
    load). UI thread only.
    """

    DEFAULT_CSS: ClassVar[str] = """
    Picture {
        height: auto;
        width: auto;
        max-width: 100%;
        & > .picture--drawing { width: auto; height: auto; }
        & > .picture--alt { color: $text-muted; width: auto; }
        & > .picture--problem { color: $text-warning; width: auto; }
    }
    """

    def __init__(self, data: bytes | None, alt: str, *, mode: str = "auto", columns: int = 40, rows: int = 12,
                 fit: str = "scaleDown", placeholder: str = "", id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.fit = fit
        """How the picture is sized into its box (`HalfBlocks`: A2UI's `fit`)."""
        self.alt = alt
        """The alt text (as given: sanitised when shown)."""
        self.mode = mode
        self.columns = columns
        self.rows = rows
        self.placeholder = placeholder
        """Shown instead of a drawing while there are no bytes (e.g. 'Enter: load from host')."""
        self.problem: str | None = None
        """Why the picture is not drawn, if it is not."""
        self._data = data

    def compose(self) -> ComposeResult:
        yield from self._parts()

    def show(self, data: bytes) -> None:
        """Draw the picture in `data` (e.g. once a URL was loaded at the person's request)."""
        self._data = data
        self.problem = None
        if self.is_mounted:
            self.remove_children()
            self.mount_all(list(self._parts()))

    def show_problem(self) -> None:
        """Repaint after `problem` was set from outside (a load that failed)."""
        if self.is_mounted:
            self.remove_children()
            self.mount_all(list(self._parts()))

    def _parts(self) -> list[Widget]:
        parts: list[Widget] = []
        if self.mode != "none" and self._data is not None:
            try:
                image = decode_picture(self._data)
            except PictureError as exc:
                self.problem = str(exc)
            else:
                parts.append(self._drawing(image))
        elif self.mode != "none" and self.placeholder and not self.problem:
            parts.append(Static(Content(self.placeholder), classes="picture--problem"))
        if self.problem:
            parts.append(Static(Content("⚠ " + self.problem), classes="picture--problem"))
        parts.append(Static(Content("▣ ") + agent_text(self.alt or "picture"), classes="picture--alt"))
        return parts

    def _drawing(self, image: PILImage) -> Widget:
        if self.mode == "auto" and graphics_protocol() is not None:
            from textual_image.widget import Image as GraphicsImage

            cells = HalfBlocks(image, self.columns, self.rows, self.fit)  # the same cell box as half blocks
            if cells.shown != (0.0, 0.0, 1.0, 1.0):  # the part `fit` shows, at the picture's own resolution
                width, height = image.size
                left, top, right, bottom = cells.shown
                image = image.crop((round(left * width), round(top * height), round(right * width), round(bottom * height)))
            drawing: Widget = GraphicsImage(image, classes="picture--drawing")
            drawing.styles.width = cells.columns
            drawing.styles.height = cells.rows
            return drawing
        return Static(HalfBlocks(image, self.columns, self.rows, self.fit), classes="picture--drawing")
