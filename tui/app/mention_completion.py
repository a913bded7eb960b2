"""Tab completion of `@path` in the composer: the file names of the working directory (or of the
folder the path names), like a shell completes them. UI thread; reads one folder per Tab."""

from __future__ import annotations

import os
import re
from pathlib import Path

from textual.widgets import TextArea

__all__ = ["MAX_SHOWN", "complete_mention", "completions"]

MAX_SHOWN = 12
"""Candidates named in the notification when a Tab leaves several."""

_TOKEN = re.compile(r"(?:^|(?<=\s))@((?:[^\s\\]|\\.)*)$")
_ESCAPED = re.compile(r"\\(.)")


def completions(partial: str, cwd: Path) -> list[str]:
    """What `partial` (a path as typed, unescaped) may complete to, as typed: its folder part
    kept, folders ending in `/`, sorted; hidden files only when the name typed starts with a dot."""
    folder_text, slash, prefix = partial.rpartition("/")
    typed_folder = folder_text + slash
    folder = Path(os.path.expanduser(typed_folder or "."))
    if not folder.is_absolute():
        folder = cwd / folder
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    out = []
    for entry in entries:
        if not entry.name.startswith(prefix) or (entry.name.startswith(".") and not prefix.startswith(".")):
            continue
        try:
            is_dir = entry.is_dir()
        except OSError:
            is_dir = False
        out.append(typed_folder + entry.name + ("/" if is_dir else ""))
    return sorted(out)


def complete_mention(area: TextArea, cwd: Path | None = None) -> bool:
    """Complete the `@path` before the cursor; returns whether there was one (then Tab is taken).

    One candidate: inserted (a file gets a space after it). Several: their common start is
    inserted, or, when there is nothing more to insert, they are named in a notification.
    None: the bell. Spaces in names are inserted escaped (`\\ `), as `@path` reads them.
    """
    row, column = area.cursor_location
    match = _TOKEN.search(area.document.get_line(row)[:column])
    if match is None:
        return False
    partial = _ESCAPED.sub(r"\1", match.group(1))
    found = completions(partial, cwd or Path.cwd())
    if not found:
        area.app.bell()
        return True
    common = os.path.commonprefix(found)
    addition = common[len(partial):].replace(" ", "\\ ")
    if len(found) == 1 and not common.endswith("/"):
        addition += " "
    if addition:
        area.insert(addition)
    elif len(found) > 1:
        names = ", ".join(candidate.rstrip("/").rpartition("/")[2] + ("/" if candidate.endswith("/") else "")
                          for candidate in found[:MAX_SHOWN])
        more = f" (+{len(found) - MAX_SHOWN} more)" if len(found) > MAX_SHOWN else ""
        from tandem.core.sanitize import sanitize

        area.app.notify(sanitize(names + more), title="Files", markup=False)
    return True
