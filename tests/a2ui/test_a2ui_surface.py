"""Surface blocks: messages, templates, two-way binding, checks and actions."""

from __future__ import annotations

import inspect

import pytest
from tests.helpers.a2ui_scripts import ALT_CATALOG, CATALOG, activity, booking_form, components, create, data, delete, make_agent, message_parts, run, surfaces
from a2ui.core.schema.v0_9.client_to_server import A2uiClientActionMessage

from tandem.core.a2ui import ResolvedComponent, ResolveStopped, SurfaceBlock

pytestmark = pytest.mark.filterwarnings("ignore::a2ui.core.resolution.MissingDataBindingWarning")


def booking() -> tuple[SurfaceBlock, list]:
    agent, outbox = make_agent()
    writes: list = []
    agent.env.record = writes.append
    run(agent, activity(booking_form()))
    [block] = surfaces(agent)
    return block, writes


class TestMessages:
    def test_create_update_data_delete(self):
        agent, _ = make_agent()
        run(agent, message_parts([create("s"), components("s", {"id": "root", "component": "Text", "text": {"path": "/greeting"}})]))
        [block] = surfaces(agent)
        assert block.kind == "a2ui_surface" and block.id == "a2ui/s" and block.live
        run(agent, message_parts([data("s", "/greeting", "hello")]))
        assert block.resolve("root").props["text"] == "hello"
        run(agent, message_parts([data("s", "/greeting")]))  # no value: delete
        assert block.get_value("/greeting") is None
        run(agent, message_parts([delete("s")]))
        assert block.status == "deleted" and not block.live and block.tree() is None
        assert block.errors == []

    def test_components_are_upserted_by_id(self):
        agent, _ = make_agent()
        run(agent, message_parts([create("s"), components("s", {"id": "root", "component": "Text", "text": "one"})]))
        run(agent, message_parts([components("s", {"id": "root", "component": "Text", "text": "two"})]))
        [block] = surfaces(agent)
        assert block.resolve().props["text"] == "two"

    @pytest.mark.parametrize("catalog", [CATALOG, ALT_CATALOG])
    def test_both_basic_catalog_ids(self, catalog):
        agent, _ = make_agent()
        run(agent, message_parts([create("s", catalog=catalog), components("s", {"id": "root", "component": "Divider"})]))
        [block] = surfaces(agent)
        assert block.profile.name == "basic" and block.catalog_id == catalog
        assert block.tree().type == "Divider" and block.errors == []

    def test_a_resolution_stops_when_asked(self):
        agent, _ = make_agent()
        rows = [{"id": f"r{i}", "component": "Text", "text": f"row {i}"} for i in range(50)]
        run(agent, message_parts([create("s"), components("s", {"id": "root", "component": "Column", "children": [r["id"] for r in rows]}, *rows)]))
        [block] = surfaces(agent)
        asked: list[int] = []

        def stop_after_ten() -> bool:
            asked.append(1)
            return len(asked) > 10

        with pytest.raises(ResolveStopped):
            block.tree(stop_after_ten)
        assert len(asked) == 11  # (asked before each component; none resolved after it said stop)
        assert len(block.tree(lambda: False).children) == 50

    def test_children_not_arrived_yet_are_placeholders(self):
        agent, _ = make_agent()
        run(agent, message_parts([create("s"), components("s", {"id": "root", "component": "Row", "children": ["a", "b"]}, {"id": "a", "component": "Text", "text": "A"})]))
        [block] = surfaces(agent)
        a, b = block.tree().slots["children"]
        assert (a.type, a.placeholder) == ("Text", False)
        assert (b.id, b.placeholder) == ("b", True)
        run(agent, message_parts([components("s", {"id": "b", "component": "Text", "text": "B"})]))
        assert [c.props["text"] for c in block.tree().children] == ["A", "B"]

    def test_template_stamps_one_child_per_item(self):
        agent, _ = make_agent()
        run(
            agent,
            message_parts([
                create("s"),
                components("s", {"id": "root", "component": "List", "children": {"componentId": "item", "path": "/items"}}, {"id": "item", "component": "Text", "text": {"path": "label"}}),
                data("s", "/items", [{"label": "a"}, {"label": "b"}, {"label": "c"}]),
            ]),
        )
        [block] = surfaces(agent)
        stamped = block.tree().slots["children"]
        assert [(c.key, c.props["text"]) for c in stamped] == [("item@/items/0", "a"), ("item@/items/1", "b"), ("item@/items/2", "c")]

    def test_display_name_is_sanitised_and_framed_as_the_agents(self):
        agent, _ = make_agent()
        run(agent, message_parts([create("s", name="\x1b[2JTandem\x07 system\n")]))
        [block] = surfaces(agent)
        assert block.display_name == "[2JTandem system"
        assert block.frame_title.startswith("Agent UI · ")


