"""`tandem threads` (list, rename, delete, start fresh) and `tandem export` (Markdown, JSON lines).

Plain command-line output: these print, nothing else in `tui/` does. Their arguments are declared
in `tui.cli.entry` (this module imports the store and core, which parsing must not). Errors go to stderr as one
`tandem: …` line with exit status 1. Listing, renaming and deleting never import the log's models
(pydantic): only `export` reads a log.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from collections.abc import Callable
from typing import TextIO

from tandem.core.errors import LogStoreError
from tandem.core.sanitize import reveal as markdown_safe  # what `core.export.markdown_safe` is, without the models
from tandem.core.store import ThreadInfo, ThreadStore
from tandem.core.store.lock import holder

__all__ = ["run_threads", "run_export"]


def run_threads(args: argparse.Namespace, *, store_path: Path | None = None, out: TextIO | None = None,
                err: TextIO | None = None) -> int:
    """List saved threads, or delete, rename, or start fresh.

    Reads `args.delete` (str | None), `args.rename` ([ID, TITLE] | None), `args.tag` and `args.untag`
    ([ID, TAG] | None), `args.start_fresh` (bool). The list marks replays (`↻ of ID`) and shows tags.

    Args:
        args: The parsed arguments.
        store_path: The store file (default: the user data directory's).
        out: Where the list goes (stdout by default).
        err: Where errors go (stderr by default).

    Returns:
        The exit status.
    """
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        if args.start_fresh:
            store = ThreadStore.start_fresh(store_path)
            store.close()
            print(f"Started a new thread store at {store.path}; the old one is kept as {store.quarantined}.", file=out)
            return 0
        with ThreadStore(store_path) as store:
            _say_lost(store, err)
            if args.delete:
                thread_id = store.resolve(args.delete)
                store.delete(thread_id)
                print(f"Deleted thread {thread_id}.", file=out)
                return 0
            if args.rename:
                thread_id = store.resolve(args.rename[0])
                store.rename(thread_id, args.rename[1])
                print(f"Renamed thread {thread_id}.", file=out)
                return 0
            tag: list[str] | None = getattr(args, "tag", None)
            untag: list[str] | None = getattr(args, "untag", None)
            if tag:
                thread_id = store.resolve(tag[0])
                label = tag[1].strip()
                added = store.marks.tag(thread_id, label)
                print(f"Tagged thread {thread_id} {label}." if added else f"Thread {thread_id} was already tagged {label}.", file=out)
                return 0
            if untag:
                thread_id = store.resolve(untag[0])
                label = untag[1].strip()
                removed = store.marks.untag(thread_id, label)
                print(f"Took the tag {label} off thread {thread_id}." if removed else f"Thread {thread_id} had no tag {label}.", file=out)
                return 0
            _print_list(store.list(), out, store.marks.all_tags(), opened=lambda thread_id: holder(store.locks, thread_id))
            return 0
    except LogStoreError as exc:
        print(f"tandem: {markdown_safe(str(exc))}", file=err)
        return 1


def _say_lost(store: ThreadStore, err: TextIO) -> None:
    if store.lost_history is not None:
        print(f"tandem: warning: {store.lost_history}", file=err)


def run_export(args: argparse.Namespace, *, store_path: Path | None = None, out: TextIO | None = None,
               err: TextIO | None = None) -> int:
    """Write a thread's log as Markdown or JSON lines, to a file or stdout.

    Reads `args.thread_id` (str), `args.format` ("md" | "jsonl"), `args.output` (str | None).
    The thread is only read: exporting works while the thread is open in the app.

    Returns:
        The exit status.
    """
    from tandem.core.export import ExportHeader, to_jsonl, to_markdown

    out = out or sys.stdout
    err = err or sys.stderr
    try:
        with ThreadStore(store_path) as store:
            _say_lost(store, err)
            thread_id = store.resolve(args.thread_id)
            if args.format == "jsonl":
                rows = store.read_json(thread_id)
                if any('"kind":"attachment"' in json for _seq, json in rows):
                    # The store keeps attachments' bytes apart: the entries, with them put back.
                    text = "".join(to_jsonl(store.read(thread_id)))
                else:
                    text = "".join(to_jsonl(json for _seq, json in rows))
            else:
                info = store.info(thread_id)
                header = ExportHeader(info.id, info.title, info.server_url, info.created_at, info.updated_at)
                text = to_markdown(store.read(thread_id), header)
    except LogStoreError as exc:
        print(f"tandem: {markdown_safe(str(exc))}", file=err)
        return 1
    if args.output is None:
        out.write(text)
        return 0
    try:
        fd = os.open(args.output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(text)
    except OSError as exc:
        print(f"tandem: cannot write {args.output}: {exc.strerror or exc}", file=err)
        return 1
    print(f"Exported thread {thread_id} to {args.output}.", file=err)
    return 0


def _print_list(threads: list[ThreadInfo], out: TextIO, tags: dict[str, list[str]] | None = None,
                opened: Callable[[str], int | None] | None = None) -> None:
    if not threads:
        print("No saved threads.", file=out)
        return
    tags = tags or {}
    rows = [("ID", "TITLE", "SERVER", "UPDATED", "TURNS", "")]
    for info in threads:
        notes = [f"↻ replay of {_cell(info.replay_of, 12)}"] if info.replay_of else []
        notes += [f"#{_cell(tag, 30)}" for tag in tags.get(info.id, [])]
        pid = opened(info.id) if opened is not None else None
        if pid is not None:
            # Open in a running `tandem` (or `tandem ask`) now: where a person may be working on it.
            notes.insert(0, f"● open in process {pid}" if pid > 0 else "● open now")
        rows.append((
            info.id,
            _cell(info.title or "(untitled)", 60),
            _cell(info.server_url or "demo", 40),
            time.strftime("%Y-%m-%d %H:%M", time.localtime(info.updated_at)),
            str(info.turns),
            " ".join(notes),
        ))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for row in rows:
        line = "  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[4].rjust(5)
        print(f"{line}  {row[5]}".rstrip(), file=out)


def _cell(text: str, limit: int) -> str:
    value = " ".join(markdown_safe(text).split())
    return value if len(value) <= limit else value[: limit - 1] + "…"
