"""Steps are shown per turn, and plain `tandem ask` writes its progress on stderr, the answer alone on stdout.

The runs are ag-ui-crewai's recorded `text` run (a `STEP_STARTED`/`STEP_FINISHED` pair named
`chat` around the answer), served three times on one thread: the step runs in every turn, so
every turn shows it, though its name is the same each time.
"""

from __future__ import annotations

from pathlib import Path

from tests.helpers.ask_harness import ask, clean_env
from tests.helpers.recorded import ReplayServer, runs_of


def _steps(events: list[dict]) -> list[str]:
    return [e["content"]["value"]["name"] for e in events
            if e.get("event") == "final" and e.get("kind") == "activity" and e["content"].get("activity_type") == "step"]


def test_a_step_seen_in_an_earlier_turn_is_shown_again_in_every_turn(tmp_path: Path) -> None:
    [text] = runs_of("crewai", "text")
    server = ReplayServer([text, text, text, text])
    env = clean_env(XDG_DATA_HOME=str(tmp_path / "data"), XDG_CONFIG_HOME=str(tmp_path / "config"))
    with server.running():
        turns = [ask("--json", *(("-c",) if n else ()), "--url", server.url, "Say hello", env=env) for n in range(3)]
        plain = ask("-c", "--url", server.url, "Say hello", env=env)
    for number, turn in enumerate(turns, 1):
        assert turn.returncode == 0, turn.stderr
        assert _steps(turn.events) == ["chat"], f"turn {number}: {_steps(turn.events)}"
    # Plain output: the answer alone on stdout, the step's progress on stderr.
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout == "Hello! This reply is streamed in several chunks by a scripted model.\n"
    assert "[step] chat" in plain.stderr.splitlines()
