"""`tandem ask` saves its turn as a thread and continues saved threads with their history.

End to end: `tandem` runs as a subprocess against the demo agent and against a real AG-UI
server on 127.0.0.1 (`history_server`) that records the history each request carries. Each test
has its own data directory (the thread store) and config directory.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from tests.helpers.ask_harness import AskResult, HistoryServer, clean_env, tandem

from tandem.core.store import ThreadStore


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """An environment whose thread store and config live in this test's tmp_path."""
    return clean_env(XDG_DATA_HOME=str(tmp_path / "data"), XDG_CONFIG_HOME=str(tmp_path / "config"))


def store_of(env: dict[str, str]) -> ThreadStore:
    return ThreadStore(Path(env["XDG_DATA_HOME"]) / "tandem" / "threads.sqlite3")


def ask(env: dict[str, str], *args: str, stdin: str = "") -> AskResult:
    return tandem("ask", "--speed", "0", *args, stdin=stdin, env=env)


def thread_of(result: AskResult) -> str:
    assert result.returncode == 0, result.stderr
    thread = result.turn["thread"]
    assert isinstance(thread, str)
    return thread


class TestSaving:
    def test_a_turn_is_saved_as_a_thread_titled_by_the_message(self, env: dict[str, str]) -> None:
        thread = thread_of(ask(env, "--json", "/demo weather in Porto"))
        with store_of(env) as store:
            (info,) = store.list()
            assert info.id == thread and info.title == "/demo weather in Porto" and info.turns == 1
            assert info.server_url is None  # the demo agent

    def test_no_save_leaves_no_thread(self, env: dict[str, str]) -> None:
        result = ask(env, "--json", "--no-save", "/demo weather")
        assert result.returncode == 0 and result.turn["thread"] is None
        assert "It is **" in result.text
        with store_of(env) as store:
            assert store.list() == []

    def test_a_usage_error_saves_nothing(self, env: dict[str, str]) -> None:
        assert ask(env, "").returncode == 2
        with store_of(env) as store:
            assert store.list() == []


