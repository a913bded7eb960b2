"""What Tandem cannot honour is reported, and the envelope is at least as strict as a2ui-core's
relaxed mode: each case checks what the surface holds afterwards and what the agent is told."""

from __future__ import annotations

from typing import Any

import pytest
from tests.helpers.a2ui_scripts import CATALOG, components, create, data, make_agent, message_parts, run, surfaces

from tandem.core.a2ui import SurfaceBlock

pytestmark = pytest.mark.filterwarnings("ignore::a2ui.core.resolution.MissingDataBindingWarning")

MINIMAL = "https://a2ui.org/specification/v0_9/catalogs/minimal/catalog.json"
_PYDANTIC = ("function-after", "tagged-union", "ActionEventWrapper", "[_check")


def apply(*messages: dict[str, Any]) -> tuple[SurfaceBlock, list[dict[str, Any]]]:
    agent, outbox = make_agent()
    run(agent, message_parts(list(messages)))
    [block] = surfaces(agent)
    errors = outbox.forwarded_props().get("a2uiError") or []
    for error in errors:  # type: ignore[union-attr]
        assert error["error"]["code"] == "VALIDATION_FAILED"  # type: ignore[index]
        assert not any(m in error["error"]["message"] for m in _PYDANTIC)  # type: ignore[index]
    return block, errors  # type: ignore[return-value]


def messages_of(errors: list[dict[str, Any]]) -> list[str]:
    return [e["error"]["message"] for e in errors]


def text(cid: str, value: Any) -> dict[str, Any]:
    return {"id": cid, "component": "Text", "text": value}


class TestEnvelope:
    def test_a_message_without_version_is_rejected(self) -> None:
        block, errors = apply({"createSurface": {"surfaceId": "s", "catalogId": CATALOG}})
        assert not block.live
        assert messages_of(errors) == ['createSurface with no `version`: this client speaks A2UI v0.9 ("version": "v0.9")']

    def test_another_version_is_rejected_and_v0_9_1_accepted(self) -> None:
        block, errors = apply({"version": "v0.8", "createSurface": {"surfaceId": "s", "catalogId": CATALOG}})
        assert not block.live and "version 'v0.8'" in messages_of(errors)[0]
        block, errors = apply({"version": "v0.9.1", "createSurface": {"surfaceId": "s", "catalogId": CATALOG}}, {"version": "v0.9.1", "updateComponents": {"surfaceId": "s", "components": [text("root", "hi")]}})
        assert block.live and errors == [] and block.tree().props["text"] == "hi"  # type: ignore[union-attr]

    def test_create_surface_without_catalog_id_is_rejected_once(self) -> None:
        block, errors = apply({"version": "v0.9", "createSurface": {"surfaceId": "s"}}, components("s", text("root", "x")))
        assert not block.live
        assert messages_of(errors) == ["createSurface for 's' has no `catalogId`: v0.9 requires one (this client renders the v0.9 basic and minimal catalogs)"]

    def test_an_unknown_catalog_is_rejected_and_named(self) -> None:
        block, errors = apply(create("s", catalog="https://example.com/my-catalog.json"), components("s", text("root", "x")))
        assert not block.live and block.tree() is None
        [message] = messages_of(errors)
        assert "catalog 'https://example.com/my-catalog.json' is not one this client renders" in message

    def test_a_repeated_identical_create_surface_is_not_an_error(self) -> None:
        block, errors = apply(create("s"), components("s", text("root", "x")), create("s"))
        assert errors == [] and block.tree().props["text"] == "x"  # type: ignore[union-attr]

    def test_a_duplicate_create_surface_switching_send_data_model_on_is_refused_and_reported(self) -> None:
        block, errors = apply(create("s"), create("s", send_data_model=True))
        assert block.live and not block.send_data_model
        assert messages_of(errors) == ["surface 's' already exists: this createSurface was not applied (send deleteSurface first to recreate it)"]

    def test_an_invalid_batch_changes_nothing(self) -> None:
        block, errors = apply(
            create("s"),
            components("s", {"id": "root", "component": "Column", "children": ["a"]}, text("a", "before")),
            components("s", text("a", "after"), {"id": "b", "component": "Button", "child": "a"}),
        )
        assert block.tree().children[0].props["text"] == "before"  # type: ignore[union-attr]
        assert block.surface.components_model.get("b") is None  # type: ignore[union-attr]
        assert messages_of(errors) == ["Button 'b': 'action' is a required property"]

    def test_a_child_before_its_parent_still_renders(self) -> None:
        block, errors = apply(create("s"), components("s", text("late", "child first")), components("s", {"id": "root", "component": "Card", "child": "late"}))
        assert errors == [] and block.tree().children[0].props["text"] == "child first"  # type: ignore[union-attr]


