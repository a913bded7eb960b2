"""Every demo scenario end to end through `tandem ask --json` on the embedded demo agent.

Decisions are scripted by `--approve all|none` or by answer lines on stdin (a pipe). Each test
asserts the blocks (kinds, statuses, decisions) and the final shared state.
"""

from __future__ import annotations

import pytest
from tests.helpers.ask_harness import AskResult, ask

from tandem.core.agui.demo.scenarios_interrupts import DOCUMENT_STARTER
from tandem.core.agui.demo.scenarios_state import STARTER_RECIPE
from tandem.core.agui.demo.scenarios_tools import TASK_STEPS

ADDRESS = '{"name": "Ada Lovelace", "street": "1 Analytical Way", "city": "London", "country": "United Kingdom"}'


def completed(result: AskResult, *, declined: bool = False) -> AskResult:
    """Assert the run completed (quietly, or with exit status 3 and one line when a decision was
    declined without a person's answer), and return it."""
    assert result.returncode == (3 if declined else 0), result.stderr
    if declined:
        assert result.stderr.startswith("tandem: a decision was needed and was declined: ")
        assert result.stderr.count("\n") == 1
    else:
        assert result.stderr == ""
    assert result.turn == {"event": "turn", "status": "completed", "error": None, "thread": result.turn["thread"], "schema": 1}
    assert isinstance(result.turn["thread"], str)  # saved
    return result


def decision(block: dict) -> str:
    return block["decision"]["outcome"]


class TestChat:
    def test_markdown_answer(self) -> None:
        result = completed(ask("--json", "/demo chat"))
        assert result.text.startswith("# Agentic chat")
        assert "```python" in result.text and "| Scenario | Command | Shows |" in result.text
        assert {b["kind"] for b in result.finals()} <= {"text", "debug"}
        assert result.state is None

    def test_theme_runs_the_ui_action(self) -> None:
        result = completed(ask("--json", "--approve", "all", "/demo chat theme dark"))
        action = result.one("ui_action")
        assert action["name"] == "change_theme" and action["arguments"] == {"theme": "dark"}
        assert decision(action) == "completed"
        assert action["decision"]["result"] == {"theme": "dark", "applied": True}
        assert "Done: the **dark** theme is on." in result.text

    def test_theme_declined(self) -> None:
        result = completed(ask("--json", "--approve", "none", "/demo chat theme"), declined=True)
        assert decision(result.one("ui_action")) == "declined"
        assert "could not switch to the light theme: the user declined this action" in result.text

    def test_the_user_message_is_a_block_too(self) -> None:
        result = completed(ask("--json", "/demo chat"))
        (user,) = result.finals("text", role="user")
        assert user["content"]["text"] == "/demo chat"


class TestTools:
    def test_weather_backend_tool(self) -> None:
        result = completed(ask("--json", "/demo weather in Porto"))
        call = result.tool("get_weather")
        assert call["status"] == "succeeded" and call["informational_only"] is True
        assert call["arguments"] == {"location": "Porto"}
        assert '"location": "Porto"' in call["result"]
        assert "in Porto, with" in result.text

    def test_haiku_client_tool_runs_automatically(self) -> None:
        result = completed(ask("--json", "/demo haiku"))
        call = result.tool("generate_haiku")
        assert call["status"] == "succeeded" and call["informational_only"] is False
        assert call["arguments"]["english"][0] == "An old silent pond"
        assert call["result"] == {"shown": True}
        assert "Bashō wrote that one" in result.text
        assert not result.finals("ui_action")

    def test_steps_approved_uses_every_step(self) -> None:
        result = completed(ask("--json", "--approve", "all", "/demo steps"))
        action = result.one("ui_action")
        assert action["name"] == "generate_task_steps" and decision(action) == "completed"
        assert action["decision"]["result"]["accepted"] is True
        assert f"Carrying out the {len(TASK_STEPS)} step(s) you selected" in result.text
        assert all(step in result.text for step in TASK_STEPS)

    def test_steps_rejected(self) -> None:
        result = completed(ask("--json", "--approve", "none", "/demo steps"), declined=True)
        action = result.one("ui_action")
        assert action["decision"]["result"] == {"accepted": False, "steps": []}
        assert "you rejected the plan" in result.text

    def test_steps_selected_on_stdin(self) -> None:
        result = completed(ask("--json", "/demo steps", stdin="e 2 4\n"))
        assert "Carrying out the 2 step(s) you selected" in result.text
        assert f"1. {TASK_STEPS[1]} — done" in result.text and f"2. {TASK_STEPS[3]} — done" in result.text


class TestState:
    def test_plan_progresses_by_snapshot_and_deltas(self) -> None:
        result = completed(ask("--json", "/demo plan"))
        steps = result.state["plan"]["steps"]
        assert [s["status"] for s in steps] == ["completed"] * 4
        descriptions = [s["description"] for s in steps]
        assert "Sign the packages" in descriptions and "Ask for a manual sign-off" not in descriptions
        assert "The release is published." in result.text

    def test_recipe_starts_in_shared_state(self) -> None:
        result = completed(ask("--json", "/demo recipe"))
        assert result.state == {"recipe": STARTER_RECIPE}
        assert "Tomato pasta" in result.text

    def test_document_approved_commits_the_draft(self) -> None:
        result = completed(ask("--json", "--approve", "all", "/demo document"))
        approval = result.one("approval")
        assert approval["tool_name"] == "write_document" and approval["allow_edits"] is True
        assert decision(approval) == "approved"
        assert result.tool("write_document")["status"] == "succeeded"
        assert result.state == {"document": DOCUMENT_STARTER}
        assert result._last("state")["proposals"] == [] and not result._last("state")["diverged"]
        assert not result.finals("error")

    def test_document_rejected_restores_the_original(self) -> None:
        result = completed(ask("--json", "--approve", "none", "/demo document"), declined=True)
        assert decision(result.one("approval")) == "rejected"
        assert result.tool("write_document")["status"] == "denied"
        assert result.state == {}
        assert "Discarded the draft: the document is back to how it was." in result.text

    def test_document_edited_on_stdin(self) -> None:
        result = completed(ask("--json", "/demo document", stdin='e {"document": "My own text."}\n'))
        assert result.one("approval")["decision"]["edited_arguments"] == {"document": "My own text."}
        assert result.state == {"document": "My own text."}
        assert "Applied your edited version of the draft" in result.text


