"""What changed between a recorded turn and its replay: tools, decisions asked, state, errors, text.

`compare_turn` lines the two `TurnRecord`s up and returns a `Difference` per change, each saying
whether it counts (`Tolerance`): tools (names in order, arguments as JSON changes), the decisions
asked for (which, with what arguments, and their answers), the state after the turn (JSON
changes), errors and the turn's outcome always count; the text counts only when strict, and is
compared word by word with a similarity figure (0 to 1).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal, TypeVar

from pydantic import JsonValue

from tandem.core.json_pointer import join
from tandem.core.rerun.observe import Ask, ToolUse, TurnRecord
from tandem.core.rerun.tolerance import STATE_SCOPE, Tolerance

__all__ = ["Change", "Difference", "DifferenceKind", "TextComparison", "compare_text", "compare_turn", "json_changes"]

DifferenceKind = Literal["tool", "ask", "state", "error", "status", "text", "divergence", "request"]

_MISSING = object()
"""A side of a change where the value is absent (added or removed)."""

T = TypeVar("T")


@dataclass(frozen=True)
class Change:
    """One JSON difference: at `path`, `was` became `now` (an absent side is `_MISSING`)."""

    path: str
    was: object
    now: object

    def to_json(self) -> dict[str, JsonValue]:
        out: dict[str, JsonValue] = {"path": self.path}
        if self.was is not _MISSING:
            out["was"] = self.was  # type: ignore[assignment]
        if self.now is not _MISSING:
            out["now"] = self.now  # type: ignore[assignment]
        return out

    @property
    def added(self) -> bool:
        return self.was is _MISSING

    @property
    def removed(self) -> bool:
        return self.now is _MISSING


@dataclass(frozen=True)
class Difference:
    """One thing a replayed turn did differently."""

    kind: DifferenceKind
    counts: bool
    """Whether it makes the replay fail (exit status 1)."""
    summary: str
    """One line saying what changed."""
    changes: tuple[Change, ...] = ()
    """JSON changes (arguments, state), when the difference is in a value."""

    def to_json(self) -> dict[str, JsonValue]:
        return {"kind": self.kind, "counts": self.counts, "summary": self.summary,
                "changes": [change.to_json() for change in self.changes]}


@dataclass(frozen=True)
class TextComparison:
    """The assistant's text, recorded and replayed, word by word."""

    similarity: float
    """0 (nothing in common) to 1 (the same words)."""
    pieces: tuple[tuple[str, str], ...] = field(default_factory=tuple)
    """(`equal` | `delete` | `insert`, text) runs: the recording's text with the replay's changes."""

    @property
    def same(self) -> bool:
        return all(op == "equal" for op, _text in self.pieces)

    def to_json(self) -> dict[str, JsonValue]:
        return {"similarity": round(self.similarity, 4), "same": self.same,
                "diff": [{"op": op, "text": text} for op, text in self.pieces]}


def json_changes(was: object, now: object, *, scope: str, tolerance: Tolerance,
                 path: tuple[str, ...] = ()) -> list[Change]:
    """The changes from `was` to `now`, field by field, leaving out what `tolerance` ignores in `scope`.

    Objects compare key by key, arrays index by index; numbers by value, but a change of type
    counts (`true` is not `1`).
    """
    if tolerance.ignores(scope, path):
        return []
    if isinstance(was, dict) and isinstance(now, dict):
        out: list[Change] = []
        for key in [*was, *(k for k in now if k not in was)]:
            out.extend(json_changes(was.get(key, _MISSING), now.get(key, _MISSING), scope=scope,
                                    tolerance=tolerance, path=(*path, str(key))))
        return out
    if isinstance(was, list) and isinstance(now, list):
        out = []
        for index in range(max(len(was), len(now))):
            out.extend(json_changes(was[index] if index < len(was) else _MISSING,
                                    now[index] if index < len(now) else _MISSING,
                                    scope=scope, tolerance=tolerance, path=(*path, str(index))))
        return out
    if _same_scalar(was, now):
        return []
    return [Change(join(path), was, now)]


def _same_scalar(was: object, now: object) -> bool:
    if was is _MISSING or now is _MISSING:
        return was is now
    if isinstance(was, bool) or isinstance(now, bool):
        return type(was) is type(now) and was == now
    if isinstance(was, (int, float)) and isinstance(now, (int, float)):
        return was == now
    return type(was) is type(now) and was == now


_WORDS = re.compile(r"\S+\s*|\s+")
"""A word with the whitespace after it: words are compared, the spacing rides along."""


def compare_text(was: str, now: str) -> TextComparison:
    """A word diff of two texts and their similarity (whitespace counts as a separator only)."""
    a, b = _WORDS.findall(was), _WORDS.findall(now)
    matcher = difflib.SequenceMatcher(None, [w.strip() or " " for w in a], [w.strip() or " " for w in b], autojunk=False)
    pieces: list[tuple[str, str]] = []

    def add(op: str, text: str) -> None:
        if not text:
            return
        if pieces and pieces[-1][0] == op:
            pieces[-1] = (op, pieces[-1][1] + text)
        else:
            pieces.append((op, text))

    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            add("equal", "".join(a[i1:i2]))
        else:
            add("delete", "".join(a[i1:i2]))
            add("insert", "".join(b[j1:j2]))
    similarity = 1.0 if not a and not b else matcher.ratio()
    return TextComparison(similarity, tuple(pieces))


