"""What a replay may differ in without it counting: `--strict` and `--ignore PATH`.

By default the tools called, the decisions asked for and the state after each turn must match;
the text may differ (it is reported with a similarity figure, and does not count). `strict`
makes the text count too. Ignored paths leave fields out of every comparison of JSON values:

| `--ignore` | leaves out |
|---|---|
| `/meta/updated_at` | that field of the state and of every tool's and decision's arguments |
| `state:/meta/updated_at` | that field of the state only |
| `get_weather:/units` | that argument of the tool (or the decision) named `get_weather` only |
| `/items/*/id` | `*`: any one key or index |
| `**/timestamp` | `**`: any depth (every `timestamp` field, wherever it is) |

A path's subtree goes with it: `/meta` leaves out everything under `meta`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from tandem.core.json_pointer import join, split

__all__ = ["IgnoredPath", "Tolerance", "TolerancePathError"]

STATE_SCOPE = "state"
"""The scope that names the shared state in `--ignore state:/path`."""


class TolerancePathError(ValueError):
    """An `--ignore` path that is not `[SCOPE:]/json/pointer` (a usage error)."""


@dataclass(frozen=True)
class IgnoredPath:
    """One `--ignore` path: its scope (None: everywhere) and its segments (`*`, `**` wildcards)."""

    scope: str | None
    segments: tuple[str, ...]

    @classmethod
    def parse(cls, text: str) -> IgnoredPath:
        """Read `[SCOPE:]POINTER` (see the module's table).

        Raises:
            TolerancePathError: it is not one.
        """
        raw = text.strip()
        scope: str | None = None
        if not raw.startswith(("/", "*")):
            scope, sep, raw = raw.partition(":")
            if not sep or not scope:
                raise TolerancePathError(f"--ignore {text!r}: expected a JSON pointer (/a/b) or SCOPE:/a/b")
        if raw.startswith("**"):
            raw = "/" + raw
        if not raw.startswith("/"):
            raise TolerancePathError(f"--ignore {text!r}: the path must start with /")
        tokens = split(raw)
        if tokens is None or not tokens:
            raise TolerancePathError(f"--ignore {text!r}: the whole value cannot be ignored; name a field")
        return cls(scope, tuple(tokens))

    def covers(self, scope: str, path: Sequence[str]) -> bool:
        """Whether this leaves out `path` (or a parent of it) in `scope`."""
        if self.scope is not None and self.scope != scope:
            return False
        return _prefix_matches(self.segments, tuple(path))

    def __str__(self) -> str:
        pointer = join(self.segments)
        return f"{self.scope}:{pointer}" if self.scope else pointer


def _prefix_matches(pattern: tuple[str, ...], path: tuple[str, ...]) -> bool:
    """Whether `pattern` matches `path` or one of its parents (`*` one segment, `**` any number)."""
    if not pattern:
        return True
    head, rest = pattern[0], pattern[1:]
    if head == "**":
        return any(_prefix_matches(rest, path[skip:]) for skip in range(len(path) + 1))
    if not path:
        return False
    return (head == "*" or head == path[0]) and _prefix_matches(rest, path[1:])


@dataclass(frozen=True)
class Tolerance:
    """How different a replay may be: whether text counts, and the paths left out."""

    strict: bool = False
    """The assistant's text must match too."""
    ignored: tuple[IgnoredPath, ...] = field(default_factory=tuple)

    @classmethod
    def of(cls, *, strict: bool = False, ignore: Sequence[str] = ()) -> Tolerance:
        """From the command line's `--strict` and `--ignore PATH` values.

        Raises:
            TolerancePathError: a path is malformed.
        """
        return cls(strict=strict, ignored=tuple(IgnoredPath.parse(text) for text in ignore))

    def ignores(self, scope: str, path: Sequence[str]) -> bool:
        """Whether a difference at `path` of `scope` (`state` or a tool's name) is left out."""
        return any(ignored.covers(scope, path) for ignored in self.ignored)
