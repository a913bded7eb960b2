"""The built-in handlers: one per content kind the runtime understands."""

from __future__ import annotations

from tests.helpers.scripted import Clock, approval, interrupt, make_agent, text, tool_call, tool_result

from tandem.core import (
    ActivityBlock,
    ApprovalBlock,
    ChatUpdate,
    ErrorBlock,
    InterruptBlock,
    Lifecycle,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolStatus,
    UIActionBlock,
    UIAgent,
)
from tandem.core.content import (
    DEBUG_VALUES_KEPT,
    ActivityContent,
    DebugContent,
    ErrorContent,
    FinishContent,
    ReasoningContent,
    TextContent,
    ToolCallContent,
)
from tandem.core.handlers import DebugBlock
from tandem.core.scripted import ScriptedChatClient


def new_agent(**kwargs: object) -> UIAgent:
    agent = make_agent(ScriptedChatClient([]), clock=Clock(), **kwargs)  # type: ignore[arg-type]
    agent.pipeline.begin_segment("t1", 0)
    return agent


def feed(agent: UIAgent, *updates: ChatUpdate) -> None:
    for update in updates:
        agent.pipeline.process(update)


class TestText:
    def test_a_new_message_id_starts_a_new_block(self) -> None:
        agent = new_agent()
        feed(agent, text("one", message_id="m1"), text("two", message_id="m2"))
        assert [b.text for b in agent.pipeline.blocks] == ["one", "two"]  # type: ignore[attr-defined]
        assert [b.id for b in agent.pipeline.blocks] == ["m1/text", "m2/text"]

    def test_the_block_carries_role_author_and_message(self) -> None:
        agent = new_agent()
        feed(agent, ChatUpdate(role="assistant", message_id="m1", author="planner", contents=[]))
        feed(agent, text("hi").model_copy(update={"author": "planner"}))
        (block,) = agent.pipeline.blocks
        assert (block.role, block.author, block.message_id) == ("assistant", "planner", "m1")

    def test_the_person_has_one_label_live_and_echoed(self) -> None:
        from tandem.core.messages import ChatMessage

        agent = new_agent()
        live = agent.pipeline.add_user_message(ChatMessage.user("hi"), "t1", 0)
        # The server's echo of the same message (MESSAGES_SNAPSHOT), with no author of its own.
        feed(agent, ChatUpdate(role="user", message_id="srv-1", contents=[TextContent(text="hi")]), text("hello", message_id="m1"))
        echo, answer = agent.pipeline.blocks[1:]
        assert (live.speaker, echo.speaker, answer.speaker) == ("ada", "ada", "assistant")
        named = TextBlock("x", role="user", author="bob")
        assert named.speaker == "bob"

    def test_reasoning_and_text_are_separate_blocks(self) -> None:
        agent = new_agent()
        feed(
            agent,
            ChatUpdate(message_id="m1", contents=[ReasoningContent(text="thinking ")]),
            ChatUpdate(message_id="m1", contents=[ReasoningContent(text="hard", encrypted_value="opaque")]),
            text("answer"),
        )
        reasoning, answer = agent.pipeline.blocks
        assert isinstance(reasoning, ReasoningBlock)
        assert reasoning.text == "thinking hard"
        assert reasoning.encrypted_values == ["opaque"]
        assert "opaque" not in str(reasoning.content())
        assert isinstance(answer, TextBlock) and answer.text == "answer"


