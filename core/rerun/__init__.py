"""A saved conversation run again against a live agent, and what changed (`tandem replay`).

`read_recording` reads a thread's log as turns to do again; `ReplayRun` does them in a live
`AgentContext`, answering each decision as the person did; `ReplayReport` says, turn by turn,
what changed and whether it counts (`Tolerance`). UI-neutral: the command line and the app
print the report their own way. Not to be confused with `core.replay`, which restores a thread
from its log without sending anything.
"""

from __future__ import annotations

from tandem.core.rerun.compare import Change, Difference, TextComparison, compare_text, compare_turn, json_changes
from tandem.core.rerun.driver import REPLAY_DECLINE_REASON, Asker, Divergence, OnDivergence, ReplayRun
from tandem.core.rerun.observe import Ask, ToolUse, TurnRecord, command_for, observe_turn
from tandem.core.rerun.recording import RecordedTurn, Recording, read_recording
from tandem.core.rerun.report import REPORT_SCHEMA, REPORT_VERSION, ReplayReport, TurnReport
from tandem.core.rerun.tolerance import IgnoredPath, Tolerance, TolerancePathError

__all__ = [
    "Ask",
    "Asker",
    "Change",
    "Difference",
    "Divergence",
    "IgnoredPath",
    "OnDivergence",
    "REPLAY_DECLINE_REASON",
    "REPORT_SCHEMA",
    "REPORT_VERSION",
    "RecordedTurn",
    "Recording",
    "ReplayReport",
    "ReplayRun",
    "TextComparison",
    "Tolerance",
    "TolerancePathError",
    "ToolUse",
    "TurnRecord",
    "TurnReport",
    "command_for",
    "compare_text",
    "compare_turn",
    "json_changes",
    "observe_turn",
    "read_recording",
]
