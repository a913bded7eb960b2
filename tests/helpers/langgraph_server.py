"""A real LangGraph AG-UI server (ag-ui-langgraph, adapter defaults) around a scripted chat model.

The graph is the usual ReAct shape: an `agent` node calls the chat model with the backend tools
and the client's declared tools bound, a `tools` node (`ToolNode`) runs backend tools, and a call
to any other tool ends the run so the client can answer it. The chat model is `ScriptedChatModel`:
a langchain-core `BaseChatModel` with no LLM behind it, which streams a reply chosen from the
conversation (token per word, reasoning as standard `reasoning` content blocks, tool calls as
`tool_call_chunks`) and accepts `bind_tools`. The adapter runs on its defaults
(`LangGraphAgent(name=..., graph=...)`: RAW passthrough on, interrupts as `CUSTOM on_interrupt`
followed by a plain `RUN_FINISHED`), served by `add_langgraph_fastapi_endpoint` under uvicorn on
127.0.0.1, port 0, in a daemon thread. The checkpointer is an in-memory `MemorySaver`, so a thread
lives as long as the server.

What the model does is chosen by a keyword of the last user message:

| keyword | the model |
|---|---|
| `weather` | calls the backend tool `get_weather(location="Paris")`, then answers with its result |
| `haiku` | calls the client tool `generate_haiku` (Tandem runs it), then answers "The haiku is shown." |
| `theme` | calls the client tool `change_theme(theme="light")` (a Tandem UI action), then answers |
| `count` | answers "Counted." while the graph adds 1 to the state's `count` |
| `delete` | calls `delete_file(path="notes.txt")`: the tool `interrupt()`s with `{reason: "tool_call", toolCallId, message, responseSchema}` and deletes when the answer has `approved: true` |
| `colour` | calls `ask_colour()`: the tool `interrupt("Which colour?")`s and the model answers "You chose <answer>." |
| `think` | streams reasoning ("Thinking it over carefully."), then the answer |
| `long N` | answers `PLAIN_ANSWER` N times over (a long answer: a token and a RAW event per word, for benches) |
| anything else | answers `PLAIN_ANSWER` |

A call's id is `call_<tool>_<n>`, n counting the user messages, unless the message also says
`same id`: then it is `call_<tool>` in every turn, as fake models that number their calls afresh
in each run do.

After a tool result the model answers "Done: <result>." (`colour`: "You chose <answer>."). Every
request body is recorded in `LangGraphServer.requests`. Run `python -m tests.helpers.langgraph_server
[--port N]` to serve it by hand (`tandem ask --url http://127.0.0.1:N/ hello`).
"""

from __future__ import annotations

import json
import re
import socket
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Annotated, Any

import uvicorn
from ag_ui_langgraph import LangGraphAgent, add_langgraph_fastapi_endpoint
from fastapi import FastAPI, Request
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.checkpoint.memory import MemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from langgraph.types import interrupt

from tests.helpers.servers import served_in_thread

__all__ = [
    "PLAIN_ANSWER",
    "REASONING_TEXT",
    "QUESTION",
    "DELETE_SCHEMA",
    "LangGraphServer",
    "ScriptedChatModel",
    "build_graph",
    "build_app",
    "serve_langgraph",
]

PLAIN_ANSWER = "Hello there! This answer is streamed one word at a time, with RAW events between the words."
"""The reply to a message without a scenario keyword."""
REASONING_TEXT = "Thinking it over carefully."
"""The reasoning the `think` scenario streams before its answer."""
QUESTION = "Which colour?"
"""What `ask_colour` asks with a plain-string `interrupt()`."""
DELETE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "approved": {"type": "boolean"},
        "reason": {"type": "string"},
    },
    "required": ["approved"],
}
"""The response schema of `delete_file`'s approval interrupt."""

_STARTUP_TIMEOUT = 20.0


# -- the graph's state and tools -------------------------------------------------------------------


class GraphState(MessagesState):
    """The graph's state: the messages, the client's tools (merged in by the adapter) and a counter."""

    tools: list[Any]
    count: int


@tool
def get_weather(location: str) -> str:
    """The weather at a location."""
    return f"Sunny, 21C in {location}"


