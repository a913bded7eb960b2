"""How `tandem replay` shows a report: turn by turn with rich diffs, or one line per thread.

Written with `rich` as `Text` (agent strings are data, never markup, and are sanitised first).
Colour only on a terminal: elsewhere the word diff is marked `[-removed-]{+added+}` (wdiff's
notation) so a log file still shows it.
"""

from __future__ import annotations

import json
from typing import TextIO

from rich.console import Console
from rich.text import Text

from tandem.core.rerun import Change, Difference, ReplayReport, TurnReport
from tandem.core.sanitize import sanitize

__all__ = ["ReplayPrinter"]

_VALUE_LIMIT = 160
_TEXT_LIMIT = 4000


def _value(value: object) -> str:
    text = sanitize(json.dumps(value, ensure_ascii=False, default=str))
    return text if len(text) <= _VALUE_LIMIT else text[: _VALUE_LIMIT - 1] + "…"


def _one_line(text: str, limit: int = 70) -> str:
    value = " ".join(sanitize(text).split())
    return value if len(value) <= limit else value[: limit - 1] + "…"


def _context(text: str, keep: int = 60) -> str:
    """An unchanged stretch of text, its middle left out when it is long."""
    return text if len(text) <= 2 * keep + 5 else f"{text[:keep]} … {text[-keep:]}"


def _clipped(text: str, limit: int = 400) -> str:
    """A changed stretch of text, cut after `limit` characters."""
    return text if len(text) <= limit else text[:limit] + " …"


class ReplayPrinter:
    """Writes replay reports to one stream. Owns its console; main thread only."""

    def __init__(self, out: TextIO, *, color: bool | None = None, width: int | None = None) -> None:
        if color is None:
            try:
                color = out.isatty()
            except (AttributeError, ValueError):
                color = False
        self.color = color
        self.console = Console(file=out, force_terminal=color, no_color=not color, color_system="auto" if color else None,
                               highlight=False, emoji=False, soft_wrap=not color, width=width)

    def header(self, thread_id: str, title: str | None, server: str | None) -> None:
        """The line before the turns: which thread, against what."""
        line = Text("Replaying ", style="bold")
        line.append(thread_id, style="bold")
        if title:
            line.append(f" “{_one_line(title, 60)}”")
        line.append(f" against {sanitize(server) if server else 'the demo agent'}")
        self.console.print(line)

    def turn(self, report: TurnReport) -> None:
        """One turn: a line saying whether it changed, then each difference."""
        line = Text(f"Turn {report.index + 1}  ", style="bold")
        line.append(_one_line(report.request, 60))
        line.append("  ")
        if report.counts:
            line.append(f"✗ {sum(d.counts for d in report.differences)} change(s)", style="bold red")
        elif report.differences:
            line.append("✓ same (text differs)", style="yellow")
        else:
            line.append("✓ same", style="green")
        self.console.print(line)
        for difference in report.differences:
            self._difference(difference, report)

    def _difference(self, difference: Difference, report: TurnReport) -> None:
        mark, style = ("✗", "red") if difference.counts else ("·", "yellow")
        self.console.print(Text(f"    {mark} ", style=style) + Text(sanitize(difference.summary)))
        for change in difference.changes[:20]:
            self.console.print(self._change(change))
        if len(difference.changes) > 20:
            self.console.print(Text(f"        … {len(difference.changes) - 20} more", style="dim"))
        if difference.kind == "text" and report.text is not None:
            self.console.print(self._words(report))

    def _change(self, change: Change) -> Text:
        path = sanitize(change.path) or "(the whole value)"
        if change.added:
            return Text("        + ", style="green") + Text(f"{path}: {_value(change.now)}", style="green")
        if change.removed:
            return Text("        - ", style="red") + Text(f"{path}: {_value(change.was)}", style="red")
        line = Text(f"        ~ {path}: ")
        line.append(_value(change.was), style="red")
        line.append(" → ")
        line.append(_value(change.now), style="green")
        return line

    def _words(self, report: TurnReport) -> Text:
        assert report.text is not None
        out = Text("        ")
        shown = 0
        for op, piece in report.text.pieces:
            piece = sanitize(piece)
            if shown > _TEXT_LIMIT:
                out.append(" …", style="dim")
                break
            shown += len(piece)
            if op == "equal":
                out.append(_context(piece), style="dim")
            elif op == "delete":
                piece = _clipped(piece)
                out.append(piece if self.color else f"[-{piece}-]", style="red strike")
            else:
                piece = _clipped(piece)
                out.append(piece if self.color else f"{{+{piece}+}}", style="green")
        return out

    def summary(self, report: ReplayReport) -> None:
        """The closing lines: the outcome, why it stopped, where the replay was saved."""
        if report.failed:
            self.console.print(Text(f"Could not replay: {sanitize(report.failed)}", style="bold red"))
        if report.stopped:
            self.console.print(Text(f"Stopped at {sanitize(report.stopped)}", style="bold red"))
        changed = sum(1 for turn in report.turns if turn.counts)
        if report.changed:
            verdict = Text(f"Changed: {changed} of {len(report.turns)} turn(s), {report.counted} difference(s) count", style="bold red")
        else:
            verdict = Text(f"No change in {len(report.turns)} turn(s)", style="bold green")
        if report.noted:
            verdict.append(f"; {report.noted} reported only (text; --strict makes it count)", style="yellow")
        self.console.print(verdict)
        if report.replay_id:
            where = Text(f"Saved as thread {report.replay_id}", style="dim")
            if report.stopped:
                where.append(" (open it with `tandem --resume " + report.replay_id + "` to go on by hand)", style="dim")
            self.console.print(where)

    def line(self, report: ReplayReport) -> None:
        """One line for a thread of `--all-tagged`."""
        line = Text("✗ " if report.changed else "✓ ", style="bold red" if report.changed else "bold green")
        line.append(f"{report.original_id}  {_one_line(report.original_title or '(untitled)', 40)}  ")
        if report.failed:
            line.append(f"could not replay: {_one_line(report.failed)}", style="red")
        elif report.stopped:
            line.append(f"stopped at {_one_line(report.stopped)}", style="red")
        elif report.changed:
            first = next(t for t in report.turns if t.counts)
            what = next(d for d in first.differences if d.counts)
            line.append(f"turn {first.index + 1}: {_one_line(what.summary, 60)} ({report.counted} difference(s))", style="red")
        else:
            line.append(f"{len(report.turns)} turn(s), no change")
        self.console.print(line)
