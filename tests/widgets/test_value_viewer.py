"""Reading a long shared-state value: `v` in the state panel opens the value viewer (issue 19)."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Markdown, TextArea, Tree

from tandem.core.state.agent_state import AgentState
from tandem.widgets import StatePanel, ValueViewer
from tandem.widgets.value_viewer import looks_like_markdown, value_text

DOCUMENT = (
    "# Meeting notes\n\nThe team agreed to ship the terminal client in two stages. First, the conversation "
    "view and the approval flow; then shared state with proposals a person can accept or reject.\n\n"
    "## Actions\n\n- Write the release notes.\n- Record a short demo of the approval flow.\n"
)


class _Host(App[None]):
    def __init__(self, state: AgentState) -> None:
        super().__init__()
        self.panel = StatePanel(state)

    def compose(self) -> ComposeResult:
        yield self.panel


async def _open(pilot: Any, panel: StatePanel, index: int) -> ValueViewer:
    tree = panel.query_one(Tree)
    tree.focus()
    tree.move_cursor(tree.root.children[index])
    await pilot.press("v")
    await pilot.pause()
    viewer = pilot.app.screen
    assert isinstance(viewer, ValueViewer)
    return viewer


@pytest.mark.parametrize(
    ("text", "markdown"),
    [
        (DOCUMENT, True),
        ("see [the docs](https://example.com)", True),
        ("a **bold** claim", True),
        ("| a | b |\n| - | - |", True),
        ("just a sentence, nothing more", False),
        ("2 * 3 = 6 and #hashtag", False),
    ],
)
def test_markdown_is_recognised(text: str, markdown: bool) -> None:
    assert looks_like_markdown(text) is markdown


def test_value_text_is_sanitised_json_or_the_string() -> None:
    assert value_text({"a": [1, "é"]}) == '{\n  "a": [\n    1,\n    "é"\n  ]\n}'
    assert value_text("line\x1b[31m red\x07\nnext") == "line[31m red\nnext"


async def test_v_opens_a_long_markdown_value_rendered_and_c_copies_it() -> None:
    app = _Host(AgentState({"document": DOCUMENT, "count": 2}))
    async with app.run_test(size=(100, 40)) as pilot:
        tree = app.panel.query_one(Tree)
        assert "Record a short demo" not in str(tree.root.children[0].label)  # cut to one line in the tree
        viewer = await _open(pilot, app.panel, 0)
        assert viewer.path == "/document" and viewer.markdown
        markdown = viewer.query_one(Markdown)
        assert markdown.display and not viewer.query_one(TextArea).display
        kinds = {type(widget).__name__ for widget in markdown.walk_children()}
        assert {"MarkdownH1", "MarkdownH2", "MarkdownBulletList"} <= kinds  # rendered, not its source
        rendered = "\n".join(str(getattr(widget, "_content", "")) for widget in markdown.walk_children())
        assert "Meeting notes" in rendered and "Record a short demo of the approval flow." in rendered
        assert "# Meeting" not in rendered
        await pilot.press("c")
        assert app.clipboard == DOCUMENT
        await pilot.press("r")  # the raw text, with its Markdown source
        assert viewer.query_one(TextArea).display and viewer.query_one(TextArea).text == DOCUMENT
        await pilot.press("escape")
        assert app.screen is not viewer


async def test_an_object_opens_as_json_and_a_hostile_string_never_reaches_the_screen() -> None:
    state = AgentState({"recipe": {"title": "Soup", "steps": ["chop", "simmer"]}, "evil": "\x1b]52;c;cHduZWQ=\x07[@click=app.quit]x"})
    app = _Host(state)
    async with app.run_test(size=(100, 40)) as pilot:
        viewer = await _open(pilot, app.panel, 0)
        assert not viewer.markdown and viewer.path == "/recipe"
        area = viewer.query_one(TextArea)
        assert area.display and area.read_only and '"steps": [' in area.text
        await pilot.press("q")
        viewer = await _open(pilot, app.panel, 1)
        assert viewer.query_one(TextArea).text == "]52;c;cHduZWQ=[@click=app.quit]x"  # data, no ESC or BEL
        await pilot.press("c")
        assert app.clipboard is not None and "\x1b" not in app.clipboard
        await pilot.press("escape")
        assert app.is_running


async def test_v_with_the_cursor_never_moved_views_the_first_field() -> None:
    app = _Host(AgentState({"document": DOCUMENT}))
    async with app.run_test(size=(100, 40)) as pilot:
        app.panel.query_one(Tree).focus()  # Tab lands here with no line under the cursor
        await pilot.press("v")
        await pilot.pause()
        assert isinstance(app.screen, ValueViewer) and app.screen.path == "/document"
