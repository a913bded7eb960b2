"""Typed tool blocks: a block class bound to a tool, checked against the tool's schema."""

from __future__ import annotations

import pytest
from tests.helpers.scripted import Clock, make_agent, tool_call, tool_result

from tandem.core import ToolBlockRegistry, ToolCallBlock, ToolDeclaration, ToolStatus, tool_block
from tandem.core.errors import ToolBlockSpecError
from tandem.core.scripted import ScriptedChatClient

WEATHER_SCHEMA = {
    "type": "object",
    "properties": {"location": {"type": "string"}, "unit": {"type": "string"}},
    "required": ["location"],
}


def weather_block_class(arguments: dict[str, str]) -> type[ToolCallBlock]:
    @tool_block("get_weather", arguments=arguments, result="forecast")
    class WeatherBlock(ToolCallBlock):
        location: str | None
        forecast: object

    return WeatherBlock


class TestDecorator:
    def test_binds_the_tool_and_the_maps(self) -> None:
        cls = weather_block_class({"location": "location"})
        assert cls.tool_name == "get_weather"
        assert cls.argument_map == {"location": "location"}
        assert cls.result_attribute == "forecast"

    def test_refuses_classes_that_are_not_tool_call_blocks(self) -> None:
        with pytest.raises(TypeError, match="ToolCallBlock subclasses"):
            tool_block("x")(object)  # type: ignore[type-var]


class TestRegistry:
    def test_a_misspelled_argument_key_is_an_error(self) -> None:
        registry = ToolBlockRegistry()
        cls = weather_block_class({"loaction": "location"})
        with pytest.raises(ToolBlockSpecError, match=r"loaction.*get_weather.*location, unit"):
            registry.register(cls, schema=WEATHER_SCHEMA)
        assert "get_weather" not in registry

    def test_keys_in_the_schema_are_accepted(self) -> None:
        registry = ToolBlockRegistry()
        cls = weather_block_class({"location": "location", "unit": "unit"})
        registry.register(cls, schema=WEATHER_SCHEMA)
        assert registry.block_class("get_weather") is cls

    def test_without_a_schema_nothing_can_be_checked(self) -> None:
        registry = ToolBlockRegistry()
        cls = weather_block_class({"anything": "location"})
        registry.register(cls)
        assert "get_weather" in registry

    def test_an_unbound_class_is_an_error(self) -> None:
        class Plain(ToolCallBlock):
            pass

        with pytest.raises(ToolBlockSpecError, match="not bound to a tool"):
            ToolBlockRegistry().register(Plain)

    def test_unregistered_tools_get_the_plain_block(self) -> None:
        assert ToolBlockRegistry().block_class("anything") is ToolCallBlock
        assert ToolBlockRegistry().block_class(None) is ToolCallBlock


class TestOnTheAgent:
    def test_the_declared_tool_schema_is_used_by_default(self) -> None:
        agent = make_agent(ScriptedChatClient([]), clock=Clock())
        agent.declare_tool(ToolDeclaration(name="get_weather", parameters=WEATHER_SCHEMA))
        with pytest.raises(ToolBlockSpecError, match="loaction"):
            agent.register_tool_block(weather_block_class({"loaction": "location"}))

    def test_typed_blocks_get_arguments_and_result_as_attributes(self) -> None:
        agent = make_agent(ScriptedChatClient([]), clock=Clock())
        agent.declare_tool(ToolDeclaration(name="get_weather", parameters=WEATHER_SCHEMA))
        cls = weather_block_class({"location": "location"})
        agent.register_tool_block(cls)
        agent.pipeline.begin_segment("t1", 0)
        agent.pipeline.process(tool_call("c1", "get_weather", delta='{"location": "Oslo"}'))
        (block,) = agent.pipeline.blocks
        assert block.location is None  # type: ignore[attr-defined]
        agent.pipeline.process(tool_call("c1", done=True))
        agent.pipeline.process(tool_result("c1", '{"sky": "rain", "celsius": 4}'))
        assert type(block) is cls
        assert block.location == "Oslo"  # type: ignore[attr-defined]
        assert block.forecast == {"sky": "rain", "celsius": 4}  # type: ignore[attr-defined]
        assert block.status is ToolStatus.SUCCEEDED  # type: ignore[attr-defined]

    def test_a_missing_argument_is_none_not_an_error(self) -> None:
        agent = make_agent(ScriptedChatClient([]), clock=Clock())
        cls = weather_block_class({"location": "location"})
        agent.register_tool_block(cls, schema=WEATHER_SCHEMA)
        agent.pipeline.begin_segment("t1", 0)
        agent.pipeline.process(tool_call("c1", "get_weather", arguments={"unit": "C"}))
        (block,) = agent.pipeline.blocks
        assert block.location is None  # type: ignore[attr-defined]
