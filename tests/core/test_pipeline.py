"""The pipeline: two-phase routing, the closed set of transitions, ids, unclaimed content, state mappers."""

from __future__ import annotations

import logging

import pytest
from tests.helpers.scripted import Clock, delta, make_agent, snapshot, text, tool_call, tool_result

from tandem.core import (
    PASS,
    Block,
    ChatUpdate,
    Complete,
    Emit,
    ErrorBlock,
    Lifecycle,
    Pipeline,
    StateWrite,
    TextBlock,
    ToolCallBlock,
    UIAgent,
    UnhandledContentBlock,
    Update,
    UpdateContext,
)
from tandem.core.content import (
    A2UIMessageContent,
    ActivityContent,
    ApprovalResponseContent,
    Content,
    DebugContent,
    ErrorContent,
    InputResponseContent,
    TextContent,
    ToolCallContent,
)
from tandem.core.pipeline import Transition
from tandem.core.scripted import ScriptedChatClient


def new_agent(**kwargs: object) -> UIAgent:
    agent = make_agent(ScriptedChatClient([]), clock=Clock(), **kwargs)  # type: ignore[arg-type]
    agent.pipeline.begin_segment("t1", 0)
    return agent


def run(pipeline: Pipeline, *updates: ChatUpdate) -> None:
    for update in updates:
        pipeline.process(update)


class NoteBlock(Block):
    kind = "note"

    def __init__(self, id: str) -> None:
        super().__init__(id)
        self.notes: list[str] = []


class NoteHandler:
    """Claims debug parts labelled "note": "new…" starts a block, anything else goes to an active one."""

    def handle(self, context: UpdateContext, block: Block | None) -> Transition:
        part = context.part
        if not (isinstance(part, DebugContent) and part.label == "note"):
            return PASS
        value = str(part.value)
        if block is not None:
            if not isinstance(block, NoteBlock) or value.startswith("new"):
                return PASS
            block.notes.append(value)
            return Complete() if value == "end" else Update()
        if value.startswith("new"):
            new = NoteBlock(context.block_id(f"note/{value}"))
            new.notes.append(value)
            return Emit(new)
        return PASS


def note(value: str) -> ChatUpdate:
    return ChatUpdate(contents=[DebugContent(label="note", value=value)])


class TestTwoPhaseRouting:
    def test_text_then_tool_then_text_is_three_blocks(self) -> None:
        agent = new_agent()
        run(
            agent.pipeline,
            text("Let me check. "),
            text("One moment."),
            tool_call("c1", "get_weather", delta='{"city": "Oslo"}'),
            tool_call("c1", done=True),
            tool_result("c1", "rain"),
            text("It rains."),
        )
        blocks = agent.pipeline.blocks
        assert [type(b) for b in blocks] == [TextBlock, ToolCallBlock, TextBlock]
        assert blocks[0].text == "Let me check. One moment."  # type: ignore[attr-defined]
        assert blocks[2].text == "It rains."  # type: ignore[attr-defined]
        assert len({b.id for b in blocks}) == 3

    def test_streaming_text_accumulates_in_one_block(self) -> None:
        agent = new_agent()
        added: list[Block] = []
        agent.pipeline.on_block_added(added.append)
        run(agent.pipeline, *(text(token) for token in ["a", "b", "c", "d"]))
        assert len(added) == 1
        assert added[0].text == "abcd"  # type: ignore[attr-defined]

    def test_active_blocks_get_first_refusal_newest_first(self) -> None:
        agent = new_agent()
        agent.pipeline.add_handler(NoteHandler())
        run(agent.pipeline, note("new-1"), note("new-2"), note("x"))
        first, second = agent.pipeline.blocks
        assert first.notes == ["new-1"]  # type: ignore[attr-defined]
        assert second.notes == ["new-2", "x"]  # type: ignore[attr-defined]

    def test_a_completed_block_no_longer_receives_parts(self) -> None:
        agent = new_agent()
        agent.pipeline.add_handler(NoteHandler())
        run(agent.pipeline, note("new-1"), note("new-2"), note("end"), note("y"))
        first, second = agent.pipeline.blocks
        assert second.notes == ["new-2", "end"]  # type: ignore[attr-defined]
        assert second.lifecycle is Lifecycle.INACTIVE
        assert first.notes == ["new-1", "y"]  # type: ignore[attr-defined]

    def test_app_handlers_come_before_builtins_in_registration_order(self) -> None:
        calls: list[str] = []

        class Recorder:
            def __init__(self, name: str, claim: bool) -> None:
                self.name, self.claim = name, claim

            def handle(self, context: UpdateContext, block: Block | None) -> Transition:
                if block is not None:
                    return PASS
                calls.append(self.name)
                if self.claim:
                    return Emit(TextBlock(context.block_id(f"{self.name}/block")))
                return PASS

        agent = new_agent()
        agent.pipeline.add_handler(Recorder("first", claim=False))
        agent.pipeline.add_handler(Recorder("second", claim=True))
        agent.pipeline.add_handler(Recorder("third", claim=True))
        run(agent.pipeline, text("hi"))
        assert calls == ["first", "second"]
        assert [b.id for b in agent.pipeline.blocks] == ["second/block"]

    def test_end_segment_completes_active_blocks_and_returns_interactive_ones(self) -> None:
        agent = new_agent()
        run(agent.pipeline, text("hi"))
        assert agent.pipeline.blocks[0].lifecycle is Lifecycle.ACTIVE
        assert agent.pipeline.end_segment() == []
        assert agent.pipeline.blocks[0].lifecycle is Lifecycle.INACTIVE


