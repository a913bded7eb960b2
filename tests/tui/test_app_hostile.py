"""Hostile agent and server data through the whole app (issue 12): it never crashes, never obeys."""

from __future__ import annotations

from typing import Any

from tests.helpers.app_harness import Scripted, started, text, wait_for

from tandem.tui.app.app import TandemApp


def _toast_texts(app: TandemApp) -> list[str]:
    from textual.widgets._toast import Toast

    return [str(toast.render()) for toast in app.screen.query(Toast)]


class TestNotificationsArePlainText:
    """Item 2: a toast shows what it was given, literally; markup in it is neither parsed nor live."""

    async def test_click_markup_and_a_lone_bracket_are_shown_literally(self) -> None:
        script = Scripted([[text("hi")]])
        async with script.app().run_test(size=(100, 30), notifications=True) as pilot:
            app = await started(pilot)
            app.notify("[@click=app.quit]quit[/] and a lone [", title="[b]bold[/b] [")
            app.main.notify("a widget's [ too \x1b[31m")  # widgets and screens delegate to the app
            await wait_for(pilot, lambda: len(_toast_texts(app)) == 2, "both toasts")
            shown = "\n".join(_toast_texts(app))
            assert "[@click=app.quit]quit[/] and a lone [" in shown
            assert "[b]bold[/b] [" in shown
            assert "a widget's [ too <U+001B>[31m" in shown and "\x1b" not in shown
            # Clicking the toast where the would-be link is must not quit (it only dismisses).
            from textual.widgets._toast import Toast

            toast: Any = app.screen.query(Toast).first()
            await pilot.click(toast, offset=(2, 1))
            await pilot.pause()
            assert app.is_running
            assert app.return_code is None

    async def test_ctrl_c_where_nothing_copies_names_the_quit_key_without_markup(self) -> None:
        # Textual's own hint is markup ("Press [b]ctrl+q[/b]"), which plain toasts showed as typed.
        script = Scripted([[text("hi")]])
        async with script.app().run_test(size=(100, 30), notifications=True) as pilot:
            app = await started(pilot)
            app.set_focus(None)
            await pilot.press("ctrl+c")
            await wait_for(pilot, lambda: len(_toast_texts(app)) == 1, "the hint")
            shown = _toast_texts(app)[0]
            assert "Press Ctrl+Q to quit the app" in shown and "[b]" not in shown, shown
            assert app.is_running


DEEP = "[" * 1000 + "]" * 1000
VALID_200 = '{"a":' * 199 + "[1]" + "}" * 199


def _deep_segments() -> list[Any]:
    from tandem.core.content import ToolCallContent, ToolResultContent
    from tandem.core.messages import ChatUpdate

    calls = ChatUpdate(message_id="m1", contents=[
        ToolCallContent(call_id="c1", name="read_file", arguments_delta='{"x": ' + DEEP + "}"),
        ToolCallContent(call_id="c1", name="read_file", done=True),
        ToolResultContent(call_id="c1", result=DEEP),
        ToolCallContent(call_id="c2", name="read_file", arguments_delta=VALID_200, done=True),
        ToolResultContent(call_id="c2", result=VALID_200),
    ])
    return [[calls, text("after the deep JSON", message_id="m2")]]


def _export(data_home: Any, thread_id: str) -> Any:
    import subprocess
    import sys

    from tests.helpers.app_harness import CLOCK  # noqa: F401 - the same interpreter and repository as the app tests

    env = {"XDG_DATA_HOME": str(data_home), "PATH": "/usr/bin:/bin", "HOME": str(data_home)}
    return subprocess.run([sys.executable, "-m", "tandem.tui.cli", "export", thread_id], capture_output=True,
                          text=True, env=env, timeout=60)


class TestDeepJSON:
    """Item 3: 1,000-deep agent JSON is a shown error, 200-deep is accepted, the thread reopens and exports."""

    async def test_deep_results_and_arguments_are_shown_and_the_thread_reopens_and_exports(self, tmp_path: Any) -> None:
        from tests.helpers.thread_harness import SavedScript

        from tandem.core import Status, ToolCallBlock

        store = tmp_path / "tandem" / "threads.sqlite3"
        store.parent.mkdir()
        saved = SavedScript(store)
        first = saved.app(_deep_segments())
        async with first.run_test(size=(100, 30)) as pilot:
            app = await started(pilot)
            from tests.helpers.app_harness import send

            await send(pilot, "go deep")
            await wait_for(pilot, lambda: "after the deep JSON" in "".join(
                getattr(b, "text", "") for b in app.conversation.all_blocks), "the turn's end")
            await wait_for(pilot, lambda: app.main.status is Status.IDLE, "an idle conversation")
            calls = {b.call_id: b for b in app.conversation.all_blocks if isinstance(b, ToolCallBlock)}
            assert calls["c1"].arguments_error is not None and "1001 levels deep" in calls["c1"].arguments_error
            assert calls["c2"].arguments_error is None and calls["c2"].arguments is not None  # 200 deep: fine
            await pilot.pause(0.1)
            assert app.is_running
            await pilot.press("ctrl+q")
        [info] = saved.threads()

        second = saved.app(resume="")
        async with second.run_test(size=(100, 30)) as pilot:
            app = await started(pilot)
            await wait_for(pilot, lambda: "after the deep JSON" in "".join(
                getattr(b, "text", "") for b in app.conversation.all_blocks), "the restored thread")
            await pilot.pause(0.1)
            assert app.is_running

        exported = _export(tmp_path, info.id)
        assert exported.returncode == 0, exported.stderr
        assert "Traceback" not in exported.stderr
        assert "after the deep JSON" in exported.stdout and "read_file" in exported.stdout