class TestApproval:
    @pytest.mark.parametrize(
        ("args", "stdin", "outcome", "tool_status", "reply"),
        [
            (("--approve", "all"), None, "approved", "succeeded", "Deleted `notes/todo.txt`."),
            (("--approve", "none"), None, "rejected", "denied", "Okay, I did not delete `notes/todo.txt`. You gave no reason."),
            ((), "n not today\n", "rejected", "denied", "> not today"),
            ((), '{"approved": false, "reason": "keep it"}\n', "rejected", "denied", "> keep it"),
            ((), "y\n", "approved", "succeeded", "Deleted `notes/todo.txt`."),
            ((), 'e {"path": "/tmp/other.txt"}\n', "approved", "succeeded", "Deleted `/tmp/other.txt`."),
            ((), "", "cancelled", "cancelled", "The approval was cancelled"),
        ],
        ids=["all", "none", "stdin-reason", "stdin-json", "stdin-yes", "stdin-edit", "eof-cancels"],
    )
    def test_delete(self, args: tuple[str, ...], stdin: str | None, outcome: str, tool_status: str, reply: str) -> None:
        declined = args == ("--approve", "none") or stdin == ""  # nobody approved: exit status 3
        result = completed(ask("--json", *args, "/demo delete notes/todo.txt", stdin=stdin), declined=declined)
        approval = result.one("approval")
        assert approval["tool_name"] == "delete_file" and approval["arguments"] == {"path": "notes/todo.txt"}
        assert decision(approval) == outcome
        assert result.tool("delete_file")["status"] == tool_status
        assert reply in result.text

    def test_an_unreadable_answer_is_asked_again(self) -> None:
        result = ask("--json", "/demo delete a.txt", stdin="maybe\ny\n")
        assert result.returncode == 0
        assert result.stderr == "tandem: answer y (approve), n [reason] (reject) or e {JSON arguments} (approve with edits)\n"
        assert decision(result.one("approval")) == "approved"


class TestInputRequest:
    def test_answered_with_json_on_stdin(self) -> None:
        result = completed(ask("--json", "/demo address", stdin=ADDRESS + "\n"))
        block = result.one("interrupt")
        assert block["reason"] == "input_required" and "country" in block["response_schema"]["required"]
        assert decision(block) == "resolved"
        assert "Ada Lovelace\n1 Analytical Way\nLondon\nUnited Kingdom" in result.text

    def test_an_invalid_answer_is_refused_then_a_valid_one_taken(self) -> None:
        result = ask("--json", "/demo address", stdin='{"name": "Ada", "country": "Atlantis"}\n' + ADDRESS + "\n")
        assert result.returncode == 0
        assert "does not match the form" in result.stderr and "'street' is a required property" in result.stderr
        assert result.one("interrupt")["decision"]["payload"]["name"] == "Ada Lovelace"

    @pytest.mark.parametrize(("args", "outcome"), [(("--approve", "none"), "declined"), ((), "cancelled")],
                             ids=["none", "eof"])
    def test_not_answered(self, args: tuple[str, ...], outcome: str) -> None:
        result = completed(ask("--json", *args, "/demo address"), declined=True)  # nobody answered: exit status 3
        assert decision(result.one("interrupt")) == outcome
        assert "your order is on hold" in result.text

    def test_approve_all_says_it_cannot_answer_and_exits_3(self) -> None:
        result = ask("--json", "--approve", "all", "/demo address")
        assert result.returncode == 3  # declined without a person's answer
        assert result.stderr.startswith("tandem: --approve all cannot answer 'Where should we ship your order?'")
        assert result.stderr.count("\n") == 1
        assert decision(result.one("interrupt")) == "declined"
        assert "your order is on hold" in result.text


class TestText:
    def test_reasoning_precedes_the_answer(self) -> None:
        result = completed(ask("--json", "/demo reasoning"))
        kinds = [b["kind"] for b in result.finals() if b["kind"] != "debug"]
        assert kinds == ["reasoning", "text"]
        assert "17 × 23" in result.one("reasoning")["text"]
        assert "**17 × 23 = 391.**" in result.text

    def test_long_answer_is_coalesced(self) -> None:
        result = completed(ask("--json", "/demo long"))
        assert len(result.text) > 10_000 and result.text.endswith("That is the end of the long answer.\n")
        (block,) = result.finals("text")
        lines = [e["event"] for e in result.events if e.get("id") == block["id"]]
        assert lines == ["added", "changed", "final"]

    def test_failure_exits_non_zero_with_one_line(self) -> None:
        result = ask("--json", "/demo failure")
        assert result.returncode == 1
        assert result.stderr == "tandem: Simulated failure: the demo agent stopped mid-answer. Retry the same message to see it succeed.\n"
        assert result.turn["status"] == "error"
        error = result.one("error")
        assert error["code"] == "DEMO_FAILURE" and error["retryable"] is True
        assert result.text.startswith("I will start answering and then fail on purpose.")

    def test_unknown_prompt_gets_the_help_answer(self) -> None:
        result = completed(ask("--json", "what can you do?"))
        assert "This is Tandem's built-in demo agent." in result.text
