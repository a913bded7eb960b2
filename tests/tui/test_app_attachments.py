"""Attachments in the app: `/attach`, `@path` with Tab completion, the palette's picker, chips
removed before sending, the limit error, the sent message's chips and thumbnail, and a server's
4xx putting the message back in the composer."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.widgets import DirectoryTree, Static

from tandem.core.attachment_limits import AttachmentLimits
from tandem.core.attachments import attachments_of
from tandem.core.blocks import AttachmentsBlock, ErrorBlock
from tandem.core.errors import ServerStatusError
from tandem.tui.app.attachments_bar import AttachmentChip, AttachmentsBar
from tandem.tui.app.screens.attach_file import AttachFile
from tandem.widgets.attachments import AttachmentsView
from tandem.widgets.picture import HalfBlocks, Picture
from tests.helpers.app_harness import Scripted, send, started, text
from tests.helpers.media_files import pdf, png
from tests.helpers.waits import wait_for


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory with a picture, a PDF and a notes file."""
    (tmp_path / "shot.png").write_bytes(png(8, 6))
    (tmp_path / "paper.pdf").write_bytes(pdf())
    (tmp_path / "notes.txt").write_text("remember\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _bar(app: Any) -> AttachmentsBar:
    return app.main.composer.query_one(AttachmentsBar)


def _sent(script: Scripted) -> Any:
    return [m for m in script.client.requests[0][0] if m.role == "user"][-1]


async def test_attach_command_chip_and_the_sent_message(files: Path) -> None:
    script = Scripted([[text("Seen.")]])
    async with script.app().run_test(size=(100, 30)) as pilot:
        app = await started(pilot)
        await send(pilot, f"/attach {files / 'shot.png'} paper.pdf")
        await wait_for(pilot, lambda: len(_bar(app).query(AttachmentChip)) == 2, "two chips")
        assert app.conversation.all_blocks == [] and app.main.composer.input.text == ""
        labels = [str(chip.query_one(".attachment-chip--label").render()) for chip in _bar(app).query(AttachmentChip)]
        assert labels == [f"▤ shot.png · image/png · {len(png(8, 6))} B", f"▤ paper.pdf · application/pdf · {len(pdf())} B"]
        await send(pilot, "what are these?")
        await wait_for(pilot, lambda: any(isinstance(b, AttachmentsBlock) for b in app.conversation.all_blocks), "sent")
        message = _sent(script)
        assert message.text == "what are these?"
        assert [(a.name, a.media_type) for a in attachments_of(message)] == [("shot.png", "image/png"),
                                                                            ("paper.pdf", "application/pdf")]
        assert base64.b64decode(attachments_of(message)[0].data) == png(8, 6)
        assert not _bar(app).attachments and not _bar(app).has_class("-some")
        view = next(v for v in app.conversation.mounted_views if isinstance(v, AttachmentsView))
        await wait_for(pilot, lambda: bool(view.query(Picture)), "the thumbnail")
        drawing = view.query_one(Picture).query_one(".picture--drawing", Static).content
        assert isinstance(drawing, HalfBlocks) and (drawing.columns, drawing.rows) == (8, 3)


async def test_at_path_completes_with_tab_and_sends_the_file_not_the_path(files: Path) -> None:
    script = Scripted([[text("ok")]])
    async with script.app().run_test(size=(100, 30)) as pilot:
        app = await started(pilot)
        composer = app.main.composer.input
        composer.focus()
        composer.insert("look at @sh")
        await pilot.press("tab")
        assert composer.text == "look at @shot.png "
        composer.insert("please, and @notes.txt.")
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(script.client.requests), "sent")
        message = _sent(script)
        assert message.text == "look at shot.png please, and notes.txt."
        assert [a.name for a in attachments_of(message)] == ["shot.png", "notes.txt"]
        assert str(files) not in message.model_dump_json()


async def test_tab_with_several_candidates_completes_their_common_start(files: Path) -> None:
    (files / "notes2.txt").write_text("x")
    script = Scripted([])
    async with script.app().run_test(size=(100, 30)) as pilot:
        await started(pilot)
        composer = pilot.app.main.composer.input  # type: ignore[attr-defined]
        composer.focus()
        composer.insert("@no")
        await pilot.press("tab")
        assert composer.text == "@notes"


