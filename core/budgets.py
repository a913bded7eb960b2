"""How much Tandem takes from an agent: every budget named, with its default, in one place.

Everything an agent sends is bounded by one of these, checked where the data is read:

| budget | checked in | default |
| --- | --- | --- |
| `response_bytes` | the AG-UI client, on the body's decoded bytes (`core/agui/client.py`) | 32 MiB |
| `decompression_ratio` | the HTTP transport's decoder (`core/agui/decoding.py`) | 200 |
| `text_delta_bytes` | the run's path, per content delta (`core/agui/budget_checks.py`) | 256 KiB |
| `message_bytes` | the run's path, per message or tool call's arguments | 256 KiB |
| `tool_calls` | the run's path, per run (one request and its answer) | 2,000 |
| `state_bytes`, `state_depth` | the shared state, on every agent write, live and replayed (`core/state/state_budget.py`) | 16 MiB, 64 levels |
| `surface_components`, `message_components` | the run's path, per A2UI surface and per A2UI message | 2,000, 500 |

Past a budget the turn ends with `BudgetExceeded` (core/errors.py, a `ProtocolError`): its message names the
budget and how to raise it; what came before stays in the conversation and in the log. The
state's budget is checked at replay too, with the limits the thread is opened with, so that a
state accepted live can be read back: `state_depth` is capped at `MAX_STATE_DEPTH`, under what
the log's reader can nest. Pure; any thread.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from tandem.core.errors import BudgetExceeded

__all__ = ["Budgets", "BudgetExceeded", "MAX_STATE_DEPTH", "parse_budget", "size_text"]

MiB = 1024 * 1024

MAX_STATE_DEPTH = 150
"""The deepest `state_depth` may be raised to: the log wraps a state in a few envelopes, and
its reader refuses values nested deeper than about 250 levels."""


@dataclass(frozen=True)
class Budgets:
    """The limits of what one agent may send (see the module's table). Immutable; any thread."""

    response_bytes: int = 32 * MiB
    """Decoded bytes of one response body (after decompression)."""
    decompression_ratio: int = 200
    """Decoded bytes per compressed byte of a compressed body (gzip bombs)."""
    text_delta_bytes: int = 256 * 1024
    """The largest content delta (text, reasoning, tool arguments)."""
    message_bytes: int = 256 * 1024
    """The largest message: the text of one message, or the arguments of one tool call. The app
    lays a message out on its UI thread in chunks (a line longer than 8,192 characters is cut,
    widgets/markdown_chunks.py), a few per frame: raised, one line of 4,000,000 characters keeps
    keys answered within about half a second, and takes about 9 s of the UI thread to show whole."""
    tool_calls: int = 2000
    """Tool calls in one run."""
    state_bytes: int = 16 * MiB
    """The shared state's size, as compact JSON."""
    state_depth: int = 64
    """The shared state's nesting (`{}` is 1 deep), at most `MAX_STATE_DEPTH`."""
    surface_components: int = 2000
    """Components of one A2UI surface."""
    message_components: int = 500
    """Components one A2UI message defines. The app mounts a widget per component on its UI
    thread, `SurfaceView.MOUNT_BATCH` at a time, a long column's rows in pages folded out of the
    layout when far from the screen (5,000 in one message, raised: about 7 s of CPU to show whole,
    keys answered within a few tenths of a second on a loaded machine)."""

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"budget {item.name} must be a whole number of at least 1, not {value!r}")
        if self.state_depth > MAX_STATE_DEPTH:
            raise ValueError(f"budget state_depth can be at most {MAX_STATE_DEPTH} (the log's reader nests no deeper)")

    def exceeded(self, name: str, what: str) -> BudgetExceeded:
        """The error for going past budget `name`; `what` says what the agent sent. Its message
        names the budget and how to raise it."""
        limit = getattr(self, name)
        shown = size_text(limit) if name.endswith("_bytes") else f"{limit:,}"
        return BudgetExceeded(
            f"{what}: past the {name} budget ({shown}), so the turn was stopped. "
            f"To allow more, raise it: `--budget {name}=N`, or `{name} = N` under [budgets] in the config file",
            budget=name, limit=limit)

    def with_values(self, values: dict[str, Any]) -> Budgets:
        """These budgets with some changed (names and values as `parse_budget` checks them).

        Raises:
            ValueError: an unknown name or a bad value.
        """
        checked = dict(parse_budget(f"{name}={value}") for name, value in values.items())
        return replace(self, **checked)


def parse_budget(text: str) -> tuple[str, int]:
    """`NAME=VALUE` → (name, value); sizes may end in K, M or G (KiB, MiB, GiB).

    Raises:
        ValueError: an unknown name or a value that is not a whole number of at least 1.
    """
    name, sep, value = text.partition("=")
    name = name.strip().replace("-", "_")
    names = [item.name for item in fields(Budgets)]
    if not sep or name not in names:
        raise ValueError(f"unknown budget {name[:40]!r}: expected NAME=VALUE, NAME one of {', '.join(names)}")
    raw = value.strip().upper().removesuffix("IB").removesuffix("B")
    scale = {"K": 1024, "M": MiB, "G": 1024 * MiB}.get(raw[-1:], 1)
    digits = raw[:-1] if scale > 1 else raw
    try:
        number = int(digits.replace("_", "").replace(",", ""))
    except ValueError:
        raise ValueError(f"budget {name}: expected a whole number, got {value.strip()[:40]!r}") from None
    if number < 1:
        raise ValueError(f"budget {name}: must be at least 1")
    return name, number * scale


def size_text(size: int) -> str:
    """A byte count for a person (`64 MiB`, `1.5 KiB`, `12 bytes`)."""
    for unit, factor in (("GiB", 1024 * MiB), ("MiB", MiB), ("KiB", 1024)):
        if size >= factor:
            value = size / factor
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{size} bytes"
