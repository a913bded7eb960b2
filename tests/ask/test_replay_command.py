"""`tandem replay`: a saved conversation re-sent to a live server, and what changed, turn by turn.

The recording is made against the demo agent served over HTTP on 127.0.0.1 (as `tandem
serve-demo` serves it); the replays run the command in process (`run_replay`, its arguments
parsed by the real parser) against that server, or against the same agent behind a middleware
that rewrites what the person said, so it skips a tool, changes an argument and asks for
another decision.
"""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from tandem.core.store import ThreadStore
from tandem.tui.cli.entry import build_parser
from tandem.tui.cli.replay_cli import run_replay
from tandem.tui.cli.threads_cli import run_threads
from tests.helpers.ask_harness import DemoServer
from tests.helpers.replay_threads import Step, answer, approve, record_demo_thread, record_thread, rewriting_demo_app
from tests.helpers.servers import served_in_thread

SCHEMA = Path(__file__).resolve().parents[2] / "schemas" / "replay-report.v1.schema.json"
ADDRESS = {"name": "Ada", "street": "1 Main St", "city": "Lisbon", "country": "Portugal"}


@pytest.fixture(scope="module")
def validator() -> Draft202012Validator:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def replay(store_path: Path, *argv: str, stdin: str = "") -> tuple[int, str, str]:
    args = build_parser().parse_args(["replay", *argv])
    out, err = io.StringIO(), io.StringIO()
    status = run_replay(args, {}, store_path=store_path, stdin=io.StringIO(stdin), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def reports(text: str, validator: Draft202012Validator) -> list[dict[str, Any]]:
    found = [json.loads(line) for line in text.splitlines() if line.strip()]
    for report in found:
        errors = sorted(validator.iter_errors(report), key=str)
        assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors)
    return found


def test_a_demo_thread_replayed_against_the_demo_server_reports_no_change(
        tmp_path: Path, demo_server: DemoServer, validator: Draft202012Validator) -> None:
    path = tmp_path / "threads.sqlite3"
    with ThreadStore(path) as store:
        original = asyncio.run(record_demo_thread(store, demo_server.url))

    status, out, err = replay(path, original, "--json")

    assert status == 0, (out, err)
    [report] = reports(out, validator)
    assert report["changed"] is False and report["counted"] == 0 and report["stopped"] is None
    assert [turn["request"] for turn in report["turns"]][:4] == [
        "what's the weather in Lisbon?", "delete /tmp/notes.txt", "draft a document", "book a room"]
    assert report["turns"][4]["request"].startswith("[form event submit_booking")
    assert report["server"] == demo_server.url  # the thread's own server, by default
    weather, delete, document, _booking, booked = report["turns"]
    assert [t["name"] for t in weather["tools"]["now"]] == ["get_weather"]
    assert delete["asks"]["now"][0]["answer"]["outcome"] == "approved"
    assert document["asks"]["now"][0]["answer"]["edited_arguments"] == {"document": "# Short\n\nEdited by me."}
    assert booked["text"]["same"] and "Ada" in "".join(piece["text"] for piece in booked["text"]["diff"])
    with ThreadStore(path) as store:
        replay_info = store.info(report["replay_thread"])
        assert replay_info.replay_of == original and replay_info.title.startswith("Replay of")
        # The replay went through the same decisions: the state is the person's edit and note.
        entries = store.read(report["replay_thread"])
    writes = [e.write for e in entries if e.entry == "human_write"]
    assert [w.kind for w in writes].count("decision") == 2
    assert any(w.kind == "a2ui_action" for w in writes) and any(w.kind == "state_edit" for w in writes)

    status, out, _err = replay(path, original)  # the readable report
    assert status == 0 and "No change in 5 turn(s)" in out and "\x1b[" not in out


def _different_conversation(store_path: Path, url: str) -> str:
    with ThreadStore(store_path) as store:
        return asyncio.run(record_thread(store, url, [
            Step("what's the weather in Lisbon?"),
            Step("delete /tmp/notes.txt", approve),
            Step("ship my order to an address", answer(ADDRESS)),
            Step("hello there"),
        ]))


