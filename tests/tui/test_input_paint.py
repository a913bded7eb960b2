"""What is typed is painted ahead of the stream: a key's frame does not wait for the conversation's
layout, nor for a batch update (Textual's Markdown mounts a streamed block inside one).

The app is real (headless: Textual writes nothing, so `App._display` is watched instead of the
terminal); a batch update stands in for a Markdown append in progress, which holds every regular
frame back until it ends.
"""

from __future__ import annotations

from typing import Any

from tests.helpers.app_harness import Scripted, started, text, wait_for
from textual._compositor import ChopsUpdate

from tandem.tui.app.app import TandemApp
from tandem.tui.terminal.input_paint import seams_present


def _watch_display(app: TandemApp) -> list[Any]:
    """Record every update handed to `App._display` (the app still displays it)."""
    shown: list[Any] = []
    display = app._display

    def recording(screen: Any, renderable: Any) -> None:
        if renderable is not None:
            shown.append((renderable, app._batch_count))
        display(screen, renderable)

    app._display = recording  # type: ignore[method-assign]
    return shown


def _text_of(update: ChopsUpdate) -> str:
    return "".join(segment.text for chops in update.chops for strip in chops.values() if strip for segment in strip)


def test_the_seams_it_relies_on_are_present() -> None:
    assert seams_present()


async def _composer_focused(pilot: Any) -> Any:
    """The started app's composer input, focused and laid out."""
    app = pilot.app
    await started(pilot)
    composer = app.main.composer.input
    composer.focus()
    await wait_for(pilot, lambda: app.focused is composer and not app.main._layout_required, "the composer focused")
    return composer


async def test_a_key_typed_during_a_batch_is_painted_alone_at_once() -> None:
    app = Scripted([text("hello")]).app()
    async with app.run_test(size=(80, 24)) as pilot:
        composer = await _composer_focused(pilot)
        shown = _watch_display(app)
        before = app.main.input_first_paints
        with app.batch_update():  # every regular frame is held back until it ends
            await pilot.press("Ж")
            await wait_for(pilot, lambda: app.main.input_first_paints > before, "the key painted alone")
            assert composer.text == "Ж"
            await wait_for(pilot, lambda: any("Ж" in _text_of(item[0]) for item in shown if isinstance(item[0], ChopsUpdate)),
                           "the key on its way to the terminal")
            update, batch = next(item for item in shown if isinstance(item[0], ChopsUpdate) and "Ж" in _text_of(item[0]))
            assert isinstance(update, ChopsUpdate), shown
            assert batch == 0  # the batch was set aside for this one write only
            assert app._batch_count == 1
            # Only the composer's rows went out, and they show the key.
            region = composer.region
            rows = {y for y, _x1, _x2 in update.spans}
            assert rows and all(region.y <= y < region.bottom for y in rows), (rows, region)


async def test_a_key_typed_with_nothing_held_back_is_painted_alone_without_waiting_for_the_frame() -> None:
    # The regular frame comes on the screen's update timer, up to 1/60 s after the key.
    app = Scripted([text("hello")]).app()
    async with app.run_test(size=(80, 24)) as pilot:
        composer = await _composer_focused(pilot)
        await pilot.pause()
        assert not app.main._frame_held_back()
        shown = _watch_display(app)
        before = app.main.input_first_paints
        await pilot.press("Ж")
        await wait_for(pilot, lambda: app.main.input_first_paints > before, "the key painted alone")
        update = next(item[0] for item in shown if isinstance(item[0], ChopsUpdate) and "Ж" in _text_of(item[0]))
        region = composer.region
        rows = {y for y, _x1, _x2 in update.spans}
        assert rows and all(region.y <= y < region.bottom for y in rows), (rows, region)
        assert composer not in app.main._dirty_widgets  # (the regular frame does not paint it again)


async def test_a_composer_that_grows_waits_for_the_layout() -> None:
    # A new line makes the composer taller: its old region would crop it, so the regular frame paints it.
    app = Scripted([text("hello")]).app()
    async with app.run_test(size=(80, 24)) as pilot:
        composer = await _composer_focused(pilot)
        height = composer.outer_size.height
        shown = _watch_display(app)
        with app.batch_update():
            await pilot.press("Ж", "ctrl+j", "Щ")
            await wait_for(pilot, lambda: composer.text == "Ж\nЩ", "the keys typed")
            # The composer's own layout request reached the screen (after its repaint request).
            await wait_for(pilot, lambda: any(composer in asked for asked in app.main._layout_widgets.values()),
                           "the composer's layout asked for")
            await pilot.pause()
            during_batch = [_text_of(update) for update, _batch in shown if isinstance(update, ChopsUpdate)]
        await wait_for(pilot, lambda: composer.outer_size.height > height, "the composer grown by the layout")
        assert any("Ж" in painted for painted in during_batch)  # before the newline: painted alone
        assert not any("Щ" in painted for painted in during_batch), during_batch


