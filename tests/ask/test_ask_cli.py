"""`tandem ask` as a command: plain output, exit statuses, failures, headers, a terminal, Ctrl-C."""

from __future__ import annotations

import json
import os
import pty
import signal
import subprocess
import sys

import pytest
from tests.helpers.ask_harness import REPO, TIMEOUT, DemoServer, ask, ask_command, clean_env

SECRET = "SECRET123"


class TestPlainOutput:
    @pytest.mark.parametrize(
        ("args", "stdin", "expected"),
        [
            (("/demo weather in Porto",), None,
             ['[tool] get_weather {"location": "Porto"} → running', '[tool] get_weather → succeeded: {"location": "Porto"',
              "It is **"]),
            (("--approve", "all", "/demo chat theme dark"), None,
             ["Switching to the **dark** theme.\n", '[action] change_theme {"theme": "dark"}\n',
              "[action] change_theme → completed: the theme would change to dark (headless)\n"]),
            (("/demo plan",), None,
             ["[state] +/plan = {", '[state] ~/plan/steps/0/status = "in_progress"\n', "[state] -/plan/steps/4\n"]),
            (("--approve", "all", "/demo document"), None,
             ["[state] proposed: /document (pending a decision)\n", "[approval] write_document {",
              "[approval] write_document → approved\n", "[state] +/document = "]),
            (("--approve", "none", "/demo delete a.txt"), None,
             ['[approval] delete_file {"path": "a.txt"}', "[tool] delete_file → denied\n",
              "[approval] delete_file → rejected\n"]),
            (("/demo delete a.txt",), "n not today\n", ["[approval] delete_file → rejected: not today\n"]),
            (("/demo address",), '{"name": "A", "street": "B", "city": "C", "country": "Japan"}\n',
             ["[input] Where should we ship your order? (name*, street*, city*, postcode, country*, speed)\n",
              '[input] → resolved {"name": "A", "street": "B", "city": "C", "country": "Japan"}\n']),
            (("/demo reasoning",), None, ["[reasoning] The user wants to see reasoning.", "\n**17 × 23 = 391.**"]),
            (("/demo haiku",), None, ['[tool] generate_haiku → succeeded: {"shown": true}\n']),
        ],
        ids=["weather", "theme", "plan", "document", "delete-none", "delete-reason", "address", "reasoning", "haiku"],
    )
    def test_labelled_lines(self, args: tuple[str, ...], stdin: str | None, expected: list[str]) -> None:
        result = ask(*args, stdin=stdin)
        assert result.returncode == (3 if "none" in args else 0), result.stderr  # 3: declined by --approve none
        for fragment in expected:
            # Progress ([state], [step]) goes to stderr; stdout holds the answer and the decisions.
            progress = fragment.startswith(("[state]", "[step]"))
            assert fragment in (result.stderr if progress else result.stdout), fragment
            assert not progress or fragment not in result.stdout, fragment
        assert result.stdout.endswith("\n")

    def test_text_streams_as_plain_text_without_echoing_the_prompt(self) -> None:
        result = ask("what can you do?")
        assert result.returncode == 0
        assert result.stdout.startswith("**This is Tandem's built-in demo agent.**")
        assert "what can you do?" not in result.stdout

    def test_failure_shows_the_error_and_one_line_on_stderr(self) -> None:
        result = ask("/demo failure")
        assert result.returncode == 1
        assert "\n[error] Simulated failure: the demo agent stopped mid-answer." in result.stdout
        assert result.stderr.count("\n") == 1 and result.stderr.startswith("tandem: Simulated failure")

    @pytest.mark.parametrize("as_json", [False, True], ids=["plain", "json"])
    def test_agent_text_cannot_drive_the_terminal(self, as_json: bool) -> None:
        hostile = "Ada\\u001b]0;pwned\\u0007 \\u001b[31mRed\\r\\u009b2J\\u007f"
        answer = f'{{"name": "{hostile}", "street": "B", "city": "C", "country": "Japan"}}\n'
        result = ask(*(["--json"] if as_json else []), "/demo address", stdin=answer)
        assert result.returncode == 0, result.stderr
        for control in ("\x1b", "\x07", "\r", "\x9b", "\x7f"):
            assert control not in result.stdout
        assert "Ada]0;pwned [31mRed2J" in result.stdout or as_json
        if as_json:
            assert result.stdout.isascii()


