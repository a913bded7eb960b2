"""Folding a streamed segment into history: each message is built once the next one starts."""

from __future__ import annotations

from tandem.core.content import TextContent, ToolCallContent, ToolResultContent
from tandem.core.history import HistoryFolder, TextUpdate, messages_from_updates
from tandem.core.messages import ChatMessage, ChatUpdate


def text(message_id: str, delta: str, role: str = "assistant") -> ChatUpdate:
    return ChatUpdate(role=role, message_id=message_id, contents=[TextContent(text=delta)])  # type: ignore[arg-type]


def test_a_message_is_complete_and_built_once_the_next_one_starts() -> None:
    folder = HistoryFolder()
    for delta in ("Hel", "lo"):
        folder.add(text("m1", delta))
    assert folder._done == []  # m1 may still grow
    folder.add(text("m2", "Bye"))
    # m1 is built now: its builder and its delta strings are not held until the segment ends.
    assert [m.text for m in folder._done] == ["Hello"]
    folder.add(text("m2", "!"))
    assert [m.text for m in folder.messages()] == ["Hello", "Bye!"]


def test_tool_calls_results_and_text_fold_as_before() -> None:
    updates = [
        text("m1", "Let me "),
        text("m1", "look."),
        ChatUpdate(role="assistant", message_id="m1", contents=[ToolCallContent(call_id="c1", name="search")]),
        ChatUpdate(role="assistant", message_id="m1", contents=[ToolCallContent(call_id="c1", arguments_delta='{"q": ')]),
        ChatUpdate(role="assistant", message_id="m1", contents=[ToolCallContent(call_id="c1", arguments_delta='"x"}')]),
        ChatUpdate(role="tool", contents=[ToolResultContent(call_id="c1", result={"hits": 2})]),
        ChatUpdate(role="tool", contents=[ToolResultContent(call_id="c2", result="two")]),
        text("m2", "Found "),
        text("m2", "two."),
    ]
    messages = messages_from_updates(updates)
    assert [m.role for m in messages] == ["assistant", "tool", "tool", "assistant"]
    first = messages[0]
    assert isinstance(first, ChatMessage) and first.text == "Let me look."
    call = first.contents[1]
    assert isinstance(call, ToolCallContent) and call.name == "search" and call.arguments == {"q": "x"}
    assert [type(part) for part in messages[1].contents] == [ToolResultContent]
    assert messages[3].text == "Found two."


def test_text_updates_fold_as_the_updates_they_stand_for() -> None:
    # What a restore keeps of a segment until the history is read: most updates as `TextUpdate`.
    updates = [
        text("m0", "Question?", role="user"),
        text("m1", "Let me "),
        text("m1", "look."),
        ChatUpdate(role="assistant", message_id="m1", contents=[ToolCallContent(call_id="c1", name="search")]),
        ChatUpdate(role="assistant", message_id="m1", contents=[ToolCallContent(call_id="c1", arguments_delta='{"q": 1}')]),
        text("m1", "And more."),
        ChatUpdate(role="tool", contents=[ToolResultContent(call_id="c1", result={"hits": 2})]),
        text("m2", "Found "),
        ChatUpdate(role="assistant", message_id="m2", author="bob", contents=[TextContent(text="two.")]),
        ChatUpdate(role="assistant", message_id=None, contents=[TextContent(text="No id.")]),
        ChatUpdate(role="tool", message_id="m3", contents=[TextContent(text="A tool's words.")]),
        ChatUpdate(role="assistant", message_id="m4", contents=[TextContent(text="a"), TextContent(text="b")]),
    ]
    kept = [TextUpdate.of(update) for update in updates]
    assert sum(type(k) is TextUpdate for k in kept) == 8  # the one-text-part updates only
    assert kept[8] == TextUpdate("assistant", "m2", "bob", "two.")
    assert messages_from_updates(kept) == messages_from_updates(updates)
    assert [m.text for m in messages_from_updates(kept)] == [
        "Question?", "Let me look.And more.", "", "Found two.No id.", "A tool's words.", "ab"]