async def test_a_pasted_path_attaches_and_other_pastes_are_text(files: Path) -> None:
    script = Scripted([])
    async with script.app().run_test(size=(100, 30)) as pilot:
        app = await started(pilot)
        composer = app.main.composer.input
        composer.focus()
        app.post_message(events.Paste(f"'{files / 'shot.png'}' file://{files / 'paper.pdf'}"))
        await wait_for(pilot, lambda: len(_bar(app).attachments) == 2, "two attached")
        assert composer.text == ""
        app.post_message(events.Paste("notes.txt and more"))
        await wait_for(pilot, lambda: composer.text == "notes.txt and more", "text typed")
        assert [a.name for a in _bar(app).attachments] == ["shot.png", "paper.pdf"]


async def test_a_chip_is_removed_before_sending(files: Path) -> None:
    script = Scripted([[text("ok")]])
    async with script.app().run_test(size=(100, 30)) as pilot:
        app = await started(pilot)
        bar = _bar(app)
        bar.attach_path(files / "shot.png")
        bar.attach_path(files / "notes.txt")
        await wait_for(pilot, lambda: len(bar.query(AttachmentChip)) == 2, "two chips")
        bar.query(AttachmentChip).first().focus()
        await pilot.press("delete")
        await wait_for(pilot, lambda: len(bar.query(AttachmentChip)) == 1, "one chip left")
        await send(pilot, "only notes")
        await wait_for(pilot, lambda: bool(script.client.requests), "sent")
        assert [a.name for a in attachments_of(_sent(script))] == ["notes.txt"]


async def test_the_limit_error_names_the_file_and_attaches_nothing(files: Path) -> None:
    script = Scripted([])
    app_under_test = script.app(attachment_limits=AttachmentLimits(per_file=64))
    async with app_under_test.run_test(size=(100, 30)) as pilot:
        app = await started(pilot)
        await send(pilot, "/attach shot.png")
        await wait_for(pilot, lambda: bool(app._notifications), "a notification")
        [note] = list(app._notifications)
        assert note.message == f"shot.png is {len(png(8, 6))} B, over the limit of 64 B per file" and note.severity == "error"
        assert not _bar(app).attachments and script.client.requests == []


async def test_a_mention_over_the_limit_sends_nothing_and_keeps_the_text(files: Path) -> None:
    script = Scripted([])
    async with script.app(attachment_limits=AttachmentLimits(per_file=64)).run_test(size=(100, 30)) as pilot:
        app = await started(pilot)
        await send(pilot, "see @notes.txt and @shot.png")
        await wait_for(pilot, lambda: app.main.composer.input.text == "see @notes.txt and @shot.png", "text back")
        assert not _bar(app).attachments and script.client.requests == []


async def test_the_palette_picker_attaches_the_chosen_file(files: Path) -> None:
    for name in ("paper.pdf", "notes.txt"):
        (files / name).unlink()
    script = Scripted([])
    async with script.app().run_test(size=(100, 30)) as pilot:
        app = await started(pilot)
        app.commands.action_attach_file()
        await wait_for(pilot, lambda: isinstance(app.screen, AttachFile) and bool(app.screen.query(DirectoryTree)), "the picker")
        tree = app.screen.query_one(DirectoryTree)
        await wait_for(pilot, lambda: len(tree.root.children) == 1, "the folder read")
        tree.move_cursor(tree.root.children[0])
        await pilot.press("enter")
        await wait_for(pilot, lambda: [a.name for a in _bar(app).attachments] == ["shot.png"], "attached")
        assert app.screen is app.main


async def test_a_4xx_puts_the_message_and_its_attachments_back(files: Path) -> None:
    refused = ServerStatusError("http://agent answered 415 Unsupported Media Type: image parts are not supported",
                                status_code=415)
    script = Scripted([[refused], [text("Text alone is fine.")]])
    async with script.app().run_test(size=(100, 30)) as pilot:
        app = await started(pilot)
        _bar(app).attach_path(files / "shot.png")
        await send(pilot, "describe")
        await wait_for(pilot, lambda: app.main.composer.input.text == "describe" and bool(_bar(app).attachments),
                       "the message back in the composer")
        assert [a.name for a in _bar(app).attachments] == ["shot.png"]
        [error] = [b for b in app.conversation.all_blocks if isinstance(b, ErrorBlock)]
        assert "415 Unsupported Media Type" in error.message
        # The refused message left the history: sent again without the file, it goes alone.
        await wait_for(pilot, lambda: not error.retryable, "the refused turn withdrawn")
        _bar(app).take()
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(script.client.requests) == 2, "sent again")
        assert [(m.role, m.text) for m in script.client.requests[1][0]] == [("user", "describe")]
        assert attachments_of(script.client.requests[1][0][0]) == []
