"""The vocabulary: content parts, messages and updates round-trip through JSON losslessly."""

from __future__ import annotations

import base64
import json
import typing

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from tandem.core import ChatMessage, ChatUpdate
from tandem.core.content import (
    A2UIMessageContent,
    ActivityContent,
    ApprovalRequestContent,
    ApprovalResponseContent,
    AttachmentContent,
    Content,
    DebugContent,
    ErrorContent,
    FinishContent,
    InputRequestContent,
    InputResponseContent,
    ReasoningContent,
    StateDeltaContent,
    StateSnapshotContent,
    TextContent,
    ToolCallContent,
    ToolResultContent,
)
from tandem.core.log_entries import HumanWrite, HumanWriteLogged, LogEntry, SegmentStarted, TurnStarted, UpdateLogged

# JSON values as JSON can carry them: no NaN or infinities, string keys.
json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
json_values = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)
json_objects = st.dictionaries(st.text(max_size=8), json_values, max_size=4)
patches = st.lists(json_objects, max_size=3)
optional_text = st.none() | st.text()
ids = st.text(min_size=1, max_size=12)
expiries = st.none() | st.floats(min_value=0, max_value=4e9, allow_nan=False)

CONTENT_STRATEGIES: dict[type, st.SearchStrategy] = {
    TextContent: st.builds(TextContent, text=st.text()),
    ReasoningContent: st.builds(ReasoningContent, text=st.text(), encrypted_value=optional_text),
    ToolCallContent: st.builds(
        ToolCallContent,
        call_id=ids,
        name=optional_text,
        arguments_delta=st.text(),
        arguments=st.none() | json_objects,
        done=st.booleans(),
        informational_only=st.booleans(),
        encrypted_value=optional_text,
    ),
    ToolResultContent: st.builds(
        ToolResultContent, call_id=ids, result=json_values, error=optional_text, encrypted_value=optional_text
    ),
    ApprovalRequestContent: st.builds(
        ApprovalRequestContent,
        request_id=ids,
        call_id=st.none() | ids,
        tool_name=st.text(),
        arguments=json_objects,
        message=optional_text,
        allow_edits=st.booleans(),
        requires_confirmation=st.booleans(),
        proposal_id=st.none() | ids,
        expires_at=expiries,
    ),
    ApprovalResponseContent: st.builds(
        ApprovalResponseContent,
        request_id=ids,
        call_id=st.none() | ids,
        approved=st.booleans(),
        status=st.sampled_from(["resolved", "cancelled"]),
        reason=optional_text,
        edited_arguments=st.none() | json_objects,
    ),
    InputRequestContent: st.builds(
        InputRequestContent,
        request_id=ids,
        reason=st.text(),
        message=optional_text,
        response_schema=st.none() | json_objects,
        call_id=st.none() | ids,
        expires_at=expiries,
    ),
    InputResponseContent: st.builds(
        InputResponseContent, request_id=ids, status=st.sampled_from(["resolved", "cancelled"]), payload=json_values
    ),
    StateSnapshotContent: st.builds(StateSnapshotContent, snapshot=json_values, proposal_id=st.none() | ids),
    StateDeltaContent: st.builds(StateDeltaContent, patch=patches, proposal_id=st.none() | ids),
    ActivityContent: st.builds(
        ActivityContent,
        activity_id=ids,
        activity_type=st.text(),
        content=json_values,
        patch=st.none() | patches,
        replace=st.booleans(),
    ),
    A2UIMessageContent: st.builds(
        A2UIMessageContent, surface_id=st.none() | ids, message=json_objects, status=optional_text
    ),
    ErrorContent: st.builds(ErrorContent, message=st.text(), code=optional_text),
    FinishContent: st.builds(FinishContent, reason=st.sampled_from(["stop", "tool_calls", "interrupt", "cancelled"])),
    DebugContent: st.builds(DebugContent, label=st.text(), value=json_values),
    AttachmentContent: st.builds(
        AttachmentContent, name=st.text(min_size=1), media_type=st.sampled_from(["image/png", "text/plain"]),
        media_kind=st.sampled_from(["image", "text", "document"]), size=st.integers(0, 10**9),
        sha256=st.text(alphabet="0123456789abcdef", min_size=64, max_size=64),
        data=st.binary(max_size=32).map(lambda b: base64.b64encode(b).decode())),
}
any_content = st.one_of(*CONTENT_STRATEGIES.values())
roles = st.sampled_from(["system", "user", "assistant", "tool"])
updates = st.builds(
    ChatUpdate,
    role=roles,
    contents=st.lists(any_content, max_size=4),
    message_id=st.none() | ids,
    author=optional_text,
    raw=json_values,
)