class TestCannotHonour:
    def test_an_unknown_component_type_renders_as_unsupported_and_is_reported(self) -> None:
        block, errors = apply(create("s"), components("s", {"id": "root", "component": "Map", "center": "Paris"}))
        assert block.tree().type == "Map" and not block.tree().supported  # type: ignore[union-attr]
        assert messages_of(errors) == ["Map 'root': the basic catalog has no component 'Map'; it is shown as unsupported"]

    def test_an_unknown_function_in_a_value_is_reported(self) -> None:
        call = {"call": "capitalize", "args": {"value": "paris"}, "returnType": "string"}
        block, errors = apply(create("s"), components("s", text("root", call)))
        assert messages_of(errors) == ["Text 'root': `text` calls 'capitalize', which is not a function of the basic catalog this client runs; the value stays empty"]

    def test_the_minimal_catalog_runs_capitalize(self) -> None:
        call = {"call": "capitalize", "args": {"value": {"path": "/v"}}, "returnType": "string"}
        block, errors = apply(create("s", catalog=MINIMAL), components("s", text("root", call)), data("s", "/v", "paris"))
        assert errors == [] and block.tree().props["text"] == "Paris"  # type: ignore[union-attr]

    def test_a_basic_only_component_in_the_minimal_catalog_is_reported(self) -> None:
        _block, errors = apply(create("s", catalog=MINIMAL), components("s", {"id": "root", "component": "Divider"}))
        assert messages_of(errors) == ["Divider 'root': the minimal catalog has no component 'Divider'; it is shown as unsupported"]

    def test_a_function_call_outside_the_allow_list_is_marked_refused_and_reported_once(self) -> None:
        button = {"id": "root", "component": "Button", "child": "t", "action": {"functionCall": {"call": "shell", "args": {"cmd": "rm -rf /"}}}}
        block, errors = apply(create("s"), components("s", button, text("t", "Run")), components("s", button, text("t", "Run")))
        expected = "Button 'root': `action.functionCall` calls 'shell', which is not a function of the basic catalog this client runs; the button is disabled"
        assert messages_of(errors) == [expected]
        assert block.tree().refusal == expected  # type: ignore[union-attr]
        result = block.fire_action("root")
        assert result.status == "refused" and result.message == expected


