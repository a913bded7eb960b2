"""Shared state: committed value, proposals, RFC 6902 deltas, divergence, conflicts and rollback."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from tests.helpers.scripted import Clock, Conversation, delta, finish, interrupt, reach, reached, snapshot, text
from pydantic import BaseModel

from tandem.core import AgentState, BlockEnv, Conflict, ErrorBlock, Status, TurnStatus
from tandem.core.errors import PatchError, TransportError
from tandem.core.log_entries import HumanWrite


def logged_state(value: Any = None, **kwargs: Any) -> tuple[AgentState, list[HumanWrite]]:
    writes: list[HumanWrite] = []
    state = AgentState(value, **kwargs)
    state.env = BlockEnv(user="ada", clock=Clock(), record=writes.append)
    return state, writes


class TestAgentWrites:
    def test_a_snapshot_replaces_the_state(self) -> None:
        state = AgentState({"a": 1, "b": 2})
        state.apply_snapshot({"c": 3})
        assert state.committed == {"c": 3}
        assert state.value == {"c": 3}

    @pytest.mark.parametrize(
        "operation, expected",
        [
            ({"op": "add", "path": "/tags/-", "value": "new"}, {"title": "T", "tags": ["x", "new"], "n": 1}),
            ({"op": "remove", "path": "/n"}, {"title": "T", "tags": ["x"]}),
            ({"op": "replace", "path": "/title", "value": "U"}, {"title": "U", "tags": ["x"], "n": 1}),
            ({"op": "move", "from": "/n", "path": "/count"}, {"title": "T", "tags": ["x"], "count": 1}),
            ({"op": "copy", "from": "/title", "path": "/heading"}, {"title": "T", "tags": ["x"], "n": 1, "heading": "T"}),
            ({"op": "test", "path": "/n", "value": 1}, {"title": "T", "tags": ["x"], "n": 1}),
        ],
        ids=lambda v: v["op"] if isinstance(v, dict) and "op" in v else "",
    )
    def test_every_rfc6902_operation_applies(self, operation: dict, expected: dict) -> None:
        state = AgentState({"title": "T", "tags": ["x"], "n": 1})
        state.apply_delta([operation])
        assert state.committed == expected
        assert not state.diverged

    @pytest.mark.parametrize(
        "patch",
        [
            [{"op": "remove", "path": "/missing"}],
            [{"op": "test", "path": "/n", "value": 2}],
            [{"op": "replace", "path": "/n", "value": 5}, {"op": "remove", "path": "/missing"}],
            [{"op": "add", "path": "/tags/9", "value": "far"}],
            [{"op": "frobnicate", "path": "/n"}],
        ],
        ids=["remove-missing", "failed-test", "second-op-fails", "index-out-of-range", "unknown-op"],
    )
    def test_a_failing_patch_changes_nothing_and_diverges(self, patch: list[dict]) -> None:
        state = AgentState({"title": "T", "tags": ["x"], "n": 1})
        notified: list[bool] = []
        state.on_changed(lambda s: notified.append(s.diverged))
        with pytest.raises(PatchError, match="not applied"):
            state.apply_delta(patch)
        assert state.committed == {"title": "T", "tags": ["x"], "n": 1}
        assert state.diverged and state.divergence
        assert notified and notified[-1] is True

    def test_a_fresh_snapshot_clears_a_divergence(self) -> None:
        state = AgentState({"n": 1})
        with pytest.raises(PatchError):
            state.apply_delta([{"op": "remove", "path": "/missing"}])
        state.apply_snapshot({"n": 2})
        assert not state.diverged and state.divergence is None

    def test_an_agent_write_that_breaks_the_model_is_refused(self) -> None:
        class Doc(BaseModel):
            title: str

        state = AgentState({"title": "T"}, model=Doc)
        with pytest.raises(PatchError, match="does not match the state model"):
            state.apply_delta([{"op": "replace", "path": "/title", "value": 3}])
        assert state.committed == {"title": "T"}
        assert state.diverged
        assert state.typed() == Doc(title="T")

    def test_a_human_edit_that_breaks_the_model_is_refused_without_divergence(self) -> None:
        class Doc(BaseModel):
            title: str

        state = AgentState({"title": "T"}, model=Doc)
        with pytest.raises(PatchError):
            state.set("/title", 3)
        assert state.committed == {"title": "T"}
        assert not state.diverged


class TestProposals:
    def test_a_proposal_is_shown_but_not_committed(self) -> None:
        state = AgentState({"title": "Draft", "body": "x"})
        state.apply_delta([{"op": "replace", "path": "/title", "value": "Final"}], proposal_id="p1")
        state.apply_delta([{"op": "add", "path": "/tags", "value": ["a"]}], proposal_id="p1")
        assert state.committed == {"title": "Draft", "body": "x"}
        assert state.value == {"title": "Final", "body": "x", "tags": ["a"]}
        assert state.proposals == ["p1"]
        assert sorted(op["path"] for op in state.proposal_diff("p1")) == ["/tags", "/title"]

    def test_accept_commits_and_is_logged(self) -> None:
        state, writes = logged_state({"title": "Draft"})
        state.apply_snapshot({"title": "Final"}, proposal_id="p1")
        state.accept("p1", who="ada")
        assert state.committed == {"title": "Final"}
        assert state.proposals == []
        assert [(w.kind, w.target, w.who) for w in writes] == [("proposal_accept", "p1", "ada")]

    def test_reject_restores_the_baseline_and_is_logged(self) -> None:
        state, writes = logged_state({"title": "Draft"})
        state.apply_snapshot({"title": "Final"}, proposal_id="p1")
        state.reject("p1")
        assert state.value == {"title": "Draft"}
        assert state.proposals == []
        assert [(w.kind, w.target) for w in writes] == [("proposal_reject", "p1")]

    def test_a_proposal_that_does_not_apply_is_not_kept(self) -> None:
        state = AgentState({"title": "Draft"})
        with pytest.raises(PatchError):
            state.apply_delta([{"op": "remove", "path": "/missing"}], proposal_id="p1")
        assert state.proposals == []
        assert state.value == {"title": "Draft"}

    def test_a_committed_write_ends_the_proposal_over_its_field(self) -> None:
        state = AgentState({"title": "Draft", "body": "x"})
        state.apply_delta([{"op": "replace", "path": "/title", "value": "Guess"}], proposal_id="p-title")
        state.apply_delta([{"op": "replace", "path": "/body", "value": "y"}], proposal_id="p-body")
        state.apply_delta([{"op": "replace", "path": "/title", "value": "Real"}])
        assert state.proposals == ["p-body"]
        assert state.committed == {"title": "Real", "body": "x"}
        assert state.value == {"title": "Real", "body": "y"}

    def test_a_committed_snapshot_ends_every_proposal(self) -> None:
        state = AgentState({"title": "Draft"})
        state.apply_delta([{"op": "replace", "path": "/title", "value": "Guess"}], proposal_id="p1")
        state.apply_snapshot({"title": "Real"})
        assert state.proposals == []
        assert state.value == {"title": "Real"}

    def test_a_committed_write_elsewhere_leaves_the_proposal(self) -> None:
        state = AgentState({"title": "Draft", "n": 1})
        state.apply_delta([{"op": "replace", "path": "/title", "value": "Guess"}], proposal_id="p1")
        state.apply_delta([{"op": "replace", "path": "/n", "value": 2}])
        assert state.proposals == ["p1"]
        assert state.value == {"title": "Guess", "n": 2}


class TestHumanEdits:
    def test_a_human_edit_commits_at_once_and_is_logged(self) -> None:
        state, writes = logged_state({"title": "Draft"})
        assert state.set("/title", "Mine", who="ada") == []
        assert state.committed == {"title": "Mine"}
        assert [(w.kind, w.payload) for w in writes] == [
            ("state_edit", {"patch": [{"op": "add", "path": "/title", "value": "Mine"}]})
        ]

    def test_an_edit_of_a_field_with_a_pending_proposal_is_a_conflict(self) -> None:
        state = AgentState({"title": "Draft", "body": "x"})
        state.apply_delta([{"op": "replace", "path": "/title", "value": "Agent's"}], proposal_id="p1")
        conflicts = state.set("/title", "Mine")
        assert conflicts == [Conflict(path="/title", proposal_id="p1", human_value="Mine", agent_value="Agent's")]
        assert state.conflicts == conflicts
        assert state.committed["title"] == "Mine"
        assert state.proposals == ["p1"]

    def test_an_edit_of_a_parent_field_conflicts_too(self) -> None:
        state = AgentState({"doc": {"title": "Draft"}})
        state.apply_delta([{"op": "replace", "path": "/doc/title", "value": "Agent's"}], proposal_id="p1")
        (conflict,) = state.edit([{"op": "replace", "path": "/doc", "value": {"title": "Mine"}}])
        assert conflict.path == "/doc"

    def test_an_edit_elsewhere_is_no_conflict(self) -> None:
        state = AgentState({"title": "Draft", "body": "x"})
        state.apply_delta([{"op": "replace", "path": "/title", "value": "Agent's"}], proposal_id="p1")
        assert state.set("/body", "y") == []
        assert state.conflicts == []

    @pytest.mark.parametrize("resolve", ["accept", "reject"])
    def test_resolving_the_proposal_clears_its_conflicts(self, resolve: str) -> None:
        state = AgentState({"title": "Draft"})
        state.apply_delta([{"op": "replace", "path": "/title", "value": "Agent's"}], proposal_id="p1")
        state.set("/title", "Mine")
        getattr(state, resolve)("p1")
        assert state.conflicts == []

    def test_a_failing_edit_changes_nothing(self) -> None:
        state, writes = logged_state({"title": "Draft"})
        with pytest.raises(PatchError):
            state.edit([{"op": "remove", "path": "/missing"}])
        assert state.committed == {"title": "Draft"}
        assert writes == []
        assert not state.diverged


class TestRollback:
    async def test_a_turn_that_ends_rolls_back_its_proposals(self) -> None:
        conversation = Conversation(
            [[snapshot({"title": "Draft"}), delta([{"op": "replace", "path": "/title", "value": "X"}], proposal_id="p1"), finish()]]
        )
        turn = await conversation.context.send("go")
        await turn.wait()
        state = conversation.agent.state
        assert turn.status is TurnStatus.COMPLETED
        assert state.proposals == [] and state.value == {"title": "Draft"}

    async def test_a_turn_that_fails_rolls_back_its_proposals(self) -> None:
        conversation = Conversation(
            [[snapshot({"title": "Draft"}), delta([{"op": "replace", "path": "/title", "value": "X"}], proposal_id="p1"), TransportError("reset")]]
        )
        turn = await conversation.context.send("go")
        await turn.wait()
        assert turn.status is TurnStatus.ERROR
        assert conversation.agent.state.proposals == []

    async def test_a_cancelled_turn_rolls_back_its_proposals(self) -> None:
        streaming, hold = asyncio.Event(), asyncio.Event()
        conversation = Conversation(
            [[snapshot({"title": "Draft"}), delta([{"op": "replace", "path": "/title", "value": "X"}], proposal_id="p1"), reached(streaming), hold]]
        )
        await conversation.context.send("go")
        await streaming.wait()
        assert conversation.agent.state.proposals == ["p1"]
        await conversation.context.cancel()
        assert conversation.agent.state.proposals == []
        assert conversation.agent.state.value == {"title": "Draft"}

    async def test_disposing_the_context_rolls_back_its_proposals(self) -> None:
        conversation = Conversation([])
        state = conversation.agent.state
        state.apply_snapshot({"title": "Draft"})
        state.apply_delta([{"op": "replace", "path": "/title", "value": "X"}], proposal_id="p1")
        await conversation.context.dispose()
        assert state.proposals == []
        assert conversation.client.aclosed

    async def test_a_proposal_accepted_while_waiting_survives_the_end_of_the_turn(self) -> None:
        conversation = Conversation(
            [
                [snapshot({"title": "Draft"}), delta([{"op": "replace", "path": "/title", "value": "X"}], proposal_id="p1"), interrupt("q1"), finish()],
                [text("ok", message_id="m2"), finish()],
            ]
        )
        context = conversation.context
        turn = await context.send("go")
        await reach(context, Status.AWAITING_INPUT)
        conversation.agent.state.accept("p1")
        context.pending_blocks[0].respond({"ok": True})  # type: ignore[attr-defined]
        await turn.wait()
        assert conversation.agent.state.committed == {"title": "X"}


class TestDivergenceInTheConversation:
    async def test_a_failing_delta_mid_turn_is_an_error_block_not_a_crash(self) -> None:
        conversation = Conversation(
            [[snapshot({"n": 1}), delta([{"op": "remove", "path": "/missing"}]), text("carrying on"), finish()]]
        )
        turn = await conversation.context.send("go")
        await turn.wait()
        state = conversation.agent.state
        assert turn.status is TurnStatus.COMPLETED
        assert state.committed == {"n": 1} and state.diverged
        errors = [b for b in conversation.context.blocks if isinstance(b, ErrorBlock)]
        assert [e.code for e in errors] == ["state_divergence"]
        assert conversation.context.blocks[-1].text == "carrying on"  # type: ignore[attr-defined]