def _aligned(was: Sequence[T], now: Sequence[T], key: Callable[[T], str]) -> list[tuple[T | None, T | None]]:
    """Pairs of items lined up by `key` (difflib), None where one side has no counterpart."""
    matcher = difflib.SequenceMatcher(None, [key(x) for x in was], [key(x) for x in now], autojunk=False)
    pairs: list[tuple[T | None, T | None]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        left, right = list(was[i1:i2]), list(now[j1:j2])
        if tag in ("equal", "replace"):
            common = min(len(left), len(right))
            pairs.extend(zip(left[:common], right[:common]))
            left, right = left[common:], right[common:]
        pairs.extend((item, None) for item in left)
        pairs.extend((None, item) for item in right)
    return pairs


def _tool_differences(was: Sequence[ToolUse], now: Sequence[ToolUse], tolerance: Tolerance) -> list[Difference]:
    out: list[Difference] = []
    for old, new in _aligned(was, now, lambda tool: tool.name):
        if new is None and old is not None:
            out.append(Difference("tool", True, f"did not call {old.name}"))
        elif old is None and new is not None:
            out.append(Difference("tool", True, f"called {new.name} (not in the recording)",
                                  tuple(json_changes(_MISSING, new.arguments, scope=new.name, tolerance=tolerance))))
        elif old is not None and new is not None:
            if old.name != new.name:
                out.append(Difference("tool", True, f"called {new.name} where the recording called {old.name}"))
                continue
            changes = json_changes(old.arguments, new.arguments, scope=new.name, tolerance=tolerance)
            if changes:
                out.append(Difference("tool", True, f"called {new.name} with other arguments", tuple(changes)))
            if old.status != new.status:
                out.append(Difference("tool", True, f"{new.name} ended {new.status} (was {old.status})"))
    return out


def _answer(ask: Ask) -> str:
    return ask.answer.outcome if ask.answer is not None else "unanswered"


def _ask_differences(was: Sequence[Ask], now: Sequence[Ask], tolerance: Tolerance) -> list[Difference]:
    out: list[Difference] = []
    for old, new in _aligned(was, now, lambda ask: f"{ask.kind}:{ask.name}"):
        if new is None and old is not None:
            out.append(Difference("ask", True, f"did not ask for the {old.label()}"))
        elif old is None and new is not None:
            out.append(Difference("ask", True, f"asked for an {new.label()} the recording does not have",
                                  tuple(json_changes(_MISSING, new.arguments, scope=new.name, tolerance=tolerance))))
        elif old is not None and new is not None:
            if (old.kind, old.name) != (new.kind, new.name):
                out.append(Difference("ask", True, f"asked for the {new.label()} where the recording asked for the {old.label()}"))
                continue
            changes = json_changes(old.arguments, new.arguments, scope=new.name, tolerance=tolerance)
            if changes:
                out.append(Difference("ask", True, f"asked for the {new.label()} with other arguments", tuple(changes)))
            if (old.message or "") != (new.message or ""):
                out.append(Difference("ask", tolerance.strict, f"the {new.label()} says something else",
                                      (Change("/message", old.message, new.message),)))
            if _answer(old) != _answer(new):
                out.append(Difference("ask", True, f"the {new.label()} was {_answer(new)} (was {_answer(old)})"))
    return out


def compare_turn(recorded: TurnRecord, replayed: TurnRecord, tolerance: Tolerance, *,
                 stopped_early: bool = False) -> tuple[list[Difference], TextComparison]:
    """Every difference of `replayed` from `recorded`, and their texts compared.

    `stopped_early`: the person stopped the recorded turn mid-answer, which a replay cannot time,
    so it ran to its end: only what the recording got to see counts (what the replay did after
    that, the state and the outcome are reported without counting).
    """
    out = [*_tool_differences(recorded.tools, replayed.tools, tolerance),
           *_ask_differences(recorded.asks, replayed.asks, tolerance)]
    if stopped_early:
        out = [Difference(d.kind, d.counts and "not in the recording" not in d.summary
                          and "the recording does not have" not in d.summary, d.summary, d.changes) for d in out]
    state = json_changes(recorded.state, replayed.state, scope=STATE_SCOPE, tolerance=tolerance)
    if state:
        out.append(Difference("state", not stopped_early, f"the state after the turn differs ({len(state)} field{'s' if len(state) != 1 else ''})", tuple(state)))
    if recorded.errors != replayed.errors:
        gone = [e for e in recorded.errors if e not in replayed.errors]
        new = [e for e in replayed.errors if e not in recorded.errors]
        parts = ([f"error: {e}" for e in new] + [f"no longer failed: {e}" for e in gone]) or ["errors in another order"]
        out.extend(Difference("error", True, part) for part in parts)
    if recorded.status != replayed.status:
        why = " (the person stopped it mid-answer when it was recorded)" if stopped_early else ""
        out.append(Difference("status", not stopped_early, f"the turn ended {replayed.status} (was {recorded.status}){why}"))
    text = compare_text(recorded.text, replayed.text)
    if not text.same:
        out.append(Difference("text", tolerance.strict, f"the answer's text differs (similarity {text.similarity:.0%})"))
    return out, text