class TestUpstreamGaps:
    """Cases a2ui-core 0.4 accepts even in strict mode; the v0.9 schema rejects them."""

    @pytest.mark.parametrize(
        ("prop", "why"),
        [("enabled", "v0.9 removed it: a Button is disabled by its `checks`"), ("primary", 'v0.9 removed it: use `variant: "primary"`')],
    )
    def test_deprecated_button_properties(self, prop: str, why: str) -> None:
        button = {"id": "root", "component": "Button", "child": "t", "action": {"event": {"name": "go"}}, prop: True}
        block, errors = apply(create("s"), components("s", button, text("t", "Go")))
        assert block.tree() is not None and block.tree().placeholder  # type: ignore[union-attr]
        assert messages_of(errors) == [f"Button 'root': unknown property `{prop}` ({why})"]

    @pytest.mark.parametrize(
        ("call", "message"),
        [
            ({"call": "length", "args": {"value": "x", "min": "5"}}, '`length` `min` must be a whole number of at least 0, not "5"'),
            ({"call": "length", "args": {"value": "x"}}, "`length` needs `min` or `max`"),
            ({"call": "numeric", "args": {"value": 3, "max": "20"}}, '`numeric` `max` must be a number, not "20"'),
        ],
    )
    def test_function_argument_types(self, call: dict[str, Any], message: str) -> None:
        field = {"id": "root", "component": "TextField", "label": "L", "value": "", "checks": [{"condition": call, "message": "m"}]}
        _block, errors = apply(create("s"), components("s", field))
        assert messages_of(errors) == [f"TextField 'root': `checks[0].condition`: {message}"]

    def test_open_url_needs_a_uri_and_its_return_type(self) -> None:
        bad_url = {"id": "a", "component": "Button", "child": "t", "action": {"functionCall": {"call": "openUrl", "args": {"url": "not a uri"}, "returnType": "void"}}}
        bad_type = {"id": "b", "component": "Button", "child": "t", "action": {"functionCall": {"call": "openUrl", "args": {"url": "https://x.org"}, "returnType": "boolean"}}}
        _block, errors = apply(create("s"), components("s", {"id": "root", "component": "Row", "children": ["a", "b"]}, bad_url, bad_type, text("t", "Go")))
        assert messages_of(errors) == [
            'Button \'a\': `action.functionCall`: `openUrl` `url` must be an absolute URI (like https://example.com), not "not a uri"',
            "Button 'b': `action.functionCall` says openUrl returns 'boolean', but it returns 'void'",
        ]

    def test_a2ui_core_errors_read_as_sentences(self) -> None:
        action = {"functionCall": {"call": "openUrl", "args": "https://example.com", "returnType": "void"}}
        _block, errors = apply(create("s"), components("s", {"id": "root", "component": "Button", "child": "t", "action": action}, text("t", "Go")))
        assert messages_of(errors)[0] == "Button 'root': 'action.event' is a required property"
        assert all(m.startswith("Button 'root': ") for m in messages_of(errors))


class TestStalled:
    def test_a_surface_without_root_when_the_run_ends_is_stalled(self) -> None:
        agent, _outbox = make_agent()
        run(agent, message_parts([create("s"), components("s", text("orphan", "x"))]))
        [block] = surfaces(agent)
        assert block.status == "building" and not block.stalled
        agent.pipeline.end_segment()
        assert block.stalled and block.content()["status"] == "stalled"
        run(agent, message_parts([components("s", {"id": "root", "component": "Card", "child": "orphan"})]))
        assert not block.stalled

    def test_the_end_of_the_run_reports_what_streaming_order_excused(self) -> None:
        agent, outbox = make_agent()
        run(agent, message_parts([create("s"), components("s", text("orphan", "x"))]))
        assert "a2uiError" not in outbox.forwarded_props()  # a root may still come
        agent.pipeline.end_segment()
        [error] = outbox.forwarded_props()["a2uiError"]  # type: ignore[misc]
        assert error["error"]["message"] == 'the run ended and surface \'s\' still has no root component (id "root"): nothing of it is shown'  # type: ignore[index]

    def test_children_never_sent_are_reported_when_the_run_ends(self) -> None:
        agent, outbox = make_agent()
        run(agent, message_parts([create("s"), components("s", {"id": "root", "component": "Row", "children": ["a", "gone"]}, text("a", "x"))]))
        agent.pipeline.end_segment()
        messages = [e["error"]["message"] for e in outbox.forwarded_props()["a2uiError"]]  # type: ignore[index,union-attr]
        assert messages == ["the run ended and these referenced components were never sent: 'gone'"]


class TestCycles:
    @pytest.mark.parametrize(
        ("batch", "cycle"),
        [
            ([{"id": "root", "component": "Column", "children": ["root"]}], "'root' → 'root'"),
            ([{"id": "root", "component": "Column", "children": ["c1"]}, {"id": "c1", "component": "Card", "child": "root"}], "'root' → 'c1' → 'root'"),
        ],
    )
    def test_a_cycle_rejects_the_batch(self, batch: list[dict[str, Any]], cycle: str) -> None:
        block, errors = apply(create("s"), components("s", *batch))
        assert block.surface.components_model.get("root") is None  # type: ignore[union-attr]
        assert messages_of(errors) == [f"circular component reference: {cycle} (a component cannot contain itself)"]
