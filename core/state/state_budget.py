"""The shared state's budgets (`Budgets.state_bytes`, `Budgets.state_depth`), checked before an
agent write applies, live and at replay alike.

A delta costs O(change), so the state's size is not measured after every write: `StateBudget`
keeps an upper bound of it (each write adds the size of the values it adds, replaces or copies)
and measures the state itself only when that bound passes the budget. A write that would take
the state past a budget is refused before it changes anything (`BudgetExceeded`). Pure
bookkeeping; engine thread only.
"""

from __future__ import annotations

from typing import Any

from tandem.core.agent_json import value_depth
from tandem.core.budgets import Budgets, size_text
from tandem.core.json_pointer import split

__all__ = ["StateBudget", "json_size"]


def json_size(value: Any, *, stop_at: int | None = None) -> int:
    """About how many bytes `value` takes as compact JSON; iterative (no recursion). Stops
    counting once `stop_at` is passed (the answer is then larger than `stop_at`)."""
    size = 0
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            size += len(item) + 2
        elif isinstance(item, dict):
            size += 2 + len(item)
            for key, child in item.items():
                size += len(key) + 3
                stack.append(child)
        elif isinstance(item, (list, tuple)):
            size += 2 + len(item)
            stack.extend(item)
        else:
            size += 5  # numbers, booleans, null: a typical width
        if stop_at is not None and size > stop_at:
            return size
    return size


def _resolve(value: Any, tokens: list[str]) -> tuple[bool, Any]:
    for token in tokens:
        if isinstance(value, dict) and token in value:
            value = value[token]
        elif isinstance(value, list) and token.isdigit() and int(token) < len(value):
            value = value[int(token)]
        else:
            return False, None
    return True, value


class StateBudget:
    """Holds the agent's writes to the state's size and depth budgets.

    Owns the budgets and an upper bound of the state's size (compact JSON bytes). One per
    `AgentState`; engine thread only.
    """

    def __init__(self, budgets: Budgets | None = None) -> None:
        self.budgets = budgets or Budgets()
        self._bound = 0

    def check(self, patch: list[dict[str, Any]], state: Any) -> None:
        """Refuse `patch` if applying it to `state` would pass a budget (nothing is changed here).
        Operations that do not apply are left to the patcher, which says why.

        Raises:
            BudgetExceeded: the state would grow past `state_bytes` or nest past `state_depth`.
        """
        budgets = self.budgets
        added = 0
        replaced_root = False
        for op in patch:
            if not isinstance(op, dict):
                continue
            kind, tokens = op.get("op"), split(str(op.get("path", "")))
            if tokens is None:
                continue
            if kind in ("add", "replace"):
                value = op.get("value")
            elif kind in ("copy", "move"):
                source = split(str(op.get("from", "")))
                found, value = _resolve(state, source) if source is not None else (False, None)
                if not found:
                    continue
            else:
                continue
            depth = len(tokens) + value_depth(value, stop_at=budgets.state_depth)
            if depth > budgets.state_depth:
                raise budgets.exceeded("state_depth", f"the agent's state would nest {depth} levels deep")
            if kind == "move":
                continue  # the state does not grow
            size = json_size(value, stop_at=budgets.state_bytes)
            if not tokens:
                replaced_root, added = True, size
            else:
                added += size
            if added > budgets.state_bytes:
                raise budgets.exceeded("state_bytes", f"the agent's state would grow past {size_text(budgets.state_bytes)}")
        if replaced_root:
            self._bound = added
            return
        if self._bound + added > budgets.state_bytes:
            self._bound = json_size(state, stop_at=budgets.state_bytes)  # measured only now
            if self._bound + added > budgets.state_bytes:
                raise budgets.exceeded("state_bytes", f"the agent's state would grow past {size_text(budgets.state_bytes)}")
        self._bound += added