class TestUnshowableContent:
    """Item 3: a log entry that cannot be replayed, or a block that cannot be painted, is an error
    block; the thread still opens."""

    async def test_a_thread_with_an_unreplayable_entry_opens_with_an_error_block(self, tmp_path: Any) -> None:
        from tests.helpers.thread_harness import SavedScript

        from tandem.core import ErrorBlock
        from tandem.core.log_entries import TurnEnded
        from tandem.core.store import ThreadStore

        saved = SavedScript(tmp_path / "threads.sqlite3")
        first = saved.app([[text("kept")]])
        async with first.run_test(size=(100, 30)) as pilot:
            await started(pilot)
            from tests.helpers.app_harness import send

            await send(pilot, "hello")
            await wait_for(pilot, lambda: "kept" in "".join(getattr(b, "text", "") for b in pilot.app.conversation.all_blocks), "the answer")  # type: ignore[attr-defined]
            await pilot.press("ctrl+q")
        [info] = saved.threads()
        with ThreadStore(tmp_path / "threads.sqlite3") as store, store.open(info.id) as thread:
            thread.append(TurnEnded(turn_id="no-such-turn", status="completed"))  # replaying it raises KeyError
            thread.commit()

        second = saved.app(resume="")
        async with second.run_test(size=(100, 30)) as pilot:
            app = await started(pilot)
            await wait_for(pilot, lambda: any(isinstance(b, ErrorBlock) for b in app.conversation.all_blocks), "the error block")
            [error] = [b for b in app.conversation.all_blocks if isinstance(b, ErrorBlock)]
            assert "could not be shown" in error.message and "KeyError" in error.message
            assert "kept" in "".join(getattr(b, "text", "") for b in app.conversation.all_blocks)

    async def test_a_block_whose_view_fails_is_shown_as_an_error_line(self, monkeypatch: Any) -> None:
        from textual.widgets import Static

        from tandem.widgets.text import TextView

        def broken(self: Any) -> None:
            raise RecursionError("maximum recursion depth exceeded")

        monkeypatch.setattr(TextView, "update_from_block", broken)
        script = Scripted([[text("x")]])
        async with script.app().run_test(size=(100, 30)) as pilot:
            app = await started(pilot)
            from tests.helpers.app_harness import send

            await send(pilot, "hi")
            await wait_for(pilot, lambda: len(app.screen.query(".block-view--render-error")) > 0, "the error line")
            line = app.screen.query(".block-view--render-error").first(Static)
            assert "could not be shown: RecursionError" in str(line.render())
            assert app.is_running


CATASTROPHIC = {"type": "object", "properties": {"name": {"type": "string", "pattern": "^(a|aa)+$"}}}
UNRESOLVABLE = {"type": "object", "properties": {"name": {"$ref": "#/$defs/missing"}}}
LIST_TITLE = {"type": "object", "title": ["[@click=app.quit]quit[/]", "["], "properties": {"name": {"type": "string"}}}


async def _interrupt_app(pilot: Any) -> tuple[TandemApp, Any]:
    from tests.helpers.app_harness import send

    from tandem.core import InterruptBlock

    app = await started(pilot)
    await send(pilot, "ask me")
    await wait_for(pilot, lambda: any(isinstance(b, InterruptBlock) for b in app.conversation.all_blocks), "the interrupt")
    block = next(b for b in app.conversation.all_blocks if isinstance(b, InterruptBlock))
    await wait_for(pilot, lambda: app.conversation.view_of(block) is not None
                   and len(app.screen.query(".schema-form--input")) > 0, "the form")
    return app, block


def _interrupt_script(schema: dict[str, Any]) -> Scripted:
    from tests.helpers.app_harness import interrupt

    return Scripted([[interrupt("q1", schema, reason="input", message="Your name?")], [text("thanks", message_id="m2")]])


