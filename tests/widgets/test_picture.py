"""Pictures: bounded decoding (a claimed 100,000 × 100,000 PNG is refused unread), half blocks,
alt text always shown and safe, `none` mode, the A2UI Image (data: drawn at once, a URL only
after Enter), and loading a URL (bounded, images only) from a loopback server."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from rich.console import Console
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from textual.app import App, ComposeResult
from textual.widgets import Static

from tandem.core.a2ui import ResolvedComponent
from tandem.tui.app.picture_loader import PictureLoadError, fetch_picture
from tandem.widgets.a2ui_image import ImageComponent
from tandem.widgets.picture import HalfBlocks, Picture, PictureError, data_url_bytes, decode_picture
from tests.helpers.media_files import png, png_claiming
from tests.helpers.servers import served_in_thread


class _Host(App[None]):
    def __init__(self, widget: Any, images: str = "auto", image_hosts: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.widget = widget
        self.images = images
        self.image_hosts = image_hosts
        self.loads: list[str] = []

    def compose(self) -> ComposeResult:
        yield self.widget

    def on_image_component_load_requested(self, message: ImageComponent.LoadRequested) -> None:
        self.loads.append(message.url)


def _texts(widget: Any) -> list[str]:
    return [str(static.render()) for static in widget.query(Static) if static.has_class("picture--alt") or static.has_class("picture--problem")]


class TestDecoding:
    def test_a_claimed_ten_gigapixel_png_is_refused_before_decoding(self) -> None:
        with pytest.raises(PictureError, match=r"100,000 × 100,000 pixels|decompression bomb"):
            decode_picture(png_claiming(100_000, 100_000))

    def test_the_pixel_limit_is_ours(self) -> None:
        with pytest.raises(PictureError, match=r"claims 64 × 64 pixels, over the limit of 1,000"):
            decode_picture(png(64, 64), max_pixels=1000)

    def test_not_a_picture(self) -> None:
        with pytest.raises(PictureError, match="not a picture"):
            decode_picture(b"%PDF-1.4 nothing to see")

    def test_data_urls(self) -> None:
        assert data_url_bytes("data:image/png;base64," + base64.b64encode(png()).decode()) == png()
        with pytest.raises(PictureError, match="not a base64 image data"):
            data_url_bytes("data:image/svg+xml,<svg/>")
        with pytest.raises(PictureError, match="not valid base64"):
            data_url_bytes("data:image/png;base64,@@@")

    def test_half_blocks_are_two_pixels_a_cell_in_their_colours(self) -> None:
        blocks = HalfBlocks(decode_picture(png(4, 4, (200, 30, 30))), columns=10, rows=10)
        assert (blocks.columns, blocks.rows) == (4, 2)
        segments = [s for s in Console(width=20, color_system="truecolor").render(blocks) if s.text == "▀"]
        assert len(segments) == 8
        assert {s.style.color.get_truecolor() for s in segments} == {(200, 30, 30)}  # type: ignore[union-attr]


class TestFit:
    """A2UI's `fit`, as CSS `object-fit`, in a box of 10 × 5 cells (10 × 10 pixels)."""

    @staticmethod
    def _bands() -> Any:
        from PIL import Image

        image = Image.new("RGB", (40, 10), (200, 30, 30))  # red, then green in the middle, then blue
        image.paste((30, 200, 30), (15, 0, 25, 10))
        image.paste((30, 30, 200), (25, 0, 40, 10))
        return image

    @pytest.mark.parametrize(("fit", "cells"), [("scaleDown", (10, 1)), ("contain", (10, 1)), ("cover", (10, 5)),
                                                ("fill", (10, 5)), ("none", (10, 5))])
    def test_a_wide_picture_in_each_fit(self, fit: str, cells: tuple[int, int]) -> None:
        blocks = HalfBlocks(self._bands(), columns=10, rows=5, fit=fit)
        assert (blocks.columns, blocks.rows) == cells
        colours = {blocks.image.getpixel((x, y)) for x in range(blocks.image.size[0]) for y in range(blocks.image.size[1])}
        if fit in ("cover", "none"):  # the middle of the picture, cut around the centre
            assert colours == {(30, 200, 30)}
            assert blocks.shown == (15 / 40, 0.0, 25 / 40, 1.0)
        elif fit == "fill":  # all of it, squeezed: both ends are there
            assert {(200, 30, 30), (30, 30, 200)} <= colours and blocks.shown == (0.0, 0.0, 1.0, 1.0)

    def test_contain_enlarges_and_scale_down_does_not(self) -> None:
        small = decode_picture(png(4, 4))
        assert (HalfBlocks(small, 10, 5, "contain").columns, HalfBlocks(small, 10, 5, "contain").rows) == (10, 5)
        assert (HalfBlocks(small, 10, 5, "scaleDown").columns, HalfBlocks(small, 10, 5).rows) == (4, 2)

    async def test_the_a2ui_image_passes_its_fit_and_ignores_an_unknown_one(self) -> None:
        url = "data:image/png;base64," + base64.b64encode(png(40, 10)).decode()
        for fit, expected in (("cover", "cover"), ("stretch-ish", "scaleDown")):
            node = ResolvedComponent("img", "Image", props={"url": url, "fit": fit, "variant": "icon"})
            image = ImageComponent(node)
            async with _Host(image).run_test() as pilot:
                await pilot.pause()
                assert image.query_one(Picture).fit == expected