class TestToolCalls:
    def test_status_goes_streaming_then_running_then_succeeded(self) -> None:
        agent = new_agent()
        statuses: list[ToolStatus] = []
        feed(agent, tool_call("c1", "get_weather", delta='{"ci'))
        (block,) = agent.pipeline.blocks
        assert isinstance(block, ToolCallBlock)
        block.on_changed(lambda b: statuses.append(b.status))  # type: ignore[attr-defined]
        feed(agent, tool_call("c1", delta='ty": "Oslo"}'), tool_call("c1", done=True), tool_result("c1", "rain"))
        assert statuses[0] is ToolStatus.STREAMING_ARGUMENTS
        assert ToolStatus.RUNNING in statuses
        assert block.status is ToolStatus.SUCCEEDED
        assert block.arguments == {"city": "Oslo"}
        assert block.result == "rain"
        assert block.lifecycle is Lifecycle.INACTIVE

    def test_a_result_with_an_error_fails_the_call(self) -> None:
        agent = new_agent()
        feed(agent, tool_call("c1", "get_weather", arguments={}), tool_result("c1", error="no such city"))
        (block,) = agent.pipeline.blocks
        assert block.status is ToolStatus.FAILED  # type: ignore[attr-defined]
        assert block.error == "no such city"  # type: ignore[attr-defined]

    def test_unparseable_arguments_are_reported_not_raised(self) -> None:
        agent = new_agent()
        feed(agent, tool_call("c1", "get_weather", delta="{not json"), tool_call("c1", done=True))
        (block,) = agent.pipeline.blocks
        assert block.arguments == {}  # type: ignore[attr-defined]
        assert "not a JSON object" in (block.arguments_error or "")  # type: ignore[attr-defined]

    def test_a_result_in_a_later_segment_finds_its_call(self) -> None:
        agent = new_agent()
        feed(agent, tool_call("c1", "search", arguments={"q": "x"}))
        agent.pipeline.end_segment()
        agent.pipeline.begin_segment("t1", 1)
        feed(agent, tool_result("c1", ["hit"]))
        (block,) = agent.pipeline.blocks
        assert block.status is ToolStatus.SUCCEEDED  # type: ignore[attr-defined]
        assert block.result == ["hit"]  # type: ignore[attr-defined]

    def test_informational_calls_are_shown_not_run(self) -> None:
        ran: list[dict] = []
        agent = new_agent(ui_actions={"highlight": lambda args: ran.append(args)})
        feed(agent, tool_call("c1", "highlight", arguments={"id": 1}, informational_only=True))
        (block,) = agent.pipeline.blocks
        assert type(block) is ToolCallBlock
        assert block.informational_only
        assert ran == []


class TestCallIdsUsedAgain:
    """The module docstring's rule: a start under the id of a settled card is another call."""

    @staticmethod
    def next_turn(agent: UIAgent, turn: str) -> None:
        agent.pipeline.end_segment()
        agent.pipeline.begin_segment(turn, 0)

    def cards(self, agent: UIAgent) -> list[tuple[str, object]]:
        return [(b.id, b.result) for b in agent.pipeline.blocks if isinstance(b, ToolCallBlock)]

    def test_an_answered_id_started_in_a_later_turn_is_a_new_card_and_takes_its_result(self) -> None:
        agent = new_agent()
        feed(agent, tool_call("c1", "lookup"), tool_call("c1", delta='{"q": "a"}', done=True), tool_result("c1", "A"))
        self.next_turn(agent, "t2")
        feed(agent, tool_call("c1", "lookup"), tool_call("c1", delta='{"q": "b"}', done=True))
        self.next_turn(agent, "t2")  # the result in the next segment goes to the newest card
        feed(agent, tool_result("c1", "B"))
        assert self.cards(agent) == [("tool/c1", "A"), ("tool/c1~2", "B")]
        assert agent.pipeline.newest("tool/c1") is agent.pipeline.by_id["tool/c1~2"]

    def test_what_is_the_same_call_again_keeps_one_card(self) -> None:
        agent = new_agent()
        feed(agent, tool_call("c1", "lookup"))
        self.next_turn(agent, "t1")
        feed(agent, tool_call("c1", "lookup"))  # no result yet: a resumed run streams it again
        feed(agent, tool_result("c1", "A"))
        self.next_turn(agent, "t1")
        feed(agent, tool_call("c1", "lookup"))  # answered, of this turn, the same tool: a re-send
        self.next_turn(agent, "t2")
        feed(agent, tool_call("c1", "lookup", arguments={}, done=True))  # a whole call: a snapshot's
        feed(agent, ChatUpdate(contents=[ToolCallContent(call_id="c1", name="lookup", encrypted_value="x")]))
        assert self.cards(agent) == [("tool/c1", "A")]

    def test_another_tool_under_the_id_in_the_same_turn_is_a_new_card(self) -> None:
        agent = new_agent()
        feed(agent, tool_call("c1", "lookup"), tool_result("c1", "A"), tool_call("c1", "get_time"))
        assert [(b.id, b.name) for b in agent.pipeline.blocks] == [("tool/c1", "lookup"), ("tool/c1~2", "get_time")]  # type: ignore[attr-defined]

    def test_a_decided_ui_action_started_in_a_later_turn_is_a_new_action(self) -> None:
        agent = new_agent(ui_actions={"set_theme": lambda args: "ok"})
        feed(agent, tool_call("a1", "set_theme", arguments={"theme": "dark"}, done=True))
        (first,) = agent.pipeline.blocks
        assert isinstance(first, UIActionBlock) and first.decline()
        self.next_turn(agent, "t2")
        feed(agent, tool_call("a1", "set_theme"), tool_result("a1", "echo"))
        assert [b.id for b in agent.pipeline.blocks] == ["action/a1", "action/a1~2"]
        assert (first.echoed_result, agent.pipeline.by_id["action/a1~2"].echoed_result) == (None, "echo")  # type: ignore[attr-defined]