def test_a_server_that_answers_differently_is_reported_turn_by_turn(
        tmp_path: Path, demo_server: DemoServer, validator: Draft202012Validator) -> None:
    path = tmp_path / "threads.sqlite3"
    original = _different_conversation(path, demo_server.url)
    other = rewriting_demo_app({"weather in Lisbon": "hello", "/tmp/notes.txt": "delete /tmp/other.txt",
                                "ship my order": "delete /tmp/x.txt"})
    with served_in_thread(other, "replay-other-server") as (host, port):
        url = f"http://{host}:{port}/"
        stopped = replay(path, original, "--against", url, "--json")
        declined = replay(path, original, "--against", url, "--json", "--on-divergence", "decline")
        readable = replay(path, original, "--against", url, "--on-divergence", "decline")

    status, out, err = stopped
    assert status == 1, err
    [report] = reports(out, validator)
    first, second, third, fourth = report["turns"]
    assert report["stopped"] and report["stopped"].startswith("turn 2")
    assert [d["summary"] for d in first["differences"] if d["counts"]] == ["did not call get_weather"]
    assert second["differences"][0]["kind"] == "divergence"
    assert not third["replayed"] and not fourth["replayed"]
    with ThreadStore(path) as store:  # left waiting at the divergence, to be answered by hand
        entries = store.read(report["replay_thread"])
    assert entries[-1].entry == "segment_ended" and not any(e.entry == "turn_ended" for e in entries[-3:])

    status, out, err = declined
    assert status == 1, err
    [report] = reports(out, validator)
    assert report["stopped"] is None and all(turn["replayed"] for turn in report["turns"])
    first, second, third, fourth = report["turns"]
    assert not [d for d in first["differences"] if d["kind"] == "divergence"]
    assert "did not call get_weather" in [d["summary"] for d in first["differences"]]
    summaries = [d["summary"] for d in second["differences"]]
    assert any(s.startswith("diverged at the approval of delete_file: other arguments (/path)") for s in summaries)
    changed = next(d for d in second["differences"] if d["summary"] == "asked for the approval of delete_file with other arguments")
    assert changed["changes"] == [{"path": "/path", "was": "/tmp/notes.txt", "now": "/tmp/other.txt"}]
    assert second["asks"]["now"][0]["answer"]["outcome"] == "rejected"
    assert any("the recording asked for the question (input_required) here" in d["summary"] for d in third["differences"])
    assert third["asks"]["now"][0]["name"] == "delete_file"
    assert fourth["changed"] is False  # the last turn is the same again
    text = next(d for d in first["differences"] if d["kind"] == "text")
    assert text["counts"] is False and 0 <= first["text"]["similarity"] < 1

    status, out, _err = readable
    assert status == 1
    assert "Turn 1" in out and "✗" in out and '~ /path: "/tmp/notes.txt" → "/tmp/other.txt"' in out
    assert "[-" in out or "{+" in out  # the word diff, marked without colour


def test_strict_makes_text_count_and_ignore_leaves_an_argument_out(tmp_path: Path, demo_server: DemoServer) -> None:
    path = tmp_path / "threads.sqlite3"
    with ThreadStore(path) as store:
        original = asyncio.run(record_thread(store, demo_server.url, [Step("delete /tmp/notes.txt", approve)]))
    other = rewriting_demo_app({"/tmp/notes.txt": "delete /tmp/other.txt"})
    with served_in_thread(other, "replay-ignore-server") as (host, port):
        url = f"http://{host}:{port}/"
        ignored = replay(path, original, "--against", url, "--ignore", "delete_file:/path", "--json")
        strict = replay(path, original, "--against", url, "--ignore", "**/path", "--strict", "--json")
    status, out, err = ignored
    [report] = [json.loads(out)]
    assert status == 0, (out, err)  # the path differs, and is left out; the text differs and does not count
    assert report["noted"] >= 1 and report["ignored"] == ["delete_file:/path"]
    status, out, _err = strict
    assert status == 1 and json.loads(out)["counted"] >= 1


