"""The one rule every setting is decided by: the flag, else the environment variable, else the
config file, else the default.

A `Source` names where one setting may be given (its flag, its variable) and reads what was
given there; `decide` applies the rule to what was given; `pick` does both. A value that cannot
be read is a `SettingError` naming where it came from (`--frame-ms`, `$TANDEM_FRAME_MS`); the
config file's values were checked when it was read (`tui.cli.config`). Pure and light (`tandem
--help` imports it); any thread.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from tandem.tui.cli.timeouts import parse_seconds

__all__ = ["NOT_GIVEN", "SettingError", "Source", "choice", "decide", "milliseconds", "pick", "seconds"]

T = TypeVar("T")

NOT_GIVEN: Any = object()
"""What a flag or variable that was not set gives (None is a value: a timeout's "no limit")."""


class SettingError(Exception):
    """A flag or environment variable holds a value its setting cannot use.

    The message is one line naming the flag or variable; `status` is the exit status it ends the
    command with (2: a usage error, said as argparse says its own; 1: a plain `tandem:` line).
    """

    def __init__(self, message: str, *, status: int) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Source(Generic[T]):
    """Where one setting may be given, and how a given value becomes the setting's value."""

    flag: str
    """The command-line flag (`--frame-ms`), as error messages name it."""
    variable: str | None
    """The environment variable (`TANDEM_FRAME_MS`), if there is one; empty counts as unset."""
    read: Callable[[Any], T]
    """The flag's value or the variable's text → the setting's value.
    Raises ValueError saying what was expected (`between 1 and 5000 milliseconds (got 0)`)."""
    problem: str = "{source} must be {reason}"
    """The error line, from the flag or `$VARIABLE` (`source`) and the ValueError (`reason`)."""
    status: int = 1
    """The exit status of a value that cannot be read."""

    def from_flag(self, value: Any) -> T:
        """The flag's value read (`NOT_GIVEN` for None: the flag was not given).

        Raises:
            SettingError: the value cannot be read.
        """
        return NOT_GIVEN if value is None else self._read(self.flag, value)

    def from_environ(self, environ: Mapping[str, str]) -> T:
        """The variable's value read (`NOT_GIVEN` when it is unset or blank).

        Raises:
            SettingError: the value cannot be read.
        """
        text = environ.get(self.variable, "").strip() if self.variable else ""
        return self._read(f"${self.variable}", text) if text else NOT_GIVEN

    def _read(self, where: str, value: Any) -> T:
        try:
            return self.read(value)
        except ValueError as exc:
            raise SettingError(self.problem.format(source=where, reason=exc), status=self.status) from None


def decide(flag: T, variable: T, configured: T | None, default: T) -> T:
    """The rule: the flag's value, else the variable's (each `NOT_GIVEN` when not set), else the
    config file's (None when the file has none), else the default."""
    if flag is not NOT_GIVEN:
        return flag
    if variable is not NOT_GIVEN:
        return variable
    return default if configured is None else configured


def pick(source: Source[T], flag: Any, environ: Mapping[str, str], configured: T | None, default: T) -> T:
    """`decide` over the flag's value (None when not given) and the variable in `environ`.

    Raises:
        SettingError: the flag's or the variable's value cannot be read (the flag is read first).
    """
    given = source.from_flag(flag)
    return decide(given, source.from_environ(environ) if given is NOT_GIVEN else NOT_GIVEN, configured, default)


def choice(choices: tuple[str, ...]) -> Callable[[Any], str]:
    """A reader of one of `choices`, case and surrounding blanks ignored."""

    def read(value: Any) -> str:
        chosen = str(value).strip().lower()
        if chosen not in choices:
            raise ValueError(f"one of {', '.join(choices)} (got {chosen[:20]!r})")
        return chosen

    return read


def milliseconds(low: float, high: float) -> Callable[[Any], float]:
    """A reader of a number of milliseconds from `low` to `high`, giving seconds."""

    def read(value: Any) -> float:
        try:
            number = float(value)
        except ValueError:
            raise ValueError(f"a number of milliseconds, not {str(value)[:40]!r}") from None
        if not low <= number <= high:
            raise ValueError(f"between {low:g} and {high:g} milliseconds (got {number:g})")
        return number / 1000

    return read


def seconds(value: Any) -> float | None:
    """A reader of a timeout: seconds, or `0`/`none` for no limit (None)."""
    return parse_seconds(str(value))
