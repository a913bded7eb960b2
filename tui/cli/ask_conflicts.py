"""`tandem ask --on-conflict`: how a headless run settles shared-state conflicts.

| policy | what happens to a conflicted field |
|---|---|
| `mine` | keep the person's value (the committed one) |
| `agent` | take the agent's value |
| `ask` | prompt: `m` keep mine, `a` take the agent's, `e <json>` write a value; end of input keeps mine |

Each settlement is a logged human write (`state_resolve`), as in the app. Engine loop only.
"""

from __future__ import annotations

import asyncio
import json
from typing import Literal, TextIO

from tandem.core.context import AgentContext
from tandem.core.errors import TandemError
from tandem.core.state.conflicts import FieldConflict, MergeRecord
from tandem.core.state.fields import MISSING
from tandem.tui.cli.ask_output import one_line, short_json

__all__ = ["OnConflict", "ConflictDecider"]

OnConflict = Literal["mine", "agent", "ask"]

_WHO = "tandem ask --on-conflict"


class ConflictDecider:
    """Settles each new state conflict by policy, one at a time, as merges report them.

    Owns its subscription and the settling tasks; `settle()` waits for them (before the turn's
    final output), `close()` stops. The line reader is shared with the block `Decider`: conflicts
    arrive while the agent streams, decisions while the turn waits, so they do not interleave.
    """

    def __init__(self, context: AgentContext, policy: OnConflict, reader: object, *, prompts: TextIO | None, errors: TextIO) -> None:
        self.context = context
        self.policy = policy
        self.reader = reader
        """A `LineReader` (anything with `async readline() -> str | None`)."""
        self.prompts = prompts
        self.errors = errors
        self._lock = asyncio.Lock()
        self._tasks: list[asyncio.Task[None]] = []
        self._sub = context.agent.state.on_merged(self._merged)

    def close(self) -> None:
        """Stop settling. Idempotent."""
        self._sub.close()
        for task in self._tasks:
            if not task.done():
                task.cancel()

    async def settle(self) -> None:
        """Wait until every conflict reported so far is settled."""
        while pending := [t for t in self._tasks if not t.done()]:
            await asyncio.gather(*pending, return_exceptions=True)

    def _merged(self, record: MergeRecord) -> None:
        for conflict in record.conflicts:
            if not conflict.resolved:
                # Not from inside the merge's notification: the write that reported it is still running.
                self._tasks.append(asyncio.get_running_loop().create_task(self._settle(conflict), name="tandem-ask-conflict"))

    async def _settle(self, conflict: FieldConflict) -> None:
        async with self._lock:
            if conflict.resolved:
                return
            state = self.context.agent.state
            try:
                if self.policy in ("mine", "agent"):
                    state.resolve_conflict(conflict.id, self.policy, who=_WHO)  # type: ignore[arg-type]
                    return
                while not conflict.resolved:
                    line = await self._ask(conflict)
                    if line is None:
                        state.resolve_conflict(conflict.id, "mine", who=_WHO)
                        return
                    answer = line.strip()
                    if answer.lower() in ("m", "mine"):
                        state.resolve_conflict(conflict.id, "mine")
                    elif answer.lower() in ("a", "agent"):
                        state.resolve_conflict(conflict.id, "agent")
                    elif answer[:2].lower() == "e ":
                        try:
                            value = json.loads(answer[2:])
                        except ValueError:
                            value = answer[2:]
                        state.resolve_conflict(conflict.id, "edit", value)
                    elif answer:
                        self._complain("answer m (keep mine), a (take the agent's) or e <value>")
            except (TandemError, KeyError) as exc:
                self._complain(f"could not settle the conflict at {conflict.label}: {exc}")

    async def _ask(self, conflict: FieldConflict) -> str | None:
        if self.prompts is not None:
            mine = "(removed)" if conflict.mine is MISSING else short_json(conflict.mine, 60)
            agent = "(removed)" if conflict.agent is MISSING else short_json(conflict.agent, 60)
            self.prompts.write(
                f"conflict at {one_line(conflict.label, 80)}: yours {mine}, the agent's {agent}. "
                "keep [m]ine, take the [a]gent's, or e <value>? "
            )
            self.prompts.flush()
        return await self.reader.readline()  # type: ignore[attr-defined, no-any-return]

    def _complain(self, text: str) -> None:
        self.errors.write(f"tandem: {one_line(text, 300)}\n")
        self.errors.flush()
