"""`tandem ask`'s plain output: steps and subagents are progress lines, not JSON (issue 11)."""

from __future__ import annotations

import io

from tandem.core import AgentContext, BlockEnv, ChatUpdate, InMemoryThread, UIAgent
from tandem.core.content import ActivityContent, FinishContent, TextContent
from tandem.core.scripted import ScriptedChatClient
from tandem.tui.cli.ask_output import PlainPrinter


def activity(kind: str, run_id: str, content: dict[str, object], replace: bool = True) -> ChatUpdate:
    return ChatUpdate(contents=[ActivityContent(activity_id=f"{kind}:{run_id}", activity_type=kind, content=content,
                                                replace=replace)])


async def test_steps_and_subagents_print_as_one_line_each() -> None:
    segment = [
        activity("step", "plan", {"name": "plan", "status": "running"}),
        activity("subagent", "s1", {"name": "critic", "status": "running", "description": "reviews"}),
        activity("subagent", "s1", {"status": "error", "message": "rate limited"}, replace=False),
        activity("step", "plan", {"name": "plan", "status": "finished"}),
        activity("plan", "p", {"title": "Trip", "steps": ["pack"]}),
        ChatUpdate(message_id="m1", contents=[TextContent(text="Done.")]),
        ChatUpdate(contents=[FinishContent()]),
    ]
    context = AgentContext(UIAgent(ScriptedChatClient([segment]), env=BlockEnv(user="ada")), thread=InMemoryThread("t"))
    out = io.StringIO()
    printer = PlainPrinter(out)
    printer.attach(context)
    turn = await context.send("go")
    await turn.wait()
    printer.finish(context, turn)
    printer.close()
    lines = out.getvalue().splitlines()
    assert "[step] plan" in lines
    assert "[subagent] critic — reviews (error): rate limited" in lines
    assert not any(line.startswith("[activity] step") or line.startswith("[activity] subagent") for line in lines)
    assert any(line.startswith("[activity] plan: ") for line in lines)  # other activities keep their JSON
