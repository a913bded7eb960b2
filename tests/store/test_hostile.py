"""Hostile content in the log: escape sequences and huge strings round-trip and restore safely."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import TypeAdapter

from tandem.core import ChatUpdate, TextBlock, ToolCallBlock, UIAgent, restore
from tandem.core.content import StateSnapshotContent, TextContent, ToolCallContent, ToolResultContent
from tandem.core.export import to_jsonl, to_markdown
from tandem.core.log_entries import LogEntry, SegmentEnded, SegmentStarted, TurnEnded, TurnStarted, UpdateLogged
from tandem.core.messages import ChatMessage
from tandem.core.scripted import ScriptedChatClient
from tandem.core.state.agent_state import AgentState
from tandem.core.store import ThreadStore

EVIL = "\x1b[2J\x1b]0;pwned\x07\x1b]8;;http://evil.example\x1b\\link\x1b]8;;\x1b\\\x9b31m\x00\r\x7f[@click=app.quit]"
HUGE = "A" * (5 * 1024 * 1024)
CONTROL_BYTES = [b"\x1b", b"\x07", b"\x00", b"\x7f", "\x9b".encode()]


def hostile_log() -> list[LogEntry]:
    def upd(*parts: object, role: str = "assistant") -> UpdateLogged:
        return UpdateLogged(turn_id="t1", update=ChatUpdate(role=role, message_id="m1", contents=list(parts),  # type: ignore[arg-type]
                                                            raw={"type": "CUSTOM", "value": EVIL}))

    return [
        TurnStarted(turn_id="t1", messages=[ChatMessage.user(EVIL + " title")], at=1.0),
        SegmentStarted(turn_id="t1", index=0, continuation=[ChatMessage.user(EVIL + " title")]),
        upd(TextContent(text=EVIL)),
        upd(TextContent(text=HUGE)),
        upd(ToolCallContent(call_id=EVIL, name=EVIL, arguments={EVIL: EVIL, "big": HUGE}, done=True)),
        upd(ToolResultContent(call_id=EVIL, result={"ok": EVIL}), role="tool"),
        upd(StateSnapshotContent(snapshot={EVIL: HUGE, "k": EVIL})),
        SegmentEnded(turn_id="t1", index=0, outcome="completed"),
        TurnEnded(turn_id="t1", status="completed"),
    ]


async def test_round_trip_and_restore(db_path: Path) -> None:
    entries = hostile_log()
    with ThreadStore(db_path) as store:
        with store.create() as thread:
            for entry in entries:
                thread.append(entry)
            thread.commit()
            thread_id = thread.thread_id
        assert store.read(thread_id) == entries  # byte for byte, 5 MB strings included
        info = store.info(thread_id)
        assert info.title is not None and info.title.startswith("[2J")
        assert not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in info.title)
        with store.open(thread_id) as thread:
            agent = UIAgent(ScriptedChatClient([]), state=AgentState({}))
            context = await restore(agent, thread)
            texts = [b for b in context.blocks if isinstance(b, TextBlock) and b.role == "assistant"]
            # Core keeps agent text as data; the widgets' sanitiser removes the controls on display.
            assert "".join(b.text for b in texts) == EVIL + HUGE
            [call] = [b for b in context.blocks if isinstance(b, ToolCallBlock)]
            assert call.name == EVIL and call.arguments == {EVIL: EVIL, "big": HUGE}
            assert agent.state.committed == {EVIL: HUGE, "k": EVIL}


def test_exports_are_terminal_safe_and_lossless() -> None:
    entries = hostile_log()
    markdown = to_markdown(entries).encode()
    for control in CONTROL_BYTES:
        assert control not in markdown
    assert b"\r" not in markdown
    assert HUGE.encode() in markdown  # sanitise nothing away
    lines = list(to_jsonl(entries))
    blob = "".join(lines).encode()
    for control in CONTROL_BYTES:
        assert control not in blob
    adapter = TypeAdapter(LogEntry)
    assert [adapter.validate_json(line) for line in lines] == entries
    assert all(json.loads(line) for line in lines) and all(line.count("\n") == 1 for line in lines)