class TestPicture:
    async def test_alt_text_is_always_shown_and_safe(self) -> None:
        picture = Picture(png(), "a \x1b]52;c;aGk=\x07 [b]cat[/b]")
        async with _Host(picture).run_test():
            assert _texts(picture) == ["▣ a ]52;c;aGk= [b]cat[/b]"]
            assert picture.query(".picture--drawing")

    async def test_none_draws_nothing_but_the_alt_text(self) -> None:
        picture = Picture(png(), "chart", mode="none")
        async with _Host(picture, images="none").run_test():
            assert _texts(picture) == ["▣ chart"] and not picture.query(".picture--drawing")

    async def test_a_bomb_is_a_message_not_a_crash(self) -> None:
        picture = Picture(png_claiming(100_000, 100_000), "huge")
        async with _Host(picture).run_test():
            [problem, alt] = _texts(picture)
            assert problem.startswith("⚠ ") and alt == "▣ huge"


class TestA2UIImage:
    async def test_a_data_picture_is_drawn_at_once(self) -> None:
        node = ResolvedComponent("img", "Image", props={
            "url": "data:image/png;base64," + base64.b64encode(png(6, 4)).decode(), "description": "A dot", "variant": "icon"})
        component = ImageComponent(node)
        async with _Host(component).run_test():
            drawing = component.query_one(".picture--drawing", Static).content
            assert isinstance(drawing, HalfBlocks) and (drawing.columns, drawing.rows) == (4, 2)

    async def test_a_url_is_loaded_only_when_the_person_asks(self) -> None:
        node = ResolvedComponent("img", "Image", props={"url": "https://example.com/a.png", "description": "A photo"})
        component = ImageComponent(node)
        host = _Host(component)
        async with host.run_test() as pilot:
            await pilot.pause()
            assert host.loads == [] and _texts(component.query_one(Picture))[0] == "↵ load from example.com"
            component.focus()
            await pilot.press("enter")
            await pilot.press("enter")  # asked once
            await pilot.pause()
            assert host.loads == ["https://example.com/a.png"]
            component.show(png())
            await pilot.pause()
            assert component.query(".picture--drawing")


    async def test_an_allowed_host_loads_unasked(self) -> None:
        node = ResolvedComponent("img", "Image", props={"url": "https://cdn.example.com/a.png", "description": "A photo"})
        host = _Host(ImageComponent(node), image_hosts=("cdn.example.com",))
        async with host.run_test() as pilot:
            await pilot.pause()
            assert host.loads == ["https://cdn.example.com/a.png"]


def _image_server() -> Starlette:
    async def picture(request: Request) -> Response:
        return Response(png(), media_type="image/png")

    async def page(request: Request) -> Response:
        return Response("<html>", media_type="text/html")

    async def huge(request: Request) -> Response:
        return Response(b"\x89PNG" + b"\0" * 2048, media_type="image/png")

    return Starlette(routes=[Route("/a.png", picture), Route("/page", page), Route("/huge.png", huge)])


async def test_loading_a_url_is_bounded_and_takes_pictures_only() -> None:
    with served_in_thread(_image_server(), "picture-server") as (host, port):
        base = f"http://{host}:{port}"
        assert await fetch_picture(f"{base}/a.png") == png()
        with pytest.raises(PictureLoadError, match="sent text/html, not a picture"):
            await fetch_picture(f"{base}/page")
        with pytest.raises(PictureLoadError, match="larger than"):
            await fetch_picture(f"{base}/huge.png", limit=1024)
    with pytest.raises(PictureLoadError, match="only http and https"):
        await fetch_picture("file:///etc/passwd")
