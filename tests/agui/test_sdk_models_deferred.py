"""The AG-UI SDK's models are built on first use (`core/agui/sdk_models.py`), and validate as before.

Each probe runs in a fresh interpreter: which models are built depends on what the process
imported and validated first. Behaviour (a bad event is still refused with a clear error, a
good one still validates) is checked on models that were deferred, right after the import.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _probe(code: str) -> list[str]:
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, cwd=ROOT,
                            timeout=60, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout.strip().splitlines()


DEFERRED = """
    import tandem.core.agui
    import ag_ui.core as sdk
    from pydantic import BaseModel
    from tandem.core.agui.events import validate_event
    from tandem.core.errors import ProtocolError

    def built(model):
        return type(model.__pydantic_validator__).__name__ == "SchemaValidator"

    print("after import", built(sdk.RunStartedEvent), built(sdk.ToolCallResultEvent), built(sdk.RunAgentInput))
    print("config left", dict(BaseModel.model_config))
    event = validate_event({"type": "TOOL_CALL_RESULT", "messageId": "m", "toolCallId": "c", "content": "ok"}, 4)
    print("validated", type(event).__name__, event.tool_call_id, built(sdk.ToolCallResultEvent), built(sdk.RunStartedEvent))
    try:
        validate_event({"type": "RUN_STARTED", "threadId": 7, "runId": "r"}, 1)
    except ProtocolError as exc:
        print("refused", exc.event_type, exc.position, str(exc))
    # Models defined after the import are built at once, as pydantic does by default.
    class Later(BaseModel):
        x: int
    print("later model built", built(Later))
"""


def test_the_sdk_models_are_built_when_first_used() -> None:
    lines = _probe(DEFERRED)
    assert lines[0] == "after import False False False"  # nothing built by importing the package
    assert lines[1] == "config left {}"  # pydantic's base configuration is as it was
    assert lines[2] == "validated ToolCallResultEvent c True False"  # only the model used was built
    # A malformed event of a model that was never built is refused, naming the field and position.
    assert lines[3] == "refused RUN_STARTED 1 event 1 (RUN_STARTED) is malformed: threadId: Input should be a valid string"
    assert lines[4] == "later model built True"


def test_an_sdk_imported_earlier_is_left_as_it_was() -> None:
    lines = _probe("""
        import ag_ui.core as sdk  # imported by someone else first: built as usual
        from tandem.core.agui import sdk_models
        from tandem.core.agui.events import validate_event

        print(type(sdk.ToolCallResultEvent.__pydantic_validator__).__name__, sdk_models.import_sdk_models())
        print(type(validate_event({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}, 2)).__name__)
    """)
    assert lines == ["SchemaValidator False", "RunFinishedEvent"]


def test_a_whole_run_serialises_and_validates_through_deferred_models() -> None:
    # The request (RunAgentInput and its messages, serialised) and every event type of a demo run.
    lines = _probe("""
        import asyncio
        from tandem.core.agui import AGUIChatClient
        from tandem.core.agui.demo import DemoAgent, encode_sse
        from tandem.core.chat_client import stream_updates
        from tandem.core.messages import ChatMessage, ChatOptions

        async def main():
            agent = DemoAgent(0)
            client = AGUIChatClient.from_byte_source(lambda run_input: encode_sse(agent, run_input))
            updates = [u async for u in stream_updates(client, [ChatMessage.user("hello", message_id="u1")], ChatOptions())]
            await client.aclose()
            return updates

        updates = asyncio.run(main())
        text = "".join(getattr(part, "text", "") for update in updates for part in update.contents)
        print(len(updates) > 0, bool(text.strip()))
    """)
    assert lines == ["True True"]