class TestFailures:
    def test_connection_refused(self, closed_port: int) -> None:
        result = ask("--json", "--url", f"http://127.0.0.1:{closed_port}/agent", "hello")
        assert result.returncode == 1
        assert result.stderr.startswith(f"tandem: cannot connect to http://127.0.0.1:{closed_port}/agent")
        assert result.stderr.count("\n") == 1
        assert result.turn["status"] == "error"
        assert result.one("error")["retryable"] is True

    def test_bad_header(self) -> None:
        result = ask("--header", "no colon here", "hello")
        assert result.returncode != 0
        assert result.stderr == "tandem: bad header 'no colon here': expected 'Name: value'\n"
        assert result.stdout == ""

    def test_missing_message_is_a_usage_error(self) -> None:
        result = ask()
        assert result.returncode == 2 and "message" in result.stderr

    def test_ctrl_c_exits_130(self) -> None:
        """SIGINT while the plan streams: the turn is cancelled, the exit status is 130."""
        proc = subprocess.Popen(
            ask_command("--json", "/demo plan", speed="1"),
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
            env=clean_env(),
            # A shell may start us with SIGINT ignored; the child must see the default handler.
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        assert proc.stdout is not None
        first = proc.stdout.readline()  # the first event: the turn is running
        assert '"event": "added"' in first
        proc.send_signal(signal.SIGINT)
        rest, err = proc.communicate(timeout=TIMEOUT)
        assert proc.returncode == 130
        assert err == "tandem: interrupted\n"
        last = json.loads(rest.splitlines()[-1])
        assert last == {"event": "turn", "status": "cancelled", "error": None, "thread": last["thread"], "schema": 1}
        assert isinstance(last["thread"], str)  # the interrupted turn is saved too


class TestHeaders:
    def test_sent_but_never_printed(self, demo_server: DemoServer) -> None:
        before = len(demo_server.headers)
        result = ask("--url", demo_server.url, "--header", f"Authorization: Bearer {SECRET}", "/demo weather")
        assert result.returncode == 0, result.stderr
        assert demo_server.headers[before]["authorization"] == f"Bearer {SECRET}"
        assert SECRET not in result.stdout and SECRET not in result.stderr

    def test_from_the_environment(self, demo_server: DemoServer) -> None:
        before = len(demo_server.headers)
        result = ask("--json", "--url", demo_server.url, "/demo chat", env=clean_env(TANDEM_HEADERS=f"X-Token: {SECRET}"))
        assert result.returncode == 0, result.stderr
        assert demo_server.headers[before]["x-token"] == SECRET
        assert SECRET not in result.stdout and SECRET not in result.stderr

    @pytest.mark.parametrize("as_json", [False, True], ids=["plain", "json"])
    def test_not_in_a_failure(self, closed_port: int, as_json: bool) -> None:
        url = f"http://user:{SECRET}pw@127.0.0.1:{closed_port}/?token={SECRET}"
        result = ask(*(["--json"] if as_json else []), "--url", url, "--header", f"Authorization: Bearer {SECRET}", "hi")
        assert result.returncode == 1
        assert SECRET not in result.stdout and SECRET not in result.stderr


class TestServedDemo:
    def test_same_blocks_as_embedded(self, demo_server: DemoServer) -> None:
        def shape(args: tuple[str, ...]) -> list[tuple[str, str | None]]:
            result = ask("--json", *args)
            assert result.returncode == 0, result.stderr
            return [(b["kind"], b["content"].get("status")) for b in result.finals() if b["kind"] != "debug"]

        assert shape(("--url", demo_server.url, "/demo weather")) == shape(("/demo weather",))


def run_in_terminal(args: tuple[str, ...], answers: list[str]) -> tuple[int, str, str]:
    """Run `tandem ask` with a pseudo-terminal on stdin, the answers typed ahead."""
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen(
            ask_command(*args), stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            cwd=REPO, env=clean_env(),
        )
        os.close(slave)
        for answer in answers:
            os.write(master, (answer + "\n").encode())
        out, err = proc.communicate(timeout=TIMEOUT)
    finally:
        os.close(master)
    return proc.returncode, out, err


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
class TestTerminalPrompts:
    def test_approval_prompt(self) -> None:
        code, out, err = run_in_terminal(("/demo delete a.txt",), ["n", "not now"])
        assert code == 0, err
        assert 'approve delete_file {"path": "a.txt"}? [y/n/e(dit)] ' in err
        assert "reason (optional): " in err
        assert "[approval] delete_file → rejected: not now\n" in out

    def test_input_form(self) -> None:
        code, out, err = run_in_terminal(("--json", "/demo address"), ["", "Ada", "1 Way", "Lisbon", "", "Portugal", ""])
        assert code == 0, err
        assert "answer as JSON, or press Enter to fill in a form: " in err
        assert "  Country* (Portugal/Spain/France/Germany/Japan/United Kingdom/United States): " in err
        assert "  Delivery (standard/express, default \"standard\"): " in err
        assert '"payload": {"name": "Ada", "street": "1 Way", "city": "Lisbon", "country": "Portugal", "speed": "standard"}' in out