class TestContinuing:
    def test_c_and_thread_send_the_history_the_server_needs(self, env: dict[str, str], history_server: HistoryServer) -> None:
        first = thread_of(ask(env, "--json", "--url", history_server.url, "first question"))
        other = thread_of(ask(env, "--json", "--url", history_server.url, "unrelated"))
        # -c continues the latest thread (`other`); without --url it goes to the thread's own server.
        assert thread_of(ask(env, "--json", "-c", "and then?")) == other
        # --thread takes an id prefix; the continued thread carries its whole history.
        assert thread_of(ask(env, "--json", "--thread", first[:6], "second question")) == first
        histories = history_server.histories()
        assert histories[0] == [("user", "first question")]
        assert histories[1] == [("user", "unrelated")]
        assert histories[2] == [("user", "unrelated"), ("assistant", "reply 2: heard unrelated"), ("user", "and then?")]
        assert histories[3] == [
            ("user", "first question"),
            ("assistant", "reply 1: heard first question"),
            ("user", "second question"),
        ]
        # One AG-UI thread per saved thread: the server sees the same thread id on every turn.
        ids = [request["thread_id"] for request in history_server.requests]
        assert ids[0] == ids[3] and ids[1] == ids[2] and ids[0] != ids[1]
        with store_of(env) as store:
            assert {info.id: info.turns for info in store.list()} == {first: 2, other: 2}

    def test_no_save_continues_without_writing(self, env: dict[str, str], history_server: HistoryServer) -> None:
        first = thread_of(ask(env, "--json", "--url", history_server.url, "keep this"))
        result = ask(env, "--json", "--no-save", "-c", "just asking")
        assert result.returncode == 0 and result.turn["thread"] is None
        assert history_server.histories()[1][:2] == [("user", "keep this"), ("assistant", "reply 1: heard keep this")]
        with store_of(env) as store:
            assert store.info(first).turns == 1

    def test_an_unknown_thread_is_one_line_and_status_1(self, env: dict[str, str]) -> None:
        thread_of(ask(env, "--json", "/demo chat"))
        result = ask(env, "--thread", "zzzz", "hello")
        assert result.returncode == 1 and result.stdout == ""
        assert result.stderr.startswith("tandem: no thread 'zzzz'") and result.stderr.count("\n") == 1

    def test_c_without_any_thread_says_so(self, env: dict[str, str]) -> None:
        result = ask(env, "-c", "hello")
        assert result.returncode == 1
        assert result.stderr == "tandem: there is no saved thread to continue yet; start one with `tandem ask MESSAGE`\n"

    def test_c_and_thread_together_are_a_usage_error(self, env: dict[str, str]) -> None:
        result = ask(env, "-c", "--thread", "abc", "hello")
        assert result.returncode == 2 and "not allowed with argument" in result.stderr

    def test_a_thread_the_app_saved_continues_in_ask(self, env: dict[str, str], history_server: HistoryServer) -> None:
        # What the app does when it saves a conversation (tui/cli/app_main.py: backend.open_context on the store).
        import asyncio

        from tandem.tui.cli import backend

        async def app_turn() -> str:
            with store_of(env) as store:
                context = await backend.open_context(history_server.url, {}, store=store)
                turn = await context.send("typed in the app")
                await turn.wait()
                await context.dispose()
                return context.thread.thread_id

        thread = asyncio.run(app_turn())
        assert thread_of(ask(env, "--json", "--thread", thread, "from the shell")) == thread
        assert history_server.histories()[1] == [
            ("user", "typed in the app"),
            ("assistant", "reply 1: heard typed in the app"),
            ("user", "from the shell"),
        ]


    def test_a_thread_left_waiting_is_decided_first(self, env: dict[str, str]) -> None:
        # The app left a turn waiting for an approval (quit before deciding): `ask -c` decides it
        # by its policy, lets that turn finish, then sends the new message.
        import asyncio

        from tandem.core import Status
        from tandem.tui.cli import backend

        async def left_waiting() -> str:
            with store_of(env) as store:
                context = await backend.open_context(None, {}, speed=0.0, store=store)
                waiting = asyncio.Event()
                context.on_status_changed(lambda status: waiting.set() if status is Status.AWAITING_INPUT else None)
                await context.send("/demo delete old.txt")
                await asyncio.wait_for(waiting.wait(), 60)
                await context.dispose()
                return context.thread.thread_id

        thread = asyncio.run(left_waiting())
        result = ask(env, "--json", "--approve", "all", "-c", "/demo weather in Rome")
        assert thread_of(result) == thread
        assert "Deleted `old.txt`." in result.text and result.tool("get_weather")["arguments"] == {"location": "Rome"}
        with store_of(env) as store:
            assert store.info(thread).turns == 2