class TestUIActions:
    def test_calls_to_registered_actions_become_ui_action_blocks(self) -> None:
        agent = new_agent(ui_actions={"highlight": lambda args: None})
        feed(agent, tool_call("c1", "highlight", delta='{"row": 3}'), tool_call("c1", done=True))
        (block,) = agent.pipeline.blocks
        assert isinstance(block, UIActionBlock)
        assert block.id == "action/c1"
        assert block.arguments == {"row": 3}
        assert block.actionable

    async def test_a_result_echoed_for_an_action_is_its_own_not_unhandled(self) -> None:
        runs: list[dict] = []
        agent = new_agent(ui_actions={"highlight": lambda args: runs.append(args) or {"done": True}})
        feed(agent, tool_call("c1", "highlight", arguments={"row": 3}, done=True))
        (block,) = agent.pipeline.blocks
        assert isinstance(block, UIActionBlock)
        await block.invoke()
        agent.pipeline.end_segment()
        agent.pipeline.begin_segment("t1", 1)
        # The server echoes the result the client sent, in the next segment (TOOL_CALL_RESULT or a
        # snapshot's tool message): the action's card takes it; nothing runs again.
        feed(agent, tool_result("c1", '{"done": true}'))
        assert agent.pipeline.blocks == [block]
        assert block.echoed_result == '{"done": true}' and runs == [{"row": 3}]
        assert block.decision is not None and block.decision.outcome == "completed"

    def test_a_result_for_an_active_action_is_taken_by_it(self) -> None:
        agent = new_agent(ui_actions={"highlight": lambda args: None})
        feed(agent, tool_call("c1", "highlight", arguments={"row": 3}, done=True), tool_result("c1", error="boom"))
        (block,) = agent.pipeline.blocks
        assert isinstance(block, UIActionBlock) and block.echoed_error == "boom"
        assert block.decision is None and block.actionable  # the server's report never decides for the person

    def test_a_result_for_an_unknown_call_is_still_kept_visible(self) -> None:
        agent = new_agent(ui_actions={"highlight": lambda args: None})
        feed(agent, tool_result("c9", "orphan"))
        (block,) = agent.pipeline.blocks
        assert block.kind == "unhandled"

    def test_an_action_is_not_actionable_while_its_arguments_stream(self) -> None:
        agent = new_agent(ui_actions={"highlight": lambda args: None})
        feed(agent, tool_call("c1", "highlight", delta='{"row"'))
        (block,) = agent.pipeline.blocks
        assert isinstance(block, UIActionBlock)
        assert not block.actionable

    def test_only_declarations_reach_the_model(self) -> None:
        agent = new_agent(ui_actions={"highlight": lambda args: None})
        (declaration,) = agent.options("conv").tools
        assert declaration.name == "highlight"
        assert declaration.description == "the highlight action"


class TestApprovalsAndInterrupts:
    def test_an_approval_is_linked_to_its_tool_call(self) -> None:
        agent = new_agent()
        feed(agent, tool_call("c1", "delete_file", arguments={"path": "/tmp/x"}), approval("r1", call_id="c1"))
        tool, request = agent.pipeline.blocks
        assert isinstance(request, ApprovalBlock)
        assert request.tool_block is tool
        assert request.id == "approval/r1"
        request.reject(reason="no")
        assert tool.status is ToolStatus.DENIED  # type: ignore[attr-defined]

    def test_an_input_request_becomes_an_interrupt_block(self) -> None:
        agent = new_agent()
        schema = {"type": "object", "properties": {"name": {"type": "string"}}}
        feed(agent, interrupt("q1", schema=schema, message="Your name?", reason="missing_name"))
        (block,) = agent.pipeline.blocks
        assert isinstance(block, InterruptBlock)
        assert (block.id, block.reason, block.message, block.response_schema) == (
            "interrupt/q1",
            "missing_name",
            "Your name?",
            schema,
        )


