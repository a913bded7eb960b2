"""The welcome text: what the app is connected to, how to connect, what to try.

Imports Textual's `Content` only: the welcome is the first frame, painted before the runtime loads.
The demo's scenarios come from the demo agent itself (`demo_scenario_names`), once the engine
thread imported it: the list cannot drift from what `/demo NAME` runs.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content

__all__ = ["demo_scenario_names", "started_welcome", "welcome_content"]

_PER_ROW = 4


def demo_scenario_names() -> list[str]:
    """The embedded demo agent's scenario names, alphabetically (imports the demo agent: call it
    after the engine is up, never for the first frame)."""
    from tandem.core.agui.demo import SCENARIOS

    return sorted(scenario.name for scenario in SCENARIOS)


def started_welcome(*, demo: bool, endpoint: str | None) -> Content:
    """The welcome once the engine is up: the demo's scenarios (the demo agent imported by then),
    or the agent's URL, sanitised."""
    if demo:
        return welcome_content(demo=True, scenarios=demo_scenario_names())
    return welcome_content(demo=False, endpoint=endpoint)


def welcome_content(
    *,
    demo: bool,
    endpoint: str | None = None,
    connecting: bool = False,
    scenarios: Sequence[str] | None = None,
) -> Content:
    """The welcome text: what the app is connected to, how to connect, what to try.

    Args:
        demo: Whether the agent is the embedded demo agent.
        endpoint: The agent's URL (sanitised before it is shown).
        connecting: Say "connecting" without the URL: the first frame, before the sanitiser
            (in core) is imported. The app replaces it once the engine is up.
        scenarios: The demo's scenario names, offered as `/demo NAME` prompts (None: not known
            yet, the first frame; the app fills them in from `demo_scenario_names`).
    """
    lines = ["Welcome to Tandem — you and an agent, working on the same state.", ""]
    if demo:
        lines += [
            "No model is connected: you are talking to the built-in demo agent.",
            "Connect a real AG-UI agent with:  tandem --url https://your-agent.example/agent",
            "",
            "Try one of these (type it and press Enter):",
        ]
        if scenarios is None:
            lines.append("   …")
        else:
            names = list(scenarios)
            width = max((len(name) for name in names), default=0)
            lines += [
                "   ".join(f"/demo {name:<{width}}" for name in names[i : i + _PER_ROW]).rstrip()
                for i in range(0, len(names), _PER_ROW)
            ]
    elif connecting:
        lines += ["Connecting to the AG-UI agent…", "Type a message and press Enter."]
    else:
        from tandem.widgets.sanitize import sanitize

        lines += [f"Connected to {sanitize(endpoint or 'an AG-UI agent')}.", "Type a message and press Enter."]
    lines += ["", "Ctrl+P commands · F2 state panel · Esc cancels a turn · Ctrl+Q quits"]
    return Content("\n".join(lines))