class TestAgentSchemasInTheApp:
    """Item 1: a hostile schema never crashes or freezes the app; an unusable one is answered raw."""

    async def test_a_catastrophic_pattern_is_reported_on_enter_and_the_app_stays_responsive(self) -> None:
        from textual.widgets import Input

        async with _interrupt_script(CATASTROPHIC).app().run_test(size=(100, 30)) as pilot:
            app, block = await _interrupt_app(pilot)
            field = app.screen.query(".schema-form--input").first(Input)
            field.focus()
            field.value = "a" * 35 + "!"
            await pilot.press("enter")
            await wait_for(pilot, lambda: "took too long" in str(app.screen.query(".schema-form--errors").first().render()),
                           "the time-out message")
            assert block.decision is None
            field.value = "aa"
            await pilot.press("enter")
            await wait_for(pilot, lambda: block.decision is not None, "the answer")
            assert block.decision.payload == {"name": "aa"}

    async def test_an_unresolvable_ref_is_answered_with_raw_json(self) -> None:
        from textual.widgets import Input

        async with _interrupt_script(UNRESOLVABLE).app().run_test(size=(100, 30)) as pilot:
            app, block = await _interrupt_app(pilot)
            problem = str(app.screen.query(".schema-form--problem").first().render())
            assert "cannot be resolved" in problem and "raw JSON" in problem
            field = app.screen.query(".schema-form--input").first(Input)
            field.focus()
            field.value = '{"name": ["free", "form"]}'
            await pilot.press("enter")
            await wait_for(pilot, lambda: block.decision is not None, "the raw answer")
            assert block.decision.outcome == "resolved" and block.decision.payload == {"name": ["free", "form"]}

    async def test_a_list_title_with_markup_is_a_problem_the_person_declines(self) -> None:
        from textual.widgets import Button

        async with _interrupt_script(LIST_TITLE).app().run_test(size=(100, 30), notifications=True) as pilot:
            app, block = await _interrupt_app(pilot)
            problem = str(app.screen.query(".schema-form--problem").first().render())
            assert "title" in problem and "[@click=app.quit]quit[/]" in problem  # shown as data
            decline = app.screen.query(".schema-form--decline").first(Button)
            assert decline.display
            decline.press()
            await wait_for(pilot, lambda: block.decision is not None, "the decline")
            assert block.decision.outcome == "declined"
            assert app.is_running


BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"


class TestTextThatLies:
    """Item 8: bidirectional controls never reach the screen or a file; the in-app export is clean."""

    async def test_bidi_and_escapes_never_reach_the_screen_or_the_in_app_export(self, tmp_path: Any) -> None:
        from tests.helpers.app_harness import send, tool_call

        from tandem.widgets import ToolCallView

        name = "read_file\u202e\u2066eliF_eteled\u2069"
        segments = [[tool_call("c1", name, {"path": "/tmp/\u202etxt.exe"}),
                     text("done \x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\ \u202edesrever", message_id="m2")]]
        script = Scripted(segments)
        async with script.app(data_dir=tmp_path).run_test(size=(120, 30), notifications=True) as pilot:
            app = await started(pilot)
            await send(pilot, "go")
            await wait_for(pilot, lambda: len(app.screen.query(ToolCallView)) == 1 and "desrever" in "".join(
                getattr(b, "text", "") for b in app.conversation.all_blocks), "the answer")
            await pilot.pause(0.1)
            view = app.screen.query(ToolCallView).first()
            shown = " ".join(str(w.render()) for w in view.query("*") if hasattr(w, "render"))
            assert "read_file<U+202E><U+2066>eliF_eteled<U+2069>" in shown  # shown, not removed
            assert not any(char in shown for char in BIDI + "\x1b")
            path = await app.export_markdown()
            assert path is not None
        exported = path.read_text(encoding="utf-8")
        assert "read_file" in exported and "desrever" in exported
        assert not any(char in exported for char in BIDI + "\x1b")


class TestEmptiedStore:
    """Item 10: a store file found empty (0 bytes) is reported as lost history, in the app and the CLI."""

    async def test_the_app_says_the_history_is_gone(self, tmp_path: Any) -> None:
        from tests.helpers.thread_harness import SavedScript

        store = tmp_path / "threads.sqlite3"
        store.write_bytes(b"")
        app = SavedScript(store).app([[text("hello")]])
        async with app.run_test(size=(120, 30), notifications=True) as pilot:
            await started(pilot)
            await wait_for(pilot, lambda: any("threads saved in it before are gone" in t for t in _toast_texts(app)),
                           "the lost-history notification")
            assert any("Saved threads lost" in t for t in _toast_texts(app))

    def test_tandem_threads_and_export_say_so_once(self, tmp_path: Any) -> None:
        import subprocess
        import sys

        store = tmp_path / "tandem" / "threads.sqlite3"
        store.parent.mkdir()
        store.write_bytes(b"")
        env = {"XDG_DATA_HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
        first = subprocess.run([sys.executable, "-m", "tandem.tui.cli", "threads"], capture_output=True, text=True,
                               env=env, timeout=60)
        assert first.returncode == 0 and "empty file (0 bytes)" in first.stderr and "gone" in first.stderr
        again = subprocess.run([sys.executable, "-m", "tandem.tui.cli", "threads"], capture_output=True, text=True,
                               env=env, timeout=60)
        assert again.returncode == 0 and "0 bytes" not in again.stderr  # now a real, empty store