class TestActivityErrorsDebugFinish:
    def test_an_activity_is_one_block_patched_across_segments(self) -> None:
        agent = new_agent()
        feed(agent, ChatUpdate(contents=[ActivityContent(activity_id="plan", activity_type="PLAN", content={"steps": ["a"]})]))
        agent.pipeline.end_segment()
        agent.pipeline.begin_segment("t1", 1)
        patch = [{"op": "add", "path": "/steps/-", "value": "b"}]
        feed(agent, ChatUpdate(contents=[ActivityContent(activity_id="plan", activity_type="PLAN", patch=patch)]))
        (block,) = agent.pipeline.blocks
        assert isinstance(block, ActivityBlock)
        assert block.value == {"steps": ["a", "b"]}

    def test_a_failing_activity_patch_is_kept_as_an_error(self) -> None:
        agent = new_agent()
        bad = [{"op": "remove", "path": "/nope"}]
        feed(
            agent,
            ChatUpdate(contents=[ActivityContent(activity_id="p", activity_type="PLAN", content={"a": 1})]),
            ChatUpdate(contents=[ActivityContent(activity_id="p", activity_type="PLAN", patch=bad)]),
        )
        (block,) = agent.pipeline.blocks
        assert block.value == {"a": 1}  # type: ignore[attr-defined]
        assert "activity patch failed" in (block.error or "")  # type: ignore[attr-defined]

    def test_an_error_part_becomes_an_error_block(self) -> None:
        agent = new_agent()
        feed(agent, ChatUpdate(message_id="m1", contents=[ErrorContent(message="quota exceeded", code="429")]))
        (block,) = agent.pipeline.blocks
        assert isinstance(block, ErrorBlock)
        assert (block.message, block.code) == ("quota exceeded", "429")

    def test_debug_parts_are_kept_as_completed_debug_blocks(self) -> None:
        agent = new_agent()
        feed(agent, ChatUpdate(message_id="m1", contents=[DebugContent(label="CUSTOM", value={"x": 1})]))
        (block,) = agent.pipeline.blocks
        assert isinstance(block, DebugBlock)
        assert block.lifecycle is Lifecycle.INACTIVE
        assert block.content() == {"label": "CUSTOM", "value": {"x": 1}, "count": 1, "values": [{"x": 1}]}

    def test_a_segments_debug_parts_of_one_label_are_one_block_keeping_the_latest_values(self) -> None:
        # ag-ui-langgraph on its defaults: a RAW event beside every token.
        agent = new_agent()
        for n in range(DEBUG_VALUES_KEPT + 5):
            feed(agent, ChatUpdate(contents=[DebugContent(label="raw", value={"n": n})]),
                 text(f"w{n} "), ChatUpdate(contents=[DebugContent(label="custom tick", value=n)]))
        raw, said, tick = agent.pipeline.blocks
        assert isinstance(raw, DebugBlock) and isinstance(tick, DebugBlock) and isinstance(said, TextBlock)
        assert said.text == "".join(f"w{n} " for n in range(DEBUG_VALUES_KEPT + 5))  # one text block, whole
        assert raw.count == DEBUG_VALUES_KEPT + 5 and tick.count == DEBUG_VALUES_KEPT + 5
        assert raw.values == [{"n": n} for n in range(5, DEBUG_VALUES_KEPT + 5)]
        assert raw.value == {"n": DEBUG_VALUES_KEPT + 4}
        agent.pipeline.end_segment()
        agent.pipeline.begin_segment("t1", 1)
        feed(agent, ChatUpdate(contents=[DebugContent(label="raw", value="next")]))
        assert agent.pipeline.blocks[-1].content() == {"label": "raw", "value": "next", "count": 1, "values": ["next"]}

    def test_a_finish_part_makes_no_block(self) -> None:
        agent = new_agent()
        feed(agent, text("done"), ChatUpdate(contents=[FinishContent(reason="stop")]))
        assert [b.kind for b in agent.pipeline.blocks] == ["text"]


class TestParseArguments:
    """One parser for streamed arguments; each caller keeps its own policy for bad text."""

    def test_objects_empty_text_and_what_is_not_an_object(self) -> None:
        from tandem.core.tool_arguments import parse_arguments

        assert parse_arguments(' {"a": 1} ').value == {"a": 1}
        assert parse_arguments("  ").value == {} and parse_arguments("").error is None
        not_json = parse_arguments("{oops")
        assert not_json.value is None and (not_json.error or "").startswith("not JSON")
        assert not_json.preserved() == {"_unparsed_arguments": "{oops"}
        for raw, held in (("[1, 2]", [1, 2]), ("null", None), ("3", 3)):
            parsed = parse_arguments(raw)
            assert parsed.value is None and "not a JSON object" in (parsed.error or "")
            assert parsed.preserved() == {"_value": held}
