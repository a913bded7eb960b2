"""The report of a replay: per turn, what changed and whether it counts; as data and as JSON.

`ReplayReport.to_json` is the document `tandem replay --json` prints, one per replayed thread
(schema: `schemas/replay-report.v1.schema.json`; `REPORT_VERSION` changes only when a field
changes meaning or goes away; new fields may appear in the same version).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import JsonValue

from tandem.core.rerun.compare import Difference, TextComparison, compare_turn
from tandem.core.rerun.observe import ToolUse, TurnRecord
from tandem.core.rerun.tolerance import Tolerance

__all__ = ["REPORT_SCHEMA", "REPORT_VERSION", "ReplayReport", "TurnReport"]

REPORT_SCHEMA = "tandem.replay-report"
REPORT_VERSION = 1


@dataclass
class TurnReport:
    """One recorded turn and its replay (None: not replayed), with what changed."""

    index: int
    request: str
    recorded: TurnRecord
    replayed: TurnRecord | None
    differences: list[Difference] = field(default_factory=list)
    text: TextComparison | None = None

    @classmethod
    def compared(cls, index: int, recorded: TurnRecord, replayed: TurnRecord, tolerance: Tolerance,
                 notes: list[Difference] | None = None, *, stopped_early: bool = False) -> TurnReport:
        """The report of a replayed turn: `notes` (divergences, writes that failed) and the
        comparison (`compare_turn`; `stopped_early`: the person stopped the recorded turn mid-answer)."""
        differences, text = compare_turn(recorded, replayed, tolerance, stopped_early=stopped_early)
        return cls(index, replayed.request, recorded, replayed, [*(notes or []), *differences], text)

    @property
    def counts(self) -> bool:
        """Whether something that counts changed in this turn."""
        return any(difference.counts for difference in self.differences)

    def to_json(self) -> dict[str, JsonValue]:
        return {
            "turn": self.index + 1,
            "request": self.request,
            "replayed": self.replayed is not None,
            "changed": self.counts,
            "status": {"was": self.recorded.status, "now": self.replayed.status if self.replayed else None},
            "tools": {"was": [_tool(t) for t in self.recorded.tools],
                      "now": [_tool(t) for t in self.replayed.tools] if self.replayed else []},
            "asks": {"was": [a.to_json() for a in self.recorded.asks],
                     "now": [a.to_json() for a in self.replayed.asks] if self.replayed else []},
            "differences": [difference.to_json() for difference in self.differences],
            "text": self.text.to_json() if self.text is not None else None,
        }


def _tool(tool: ToolUse) -> dict[str, JsonValue]:
    return {"name": tool.name, "arguments": tool.arguments, "status": tool.status}


@dataclass
class ReplayReport:
    """A whole replay: which thread, against what, with which tolerance, and each turn."""

    original_id: str
    original_title: str | None
    replay_id: str | None
    """The thread the replay was saved as (None: not saved)."""
    server: str | None
    """The agent's endpoint (without credentials), None for the embedded demo agent."""
    tolerance: Tolerance
    on_divergence: str
    turns: list[TurnReport] = field(default_factory=list)
    stopped: str | None = None
    """Why the replay ended before the recording did."""
    failed: str | None = None
    """Why the replay could not run at all (the thread unreadable, the agent unreachable)."""

    @property
    def changed(self) -> bool:
        """Whether anything that counts changed (the exit status is 1)."""
        return self.failed is not None or self.stopped is not None or any(turn.counts for turn in self.turns)

    @property
    def counted(self) -> int:
        """How many differences count."""
        return sum(1 for turn in self.turns for d in turn.differences if d.counts)

    @property
    def noted(self) -> int:
        """How many differences are reported without counting (text, by default)."""
        return sum(1 for turn in self.turns for d in turn.differences if not d.counts)

    def to_json(self) -> dict[str, JsonValue]:
        """The `--json` document (see the module docstring)."""
        return {
            "schema": REPORT_SCHEMA,
            "version": REPORT_VERSION,
            "thread": {"id": self.original_id, "title": self.original_title},
            "replay_thread": self.replay_id,
            "server": self.server,
            "strict": self.tolerance.strict,
            "ignored": [str(path) for path in self.tolerance.ignored],
            "on_divergence": self.on_divergence,
            "changed": self.changed,
            "counted": self.counted,
            "noted": self.noted,
            "stopped": self.stopped,
            "failed": self.failed,
            "turns": [turn.to_json() for turn in self.turns],
        }
