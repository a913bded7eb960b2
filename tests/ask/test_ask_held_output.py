"""`tandem ask`'s output held to one write per go of the loop (`HeldOutput`), and when it is held."""

from __future__ import annotations

import asyncio
import io
import os
from pathlib import Path

from tandem.tui.cli.ask_printer import HeldOutput, same_destination


class CountingStream(io.StringIO):
    """A text stream that counts its writes and flushes."""

    def __init__(self) -> None:
        super().__init__()
        self.writes = self.flushes = 0

    def write(self, text: str) -> int:
        self.writes += 1
        return super().write(text)

    def flush(self) -> None:
        self.flushes += 1
        super().flush()


class BrokenStream(io.StringIO):
    def write(self, text: str) -> int:
        raise BrokenPipeError


async def test_held_output_is_written_once_per_go_of_the_loop_in_order() -> None:
    stream = CountingStream()
    output = HeldOutput(stream, held=True)
    for n in range(100):
        output.write(f"line {n}\n")
    assert stream.writes == 0  # nothing yet: the loop has not had its next go
    await asyncio.sleep(0)
    assert (stream.writes, stream.flushes) == (1, 1)
    assert stream.getvalue() == "".join(f"line {n}\n" for n in range(100))
    output.write("last\n")
    output.flush()  # what `finish` and `close` do: written now, not left for a loop that may be gone
    assert stream.getvalue().endswith("line 99\nlast\n") and stream.writes == 2


def test_unheld_output_is_written_at_every_write() -> None:
    stream = CountingStream()
    output = HeldOutput(stream, held=False)
    output.write("a")
    output.write("b")
    assert (stream.getvalue(), stream.writes, stream.flushes) == ("ab", 2, 2)


async def test_a_reader_gone_silences_held_output() -> None:
    output = HeldOutput(BrokenStream(), held=True)
    output.write("lost\n")
    await asyncio.sleep(0)
    assert output.broken
    output.write("more\n")  # nothing raised, nothing held
    output.flush()


def test_same_destination_tells_one_place_from_two(tmp_path: Path) -> None:
    with open(tmp_path / "out", "w") as out, open(tmp_path / "out", "a") as again, open(tmp_path / "err", "w") as err:
        assert same_destination(out, again)  # `> file 2>&1`: one file, the order of lines matters
        assert not same_destination(out, err)
    read_end, write_end = os.pipe()
    other_read, other_write = os.pipe()
    with os.fdopen(write_end, "w") as first, os.fdopen(other_write, "w") as second:
        assert not same_destination(first, second)  # two pipes (a script reading each)
    os.close(read_end)
    os.close(other_read)
    assert same_destination(io.StringIO(), io.StringIO())  # cannot be told: kept in order