CONTENT_ADAPTER: TypeAdapter[Content] = TypeAdapter(Content)
LOG_ADAPTER: TypeAdapter[LogEntry] = TypeAdapter(LogEntry)


class TestVocabulary:
    def test_every_content_kind_has_a_strategy(self) -> None:
        """A new content kind must join the round-trip property below."""
        union = typing.get_args(typing.get_args(Content)[0])
        assert set(union) == set(CONTENT_STRATEGIES)

    def test_kinds_are_distinct(self) -> None:
        kinds = [cls.model_fields["kind"].default for cls in CONTENT_STRATEGIES]
        assert len(kinds) == len(set(kinds))

    def test_parts_are_frozen(self) -> None:
        part = TextContent(text="hi")
        with pytest.raises(ValidationError):
            part.text = "changed"  # type: ignore[misc]

    def test_unknown_fields_are_refused(self) -> None:
        with pytest.raises(ValidationError):
            TextContent.model_validate({"kind": "text", "text": "hi", "colour": "red"})

    def test_unknown_kind_is_refused(self) -> None:
        with pytest.raises(ValidationError):
            CONTENT_ADAPTER.validate_python({"kind": "telepathy"})

    def test_message_text_joins_text_parts_only(self) -> None:
        message = ChatMessage(
            role="assistant",
            contents=[TextContent(text="a"), ReasoningContent(text="hidden"), TextContent(text="b")],
        )
        assert message.text == "ab"


class TestJsonRoundTrip:
    @settings(max_examples=300)
    @given(part=any_content)
    def test_every_content_kind_round_trips(self, part: Content) -> None:
        assert CONTENT_ADAPTER.validate_json(CONTENT_ADAPTER.dump_json(part)) == part

    @settings(max_examples=200)
    @given(update=updates)
    def test_an_update_round_trips_with_its_raw_event(self, update: ChatUpdate) -> None:
        restored = ChatUpdate.model_validate_json(update.model_dump_json())
        assert restored == update
        assert [type(p) for p in restored.contents] == [type(p) for p in update.contents]

    @settings(max_examples=100)
    @given(update=updates)
    def test_an_update_survives_plain_json(self, update: ChatUpdate) -> None:
        """What a store writes with `json.dumps` of the dumped model reads back the same."""
        text = json.dumps(update.model_dump(mode="json"))
        assert ChatUpdate.model_validate(json.loads(text)) == update

    @settings(max_examples=100)
    @given(contents=st.lists(any_content, max_size=4), role=roles)
    def test_a_message_round_trips(self, contents: list[Content], role: typing.Any) -> None:
        message = ChatMessage(role=role, contents=contents, message_id="m", author="ada")
        assert ChatMessage.model_validate_json(message.model_dump_json()) == message

    @settings(max_examples=100)
    @given(update=updates, payload=json_objects)
    def test_log_entries_round_trip(self, update: ChatUpdate, payload: dict) -> None:
        entries = [
            TurnStarted(turn_id="t1", messages=[ChatMessage.user("hi")], at=1.5),
            SegmentStarted(turn_id="t1", index=0, retry=True, continuation=[ChatMessage.user("again")]),
            UpdateLogged(turn_id="t1", update=update),
            HumanWriteLogged(write=HumanWrite(kind="decision", target="b", who="ada", at=2.0, payload=payload)),
        ]
        for entry in entries:
            assert LOG_ADAPTER.validate_json(LOG_ADAPTER.dump_json(entry)) == entry