class TestLastScreen:
    """`ask` leaves its thread with the stored last screenful (`core.store.tail`), as the app does
    when it closes one, so `tandem --resume` paints the end of a thread `ask` wrote at once too."""

    def test_the_tail_is_kept_at_the_log_end_and_follows_each_turn(self, env: dict[str, str], history_server: HistoryServer) -> None:
        from tandem.core.store.tail import read_tail

        path = Path(env["XDG_DATA_HOME"]) / "tandem" / "threads.sqlite3"
        thread = thread_of(ask(env, "--json", "--url", history_server.url, "first question"))
        tail = read_tail(path, thread)
        assert tail is not None  # taken at the log's last entry: a resume trusts it
        assert [(s["role"], s["content"]["text"]) for s in tail.snapshots] == [
            ("user", "first question"), ("assistant", "reply 1: heard first question")]
        assert tail.lines is None  # no screen: the app builds the views of these blocks
        thread_of(ask(env, "--json", "-c", "second question"))
        tail = read_tail(path, thread)
        assert tail is not None and tail.shown == 4
        assert tail.snapshots[-1]["content"]["text"] == "reply 2: heard second question"
        import asyncio

        from tandem.core.blocks.text import TextBlock
        from tandem.tui.cli import backend

        async def replayed() -> list[tuple[str, str]]:
            with store_of(env) as store:
                context = await backend.open_context(history_server.url, {}, store=store, resume=thread)
                blocks = [(block.id, block.text) for block in context.blocks if isinstance(block, TextBlock)]
                await context.dispose()
                return blocks

        # The replayed blocks' ids and texts: the replayed views replace the stored ones one for one.
        assert [(b.id, b.text) for b in tail.blocks()] == asyncio.run(replayed())[-len(tail.snapshots):]

    def test_no_save_keeps_no_tail(self, env: dict[str, str], history_server: HistoryServer) -> None:
        thread = thread_of(ask(env, "--json", "--url", history_server.url, "first question"))
        path = Path(env["XDG_DATA_HOME"]) / "tandem" / "threads.sqlite3"
        with sqlite3.connect(path) as connection:
            connection.execute("DELETE FROM tails")
        assert ask(env, "--json", "--no-save", "-c", "again").returncode == 0
        from tandem.core.store.tail import read_tail

        assert read_tail(path, thread) is None  # read, not written


class TestMessageFromStdin:
    def test_piped_stdin_follows_the_arguments(self, env: dict[str, str], history_server: HistoryServer) -> None:
        diff = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n"
        assert ask(env, "--url", history_server.url, "review this", stdin=diff).returncode == 0
        assert history_server.histories()[0] == [("user", "review this\n\n" + diff.rstrip("\n"))]

    @pytest.mark.parametrize("args", [(), ("-",)], ids=["no-arguments", "dash"])
    def test_stdin_alone(self, env: dict[str, str], history_server: HistoryServer, args: tuple[str, ...]) -> None:
        assert ask(env, "--url", history_server.url, *args, stdin="what is in\nthis file?\n").returncode == 0
        assert history_server.histories()[0] == [("user", "what is in\nthis file?")]

    def test_no_message_at_all_is_a_usage_error(self, env: dict[str, str]) -> None:
        result = ask(env, stdin="")
        assert result.returncode == 2
        assert result.stderr == "tandem: the message is empty: give it as arguments or on stdin\n"

    def test_a_question_with_stdin_as_the_message_is_declined_not_waited_on(self, env: dict[str, str]) -> None:
        # stdin is the message, so nobody can answer the approval: declined at once, exit status 3.
        result = ask(env, "--json", stdin="/demo delete notes.txt\n")
        assert result.returncode == 3
        assert result.stderr == "tandem: a decision was needed and was declined: approval of delete_file (no answer)\n"
        assert result.one("approval")["decision"]["outcome"] == "cancelled"

    def test_answers_from_a_file(self, env: dict[str, str], tmp_path: Path) -> None:
        answers = tmp_path / "answers.txt"
        answers.write_text("y\n", encoding="utf-8")
        result = ask(env, "--json", "--answers", str(answers), stdin="/demo delete notes.txt")
        assert result.returncode == 0, result.stderr
        assert result.one("approval")["decision"]["outcome"] == "approved"


class TestExitStatus:
    def test_0_1_2_3(self, env: dict[str, str], closed_port: int) -> None:
        assert ask(env, "/demo chat").returncode == 0
        failed = ask(env, "/demo failure")
        assert failed.returncode == 1 and failed.stderr.startswith("tandem: ")
        refused = ask(env, "--url", f"http://127.0.0.1:{closed_port}/", "hello")
        assert refused.returncode == 1 and "cannot connect" in refused.stderr
        assert ask(env, "--approve", "maybe", "hi").returncode == 2
        assert ask(env, "--agent", "x", "--url", "http://127.0.0.1:1/", "hi").returncode == 2
        assert ask(env, "--approve", "none", "/demo delete a.txt").returncode == 3

