"""End to end in a real terminal: a question without a schema, answered by typing (issue 11).

`tests.helpers.shaped_server` runs as its own process (a real AG-UI server with LangGraph's
stream shape on 127.0.0.1) and keeps a file of the request bodies it received; tmux runs
`tandem --url` on it. The person types a message, then the answer and Enter; the screen shows
the answer and the agent's reply, and the server received the typed string as the resume payload.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.helpers.tmux import TANDEM, Terminal

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed; the real-terminal test needs it"),
]

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def shaped(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The server's base URL and the file of its request bodies."""
    requests = tmp_path / "requests.json"
    process = subprocess.Popen([sys.executable, "-m", "tests.helpers.shaped_server", str(requests)], stdout=subprocess.PIPE, text=True,
                               cwd=REPO)
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:"), f"the server did not start: {url!r}"
        yield url, requests
    finally:
        process.terminate()
        process.wait(10)


def _received(requests: Path, scenario: str, count: int) -> list[dict]:
    deadline = time.monotonic() + 10
    bodies: list[dict] = []
    while time.monotonic() < deadline:
        if requests.exists():
            bodies = json.loads(requests.read_text()).get(scenario, [])
            if len(bodies) >= count:
                return bodies
        time.sleep(0.1)
    raise AssertionError(f"the server received {len(bodies)} request(s), not {count}")


def test_a_plain_question_is_answered_by_typing(tmp_path: Path, shaped: tuple[str, Path]) -> None:
    url, requests = shaped
    terminal = Terminal(f"env XDG_DATA_HOME={tmp_path} {TANDEM} --url {url}/question")
    try:
        terminal.wait_for(lambda s: "idle" in s, "the app, ready")
        terminal.type("paint the fence")
        terminal.keys("Enter")
        screen = terminal.wait_for(lambda s: "Which colour?" in s and "Decline" in s, "the question with its text field")
        assert "type your answer" in screen
        terminal.type("sea green")  # the cursor is in the answer field: no click, no Tab
        terminal.keys("Enter")
        # The reply's tokens have RAW events between them: it is still one message on screen.
        screen = terminal.wait_for(lambda s: "You chose sea green." in s and "idle" in s, "the agent's reply")
        assert "answered by" in screen and ": sea green" in screen
        bodies = _received(requests, "question", 2)
        assert bodies[-1]["resume"] == [{"interruptId": "int-colour", "status": "resolved", "payload": "sea green"}]
        terminal.quit()
    finally:
        terminal.close()