async def test_a_key_typed_just_before_the_stream_asks_for_a_layout_goes_out_ahead_of_it() -> None:
    # The key's repaint waits for the regular frame (nothing held it back when it came); the
    # stream then asks for a layout, which that frame would do first, the key painted after it.
    app = Scripted([text("hello")]).app()
    async with app.run_test(size=(80, 24)) as pilot:
        composer = await _composer_focused(pilot)
        shown = _watch_display(app)
        reflows: list[int] = []
        reflow = app.main._compositor.reflow

        def counted(*args: Any) -> Any:
            reflows.append(len(shown))  # (how many updates had gone out when the layout began)
            return reflow(*args)

        app.main._compositor.reflow = counted  # type: ignore[method-assign]
        before = app.main.input_first_paints
        composer.insert("Ж")  # a key's edit: the composer asks for a repaint
        app.main.conversation.refresh(layout=True)  # the stream asks for a layout right after
        await wait_for(pilot, lambda: reflows and any("Ж" in _text_of(item[0]) for item in shown
                                                      if isinstance(item[0], ChopsUpdate)), "the key and the layout")
        assert app.main.input_first_paints == before + 1
        first = next(index for index, item in enumerate(shown)
                     if isinstance(item[0], ChopsUpdate) and "Ж" in _text_of(item[0]))
        assert first < reflows[0], "the key went out after the layout"
        region = composer.region
        rows = {y for y, _x1, _x2 in shown[first][0].spans}
        assert rows and all(region.y <= y < region.bottom for y in rows), (rows, region)


async def test_a_stream_layout_is_painted_a_step_later_and_a_key_meanwhile_goes_out_first(monkeypatch: Any) -> None:
    # The layout of a flush is the smaller half of its frame; its paint, put off to a later step
    # of the loop, lets a key that came during the layout be painted alone before it.
    app = Scripted([text("hello")]).app()
    async with app.run_test(size=(80, 24)) as pilot:
        composer = await _composer_focused(pilot)
        await pilot.pause()
        screen = app.main
        put_off: list[int] = []
        monkeypatch.setattr(screen, "_paint_deferred_layout", put_off.append)  # (the test sends it)
        deferred = screen.stream_paints_deferred
        shown = _watch_display(app)
        callbacks_saw: list[bool] = []
        screen.conversation.refresh(layout=True)  # the stream asks for a layout
        await wait_for(pilot, lambda: put_off, "the layout's paint put off")
        assert screen.stream_paints_deferred == deferred + 1 and screen._paint_deferred
        assert not [update for update, _batch in shown if update is not None]  # laid out, not painted
        screen.call_after_refresh(lambda: callbacks_saw.append(screen._paint_deferred))
        before = screen.input_first_paints
        await pilot.press("Ж")
        await wait_for(pilot, lambda: screen.input_first_paints > before, "the key painted alone")
        update = next(item[0] for item in shown if isinstance(item[0], ChopsUpdate) and "Ж" in _text_of(item[0]))
        region = composer.region
        rows = {y for y, _x1, _x2 in update.spans}
        assert rows and all(region.y <= y < region.bottom for y in rows), (rows, region)
        monkeypatch.undo()
        screen._paint_deferred_layout(0)
        await wait_for(pilot, lambda: callbacks_saw, "the after-refresh callbacks")
        assert callbacks_saw == [False]  # they ran once the screen was painted
        assert not screen._paint_deferred


async def test_a_layout_not_only_the_streams_is_painted_at_once() -> None:
    app = Scripted([text("hello")]).app()
    async with app.run_test(size=(80, 24)) as pilot:
        await _composer_focused(pilot)
        await pilot.pause()
        screen = app.main
        deferred = screen.stream_paints_deferred
        shown = _watch_display(app)
        screen.conversation.refresh(layout=True)
        screen.query_one("#status-line").refresh(layout=True)  # (not the stream's)
        await wait_for(pilot, lambda: any(update is not None for update, _batch in shown), "the frame")
        assert screen.stream_paints_deferred == deferred and not screen._paint_deferred