class TestInputsAndChecks:
    def test_set_value_writes_the_local_model_and_logs_it(self):
        block, writes = booking()
        name = block.resolve("name")
        assert name.bindings == {"value": "/name"}
        assert block.set_value(name.bindings["value"], "Ann")
        assert block.get_value("/name") == "Ann"
        assert block.resolve("name").props["value"] == "Ann"
        assert [(w.kind, w.payload) for w in writes] == [("a2ui_input", {"path": "/name", "value": "Ann"})]

    def test_checks_disable_then_enable(self):
        block, _ = booking()
        assert block.check_results("submit").valid is False
        assert block.check_results("submit").messages == ("Name is required",)
        assert block.fire_action("submit").status == "disabled"
        block.set_value("/name", "Ann")
        assert block.check_results("submit").valid is True
        block.set_value("/name", "")
        assert not block.check_results("submit").valid

    def test_validation_regexp(self):
        agent, _ = make_agent()
        run(agent, message_parts([create("s"), components("s", {"id": "root", "component": "TextField", "label": "Zip", "value": {"path": "/zip"}, "validationRegexp": "[0-9]{5}"})]))
        [block] = surfaces(agent)
        block.set_value("/zip", "12a")
        assert not block.check_results("root").valid
        block.set_value("/zip", "12345")
        assert block.check_results("root").valid


class TestActions:
    def test_event_payload_matches_a2ui_core_schema(self):
        block, writes = booking()
        block.set_value("/name", "Ann")
        result = block.fire_action("submit")
        assert result.status == "sent"
        assert result.action == {
            "name": "submit_booking",
            "surfaceId": "booking",
            "sourceComponentId": "submit",
            "timestamp": "2026-01-01T00:00:00.000Z",
            "context": {"who": "Ann", "size": ["2"], "fixed": 1},
        }
        A2uiClientActionMessage.model_validate({"version": "v0.9", "action": result.action})
        assert writes[-1].kind == "a2ui_action" and writes[-1].payload["action"] == result.action
        assert block.fired == [result.action]
        assert block.take_actions() == [result.action] and block.take_actions() == []

    def test_event_in_a_template_resolves_relative_paths(self):
        agent, _ = make_agent()
        run(
            agent,
            message_parts([
                create("s"),
                components(
                    "s",
                    {"id": "root", "component": "List", "children": {"componentId": "pick", "path": "/rows"}},
                    {"id": "pick", "component": "Button", "child": "t", "action": {"event": {"name": "pick", "context": {"id": {"path": "id"}}}}},
                    {"id": "t", "component": "Text", "text": {"path": "title"}},
                ),
                data("s", "/rows", [{"id": "x", "title": "X"}, {"id": "y", "title": "Y"}]),
            ]),
        )
        [block] = surfaces(agent)
        second = block.tree().slots["children"][1]
        assert second.slots["child"][0].props["text"] == "Y"
        assert block.fire_action(second.id, second.scope).action["context"] == {"id": "y"}

    def test_function_calls_run_only_registered_functions(self):
        agent, _ = make_agent()
        run(
            agent,
            message_parts([
                create("s"),
                components(
                    "s",
                    {"id": "root", "component": "Row", "children": ["fmt", "evil"]},
                    {"id": "fmt", "component": "Button", "child": "l", "action": {"functionCall": {"call": "formatString", "args": {"value": "hi ${/who}"}}}},
                    {"id": "evil", "component": "Button", "child": "l", "action": {"functionCall": {"call": "os.system", "args": {"cmd": "rm -rf /"}}}},
                    {"id": "l", "component": "Text", "text": "go"},
                ),
                data("s", "/who", "Ann"),
            ]),
        )
        [block] = surfaces(agent)
        ran = block.fire_action("fmt")
        assert (ran.status, ran.value) == ("ran", "hi Ann")
        assert block.fire_action("evil").status == "refused"
        assert block.fired == []

    @pytest.mark.parametrize(
        ("url", "status"),
        [
            ("https://a2ui.org/help", "needs_confirmation"),
            ("http://example.com", "needs_confirmation"),
            ("javascript:alert(1)", "refused"),
            ("file:///etc/passwd", "refused"),
            ("mailto:someone@example.com", "refused"),
        ],
    )
    def test_open_url_needs_confirmation_and_http_only(self, url, status):
        agent, _ = make_agent()
        run(
            agent,
            message_parts([
                create("s"),
                components(
                    "s",
                    {"id": "root", "component": "Button", "child": "l", "action": {"functionCall": {"call": "openUrl", "args": {"url": url}}}},
                    {"id": "l", "component": "Text", "text": "Help"},
                ),
            ]),
        )
        [block] = surfaces(agent)
        result = block.fire_action("root")
        assert result.status == status
        assert result.url == (url if status == "needs_confirmation" else None)


