"""Shared state with two writers: the merge rules, conflicts and their settlement, the agent told."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from tests.helpers.scripted import Clock, Conversation, delta, finish, make_agent, snapshot, text
from tandem.core import AgentState, BlockEnv
from tandem.core.errors import PatchError
from tandem.core.log_entries import HumanWrite, StateBaseSet, StateMerged
from tandem.core.replay import restore
from tandem.core.scripted import ScriptedChatClient
from tandem.core.state.conflicts import MergeRecord
from tandem.core.state.changes import field_changes
from tandem.core.state.fields import MISSING, ORDER, ById
from tandem.core.state.patch import apply_patch

RECIPE: dict[str, Any] = {
    "title": "Pancakes",
    "servings": 2,
    "tags": ["sweet"],
    "steps": [{"id": "s1", "text": "mix", "done": False}, {"id": "s2", "text": "fry", "done": False}],
    "meta": {"author": "ada", "level": "easy"},
}


def running(value: Any = None, **kwargs: Any) -> tuple[AgentState, list[HumanWrite], list[MergeRecord], Clock]:
    """A state with a clock and a log, whose run has begun (the agent was sent `value`)."""
    clock = Clock()
    writes: list[HumanWrite] = []
    state = AgentState(json.loads(json.dumps(value if value is not None else RECIPE)), **kwargs)
    state.env = BlockEnv(user="ada", clock=clock, record=writes.append)
    merges: list[MergeRecord] = []
    state.on_merged(merges.append)
    state.begin_run()
    return state, writes, merges, clock


class TestDifferentFieldsCombine:
    def test_a_snapshot_is_merged_as_its_diff_from_the_base_not_as_a_replacement(self) -> None:
        state, _writes, merges, _clock = running()
        state.set("/title", "Crêpes")
        state.set("/meta/level", "medium")
        state.apply_snapshot({**RECIPE, "servings": 4, "tags": ["sweet", "breakfast"]})
        assert state.committed == {**RECIPE, "title": "Crêpes", "servings": 4, "tags": ["sweet", "breakfast"], "meta": {"author": "ada", "level": "medium"}}
        assert not state.field_conflicts
        assert [m.source for m in merges] == ["snapshot"]

    def test_a_member_the_person_added_survives_a_snapshot_without_it(self) -> None:
        state, *_ = running()
        state.set("/notes", "use buttermilk")
        state.apply_snapshot({**RECIPE, "servings": 3})
        assert state.committed["notes"] == "use buttermilk"
        assert state.committed["servings"] == 3

    def test_a_delta_index_means_the_element_the_agent_saw(self) -> None:
        state, *_ = running()
        # The person inserts a step before the one the agent is about to tick.
        state.edit([{"op": "add", "path": "/steps/0", "value": {"id": "s0", "text": "preheat", "done": False}}])
        state.apply_delta([{"op": "replace", "path": "/steps/1/done", "value": True}])
        assert [(s["id"], s["done"]) for s in state.committed["steps"]] == [("s0", False), ("s1", False), ("s2", True)]
        assert not state.field_conflicts

    def test_inside_an_element_and_the_arrays_order_combine(self) -> None:
        state, *_ = running()
        state.set("/steps/0/text", "whisk")
        state.apply_delta([{"op": "move", "from": "/steps/0", "path": "/steps/1"}])
        assert state.committed["steps"] == [RECIPE["steps"][1], {**RECIPE["steps"][0], "text": "whisk"}]
        assert not state.field_conflicts

    def test_with_nothing_of_the_persons_pending_the_agents_write_is_committed_as_is(self) -> None:
        state, _writes, merges, _clock = running()
        before = state.committed
        state.apply_delta([{"op": "replace", "path": "/meta/level", "value": "hard"}])
        assert state.committed["meta"]["level"] == "hard"
        # Copy-on-write along the path: the untouched subtrees are shared, not deep-copied.
        assert state.committed["steps"] is before["steps"]
        assert before["meta"]["level"] == "easy"
        assert merges == []

    def test_a_new_request_makes_the_committed_state_the_agents_frame(self) -> None:
        state, *_ = running()
        state.set("/title", "Crêpes")
        state.begin_run()
        state.apply_delta([{"op": "replace", "path": "/title", "value": "Galettes"}])
        assert state.committed["title"] == "Galettes"
        assert not state.field_conflicts


class TestConflicts:
    def test_the_same_field_changed_differently_keeps_the_persons_value_and_shows_both(self) -> None:
        state, _writes, merges, clock = running()
        state.set("/servings", 6)
        clock.advance(5)
        state.apply_delta([{"op": "replace", "path": "/servings", "value": 4}, {"op": "replace", "path": "/title", "value": "Blinis"}], author="chef")
        assert state.committed["servings"] == 6
        assert state.committed["title"] == "Blinis"
        [conflict] = state.field_conflicts
        assert (conflict.label, conflict.mine, conflict.agent) == ("/servings", 6, 4)
        assert (conflict.mine_by, conflict.mine_at, conflict.agent_by, conflict.agent_at) == ("ada", 1000.0, "chef", 1005.0)
        assert merges[-1].conflicts == [conflict]
        assert merges[-1].applied == [("title",)]

    def test_the_same_value_from_both_is_agreement(self) -> None:
        state, _writes, merges, _clock = running()
        state.set("/servings", 4)
        state.apply_delta([{"op": "replace", "path": "/servings", "value": 4}])
        assert not state.field_conflicts
        assert merges[-1].agreed == [("servings",)]

    def test_a_plain_array_is_one_field(self) -> None:
        state, *_ = running()
        state.edit([{"op": "replace", "path": "/tags/0", "value": "savoury"}])
        state.apply_delta([{"op": "add", "path": "/tags/-", "value": "breakfast"}])
        assert state.committed["tags"] == ["savoury"]
        [conflict] = state.field_conflicts
        assert (conflict.label, conflict.mine, conflict.agent) == ("/tags", ["savoury"], ["sweet", "breakfast"])

    def test_a_type_change_conflicts_with_an_edit_inside(self) -> None:
        state, *_ = running()
        state.set("/meta/level", "medium")
        state.apply_delta([{"op": "replace", "path": "/meta", "value": "see the book"}])
        assert state.committed["meta"] == {"author": "ada", "level": "medium"}
        [conflict] = state.field_conflicts
        assert (conflict.label, conflict.agent) == ("/meta", "see the book")

    def test_an_element_the_person_removed_and_the_agent_changed_conflicts(self) -> None:
        state, *_ = running()
        state.edit([{"op": "remove", "path": "/steps/1"}])
        state.apply_delta([{"op": "replace", "path": "/steps/1/done", "value": True}])
        assert [s["id"] for s in state.committed["steps"]] == ["s1"]
        [conflict] = state.field_conflicts
        assert conflict.path == ("steps", ById("s2"))
        assert conflict.mine is MISSING
        assert conflict.agent == {"id": "s2", "text": "fry", "done": True}

    def test_an_open_conflict_still_guards_the_field_in_the_next_run(self) -> None:
        state, _writes, _merges, clock = running()
        state.set("/servings", 6)
        state.apply_delta([{"op": "replace", "path": "/servings", "value": 4}])
        state.begin_run()
        clock.advance(10)
        state.apply_delta([{"op": "replace", "path": "/servings", "value": 8}])
        assert state.committed["servings"] == 6
        [conflict] = state.field_conflicts
        assert (conflict.agent, conflict.agent_at) == (8, 1010.0)


def ids(array: list[dict[str, Any]]) -> list[Any]:
    return [element["id"] for element in array]


LIST: dict[str, Any] = {"l": [{"id": x, "v": 0} for x in "abcd"], "t": 0}


class TestArraysByIdentity:
    """Inserts, deletes, moves and concurrent reorders of an array whose elements carry ids."""

    def test_a_reorder_of_an_array_the_agent_wrote_earlier_in_the_run_is_committed(self) -> None:
        # Found by hypothesis (see test_state_merge_properties): the agent replaces a field with
        # an id-array, inserts into it, then reorders it in a second snapshot while the person
        # has written other fields. The reorder is the agent's latest write and must stand.
        state, *_ = running({"a": None, "t": 1})
        state.set("/t", 2)
        first = {"a": [{"id": "a2", "v": "a3"}, {"id": "a0", "v": "a1"}], "t": 1, "k": "x"}
        state.apply_snapshot(first)
        assert ids(state.committed["a"]) == ["a2", "a0"]
        state.apply_snapshot({**first, "a": [first["a"][1], first["a"][0]]})
        assert state.committed == {"a": [{"id": "a0", "v": "a1"}, {"id": "a2", "v": "a3"}], "t": 2, "k": "x"}
        assert not state.field_conflicts

    def test_an_agents_insert_goes_where_its_neighbour_was_when_the_person_removed_it(self) -> None:
        state, *_ = running(LIST)
        state.edit([{"op": "remove", "path": "/l/1"}])  # b
        state.apply_delta([{"op": "add", "path": "/l/2", "value": {"id": "y"}}])  # after b
        assert ids(state.committed["l"]) == ["a", "y", "c", "d"]
        state.edit([{"op": "remove", "path": "/l/0"}])  # a: nothing before y is left
        state.apply_delta([{"op": "add", "path": "/l/1", "value": {"id": "z"}}])  # after a
        assert ids(state.committed["l"]) == ["z", "y", "c", "d"]
        assert not state.field_conflicts

    def test_inserts_after_one_element_from_both_sides_are_both_kept(self) -> None:
        state, *_ = running(LIST)
        state.edit([{"op": "add", "path": "/l/2", "value": {"id": "x"}}])
        state.apply_delta([{"op": "add", "path": "/l/2", "value": {"id": "y"}}])
        assert ids(state.committed["l"]) == ["a", "b", "y", "x", "c", "d"]
        assert not state.field_conflicts

    def test_a_delete_and_a_reorder_combine(self) -> None:
        state, *_ = running(LIST)
        state.edit([{"op": "remove", "path": "/l/1"}])
        state.apply_delta([{"op": "move", "from": "/l/0", "path": "/l/3"}])
        assert ids(state.committed["l"]) == ["c", "d", "a"]
        assert not state.field_conflicts

    def test_a_move_of_an_element_the_person_removed_leaves_it_removed(self) -> None:
        state, *_ = running(LIST)
        state.edit([{"op": "remove", "path": "/l/2"}])
        state.apply_delta([{"op": "move", "from": "/l/2", "path": "/l/0"}])
        assert ids(state.committed["l"]) == ["a", "b", "d"]
        assert not state.field_conflicts

    def test_the_persons_reorder_and_the_agents_insert_combine(self) -> None:
        state, *_ = running(LIST)
        state.edit([{"op": "move", "from": "/l/3", "path": "/l/0"}])
        state.apply_delta([{"op": "add", "path": "/l/1", "value": {"id": "y"}}])
        assert ids(state.committed["l"]) == ["d", "a", "y", "b", "c"]
        assert not state.field_conflicts

    def test_two_reorders_that_agree_on_the_shared_elements_agree(self) -> None:
        state, _writes, merges, _clock = running(LIST)
        state.edit([{"op": "add", "path": "/l/-", "value": {"id": "x"}}])
        state.edit([{"op": "move", "from": "/l/3", "path": "/l/0"}])
        state.apply_delta([{"op": "move", "from": "/l/3", "path": "/l/0"}])
        assert ids(state.committed["l"]) == ["d", "a", "b", "c", "x"]
        assert not state.field_conflicts
        assert merges[-1].agreed == [("l", ORDER)]

    def test_two_different_reorders_conflict_and_taking_the_agents_keeps_the_persons_insert(self) -> None:
        state, *_ = running(LIST)
        state.edit([{"op": "move", "from": "/l/3", "path": "/l/0"}])
        state.edit([{"op": "add", "path": "/l/1", "value": {"id": "x"}}])  # after d
        state.apply_delta([{"op": "move", "from": "/l/0", "path": "/l/3"}])
        assert ids(state.committed["l"]) == ["d", "x", "a", "b", "c"]
        [conflict] = state.field_conflicts
        assert (conflict.label, conflict.mine, conflict.agent) == ("/l/[order]", ["d", "x", "a", "b", "c"], ["b", "c", "d", "a"])
        state.resolve_conflict(conflict.id, "agent")
        assert ids(state.committed["l"]) == ["b", "c", "d", "x", "a"]

    def test_taking_the_agents_element_the_person_removed_puts_it_back_where_the_agent_has_it(self) -> None:
        # Found by hypothesis: it came back at the end of the array, against the agent's order.
        state, *_ = running(LIST)
        state.apply_delta([{"op": "move", "from": "/l/0", "path": "/l/1"}])  # b a c d
        state.edit([{"op": "remove", "path": "/l/0"}])  # the person removes b
        state.apply_delta([{"op": "replace", "path": "/l/0/v", "value": 1}])  # the agent changes b
        [conflict] = state.field_conflicts
        assert conflict.path == ("l", ById("b"))
        state.resolve_conflict(conflict.id, "agent")
        assert ids(state.committed["l"]) == ["b", "a", "c", "d"]
        assert state.committed["l"][0] == {"id": "b", "v": 1}

    def test_an_array_that_loses_its_ids_is_one_field_and_conflicts_with_an_element_edit(self) -> None:
        state, *_ = running(LIST)
        state.set("/l/0/v", 5)
        state.apply_delta([{"op": "add", "path": "/l/-", "value": "plain"}])
        assert state.committed["l"][0] == {"id": "a", "v": 5}
        [conflict] = state.field_conflicts
        assert conflict.label == "/l"


class TestSettling:
    @pytest.mark.parametrize(
        "resolution, value, expected",
        [("mine", None, 6), ("agent", None, 4), ("edit", 5, 5)],
    )
    def test_keep_mine_take_the_agents_or_edit_is_logged(self, resolution: Any, value: Any, expected: int) -> None:
        state, writes, _merges, _clock = running()
        state.set("/servings", 6)
        state.apply_delta([{"op": "replace", "path": "/servings", "value": 4}])
        settled = state.resolve_conflict("c1", resolution, value)
        assert state.committed["servings"] == expected
        assert (settled.resolution, settled.resolved_by) == (resolution, "ada")
        assert not state.open_conflicts
        assert writes[-1].kind == "state_resolve"
        assert writes[-1].payload["resolution"] == resolution
        with pytest.raises(KeyError):
            state.resolve_conflict("c1", "mine")

    def test_taking_the_agents_value_hands_the_field_back(self) -> None:
        state, *_ = running()
        state.set("/servings", 6)
        state.apply_delta([{"op": "replace", "path": "/servings", "value": 4}])
        state.resolve_conflict("c1", "agent")
        state.apply_delta([{"op": "replace", "path": "/servings", "value": 5}])
        assert state.committed["servings"] == 5
        assert len(state.field_conflicts) == 1

    def test_editing_the_conflicted_field_in_the_tree_settles_it(self) -> None:
        state, *_ = running()
        state.set("/servings", 6)
        state.apply_delta([{"op": "replace", "path": "/servings", "value": 4}])
        state.set("/servings", 7)
        assert state.field_conflicts[0].resolution == "edit"
        assert state.committed["servings"] == 7


class TestAcceptedProposals:
    def test_a_proposal_over_a_changed_array_applies_to_the_element_it_meant(self) -> None:
        state, *_ = running()
        state.apply_delta([{"op": "replace", "path": "/steps/1/done", "value": True}], proposal_id="p1")
        state.edit([{"op": "remove", "path": "/steps/0"}])
        state.accept("p1")
        assert state.committed["steps"] == [{"id": "s2", "text": "fry", "done": True}]

    def test_a_proposal_over_a_field_the_person_changed_since_conflicts_and_the_rest_applies(self) -> None:
        state, *_ = running()
        state.apply_delta(
            [{"op": "replace", "path": "/title", "value": "Waffles"}, {"op": "replace", "path": "/servings", "value": 8}],
            proposal_id="p1",
        )
        state.set("/title", "Crêpes")
        state.accept("p1")
        assert state.committed["title"] == "Crêpes"
        assert state.committed["servings"] == 8
        [conflict] = state.field_conflicts
        assert (conflict.label, conflict.mine, conflict.agent, conflict.source) == ("/title", "Crêpes", "Waffles", "proposal p1")

    def test_a_proposal_whose_parent_the_person_removed_conflicts_instead_of_failing(self) -> None:
        state, *_ = running()
        state.apply_delta([{"op": "add", "path": "/meta/oven", "value": "200C"}], proposal_id="p1")
        state.edit([{"op": "remove", "path": "/meta"}])
        state.accept("p1")
        assert "meta" not in state.committed
        [conflict] = state.field_conflicts
        assert conflict.mine is MISSING


    def test_a_proposal_the_persons_edits_made_stale_still_shows_grows_and_accepts_by_the_rules(self) -> None:
        state, *_ = running()
        state.apply_delta([{"op": "add", "path": "/meta/oven", "value": "200C"}], proposal_id="p1")
        state.apply_delta([{"op": "replace", "path": "/steps/1/done", "value": True}], proposal_id="p1")
        # The person removes the first step and the whole meta object while it is pending.
        state.edit([{"op": "remove", "path": "/steps/0"}])
        state.edit([{"op": "remove", "path": "/meta"}])
        # The agent goes on proposing in its own frame (index 1 is still its "fry"): no patch error.
        state.apply_delta([{"op": "replace", "path": "/steps/1/text", "value": "fry gently"}], proposal_id="p1")
        assert not state.diverged
        fried = {"id": "s2", "text": "fry gently", "done": True}
        # Shown as what accepting gives: the step by identity; meta stays removed, a conflict.
        assert state.proposal_diff("p1") == [{"op": "replace", "path": "/steps/0/text", "value": "fry gently"}, {"op": "replace", "path": "/steps/0/done", "value": True}]
        assert state.proposal_conflicts("p1") == ["/meta"]
        assert state.value["steps"] == [fried]
        state.accept("p1")
        assert state.committed["steps"] == [fried]
        assert "meta" not in state.committed
        [conflict] = state.open_conflicts
        assert (conflict.label, conflict.mine, conflict.source) == ("/meta", MISSING, "proposal p1")

    def test_a_proposal_over_an_element_the_person_inserted_before_it_began_means_the_agents_element(self) -> None:
        state, *_ = running()
        state.edit([{"op": "add", "path": "/steps/0", "value": {"id": "s0", "text": "preheat", "done": False}}])
        # The agent has not seen s0: its index 1 is "fry".
        state.apply_delta([{"op": "replace", "path": "/steps/1/done", "value": True}], proposal_id="p1")
        state.accept("p1")
        assert [(s["id"], s["done"]) for s in state.committed["steps"]] == [("s0", False), ("s1", False), ("s2", True)]


class TestTheAgentIsTold:
    async def test_the_next_request_carries_the_persons_fields_and_the_conflicts(self) -> None:
        edited = asyncio.Event()
        state = AgentState(json.loads(json.dumps(RECIPE)))

        def person_edits() -> None:
            state.set("/title", "Crêpes")
            state.set("/servings", 6)
            edited.set()

        conversation = Conversation(
            [
                [person_edits, snapshot({**RECIPE, "servings": 4}), text("done"), finish()],
                [text("ok"), finish()],
            ],
            state=state,
        )
        for message in ("improve it", "thanks"):
            turn = await conversation.context.send(message)
            await turn.wait()
        _messages, options = conversation.client.requests[1]
        assert options.state == {**RECIPE, "title": "Crêpes", "servings": 6}
        [entry] = [c for c in options.context if "person changed" in c["description"]]
        note = json.loads(entry["value"])
        assert note == {"changed": ["/servings", "/title"], "conflicts": [{"field": "/servings", "status": "open", "kept": "person"}]}
        bases = [e for e in conversation.thread.entries() if isinstance(e, StateBaseSet)]
        assert [b.base for b in bases] == [RECIPE, options.state]
        merged = [e for e in conversation.thread.entries() if isinstance(e, StateMerged)]
        assert merged[0].merge["conflicts"][0]["field"] == "/servings"  # type: ignore[index]


class TestRestore:
    async def test_a_thread_on_sqlite_restores_the_same_conflicts_settled_or_not(self, tmp_path: Any) -> None:
        from tandem.core.store import ThreadStore

        state = AgentState(json.loads(json.dumps(RECIPE)))

        def person_edits() -> None:
            state.set("/servings", 6)
            state.set("/meta/level", "medium")

        with ThreadStore(tmp_path / "threads.sqlite3") as store:
            thread = store.create("merge")
            clock = Clock()
            conversation = Conversation(
                [[person_edits, delta([{"op": "replace", "path": "/servings", "value": 4}, {"op": "replace", "path": "/meta", "value": "x"}]), finish()]],
                state=state,
                clock=clock,
                thread=thread,  # type: ignore[arg-type]
            )
            turn = await conversation.context.send("go")
            await turn.wait()
            clock.advance(30)
            state.resolve_conflict("c1", "agent")
            thread_id = thread.thread_id
            conversation.context.thread.close()
        with ThreadStore(tmp_path / "threads.sqlite3") as store:
            agent = make_agent(ScriptedChatClient([]), clock=Clock(5_000.0), state=AgentState(json.loads(json.dumps(RECIPE))))
            context = await restore(agent, store.open(thread_id))
            again = context.agent.state
            assert again.committed == state.committed == {**RECIPE, "servings": 4, "meta": {"author": "ada", "level": "medium"}}
            assert [c.to_json() for c in again.field_conflicts] == [c.to_json() for c in state.field_conflicts]
            assert [(c.label, c.resolution) for c in again.field_conflicts] == [("/servings", "agent"), ("/meta", None)]
            assert again.field_conflicts[0].resolved_at == 1030.0


class TestTheMergeFunctions:
    def test_field_changes_address_identity_elements_and_orders(self) -> None:
        before = {"steps": [{"id": 1, "t": "a"}, {"id": 2, "t": "b"}]}
        after = {"steps": [{"id": 2, "t": "B"}, {"id": 1, "t": "a"}, {"id": 3, "t": "c"}]}
        assert field_changes(before, after) == [
            (("steps", ById(2), "t"), "B"),
            (("steps", ById(3)), {"id": 3, "t": "c"}),
            (("steps", ORDER), [2, 1, 3]),
        ]

    def test_apply_patch_shares_what_it_does_not_write(self) -> None:
        document = {"big": {"x": list(range(1000))}, "small": {"n": 1}}
        patched, touched = apply_patch(document, [{"op": "replace", "path": "/small/n", "value": 2}])
        assert patched["big"] is document["big"]
        assert document["small"]["n"] == 1
        assert touched == [("small", "n")]

    @pytest.mark.parametrize(
        "patch",
        [
            [{"op": "remove", "path": "/missing"}],
            [{"op": "test", "path": "/n", "value": 2}],
            [{"op": "add", "path": "/tags/9", "value": "far"}],
            [{"op": "add", "path": "/tags/01", "value": "leading zero"}],
            [{"op": "move", "from": "/o", "path": "/o/inner"}],
            [{"op": "replace", "path": "n"}],
        ],
    )
    def test_a_patch_that_does_not_apply_is_refused_whole(self, patch: list[dict[str, Any]]) -> None:
        state, *_ = running({"n": 1, "tags": ["x"], "o": {}})
        with pytest.raises(PatchError):
            state.apply_delta(patch)
        assert state.committed == {"n": 1, "tags": ["x"], "o": {}}
        assert state.diverged
