"""Shared state edited from several screens: the cases `test_share_properties` found, shrunk by
hand. Each was a write lost silently or a divergence between screens before its fix."""

from __future__ import annotations

from typing import Any

import pytest

from tandem.core.errors import PatchError
from tandem.core.state.agent_state import AgentState
from tandem.core.state.concurrent import seen_conflict, seen_values
from tests.helpers.state_writes import TickingClock


def _guest_edit(state: AgentState, screen: Any, patch: list[dict[str, Any]], who: str, shown: Any = ()) -> None:
    state.edit(patch, who=who, seen=seen_values(screen, patch, list(shown)))


def test_a_logged_edit_carries_the_time_its_conflict_got() -> None:
    from tandem.core.blocks.base import BlockEnv
    from tandem.core.log_entries import HumanWrite

    logged: list[HumanWrite] = []
    state = AgentState({"title": "Plan"})
    state.env = BlockEnv(user="ada", clock=TickingClock(), record=logged.append)
    state.edit([{"op": "replace", "path": "/title", "value": "Ada's"}])
    _guest_edit(state, {"title": "Plan"}, [{"op": "replace", "path": "/title", "value": "Bob's"}], "bob")
    [conflict] = state.open_conflicts
    assert (conflict.mine_at, conflict.agent_at) == (logged[0].at, logged[1].at)


def test_a_stale_guests_edit_lands_on_the_element_it_pointed_at() -> None:
    screen = {"items": [{"id": "x", "v": 1}, {"id": "y", "v": 2}]}
    state = AgentState(screen)
    state.edit([{"op": "add", "path": "/items/0", "value": {"id": "new", "v": 0}}], who="ada")
    _guest_edit(state, screen, [{"op": "replace", "path": "/items/0/v", "value": 10}], "bob")
    _guest_edit(state, screen, [{"op": "remove", "path": "/items/1"}], "carol")
    assert state.committed == {"items": [{"id": "new", "v": 0}, {"id": "x", "v": 10}]}
    assert not state.open_conflicts


def test_an_insert_beside_an_element_someone_just_edited_is_kept() -> None:
    screen = {"items": [{"id": "x", "v": 1}]}
    state = AgentState(screen)
    state.edit([{"op": "replace", "path": "/items/0/v", "value": 5}], who="ada")
    _guest_edit(state, screen, [{"op": "add", "path": "/items/0", "value": {"id": "b", "v": 2}}], "bob")
    assert state.committed == {"items": [{"id": "b", "v": 2}, {"id": "x", "v": 5}]}


def test_each_late_value_waits_in_its_own_conflict() -> None:
    screen = {"title": "Plan"}
    state = AgentState(screen)
    state.begin_run()
    state.edit([{"op": "replace", "path": "/title", "value": "Ada's"}], who="ada")
    _guest_edit(state, screen, [{"op": "replace", "path": "/title", "value": "Bob's"}], "bob")
    _guest_edit(state, screen, [{"op": "replace", "path": "/title", "value": "Carol's"}], "carol")
    state.apply_delta([{"op": "replace", "path": "/title", "value": "The agent's"}])
    waiting = {(c.agent_by, c.agent) for c in state.open_conflicts}
    assert waiting == {("bob", "Bob's"), ("carol", "Carol's"), ("agent", "The agent's")}
    assert state.committed == {"title": "Ada's"}


def test_keeping_ones_value_in_a_conflict_from_an_earlier_run_keeps_it() -> None:
    state = AgentState({"a": "x", "k": 1})
    state.begin_run()
    state.edit([{"op": "replace", "path": "/a", "value": "mine"}])
    state.apply_delta([{"op": "replace", "path": "/a", "value": "agent 1"}])
    state.begin_run()  # the conflict is still open in the next run
    state.apply_delta([{"op": "replace", "path": "/a", "value": "agent 2"}])
    state.resolve_conflict(state.open_conflicts[0].id, "mine")
    state.apply_delta([{"op": "replace", "path": "/k", "value": 2}])
    assert state.committed == {"a": "mine", "k": 2}


def test_a_stale_screen_settles_only_the_late_values_it_saw() -> None:
    screen = {"title": "Plan"}
    state = AgentState(screen)
    state.edit([{"op": "replace", "path": "/title", "value": "Ada's"}], who="ada")
    _guest_edit(state, screen, [{"op": "replace", "path": "/title", "value": "Bob's"}], "bob")
    [late] = state.open_conflicts
    shown_then = seen_conflict(state.committed, late)
    # Carol saw Ada's title but not Bob's late value: her edit does not settle it.
    _guest_edit(state, {"title": "Ada's"}, [{"op": "replace", "path": "/title", "value": "Carol's"}], "carol")
    assert state.committed == {"title": "Carol's"}
    assert state.open_conflicts == [late] and (late.mine, late.mine_by, late.agent) == ("Carol's", "carol", "Bob's")
    # A settlement made on a screen that showed the conflict as it was before is refused.
    with pytest.raises(PatchError, match="changed since you saw it"):
        state.resolve_conflict(late.id, "agent", who="dan", seen=shown_then)
    # Dan, who saw it as it is, settles it, by an edit of the field.
    _guest_edit(state, {"title": "Carol's"}, [{"op": "replace", "path": "/title", "value": "Dan's"}], "dan", state.open_conflicts)
    assert not state.open_conflicts and state.committed == {"title": "Dan's"}


def test_an_element_added_then_removed_by_one_patch_removes_nothing_else() -> None:
    screen = {"items": [{"id": "x", "v": 1}]}
    state = AgentState(screen)
    state.edit([{"op": "add", "path": "/items/0", "value": {"id": "a", "v": 0}}], who="ada")
    _guest_edit(state, screen, [{"op": "add", "path": "/items/0", "value": {"id": "b", "v": 2}},
                                {"op": "remove", "path": "/items/0"}], "bob")
    assert state.committed == {"items": [{"id": "a", "v": 0}, {"id": "x", "v": 1}]}


def test_a_conflicts_values_do_not_follow_the_agents_later_deltas() -> None:
    # Live, the agent's deltas change the containers they copied in place until someone reads
    # them; a guest's copy (read by nobody) and the host (read by its screen) must still agree.
    state = AgentState({"b": [{"id": "a2", "v": "a3"}], "k": 0})
    state.begin_run()
    state.apply_delta([{"op": "replace", "path": "/k", "value": 1}])
    _guest_edit(state, {"b": []}, [{"op": "remove", "path": "/b"}], "bob")  # stale: a conflict guards b
    state.apply_delta([{"op": "add", "path": "/b/0", "value": {"id": "a8", "v": "a9"}}])
    conflict = state.open_conflicts[-1]
    state.apply_delta([{"op": "remove", "path": "/b/0"}])  # agrees with the committed value: no merge
    assert conflict.agent == [{"id": "a8", "v": "a9"}, {"id": "a2", "v": "a3"}]