@tool
def delete_file(path: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Delete a file, once the person approves."""
    answer = interrupt({
        "reason": "tool_call",
        "toolCallId": tool_call_id,
        "message": f"Delete {path}?",
        "responseSchema": DELETE_SCHEMA,
    })
    if isinstance(answer, dict) and answer.get("approved") is True:
        return f"deleted {path}"
    reason = answer.get("reason") if isinstance(answer, dict) else None
    return f"kept {path} ({reason or 'not approved'})"


@tool
def ask_colour() -> str:
    """Ask the person for a colour."""
    answer = interrupt(QUESTION)
    return f"colour: {answer if isinstance(answer, str) else json.dumps(answer)}"


BACKEND_TOOLS = [get_weather, delete_file, ask_colour]
_BACKEND_NAMES = frozenset(t.name for t in BACKEND_TOOLS)

_HAIKU = {"japanese": ["古池や", "蛙飛び込む", "水の音"], "english": ["An old pond", "a frog jumps in", "the sound of water"]}
_CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "weather": ("get_weather", {"location": "Paris"}),
    "haiku": ("generate_haiku", _HAIKU),
    "theme": ("change_theme", {"theme": "light"}),
    "delete": ("delete_file", {"path": "notes.txt"}),
    "colour": ("ask_colour", {}),
}


# -- the scripted model ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Reply:
    """What the scripted model streams: reasoning, text and tool calls `(id, name, arguments)`."""

    text: str = ""
    reasoning: str = ""
    calls: tuple[tuple[str, str, dict[str, Any]], ...] = ()


def script(messages: Sequence[BaseMessage]) -> Reply:
    """The reply to `messages`: by the last user message's keyword, or to the last tool result."""
    last_human = next((m for m in reversed(messages) if isinstance(m, HumanMessage)), None)
    said = str(last_human.content).lower() if last_human is not None else ""
    turn = sum(1 for m in messages if isinstance(m, HumanMessage))
    if messages and isinstance(messages[-1], ToolMessage):
        result = str(messages[-1].content)
        if result.startswith("colour: "):
            return Reply(text=f"You chose {result.removeprefix('colour: ')}.")
        return Reply(text=f"Done: {result}.")
    if (long := re.search(r"\blong (\d+)", said)) is not None:
        return Reply(text=" ".join([PLAIN_ANSWER] * int(long.group(1))))
    if "count" in said:
        return Reply(text="Counted.")
    if "think" in said:
        return Reply(reasoning=REASONING_TEXT, text="The answer is 42.")
    for keyword, (name, arguments) in _CALLS.items():
        if keyword in said:
            call_id = f"call_{name}" if "same id" in said else f"call_{name}_{turn}"
            return Reply(calls=((call_id, name, arguments),))
    return Reply(text=PLAIN_ANSWER)


class ScriptedChatModel(BaseChatModel):
    """A chat model with no LLM: streams `script(messages)` (words, reasoning blocks, tool call chunks).

    `bind_tools` returns the model itself: the script knows the tools it calls.
    """

    @property
    def _llm_type(self) -> str:
        return "tandem-scripted"

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedChatModel:  # type: ignore[override]
        return self

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        reply = script(messages)
        calls = [{"id": call_id, "name": name, "args": args, "type": "tool_call"} for call_id, name, args in reply.calls]
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=reply.text, tool_calls=calls))])

    def _stream(self, messages: list[BaseMessage], stop: list[str] | None = None,
                run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        yield from _chunks(script(messages))

    async def _astream(self, messages: list[BaseMessage], stop: list[str] | None = None,
                       run_manager: AsyncCallbackManagerForLLMRun | None = None,
                       **kwargs: Any) -> AsyncIterator[ChatGenerationChunk]:
        for chunk in _chunks(script(messages)):
            if run_manager is not None and isinstance(chunk.message.content, str):
                await run_manager.on_llm_new_token(chunk.message.content, chunk=chunk)
            yield chunk


def _words(text: str) -> list[str]:
    words = text.split(" ")
    return [word + (" " if index < len(words) - 1 else "") for index, word in enumerate(words)]


def _chunks(reply: Reply) -> Iterator[ChatGenerationChunk]:
    for word in _words(reply.reasoning) if reply.reasoning else []:
        yield ChatGenerationChunk(message=AIMessageChunk(content=[{"type": "reasoning", "reasoning": word, "index": 0}]))
    for word in _words(reply.text) if reply.text else []:
        yield ChatGenerationChunk(message=AIMessageChunk(content=word))
    for index, (call_id, name, arguments) in enumerate(reply.calls):
        # As a provider streams a call: the name first, then the arguments in pieces.
        yield ChatGenerationChunk(message=AIMessageChunk(
            content="", tool_call_chunks=[{"id": call_id, "name": name, "args": "", "index": index}]
        ))
        encoded = json.dumps(arguments)
        for start in range(0, len(encoded), 12):
            yield ChatGenerationChunk(message=AIMessageChunk(
                content="", tool_call_chunks=[{"id": None, "name": None, "args": encoded[start:start + 12], "index": index}]
            ))


# -- the graph -------------------------------------------------------------------------------------


def build_graph() -> Any:
    """The compiled graph (agent ⇄ tools, in-memory checkpoints)."""
    model = ScriptedChatModel()

    async def agent(state: GraphState, config: RunnableConfig) -> dict[str, Any]:
        client_tools = [t for t in state.get("tools") or [] if isinstance(t, dict)]
        response = await model.bind_tools([*BACKEND_TOOLS, *client_tools]).ainvoke(state["messages"], config)
        update: dict[str, Any] = {"messages": [response]}
        last = state["messages"][-1] if state["messages"] else None
        if isinstance(last, HumanMessage) and "count" in str(last.content).lower():
            update["count"] = int(state.get("count") or 0) + 1
        return update

    def route(state: GraphState) -> str:
        last = state["messages"][-1]
        calls = getattr(last, "tool_calls", None) or []
        return "tools" if any(call["name"] in _BACKEND_NAMES for call in calls) else END

    graph = StateGraph(GraphState)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode(BACKEND_TOOLS))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", route, ["tools", END])
    graph.add_edge("tools", "agent")
    return graph.compile(checkpointer=MemorySaver())


