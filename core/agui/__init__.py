"""The AG-UI 1.0 transport: any AG-UI server (or in-process agent) as a `ChatClient`.

Everything protocol-shaped stays in this package; it hands the rest of core neutral updates.
Modules: `client` (the ChatClient), `transport` (HTTP and byte sources), `sse` (framing),
`events` (decoding, chunk expansion), `verifier` (event order), `mapping` (events → updates),
`request` (history and decisions → `RunAgentInput`). The SDK's models are imported first, with
their validators built on first use (`sdk_models`).
"""

from __future__ import annotations

# First: importing it imports `ag_ui.core` with its validators deferred, before any module below does.
from tandem.core.agui import sdk_models as _sdk_models  # noqa: F401
from tandem.core.agui.client import AGUIChatClient, AGUIStatistics
from tandem.core.agui.events import ChunkExpander, UnknownEvent, decode_event
from tandem.core.agui.calls import PredictStateMapping
from tandem.core.agui.mapping import EventMapper
from tandem.core.agui.request import PROTOCOL_VERSION, build_run_input, to_agui_messages
from tandem.core.agui.sse import SSEDecoder
from tandem.core.agui.transport import AGUITransport, ByteSource, ByteSourceTransport, HttpTransport
from tandem.core.agui.verifier import EventVerifier

__all__ = [
    "AGUIChatClient",
    "AGUIStatistics",
    "AGUITransport",
    "ByteSource",
    "ByteSourceTransport",
    "ChunkExpander",
    "EventMapper",
    "EventVerifier",
    "HttpTransport",
    "PROTOCOL_VERSION",
    "PredictStateMapping",
    "SSEDecoder",
    "UnknownEvent",
    "build_run_input",
    "decode_event",
    "to_agui_messages",
]
