"""The A2UI handler: carriers, deduplication, invalid input, outbound props and replay."""

from __future__ import annotations

import json

import pytest
from tests.helpers.a2ui_scripts import Clock, activity, booking_form, components, create, data, make_agent, message_parts, run, surfaces, tool_call, tool_result, twice_encoded
from a2ui.core.schema.v0_9.client_to_server import A2uiClientDataModel, A2uiRendererErrorMessage

from tandem.core import AgentContext, BlockEnv, ChatUpdate, InMemoryThread, UIAgent, restore
from tandem.core.a2ui import COMPONENT_SCHEMA_DESCRIPTION, A2UIChatClient, a2ui_forwarded_props, install_a2ui
from tandem.core.chat_client import stream_updates
from tandem.core.content import FinishContent, TextContent
from tandem.core.scripted import ScriptedChatClient

pytestmark = pytest.mark.filterwarnings("ignore::a2ui.core.resolution.MissingDataBindingWarning")


class TestCarriers:
    def test_cumulative_snapshots_apply_once(self):
        agent, _ = make_agent()
        ops = booking_form()
        run(agent, activity(ops[:1]), activity(ops[:2]), activity(ops))
        [block] = surfaces(agent)
        block.set_value("/name", "Ann")
        run(agent, activity(ops))  # the same snapshot again: nothing re-applied, no error
        assert block.errors == [] and block.get_value("/name") == "Ann"
        assert block.status == "ready"

    def test_lifecycle_status_before_operations(self):
        agent, _ = make_agent()
        run(agent, activity(status="building"))
        [block] = surfaces(agent)
        assert block.status == "building" and block.surface_id == ""
        run(agent, activity(status={"state": "retrying", "errors": ["bad JSON"]}))
        assert block.status == "retrying" and block.status_errors == ["bad JSON"]
        run(agent, activity(booking_form()))
        assert surfaces(agent) == [block]  # the progress block adopts its surface
        assert block.surface_id == "booking" and block.status == "ready"

    def test_failed_generation(self):
        agent, _ = make_agent()
        run(agent, tool_call(), tool_result(json.dumps({"error": "model gave up"})))
        assert [s.status for s in surfaces(agent)] == []  # not A2UI-shaped: the tool block shows it
        run(agent, activity(status="failed", activity_id="act-2"))
        [block] = surfaces(agent)
        assert block.status == "failed" and block.error_line.startswith("UI generation failed")

    def test_tool_result_twice_encoded(self):
        agent, _ = make_agent()
        run(agent, tool_call(), tool_result(twice_encoded(booking_form())))
        [block] = surfaces(agent)
        assert block.surface_id == "booking" and block.tree().type == "Column"
        assert agent.pipeline.by_id["tool/call-1"].result is not None  # the tool block still has its result

    def test_tool_result_without_a_call(self):
        agent, _ = make_agent()
        run(agent, tool_result(twice_encoded(booking_form()), call_id="orphan"))
        [block] = surfaces(agent)
        assert block.tree().type == "Column"

    def test_both_forms_for_one_surface_make_one_block(self):
        agent, _ = make_agent()
        run(agent, activity(booking_form()))
        [block] = surfaces(agent)
        block.set_value("/window", True)
        run(agent, tool_call(), tool_result(twice_encoded(booking_form())))
        assert surfaces(agent) == [block]
        assert block.errors == [] and block.get_value("/window") is True

    def test_a2ui_message_parts(self):
        agent, _ = make_agent()
        run(agent, message_parts(booking_form()))
        [block] = surfaces(agent)
        assert block.tree().type == "Column" and block.errors == []