@dataclass
class LangGraphServer:
    """A running server: its endpoint and the request bodies it received (appended from its thread)."""

    url: str
    """The AG-UI endpoint, e.g. `http://127.0.0.1:54321/`."""
    requests: list[dict[str, Any]] = field(default_factory=list)
    """Every request body, parsed, oldest first."""

    def requests_for(self, thread_id: str) -> list[dict[str, Any]]:
        """The bodies sent for one thread."""
        return [body for body in self.requests if body.get("threadId") == thread_id]


def build_app(record: Callable[[dict[str, Any]], None] | None = None) -> FastAPI:
    """The FastAPI app: the adapter's endpoint at `/` (defaults), recording each request body."""
    app = FastAPI()
    sink = record or (lambda body: None)

    @app.middleware("http")
    async def recorder(request: Request, call_next: Any) -> Any:
        if request.method == "POST":
            body = await request.body()
            try:
                sink(json.loads(body))
            except ValueError:
                sink({"unparsed": body.decode("utf-8", "replace")})
        return await call_next(request)

    add_langgraph_fastapi_endpoint(app, LangGraphAgent(name="scripted", graph=build_graph()), "/")
    return app


@contextmanager
def serve_langgraph() -> Iterator[LangGraphServer]:
    """Run the app with uvicorn on 127.0.0.1 port 0 in a daemon thread; stop it on exit.

    Raises:
        RuntimeError: uvicorn did not start in time (one that does not stop is warned of).
    """
    info = LangGraphServer(url="")
    with served_in_thread(build_app(info.requests.append), "langgraph-agui-server", _STARTUP_TIMEOUT) as (host, port):
        info.url = f"http://{host}:{port}/"
        yield info


def main() -> None:
    """Serve the graph on 127.0.0.1 until interrupted (manual testing)."""
    import argparse

    parser = argparse.ArgumentParser(description="Scripted LangGraph AG-UI server (test only).")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: any free port)")
    args = parser.parse_args()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    print(f"http://127.0.0.1:{sock.getsockname()[1]}/", flush=True)
    uvicorn.Server(uvicorn.Config(build_app(), lifespan="off", log_level="warning")).run(sockets=[sock])


if __name__ == "__main__":
    main()
