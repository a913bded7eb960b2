"""The vendored official A2UI v0.9 material (tests/fixtures/a2ui) and how the tests read a screen.

Loads the examples and labelled cases, feeds them through the real client path (the A2UI
handler in a `UIAgent` pipeline, as AG-UI activity snapshots growing one message at a time) and
reads what a headless app really drew: the characters inside a widget's region on the screen.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult
from textual.widget import Widget

from tandem.core import BlockEnv, ChatUpdate, UIAgent
from tandem.core.a2ui import SurfaceBlock, a2ui_forwarded_props, install_a2ui
from tandem.core.a2ui.operations import message_surface_id, message_type
from tandem.core.content import ActivityContent
from tandem.core.scripted import ScriptedChatClient
from tandem.themes import THEMES
from tandem.widgets import view_for
from tandem.widgets.a2ui_surface import SurfaceView

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "a2ui"
BASIC = "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"


@dataclass
class Case:
    """One official example or labelled case: the messages an agent would stream."""

    name: str
    messages: list[dict[str, Any]]
    valid: bool = True
    source: str = ""


def examples() -> list[Case]:
    """The 43 basic and 7 minimal examples of @a2ui/web_core 0.11.0."""
    cases = []
    for path in sorted((FIXTURES / "web_core-0.11.0" / "catalogs").glob("*/examples/*.json")):
        document = json.loads(path.read_text())
        messages = document["messages"] if isinstance(document, dict) else document
        cases.append(Case(f"{path.parent.parent.name}/{path.stem}", messages, True, str(path.relative_to(FIXTURES))))
    return cases


def _root_for(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A root Column over a case's top-level components, when the case has no root itself.

    The labelled cases are single messages checked against the schema; rendering needs a
    surface and a root. Only what the case lacks is added, never a change to its components.
    """
    components = [c for m in messages for c in (m.get("updateComponents") or {}).get("components", []) if isinstance(c, dict)]
    ids = [c["id"] for c in components if isinstance(c.get("id"), str)]
    if not components or "root" in ids:
        return []
    referenced: set[str] = set()
    for component in components:
        for key in ("child", "trigger", "content"):
            if isinstance(component.get(key), str):
                referenced.add(component[key])
        children = component.get("children")
        if isinstance(children, list):
            referenced.update(c for c in children if isinstance(c, str))
        elif isinstance(children, dict) and isinstance(children.get("componentId"), str):
            referenced.add(children["componentId"])
        for tab in component.get("tabs") or []:
            if isinstance(tab, dict) and isinstance(tab.get("child"), str):
                referenced.add(tab["child"])
    top = [i for i in ids if i not in referenced]
    surface_id = message_surface_id(messages[-1]) or "s"
    return [{"version": "v0.9", "updateComponents": {"surfaceId": surface_id, "components": [{"id": "root", "component": "Column", "children": top}]}}]


def labelled_cases() -> list[Case]:
    """The labelled server-to-client cases of specification/v0_9/test/cases.

    Each case that lacks a createSurface gets one for the surface it names (basic catalog);
    the contact-form cases are one stream, so each carries the messages before it.
    """
    cases: list[Case] = []
    for path in sorted((FIXTURES / "google-A2UI" / "cases").glob("*.json")):
        suite = json.loads(path.read_text())
        if suite.get("schema", "server_to_client.json") != "server_to_client.json":
            continue
        stream: list[dict[str, Any]] = []
        for number, test in enumerate(suite["tests"], 1):
            data = test["data"]
            messages = list(data) if isinstance(data, list) else [data]
            if path.stem == "contact_form_example_test":
                messages = [*stream, *messages]
                stream = messages
            elif not any(message_type(m) == "createSurface" for m in messages):
                surface_id = next((sid for m in messages if (sid := message_surface_id(m))), "s")
                messages = [{"version": "v0.9", "createSurface": {"surfaceId": surface_id, "catalogId": BASIC}}, *messages]
            if test.get("valid", True):
                messages = [*messages, *_root_for(messages)]
            cases.append(Case(f"{path.stem}#{number}", messages, bool(test.get("valid", True)), test.get("description", "")))
    return cases


@dataclass
class Fed:
    """A conversation that received a case through the A2UI handler."""

    agent: UIAgent
    blocks: list[SurfaceBlock] = field(default_factory=list)

    def errors(self) -> list[dict[str, Any]]:
        """The VALIDATION_FAILED errors the next request would carry (`forwardedProps.a2uiError`)."""
        props = a2ui_forwarded_props(self.agent.pipeline.blocks, "agent", consume=False)
        return list(props.get("a2uiError") or [])  # type: ignore[arg-type]


def feed(messages: list[dict[str, Any]], *, step: bool = True) -> Fed:
    """Stream `messages` as one a2ui-surface activity whose snapshot grows a message at a time."""
    agent = UIAgent(ScriptedChatClient([]), env=BlockEnv(user="ann", clock=lambda: 1_767_225_600.0))
    install_a2ui(agent)
    agent.pipeline.begin_segment("t1", 0)
    ends = range(1, len(messages) + 1) if step else [len(messages)]
    for end in ends:
        content = {"a2ui_operations": messages[:end]}
        agent.pipeline.process(ChatUpdate(contents=[ActivityContent(activity_id="a1", activity_type="a2ui-surface", content=content, replace=True)], message_id="m1"))
    return Fed(agent, [b for b in agent.pipeline.blocks if isinstance(b, SurfaceBlock)])


class Host(App[None]):
    """A headless app showing surface blocks the way the conversation does (`view_for`)."""

    def __init__(self, blocks: list[SurfaceBlock]) -> None:
        super().__init__()
        self.blocks = blocks

    def compose(self) -> ComposeResult:
        for block in self.blocks:
            yield view_for(block)

    def on_mount(self) -> None:
        for theme in THEMES:
            self.register_theme(theme)
        self.theme = "tandem-dark"

    def on_surface_view_value_changed(self, message: SurfaceView.ValueChanged) -> None:
        message.block.set_value(message.path, message.value)


_SPACE = re.compile(r"\s+")


def squeeze(text: str) -> str:
    """Text without whitespace: wrapping a line never changes it."""
    return _SPACE.sub("", text)


def drawn_text(widget: Widget) -> str:
    """The characters the screen shows inside `widget`'s region (clipped to the screen)."""
    screen = widget.screen
    strips = screen._compositor.render_strips()
    region = widget.region.intersection(screen.region)
    if region.width <= 0 or region.height <= 0:
        return ""
    lines = strips[region.y : region.y + region.height]
    return "\n".join(strip.crop(region.x, region.x + region.width).text for strip in lines)


_MD_LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]*)\)")
_MD_MARKS = re.compile(r"\*\*|__|`|(?<![\w])[*_](?=\S)|(?<=\S)[*_](?![\w])")
_MD_HEADING = re.compile(r"^\s*(#{1,6}\s+|>\s?)", re.MULTILINE)
_MD_BULLET = re.compile(r"^(\s*)[-*+]\s+", re.MULTILINE)


def plain(text: str) -> str:
    """What a person reads of Markdown: link texts, no emphasis or heading marks, • bullets."""
    text = _MD_LINK.sub(r"\1", text)
    text = _MD_HEADING.sub("", text)
    text = _MD_BULLET.sub(r"\1• ", text)
    return _MD_MARKS.sub("", text)