class TestInvalidInput:
    def test_an_invalid_batch_applies_nothing_and_is_reported(self):
        agent, outbox = make_agent()
        run(
            agent,
            message_parts([
                create("s"),
                components("s", {"id": "root", "component": "Column", "children": ["ok"]}, {"id": "ok", "component": "Text", "text": "fine"}),
                # All or nothing (conformance: test_update_components_atomic_validation_rollback):
                # the valid "ok2" of this batch is not applied either.
                components("s", {"id": "ok2", "component": "Text", "text": "also fine"}, {"id": "bad", "component": "Text", "text": 42}),
            ]),
        )
        [block] = surfaces(agent)
        [ok] = block.tree().children
        assert ok.props["text"] == "fine" and block.surface.components_model.get("ok2") is None
        [error] = block.errors
        assert error.path == "/components/1/text" and error.message.startswith("Text 'bad': `text`: ")
        assert block.error_line.startswith("Invalid UI from the agent")
        props = outbox.forwarded_props()
        [message] = props["a2uiError"]
        A2uiRendererErrorMessage.model_validate(message)
        assert message["error"]["code"] == "VALIDATION_FAILED" and message["error"]["surfaceId"] == "s"
        assert "a2uiError" not in outbox.forwarded_props()  # reported once

    @pytest.mark.parametrize(
        "content",
        [
            {"a2ui_operations": "not a list"},
            {"a2ui_operations": [{"version": "v0.9", "bogus": {}}]},
            {"a2ui_operations": [{"version": "v0.9", "updateComponents": {"surfaceId": "ghost", "components": []}}]},
            {"a2ui_operations": [{"version": "v0.9", "updateDataModel": {"surfaceId": "ghost", "path": 5}}]},
            {"a2ui_operations": [{"version": "v0.9", "createSurface": {"surfaceId": "s", "theme": "nope"}}]},
            "}{",
        ],
    )
    def test_nothing_raises(self, content):
        agent, outbox = make_agent()
        from tandem.core.content import ActivityContent

        run(agent, ChatUpdate(contents=[ActivityContent(activity_id="a", activity_type="a2ui-surface", content=content)]))
        [block] = surfaces(agent)
        assert block.errors
        assert outbox.forwarded_props()["a2uiError"]


class TestOutbound:
    async def test_every_request_carries_the_capabilities_context_entry(self):
        inner = ScriptedChatClient([[ChatUpdate(contents=[TextContent(text="ok")])]] * 2)
        agent = UIAgent(inner, env=BlockEnv(user="ann"))
        install_a2ui(agent)
        context = AgentContext(agent)
        await (await context.send("hi")).wait()
        await (await context.send("again")).wait()
        for _messages, options in inner.requests:
            [entry] = [e for e in options.context if e["description"] == COMPONENT_SCHEMA_DESCRIPTION]
            value = json.loads(entry["value"])
            assert value["catalogId"] == "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"
            assert set(value["components"]) >= {"Text", "Button", "DateTimeInput"} and len(value["components"]) == 18
        assert len(inner.requests) == 2

    async def test_the_entry_is_not_added_twice(self):
        inner = ScriptedChatClient([[]])
        agent = UIAgent(inner, env=BlockEnv(user="ann"))
        install_a2ui(agent)
        from tandem.core.a2ui import capabilities_context_entry
        from tandem.core.messages import ChatOptions

        async for _ in stream_updates(agent.client, [], ChatOptions(context=[capabilities_context_entry()])):
            pass
        [(_, options)] = inner.requests
        assert [e["description"] for e in options.context] == [COMPONENT_SCHEMA_DESCRIPTION]

    def test_without_the_client_wrapped_the_entry_is_in_the_agent_context(self):
        agent = UIAgent(ScriptedChatClient([]), env=BlockEnv(user="ann"))
        install_a2ui(agent, wrap_client=False)
        install_a2ui(agent, wrap_client=False)
        assert [e["description"] for e in agent.context].count(COMPONENT_SCHEMA_DESCRIPTION) == 1

    def test_installing_a2ui_does_not_load_a2ui_core(self):
        import subprocess
        import sys

        code = (
            "import sys\nfrom core import UIAgent\nfrom core.scripted import ScriptedChatClient\n"
            "from core.a2ui import install_a2ui\ninstall_a2ui(UIAgent(ScriptedChatClient([])))\n"
            "print(sorted(m for m in sys.modules if m.startswith('a2ui')))"
        )
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
        assert out.strip() == "[]"

    def test_data_model_goes_only_to_the_owning_agent(self):
        mine, _ = make_agent(agent_id="booking-server")
        theirs, _ = make_agent(agent_id="weather-server")
        run(mine, activity(booking_form()))
        run(theirs, activity(booking_form("forecast")))
        blocks = [*mine.pipeline.blocks, *theirs.pipeline.blocks]
        props = a2ui_forwarded_props(blocks, "booking-server")
        A2uiClientDataModel.model_validate(props["a2uiClientDataModel"])
        assert list(props["a2uiClientDataModel"]["surfaces"]) == ["booking"]
        assert a2ui_forwarded_props(blocks, "nobody") == {}

    def test_no_data_model_without_send_data_model(self):
        agent, outbox = make_agent()
        run(agent, message_parts([create("quiet"), components("quiet", {"id": "root", "component": "Divider"})]))
        assert outbox.forwarded_props() == {}

    async def test_fired_event_rides_in_the_next_request(self):
        client = ScriptedChatClient([[activity(booking_form()), ChatUpdate(contents=[FinishContent()])], [ChatUpdate(contents=[TextContent(text="Booked!")])]])
        agent = UIAgent(client, env=BlockEnv(user="ann", clock=Clock()))
        outbox = install_a2ui(agent, agent_id="booking-server")
        assert isinstance(agent.client, A2UIChatClient)
        context = AgentContext(agent)
        await context.send("book a table")
        await context.wait_idle()
        [block] = surfaces(agent)
        block.set_value("/name", "Ann")
        result = block.fire_action("submit")
        assert outbox.messages_for(result.action) == []
        await context.send(outbox.messages_for(result.action))
        await context.wait_idle()
        first, second = client.requests
        assert "a2uiAction" not in first[1].forwarded_props
        assert second[1].forwarded_props["a2uiAction"] == {"userAction": result.action}
        assert second[1].forwarded_props["a2uiClientDataModel"]["surfaces"]["booking"]["name"] == "Ann"
        assert any(e["description"] == COMPONENT_SCHEMA_DESCRIPTION for e in second[1].context)

    def test_message_delivery(self):
        agent, outbox = make_agent(delivery="message")
        run(agent, activity(booking_form()))
        [block] = surfaces(agent)
        block.set_value("/name", "Ann")
        result = block.fire_action("submit")
        [message] = outbox.messages_for(result.action)
        assert message.role == "user" and '"submit_booking"' in message.text
        assert "a2uiAction" not in outbox.forwarded_props()
        [signed] = outbox.messages_for(block.fire_action("submit", who="bob").action, author="bob")
        assert signed.author == "bob" and message.author is None  # a shared conversation's guest fired it


