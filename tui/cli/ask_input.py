"""Where `tandem ask` takes its message and its answers from: arguments, stdin, or both.

As `llm` does: `tandem ask "explain"` sends the words; `git diff | tandem ask "review this"`
sends the words, a blank line, then everything piped in; `tandem ask < prompt.txt` and
`tandem ask -` send stdin alone. A terminal on stdin is never read for the message unless `-`
asks for it (then it is read to end of input, Ctrl+D).

Answers to prompts (`--approve ask`) come from the terminal when stdin is one. When stdin is a
pipe it is the message, and nobody is there to answer: open questions are declined at once and
`tandem ask` exits 3, never waiting on a prompt. `--answers FILE` (or `--answers -`, stdin
itself, when the message is all in the arguments) reads answers one a line instead; `LineReader`
reads them without blocking the engine loop.
"""

from __future__ import annotations

import asyncio
import io
import threading
from dataclasses import dataclass
from typing import TextIO

__all__ = ["AskInput", "LineReader", "UsageError", "read_input", "is_tty"]


class UsageError(Exception):
    """The command line asks for something impossible; `tandem ask` exits 2 with this line."""


@dataclass
class AskInput:
    """The message to send and where answers to prompts are read from."""

    message: str
    answers: TextIO
    """Read one answer a line; at end of input every open question is declined."""
    interactive: bool
    """A person at a terminal answers (prompts are written to stderr)."""


def is_tty(stream: TextIO | None) -> bool:
    """Whether `stream` is a terminal (False for anything that cannot say)."""
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, ValueError):
        return False


def read_input(words: list[str], stdin: TextIO, *, answers: str | None = None, attach_stdin: bool = False) -> AskInput:
    """The message from `words` and/or `stdin`, and the answers' source.

    Args:
        words: The message arguments; `-` stands for stdin.
        stdin: The process's standard input.
        answers: `--answers`: a file name, `-` for stdin, or None.
        attach_stdin: `--attach -`: stdin is an attachment (read later), not the message.

    Raises:
        UsageError: no message at all, `-` together with `--answers -`, stdin asked for twice
            (`--attach -` with `-` or `--answers -`, or without the message in the arguments), or
            an unreadable answers file.
    """
    dash = "-" in words
    text = " ".join(word for word in words if word != "-").strip()
    terminal = is_tty(stdin)
    if attach_stdin:
        if dash or answers == "-" or not text:
            raise UsageError("--attach - reads the attachment from stdin, so the message must be given as arguments "
                             "(and neither - nor --answers - may read stdin too)")
        if answers is not None:
            return AskInput(text, io.StringIO(_answers_file(answers)), interactive=False)
        return AskInput(text, io.StringIO(""), interactive=False)
    if answers == "-" and (dash or not text):
        raise UsageError("--answers - reads answers from stdin, so the message must be given as arguments")
    read_stdin = dash or (answers != "-" and (not terminal or not text))
    piped = ""
    if read_stdin:
        if terminal and not dash:
            raise UsageError("no message: give it as arguments, pipe it in, or pass - to type it (end with Ctrl+D)")
        piped = stdin.read()
    message = "\n\n".join(part for part in (text, piped.strip("\n")) if part.strip())
    if not message.strip():
        raise UsageError("the message is empty: give it as arguments or on stdin")
    if answers == "-":
        return AskInput(message, stdin, interactive=terminal)
    if answers is not None:
        return AskInput(message, io.StringIO(_answers_file(answers)), interactive=False)
    if terminal and not read_stdin:
        return AskInput(message, stdin, interactive=True)
    # stdin was the message (or is not a terminal): nobody can answer; never block on it.
    return AskInput(message, io.StringIO(""), interactive=False)


def _answers_file(answers: str) -> str:
    try:
        with open(answers, encoding="utf-8") as file:
            return file.read()
    except OSError as exc:
        raise UsageError(f"cannot read --answers {answers}: {exc.strerror or exc}") from None


class LineReader:
    """Reads stdin one line at a time without blocking the loop.

    Each read runs `readline()` in a daemon thread, so an interrupted process never waits for a
    line that will not come. Engine loop only; one read at a time.
    """

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._eof = False

    async def readline(self) -> str | None:
        """The next line without its line ending, or None at end of input."""
        if self._eof:
            return None
        loop = asyncio.get_running_loop()
        future: asyncio.Future[str] = loop.create_future()

        def deliver(line: str) -> None:
            if not future.done():
                future.set_result(line)

        def read() -> None:
            try:
                line = self._stream.readline()
            except (OSError, ValueError):
                line = ""
            try:
                loop.call_soon_threadsafe(deliver, line)
            except RuntimeError:  # the loop closed while we waited: nobody needs the line
                pass

        threading.Thread(target=read, name="tandem-ask-stdin", daemon=True).start()
        line = await future
        if line == "":
            self._eof = True
            return None
        return line.rstrip("\r\n")
