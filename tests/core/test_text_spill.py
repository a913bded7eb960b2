"""Finished text leaves memory past the spill's budget and reads back whole (core/text_spill.py).

A flood of text must not be held in memory three times over (the block, the segment's history,
the client's record of what it streamed): finished texts past `TextSpill.resident_chars` go to an
unlinked temporary file, and every reader still gets every character.
"""

from __future__ import annotations

import random

import pytest

from tandem.core.agui.echoes import EchoText, echo_key
from tandem.core.blocks.growing_text import GrowingText
from tandem.core.blocks.text import TextBlock
from tandem.core.history import HistoryFolder
from tandem.core.messages import ChatUpdate
from tandem.core.content import TextContent
from tandem.core.text_spill import SPILL_MIN_CHARS, TextSpill


@pytest.fixture
def spill(tmp_path: object) -> TextSpill:
    spill = TextSpill(resident_chars=3 * SPILL_MIN_CHARS, directory=str(tmp_path))
    yield spill
    spill.close()


def _text(rng: random.Random, size: int) -> str:
    alphabet = "ab \n\té€😀\u200b\ud800"  # (a lone surrogate: agent JSON can carry one)
    return "".join(rng.choice(alphabet) if rng.random() < 0.2 else rng.choice("xyz ") for _ in range(size))


@pytest.mark.parametrize("seed", range(20))
def test_a_growing_text_reads_the_same_however_it_was_spilled(spill: TextSpill, seed: int) -> None:
    rng = random.Random(seed)
    grown, expected = GrowingText(), ""
    for _ in range(40):
        step = rng.random()
        if step < 0.55:
            delta = _text(rng, rng.randint(0, 700)) if rng.random() < 0.5 else "plain ascii " * rng.randint(0, 50)
            grown.append(delta)
            expected += delta
        elif step < 0.75:
            grown.spill(spill)
        else:
            offset = rng.randint(0, len(expected) + 2)
            assert grown.since(offset) == expected[offset:]
        assert grown.length == len(expected)
    assert grown.value == expected
    assert all(grown.since(offset) == expected[offset:] for offset in range(0, len(expected) + 2, 53))


def test_finished_texts_past_the_budget_leave_memory_oldest_first(spill: TextSpill) -> None:
    texts = [GrowingText(f"message {index} " + "é" * SPILL_MIN_CHARS) for index in range(6)]
    for text in texts:
        text.finish(spill)
    assert [text.spilled > 0 for text in texts] == [True, True, True, True, False, False]  # (two fit in three budgets)
    assert spill.resident <= spill.resident_chars
    assert [text.value for text in texts] == [f"message {index} " + "é" * SPILL_MIN_CHARS for index in range(6)]


def test_a_short_text_stays_in_memory(spill: TextSpill) -> None:
    texts = [GrowingText("short") for _ in range(100)]
    for text in texts:
        text.finish(spill)
    assert spill.spilled_bytes == 0 and spill.resident == 0


def test_a_text_block_finishes_when_it_completes(spill: TextSpill, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tandem.core.blocks.growing_text.shared_spill", lambda: spill)
    blocks = []
    for index in range(5):
        block = TextBlock(f"b{index}")
        block.append("x" * (2 * SPILL_MIN_CHARS))
        block.complete()
        block.complete()  # (counted once)
        blocks.append(block)
    assert spill.spilled_bytes > 0
    assert all(block.text == "x" * (2 * SPILL_MIN_CHARS) for block in blocks)
    assert blocks[0].text_from(5) == "x" * (2 * SPILL_MIN_CHARS - 5)


def test_the_history_builds_spilled_messages_whole(spill: TextSpill, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tandem.core.blocks.growing_text.shared_spill", lambda: spill)
    folder = HistoryFolder()
    sent = []
    for index in range(8):
        text = f"answer {index}\n" + "word " * SPILL_MIN_CHARS
        sent.append(text)
        for piece in (text[:100], text[100:]):
            folder.add(ChatUpdate(role="assistant", message_id=f"m{index}", contents=[TextContent(text=piece)]))
    mark = 0
    assert [m.contents[0].text for m in folder.messages_since(mark)][:-1] == sent[:-1]
    assert spill.spilled_bytes > 0
    messages = folder.messages()
    assert [m.contents[0].text for m in messages] == sent
    assert [m.message_id for m in messages] == [f"m{index}" for index in range(8)]


def test_a_full_disk_keeps_the_text_in_memory(tmp_path: object) -> None:
    spill = TextSpill(resident_chars=1, directory=str(tmp_path) + "/missing")
    text = GrowingText("y" * (2 * SPILL_MIN_CHARS))
    text.finish(spill)
    assert text.spilled == 0 and text.value == "y" * (2 * SPILL_MIN_CHARS)


@pytest.mark.parametrize("seed", range(10))
def test_an_echo_digest_fed_by_deltas_is_the_digest_of_the_whole_text(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(200):
        deltas = ["".join(rng.choice(" \n\t\u3000ab") for _ in range(rng.randint(0, 6))) for _ in range(rng.randint(0, 6))]
        streamed = EchoText()
        for delta in deltas:
            streamed.append(delta)
        assert streamed.key("assistant") == echo_key("assistant", "".join(deltas))
        assert streamed.empty == (not "".join(deltas))
