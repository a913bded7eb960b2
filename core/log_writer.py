"""What a conversation commits to its log beside the stream, and whether the log holds it."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from tandem.core.blocks.misc import ErrorBlock
from tandem.core.errors import TandemError
from tandem.core.log_entries import HumanWrite, HumanWriteLogged, StateMerged
from tandem.core.messages import ChatMessage

if TYPE_CHECKING:
    from tandem.core.agent import UIAgent
    from tandem.core.state.conflicts import MergeRecord
    from tandem.core.thread import ConversationThread

__all__ = ["LogWriter"]

log = logging.getLogger(__name__)


class LogWriter:
    """Commits one conversation's log and says when it cannot.

    Owns `unsaved` (why the last commit failed; None while everything so far is saved) and the
    one error card that says so. Every write of the person is committed at once (nothing a person
    wrote is lost by a crash); a state merge is logged as it happens and committed when it left a
    conflict. Engine thread only.
    """

    def __init__(self, thread: ConversationThread, agent: UIAgent) -> None:
        self._thread = thread
        self._agent = agent
        self.unsaved: str | None = None
        """Why the log could not be written at the last commit (None: everything so far is
        saved). Pending entries stay pending meanwhile; the next commit that succeeds writes them."""

    def commit(self, *, report: bool = True) -> bool:
        """Commit what is pending; whether the log holds it now.

        A failure sets `unsaved` and (with `report`) says so once in the conversation with an
        error card, until a commit succeeds again (the pending entries are kept and go with it).
        """
        try:
            self._thread.commit()
        except TandemError as exc:
            log.error("could not write the conversation log: %s", exc)
            first = self.unsaved is None
            self.unsaved = str(exc)
            if report and first:
                message = f"the conversation is not being saved: {exc}"
                pipeline = self._agent.pipeline
                pipeline.add_block(ErrorBlock(pipeline.unique_id("log-error"), message=message, code="log"))
            return False
        self.unsaved = None
        return True

    def human_write(self, write: HumanWrite) -> None:
        """Log and commit a write of the person (a decision, an edit, a cancel, a follow-up)."""
        self._thread.append(HumanWriteLogged(write=write))
        self.commit()

    def queued(self, messages: list[ChatMessage], turn_id: str) -> None:
        """Log the follow-ups queued behind turn `turn_id` (a restore brings them back queued)."""
        env = self._agent.env
        for message in messages:
            self.human_write(HumanWrite(kind="queue", target=turn_id, who=env.user, at=env.clock(),
                                        payload={"message": message.model_dump(mode="json")}))

    def merge(self, record: MergeRecord) -> None:
        """Log a merge of the agent's state write (not while a restore replays the log)."""
        if self._agent.env.replaying:
            return
        self._thread.append(StateMerged(turn_id=self._agent.pipeline.turn_id, merge=record.to_json()))
        if record.conflicts:
            self.commit()
