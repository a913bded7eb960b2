"""The person's side of the merge: their marks, the conflicts found, the record of each merge.

A `FieldConflict` is a field both writers changed differently since the agent's base; the
committed value keeps the person's write until they settle it (`Resolution`). A `MergeRecord`
says what one agent write did (applied, agreed, conflicted): logged and shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from tandem.core.state.fields import MISSING, FieldPath, MergeError, path_from_json, path_label, path_to_json

__all__ = ["Resolution", "Mark", "FieldConflict", "MergeRecord"]

Resolution = Literal["mine", "agent", "edit"]
"""How the person settled a conflict: keep mine, take the agent's, or write a third value."""


@dataclass(frozen=True)
class Mark:
    """The person wrote a field: when (a sequence number and a time) and who."""

    seq: int
    who: str
    at: float


def _json_value(value: Any) -> dict[str, Any]:
    return {"removed": True} if value is MISSING else {"value": value}


def _from_json_value(value: Any) -> Any:
    if isinstance(value, dict) and value.get("removed") is True:
        return MISSING
    return value.get("value") if isinstance(value, dict) else None


@dataclass
class FieldConflict:
    """Both writers changed one field differently since the agent's base.

    Owns both values (MISSING: that side removed the field), their authors and times, and the
    person's resolution once made. Written on the engine thread by the `Edits` that holds it
    (and the `AgentState` that settles it); lives as long as that state, settled or not.
    """

    id: str
    """Stable under replay: `c1`, `c2`, … in order of detection."""
    path: FieldPath
    mine: Any
    """The person's value, which the committed state keeps until they decide."""
    agent: Any
    """What the agent wrote (its latest write to the field)."""
    mine_by: str
    mine_at: float
    agent_by: str
    agent_at: float
    source: str
    """What the agent's write was: `snapshot`, `delta` or `proposal <id>`."""
    resolution: Resolution | None = None
    resolved_by: str | None = None
    resolved_at: float | None = None

    @property
    def label(self) -> str:
        """The field's readable name (see `path_label`)."""
        return path_label(self.path)

    @property
    def between_people(self) -> bool:
        """Two people's edits clash (`Edits.clash`), not a person's and the agent's: `agent` is the later person's value."""
        return self.source.startswith("edit by ")

    @property
    def resolved(self) -> bool:
        """Whether the person decided it."""
        return self.resolution is not None

    def to_json(self) -> dict[str, Any]:
        """The conflict as a JSON object (log entries, `tandem ask --json`)."""
        return {
            "id": self.id,
            "field": self.label,
            "path": path_to_json(self.path),
            "mine": _json_value(self.mine),
            "agent": _json_value(self.agent),
            "mine_by": self.mine_by,
            "mine_at": self.mine_at,
            "agent_by": self.agent_by,
            "agent_at": self.agent_at,
            "source": self.source,
            "resolution": self.resolution,
            "resolved_by": self.resolved_by,
            "resolved_at": self.resolved_at,
        }

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> FieldConflict:
        """Read a logged conflict.

        Raises:
            MergeError: it is not one.
        """
        try:
            return cls(
                id=str(value["id"]),
                path=path_from_json(value["path"]),
                mine=_from_json_value(value.get("mine")),
                agent=_from_json_value(value.get("agent")),
                mine_by=str(value.get("mine_by", "")),
                mine_at=float(value.get("mine_at") or 0.0),
                agent_by=str(value.get("agent_by", "")),
                agent_at=float(value.get("agent_at") or 0.0),
                source=str(value.get("source", "")),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise MergeError(f"not a logged conflict: {exc}") from exc


@dataclass(frozen=True)
class MergeRecord:
    """One agent write merged onto the person's edits: what applied, what agreed, what conflicted."""

    source: str
    applied: list[FieldPath]
    agreed: list[FieldPath]
    conflicts: list[FieldConflict]
    at: float

    def to_json(self) -> dict[str, Any]:
        """The record as JSON (log entries, `tandem ask --json`)."""
        return {
            "source": self.source,
            "applied": [path_label(p) for p in self.applied],
            "agreed": [path_label(p) for p in self.agreed],
            "conflicts": [c.to_json() for c in self.conflicts],
            "at": self.at,
        }