def test_tags_select_the_threads_to_replay(tmp_path: Path, demo_server: DemoServer) -> None:
    path = tmp_path / "threads.sqlite3"
    with ThreadStore(path) as store:
        first = asyncio.run(record_thread(store, demo_server.url, [Step("hello")]))
        asyncio.run(record_thread(store, demo_server.url, [Step("tell me a haiku")]))

    def threads(*argv: str) -> str:
        out = io.StringIO()
        assert run_threads(build_parser().parse_args(["threads", *argv]), store_path=path, out=out, err=out) == 0
        return out.getvalue()

    assert "Tagged" in threads("--tag", first, "smoke")
    status, out, err = replay(path, "--all-tagged", "smoke")
    assert status == 0, err
    assert len(out.strip().splitlines()) == 1 and out.startswith(f"✓ {first}")
    listed = threads()
    assert "#smoke" in listed and f"↻ replay of {first}" in listed

    with ThreadStore(path) as store:  # `tandem --resume` and `ask -c` go on with a person's thread, not a replay
        latest = store.latest()
        assert latest is not None and latest.replay_of is None

    assert replay(path, "--all-tagged", "nothing")[0] == 2
    assert replay(path)[0] == 2
    assert replay(path, first, "--ignore", "no-pointer")[0] == 2
    assert replay(path, "no-such-thread")[0] == 2


def test_ask_mode_takes_the_persons_answer_at_the_terminal(tmp_path: Path, demo_server: DemoServer) -> None:
    path = tmp_path / "threads.sqlite3"
    with ThreadStore(path) as store:
        original = asyncio.run(record_thread(store, demo_server.url, [Step("delete /tmp/notes.txt", approve), Step("hello")]))
    other = rewriting_demo_app({"/tmp/notes.txt": "delete /tmp/other.txt"})
    with served_in_thread(other, "replay-ask-server") as (host, port):
        url = f"http://{host}:{port}/"
        answered = replay(path, original, "--against", url, "--json", "--on-divergence", "ask", stdin="n not that one\n")
        unanswered = replay(path, original, "--against", url, "--json", "--on-divergence", "ask", stdin="")
    status, out, err = answered
    assert status == 1 and "the agent asks for the approval of delete_file" in err and '"/tmp/other.txt"' in err
    report = json.loads(out)
    assert report["stopped"] is None and len(report["turns"]) == 2
    assert report["turns"][0]["asks"]["now"][0]["answer"] == {"outcome": "rejected", "reason": "not that one"}
    status, out, _err = unanswered
    assert status == 1 and json.loads(out)["stopped"].startswith("turn 1: approval of delete_file")


def test_a_retried_failure_a_stopped_turn_and_a_turn_left_waiting_replay_the_same(tmp_path: Path, demo_server: DemoServer) -> None:
    path = tmp_path / "threads.sqlite3"
    with ThreadStore(path) as store:
        original = asyncio.run(record_thread(store, demo_server.url, [
            Step("/demo failure", retry=True),
            Step("delete /tmp/a.txt", cancel=True),
            Step("delete /tmp/notes.txt", leave_waiting=True),
        ]))
    status, out, err = replay(path, original, "--json")
    report = json.loads(out)
    assert status == 0, ([t["differences"] for t in report["turns"]], err)
    failure, cancelled, waiting = report["turns"]
    assert failure["status"] == {"was": "completed", "now": "completed"}
    assert cancelled["status"] == {"was": "cancelled", "now": "cancelled"}  # stopped at the same question
    assert waiting["status"] == {"was": "waiting", "now": "waiting"} and waiting["asks"]["now"][0]["answer"] is None


def test_the_tandem_command_replays_a_thread_ask_saved(tmp_path: Path) -> None:
    """`tandem ask` then `tandem replay` as processes, on the embedded demo agent (the thread's own)."""
    from tests.helpers.ask_harness import clean_env, tandem

    env = clean_env(XDG_DATA_HOME=str(tmp_path / "data"), XDG_CONFIG_HOME=str(tmp_path / "config"))
    asked = tandem("ask", "--speed", "0", "what's the weather in Lisbon?", env=env)
    assert asked.returncode == 0, asked.stderr
    with ThreadStore(tmp_path / "data" / "tandem" / "threads.sqlite3") as store:
        [info] = store.list()
    replayed = tandem("replay", info.id, "--speed", "0", env=env)
    assert replayed.returncode == 0, replayed.stderr
    assert replayed.stdout.splitlines()[0] == f"Replaying {info.id} “what's the weather in Lisbon?” against the demo agent"
    assert "Turn 1  what's the weather in Lisbon?  ✓ same" in replayed.stdout and "\x1b[" not in replayed.stdout
    assert tandem("replay", env=env).returncode == 2
