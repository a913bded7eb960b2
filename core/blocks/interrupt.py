"""Generic input requests (interrupts) answered with a JSON-schema-shaped payload."""

from __future__ import annotations

from typing import Any

from pydantic import JsonValue

from tandem.core.blocks.interactive import InteractiveBlock
from tandem.core.content import InputResponseContent
from tandem.core.errors import DecisionError
from tandem.core.messages import ChatMessage

__all__ = ["InterruptBlock"]


class InterruptBlock(InteractiveBlock):
    """The agent asks the human for input: a message and, optionally, a JSON schema for the answer.

    Owns the request and the decision; validates the payload against the schema before
    accepting it, so an invalid answer never reaches the agent. A question without a schema
    (LangGraph's `interrupt("Which colour?")`, Strands' `tool_context.interrupt`) is answered with
    text: `respond("blue")` sends the string itself. `decline()` answers nothing: the agent is
    told the request was cancelled.
    """

    kind = "interrupt"

    def __init__(
        self,
        id: str,
        *,
        request_id: str,
        reason: str,
        message: str | None = None,
        response_schema: dict[str, JsonValue] | None = None,
        call_id: str | None = None,
        protocol_data: dict[str, JsonValue] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(id, **kwargs)
        self.request_id = request_id
        self.reason = reason
        self.message = message
        self.response_schema = response_schema
        self.call_id = call_id
        self.protocol_data = protocol_data
        """Opaque to blocks: the chat client's data for answering (see `InputRequestContent`)."""
        self._schema_checked = False
        self._schema_problem: str | None = None

    @property
    def schema_problem(self) -> str | None:
        """Why the agent's schema cannot be used (checked once, before any use), or None.

        When it is set, the person answers with raw JSON (any JSON is accepted) or declines.
        """
        if not self._schema_checked:
            from tandem.core.agent_schema import schema_problem

            self._schema_problem = schema_problem(self.response_schema)
            self._schema_checked = True
        return self._schema_problem

    @property
    def free_text(self) -> bool:
        """Whether the answer is plain text: no schema, or a schema asking for a string."""
        schema = self.response_schema
        return not schema or schema.get("type") == "string"

    def validate(self, payload: JsonValue) -> list[str]:
        """The schema violations of `payload`, as readable messages (empty when valid).

        The agent's patterns run under a time bound (`core.agent_schema`); a schema that cannot
        be used checks nothing (the answer is raw JSON the person wrote).
        """
        if not self.response_schema or self.schema_problem is not None:
            return []
        from tandem.core.agent_schema import validate_payload

        return validate_payload(self.response_schema, payload, _checked=True)

    def respond(self, payload: JsonValue, *, who: str | None = None) -> bool:
        """Answer with `payload`. Returns whether this call decided.

        Raises:
            DecisionError: the payload does not match the schema, or the request expired.
        """
        if self.decision is not None:
            return False
        self._check_actionable()
        problems = self.validate(payload)
        if problems:
            raise DecisionError("the answer does not match the requested form: " + "; ".join(problems))
        return self.resolve("resolved", who=who, payload=payload)

    def decline(self, *, reason: str | None = None, who: str | None = None) -> bool:
        """Refuse to answer; the agent gets a cancelled answer. Returns whether this call decided.

        Raises:
            DecisionError: the request expired.
        """
        if self.decision is not None:
            return False
        self._check_actionable()
        return self.resolve("declined", who=who, reason=reason)

    def continuation(self) -> ChatMessage:
        decision = self.decision
        assert decision is not None, "continuation() before a decision"
        resolved = decision.outcome == "resolved"
        content = InputResponseContent(
            request_id=self.request_id,
            status="resolved" if resolved else "cancelled",
            payload=decision.payload if resolved else None,
            protocol_data=self.protocol_data,
        )
        return ChatMessage(role="user", contents=[content])

    def content(self) -> dict[str, Any]:
        return {
            **super().content(),
            "request_id": self.request_id,
            "reason": self.reason,
            "message": self.message,
            "response_schema": self.response_schema,
            "free_text": self.free_text,
        }