class TestBlockIdentity:
    def test_a_block_emitted_without_an_id_is_a_clear_error(self) -> None:
        class Careless:
            def handle(self, context: UpdateContext, block: Block | None) -> Transition:
                return PASS if block is not None else Emit(TextBlock(""))

        agent = new_agent()
        agent.pipeline.add_handler(Careless())
        with pytest.raises(ValueError, match=r"Careless emitted a TextBlock without an id.*block_id\(\)"):
            run(agent.pipeline, text("hi"))
        assert agent.pipeline.blocks == []

    def test_a_handler_returning_something_else_is_a_type_error(self) -> None:
        class Confused:
            def handle(self, context: UpdateContext, block: Block | None) -> Transition:
                return "emit"  # type: ignore[return-value]

        agent = new_agent()
        agent.pipeline.add_handler(Confused())
        with pytest.raises(TypeError, match="not a transition"):
            run(agent.pipeline, text("hi"))

    def test_a_reused_id_is_refused(self) -> None:
        agent = new_agent()
        agent.pipeline.add_block(TextBlock("same"))
        with pytest.raises(ValueError, match="already used"):
            agent.pipeline.add_block(TextBlock("same"))

    def test_unique_ids_are_deterministic(self) -> None:
        agent = new_agent()
        run(agent.pipeline, text("a", message_id=None))
        agent.pipeline.end_segment()
        run(agent.pipeline, text("b", message_id=None))
        agent.pipeline.end_segment()
        run(agent.pipeline, text("c", message_id=None))
        assert [b.id for b in agent.pipeline.blocks] == ["t1.0/text", "t1.0/text~2", "t1.0/text~3"]

    def test_id_less_events_sharing_one_base_cost_linear_lookups(self) -> None:
        # A server sending RUN_ERRORs without message ids gives every error block one base;
        # counting the `~N` suffix from 2 each time was quadratic (100,000 events: minutes).
        class CountingIds(dict):
            lookups = 0

            def __contains__(self, key: object) -> bool:
                CountingIds.lookups += 1
                return super().__contains__(key)

        agent = new_agent()
        agent.pipeline.by_id = CountingIds()
        count = 2000
        run(agent.pipeline, *(ChatUpdate(contents=[ErrorContent(message=f"error {i}")]) for i in range(count)))
        ids = [b.id for b in agent.pipeline.blocks]
        assert ids[:3] == ["error/t1.0", "error/t1.0~2", "error/t1.0~3"] and ids[-1] == f"error/t1.0~{count}"
        assert CountingIds.lookups < 5 * count

    def test_distinct_activities_are_not_offered_every_later_part(self) -> None:
        # 20,000 STEP_STARTED/FINISHED pairs in one segment never finished: each new step was
        # offered to every step before it (phase 1), all still active until the segment's end.
        agent = new_agent()
        [handler] = [h for h in agent.pipeline.handlers if type(h).__name__ == "ActivityHandler"]
        calls = 0
        handle = handler.handle

        def counted(context: UpdateContext, block: Block | None) -> Transition:
            nonlocal calls
            calls += 1
            return handle(context, block)

        handler.handle = counted  # type: ignore[method-assign]
        count = 500

        def step(i: int, status: str) -> ChatUpdate:
            return ChatUpdate(contents=[ActivityContent(activity_id=f"step:{i}", activity_type="step",
                                                        content={"name": f"s{i}", "status": status})])

        run(agent.pipeline, *(u for i in range(count) for u in (step(i, "running"), step(i, "finished"))))
        assert calls <= 2 * count
        steps = [b for b in agent.pipeline.blocks if b.kind == "activity"]
        assert len(steps) == count and all(b.value["status"] == "finished" for b in steps)
        assert all(b.lifecycle is Lifecycle.ACTIVE for b in steps)  # open until the segment ends
        agent.pipeline.end_segment()
        assert all(b.lifecycle is Lifecycle.INACTIVE for b in steps)

    def test_emitted_blocks_join_the_conversation(self) -> None:
        agent = new_agent()
        run(agent.pipeline, text("hi"))
        block = agent.pipeline.blocks[0]
        assert block.lifecycle is Lifecycle.ACTIVE
        assert block.env is agent.env
        assert block.turn_id == "t1"
        assert agent.pipeline.by_id[block.id] is block


