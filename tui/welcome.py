"""The welcome text: what the app is connected to, how to connect, what to try.

Imports Textual's `Content` only: the welcome is the first frame, painted before the runtime loads.
"""

from __future__ import annotations

from textual.content import Content

__all__ = ["DEMO_SCENARIOS", "welcome_content"]

DEMO_SCENARIOS = (
    "chat", "weather", "steps", "haiku", "plan", "recipe", "document",
    "delete", "address", "reasoning", "failure", "long",
)  # fmt: skip
"""The embedded demo agent's scenarios, offered as `/demo NAME` prompts on the welcome screen."""


def welcome_content(*, demo: bool, endpoint: str | None = None, connecting: bool = False) -> Content:
    """The welcome text: what the app is connected to, how to connect, what to try.

    Args:
        demo: Whether the agent is the embedded demo agent.
        endpoint: The agent's URL (sanitised before it is shown).
        connecting: Say "connecting" without the URL: the first frame, before the sanitiser
            (in core) is imported. The app replaces it once the engine is up.
    """
    lines = ["Welcome to Tandem — you and an agent, working on the same state.", ""]
    if demo:
        lines += [
            "No model is connected: you are talking to the built-in demo agent.",
            "Connect a real AG-UI agent with:  tandem --url https://your-agent.example/agent",
            "",
            "Try one of these (type it and press Enter):",
            *("   ".join(f"/demo {name:<9}" for name in DEMO_SCENARIOS[i : i + 4]).rstrip() for i in range(0, len(DEMO_SCENARIOS), 4)),
        ]
    elif connecting:
        lines += ["Connecting to the AG-UI agent…", "Type a message and press Enter."]
    else:
        from tandem.widgets.sanitize import sanitize

        lines += [f"Connected to {sanitize(endpoint or 'an AG-UI agent')}.", "Type a message and press Enter."]
    lines += ["", "Ctrl+P commands · F2 state panel · Esc cancels a turn · Ctrl+Q quits"]
    return Content("\n".join(lines))