def test_every_basic_component_resolves():
    agent, _ = make_agent()
    items = [
        {"id": "root", "component": "Column", "children": ["text", "image", "icon", "video", "audio", "row", "list", "card", "tabs", "modal", "divider", "button", "field", "check", "choice", "slider", "date"]},
        {"id": "text", "component": "Text", "text": "# Hi", "variant": "h1"},
        {"id": "image", "component": "Image", "url": "https://x/y.png", "description": "A y"},
        {"id": "icon", "component": "Icon", "name": "star"},
        {"id": "video", "component": "Video", "url": "https://x/v.mp4"},
        {"id": "audio", "component": "AudioPlayer", "url": "https://x/a.mp3", "description": "A tune"},
        {"id": "row", "component": "Row", "children": ["t1"], "justify": "spaceBetween", "align": "center"},
        {"id": "t1", "component": "Text", "text": "in row", "weight": 2},
        {"id": "list", "component": "List", "children": [], "direction": "horizontal"},
        {"id": "card", "component": "Card", "child": "t2"},
        {"id": "t2", "component": "Text", "text": "in card"},
        {"id": "tabs", "component": "Tabs", "tabs": [{"title": "One", "child": "t3"}, {"title": {"path": "/tab2"}, "child": "t4"}]},
        {"id": "t3", "component": "Text", "text": "tab one"},
        {"id": "t4", "component": "Text", "text": "tab two"},
        {"id": "modal", "component": "Modal", "trigger": "open", "content": "t5"},
        {"id": "open", "component": "Button", "child": "t6", "action": {"event": {"name": "noop"}}},
        {"id": "t5", "component": "Text", "text": "modal body"},
        {"id": "t6", "component": "Text", "text": "Open"},
        {"id": "divider", "component": "Divider", "axis": "horizontal"},
        {"id": "button", "component": "Button", "child": "t6", "variant": "primary", "action": {"event": {"name": "go"}}},
        {"id": "field", "component": "TextField", "label": "Secret", "value": {"path": "/secret"}, "variant": "obscured"},
        {"id": "check", "component": "CheckBox", "label": "OK", "value": {"path": "/ok"}},
        {"id": "choice", "component": "ChoicePicker", "options": [{"label": "A", "value": "a"}], "value": {"path": "/choice"}, "variant": "multipleSelection", "filterable": True},
        {"id": "slider", "component": "Slider", "label": "Vol", "min": 0, "max": 10, "value": {"path": "/vol"}},
        {"id": "date", "component": "DateTimeInput", "value": {"path": "/when"}, "enableDate": True, "enableTime": True},
    ]
    run(agent, message_parts([create("s"), components("s", *items), data("s", "/", {"tab2": "Two", "vol": 3, "ok": True, "choice": ["a"], "when": "", "secret": ""})]))
    [block] = surfaces(agent)
    assert block.errors == []
    tree = block.tree()
    assert isinstance(tree, ResolvedComponent)
    types = {c.type for _d, c in block.iter_components()}
    assert types == {"Column", "Text", "Image", "Icon", "Video", "AudioPlayer", "Row", "List", "Card", "Tabs", "Modal", "Divider", "Button", "TextField", "CheckBox", "ChoicePicker", "Slider", "DateTimeInput"}
    tabs = block.resolve("tabs")
    assert [t["title"] for t in tabs.props["tabs"]] == ["One", "Two"]
    assert [c.id for c in tabs.slots["tabs"]] == ["t3", "t4"]
    modal = block.resolve("modal")
    assert modal.slots["trigger"][0].id == "open" and modal.slots["content"][0].id == "t5"
    assert block.resolve("slider").props["value"] == 3 and block.resolve("slider").bindings == {"value": "/vol"}
    assert all(c.supported for _d, c in block.iter_components())


def test_unknown_component_type_is_a_fallback_with_working_actions():
    agent, _ = make_agent()
    run(
        agent,
        message_parts([
            create("s"),
            components("s", {"id": "root", "component": "Chart", "series": {"path": "/series"}, "action": {"event": {"name": "drill"}}}),
            data("s", "/series", [1, 2]),
        ]),
    )
    [block] = surfaces(agent)
    root = block.tree()
    assert root.type == "Chart" and not root.supported and root.props["series"] == [1, 2]
    assert block.fire_action("root").status == "sent"


def test_exported_members():
    import tandem.core.a2ui

    for name in tandem.core.a2ui.__all__:  # the names loaded on first use must resolve
        getattr(tandem.core.a2ui, name)
    public = {name for name, value in vars(tandem.core.a2ui).items() if not name.startswith("_") and not inspect.ismodule(value)} - {"annotations"}
    assert set(tandem.core.a2ui.__all__) == public