class TestUnclaimedContent:
    @pytest.mark.parametrize(
        "part",
        [
            ApprovalResponseContent(request_id="r1", approved=True),
            InputResponseContent(request_id="r2", payload={"x": 1}),
            A2UIMessageContent(surface_id="s1", message={"createSurface": {"surfaceId": "s1"}}),
        ],
        ids=["approval-response", "input-response", "a2ui-message"],
    )
    def test_unclaimed_content_becomes_a_visible_block_and_a_warning(
        self, part: Content, caplog: pytest.LogCaptureFixture
    ) -> None:
        agent = new_agent()
        with caplog.at_level(logging.WARNING, logger="tandem.core.pipeline"):
            run(agent.pipeline, ChatUpdate(message_id="m9", contents=[part]))
        (block,) = agent.pipeline.blocks
        assert isinstance(block, UnhandledContentBlock)
        assert block.lifecycle is Lifecycle.INACTIVE
        assert block.content_kind == part.kind
        assert block.value == part.model_dump(mode="json")
        assert any(f"no handler claimed a {part.kind} part" in r.getMessage() for r in caplog.records)

    def test_a_result_for_an_unknown_call_is_kept_visible(self, caplog: pytest.LogCaptureFixture) -> None:
        agent = new_agent()
        with caplog.at_level(logging.WARNING, logger="tandem.core.pipeline"):
            run(agent.pipeline, tool_result("ghost", {"ok": True}))
        (block,) = agent.pipeline.blocks
        assert isinstance(block, UnhandledContentBlock)
        assert block.content_kind == "tool_result"
        assert block.value["result"] == {"ok": True}  # type: ignore[index]
        assert "no handler claimed a tool_result part" in caplog.text


class TestStateMapper:
    def test_a_mapper_claims_parts_before_block_mapping(self) -> None:
        def title_predictions(update: ChatUpdate, part: Content) -> StateWrite | None:
            if isinstance(part, ToolCallContent) and part.name == "set_title" and part.arguments is not None:
                return StateWrite([{"op": "add", "path": "/title", "value": part.arguments["title"]}], "p-title")
            return None

        agent = new_agent(state=None)
        agent.state.apply_snapshot({"title": "Draft"})
        agent.pipeline.add_state_mapper(title_predictions)
        run(agent.pipeline, tool_call("c1", "set_title", arguments={"title": "Final"}), text("Renamed."))
        assert [b.kind for b in agent.pipeline.blocks] == ["text"]
        assert agent.state.committed == {"title": "Draft"}
        assert agent.state.value == {"title": "Final"}
        assert agent.state.proposals == ["p-title"]

    def test_a_mapper_that_declines_leaves_the_part_to_the_blocks(self) -> None:
        agent = new_agent()
        agent.pipeline.add_state_mapper(lambda update, part: None)
        run(agent.pipeline, text("hello"))
        assert [b.kind for b in agent.pipeline.blocks] == ["text"]

    def test_state_parts_are_claimed_by_default_and_make_no_block(self) -> None:
        agent = new_agent()
        run(agent.pipeline, snapshot({}), delta([{"op": "add", "path": "/n", "value": 1}]))
        assert agent.state.committed == {"n": 1}
        assert agent.pipeline.blocks == []

    def test_a_failing_patch_is_a_divergence_with_an_error_block(self) -> None:
        agent = new_agent()
        agent.state.apply_snapshot({"items": ["a"]})
        run(agent.pipeline, delta([{"op": "remove", "path": "/missing"}]))
        assert agent.state.committed == {"items": ["a"]}
        assert agent.state.diverged
        (block,) = agent.pipeline.blocks
        assert isinstance(block, ErrorBlock)
        assert block.code == "state_divergence"
        assert "not applied" in block.message


def test_text_parts_of_one_update_route_one_by_one() -> None:
    agent = new_agent()
    run(agent.pipeline, ChatUpdate(message_id="m1", contents=[TextContent(text="a"), TextContent(text="b")]))
    (block,) = agent.pipeline.blocks
    assert block.text == "ab"  # type: ignore[attr-defined]