class TestReplay:
    def test_block_ids_are_stable_under_replay(self):
        def build() -> list[str]:
            agent, _ = make_agent()
            run(agent, activity(status="building"), activity(booking_form()), tool_call(), tool_result(twice_encoded(booking_form())), message_parts([create("other")]))
            return [b.id for b in agent.pipeline.blocks]

        assert build() == build()
        assert [i for i in build() if i.startswith("a2ui/")] == ["a2ui/activity/act-1", "a2ui/other"]  # one block per surface

    async def test_restored_thread_rebuilds_the_surface_without_resending(self):
        thread = InMemoryThread()
        client = ScriptedChatClient([[activity(booking_form())]])
        agent = UIAgent(client, env=BlockEnv(user="ann", clock=Clock()))
        outbox = install_a2ui(agent)
        context = AgentContext(agent, thread=thread)
        await context.send("book")
        await context.wait_idle()
        [block] = surfaces(agent)
        block.set_value("/name", "Ann")
        block.fire_action("submit")
        block.set_value("/name", "Bob")

        fresh = UIAgent(ScriptedChatClient([]), env=BlockEnv(user="ann", clock=Clock()))
        fresh_outbox = install_a2ui(fresh)
        await restore(fresh, thread)
        [again] = surfaces(fresh)
        assert again.id == block.id and again.tree().type == "Column"
        assert again.get_value("/name") == "Bob"
        assert [a["name"] for a in again.fired] == ["submit_booking"]
        assert "a2uiAction" not in fresh_outbox.forwarded_props()  # a submitted form does not submit again
        assert outbox is not fresh_outbox


def test_activity_patches_extend_the_snapshot():
    from tandem.core.content import ActivityContent

    agent, _ = make_agent()
    ops = booking_form()
    run(agent, activity(ops[:2]))
    patch = [{"op": "add", "path": "/a2ui_operations/-", "value": data("booking", "/name", "Zoe")}]
    run(agent, ChatUpdate(contents=[ActivityContent(activity_id="act-1", activity_type="a2ui-surface", patch=patch, replace=False)]))
    [block] = surfaces(agent)
    assert block.get_value("/name") == "Zoe" and block.errors == []
