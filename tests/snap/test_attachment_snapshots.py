"""SVG snapshots of attachments: the chips of a sent message with a picture's thumbnail, and a
chip waiting above the composer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tandem.core import Status
from tandem.tui.app.attachments_bar import AttachmentChip, AttachmentsBar
from tandem.widgets.attachments import AttachmentsView
from tests.helpers.app_harness import Scripted, painted, send, started, text, wait_for
from tests.helpers.media_files import pdf, png

SIZE = (100, 30)


@pytest.mark.parametrize("theme", ["tandem-dark", "tandem-high-contrast"])
def test_sent_and_pending_attachments(snap_compare: Any, theme: str, tmp_path: Path) -> None:
    """You should see "What is this?" sent with two chips under it (▤ shot.png · image/png · …,
    ▤ notes.txt · text/plain · 9 B), a small red half-block thumbnail under the first with
    its name as alt text, the answer "A red square.", and above the composer one removable chip
    "▤ paper.pdf · application/pdf · 191 B ✕"."""
    top = png(16, 4, (220, 40, 40))
    picture = tmp_path / "shot.png"
    picture.write_bytes(top)
    (tmp_path / "notes.txt").write_text("remember\n")
    (tmp_path / "paper.pdf").write_bytes(pdf())
    script = Scripted([[text("A red square.")]])

    async def run_before(pilot: Any) -> None:
        app = await started(pilot)
        bar = app.main.composer.query_one(AttachmentsBar)
        bar.attach_path(picture)
        bar.attach_path(tmp_path / "notes.txt")
        await send(pilot, "What is this?")
        await wait_for(pilot, lambda: app.main.status is Status.IDLE and any(
            isinstance(v, AttachmentsView) for v in app.conversation.mounted_views), "the answer")
        bar.attach_path(tmp_path / "paper.pdf")
        await wait_for(pilot, lambda: len(bar.query(AttachmentChip)) == 1, "the pending chip")
        await painted(pilot)

    assert snap_compare(script.app(theme=theme), terminal_size=SIZE, run_before=run_before)
