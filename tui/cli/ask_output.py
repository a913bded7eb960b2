"""What `tandem ask` writes to stdout: plain labelled lines (`PlainPrinter`, `tui.cli.ask_plain`), or
one JSON object per block event (`JsonPrinter`, `tui.cli.ask_json`), both `Printer`s
(`tui.cli.ask_printer`).

Both printers subscribe to a conversation's blocks and shared state and write as things arrive,
on the engine loop (headless mode has no other thread). Agent text is data: every string from
the agent goes through `sanitize` before it reaches the terminal, and JSON output escapes all
non-ASCII and control characters. Imports nothing from Textual.
"""

from __future__ import annotations

from tandem.core.sanitize import sanitize
from tandem.tui.cli.ask_json import SCHEMA_VERSION, JsonPrinter
from tandem.tui.cli.ask_plain import PlainPrinter
from tandem.tui.cli.ask_printer import Printer, one_line, short_json

__all__ = ["SCHEMA_VERSION", "sanitize", "short_json", "one_line", "Printer", "PlainPrinter", "JsonPrinter"]
