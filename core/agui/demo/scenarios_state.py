"""Shared-state demo scenarios: a plan driven by snapshots and deltas, and a recipe.

Each scenario owns one top-level key of the shared state (``plan``,
``recipe``) and snapshots the request's whole state with only that key
changed, so the scenarios of one thread do not erase each other's state.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from .script import Hold, Pause, RunContext, Step

__all__ = ["PLAN", "STARTER_RECIPE", "fenced", "improve_recipe", "plan", "recipe"]

PLAN: dict[str, Any] = {
    "title": "Publish the demo release",
    "steps": [
        {"description": "Check out the release branch", "status": "pending"},
        {"description": "Build the packages", "status": "pending"},
        {"description": "Upload to the staging index", "status": "pending"},
        {"description": "Ask for a manual sign-off", "status": "pending"},
    ],
}
"""The plan the agentic generative UI scenario starts from."""

STARTER_RECIPE: dict[str, Any] = {
    "title": "Tomato pasta",
    "skill_level": "Beginner",
    "ingredients": [
        {"name": "spaghetti", "amount": "200 g"},
        {"name": "canned tomatoes", "amount": "400 g"},
        {"name": "garlic", "amount": "2 cloves"},
        {"name": "olive oil", "amount": "2 tbsp"},
        {"name": "salt", "amount": "to taste"},
    ],
    "instructions": [
        "Boil the pasta in well-salted water.",
        "Fry the garlic gently in the olive oil for a minute.",
        "Add the tomatoes and simmer for ten minutes.",
        "Toss the drained pasta in the sauce.",
    ],
    "special_preferences": [],
}
"""The recipe the shared-state scenario proposes when the state holds none."""

_EXTRA_INGREDIENTS = (
    ("fresh basil", "a handful", ()),
    ("parmesan", "40 g", ("vegan", "dairy-free", "dairy free")),
    ("chili flakes", "a pinch", ("mild", "no spice")),
    ("black pepper", "to taste", ()),
    ("lemon zest", "1 lemon", ()),
)
_EXTRA_STEPS = (
    "Loosen the sauce with a splash of pasta water so it turns glossy.",
    "Taste and adjust the seasoning before serving.",
    "Let the dish rest for a minute before serving.",
)


def _status(index: int, status: str) -> dict[str, Any]:
    return {"op": "replace", "path": f"/plan/steps/{index}/status", "value": status}


def plan(ctx: RunContext) -> Iterator[Step]:
    """Agentic generative UI: a plan in shared state, progressed by JSON patches.

    One snapshot, then deltas that use ``replace`` (statuses), ``add`` (a step
    the agent discovers it needs) and ``remove`` (a step that became moot).
    """
    s = ctx.script
    yield s.snapshot({**ctx.state, "plan": json.loads(json.dumps(PLAN))})
    pause = Pause(0.5)
    yield pause
    yield s.delta(_status(0, "in_progress"))
    yield pause
    yield s.delta(_status(0, "completed"), _status(1, "in_progress"))
    yield pause
    signing = {"description": "Sign the packages", "status": "pending"}
    yield s.delta({"op": "add", "path": "/plan/steps/2", "value": signing})
    yield pause
    yield s.delta(_status(1, "completed"), _status(2, "in_progress"))
    yield pause
    yield s.delta(_status(2, "completed"), _status(3, "in_progress"))
    yield pause
    # Signed packages make the manual sign-off unnecessary.
    yield s.delta(_status(3, "completed"), {"op": "remove", "path": "/plan/steps/4"})
    yield from s.text(
        "The release is published. Along the way I **added** a step (*Sign the packages*) and "
        "**removed** one (*Ask for a manual sign-off*: the signatures made it unnecessary). "
        "All four remaining steps are completed."
    )
    yield s.finished()


def fenced(text: str, language: str = "") -> str:
    """Return ``text`` in a Markdown code fence longer than any backtick run inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"


def _read_recipe(value: Any) -> tuple[dict[str, Any], int]:
    """Normalise a recipe read from state; return it and how many entries were ignored."""
    if not isinstance(value, dict):
        return {}, 0
    ignored = 0
    ingredients = []
    for item in value.get("ingredients") or []:
        if isinstance(item, dict) and isinstance(item.get("name"), str) and item["name"].strip():
            ingredients.append({**item, "amount": str(item.get("amount", ""))})
        else:
            ignored += 1
    instructions = [step for step in value.get("instructions") or [] if isinstance(step, str)]
    ignored += len(value.get("instructions") or []) - len(instructions)
    preferences = [pref for pref in value.get("special_preferences") or [] if isinstance(pref, str)]
    recipe = {
        **value,
        "title": str(value.get("title") or "Untitled recipe"),
        "skill_level": str(value.get("skill_level") or "Beginner"),
        "ingredients": ingredients,
        "instructions": instructions,
        "special_preferences": preferences,
    }
    return recipe, ignored


def improve_recipe(recipe: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Add one ingredient and one step the recipe lacks, keeping everything else.

    Args:
        recipe: A normalised recipe (see the shared-state scenario).

    Returns:
        The improved recipe and a list of Markdown phrases describing the changes.
    """
    names = {item["name"].strip().lower() for item in recipe["ingredients"]}
    preferences = " ".join(recipe["special_preferences"]).lower()
    changes: list[str] = []
    improved = {**recipe, "ingredients": list(recipe["ingredients"]), "instructions": list(recipe["instructions"])}
    for name, amount, excluded_by in _EXTRA_INGREDIENTS:
        if name not in names and not any(word in preferences for word in excluded_by):
            improved["ingredients"].append({"name": name, "amount": amount})
            changes.append(f"added the ingredient **{name}** ({amount})")
            break
    for step in _EXTRA_STEPS:
        if step not in recipe["instructions"]:
            improved["instructions"].append(step)
            changes.append(f"added the step *{step}*")
            break
    return improved, changes


def recipe(ctx: RunContext) -> Iterator[Step]:
    """Shared state: read the recipe the person edited, send back an improved one.

    The new ingredient is written first, then (after a pause long enough for a person to edit)
    the whole improved recipe as a snapshot. The recipe lives under the state key ``recipe``. The reply quotes what was
    read inside a code block: state is data, never instructions.
    """
    s = ctx.script
    current, ignored = _read_recipe(ctx.state.get("recipe"))
    if not current or not (current["ingredients"] or current["instructions"]):
        yield s.snapshot({**ctx.state, "recipe": json.loads(json.dumps(STARTER_RECIPE))})
        yield from s.text(
            "The shared state held no recipe, so I started one: **Tomato pasta**. Edit it in the "
            "state panel (ingredients, steps, preferences) and ask me to improve it."
        )
        yield s.finished()
        return
    improved, changes = improve_recipe(current)
    # Two writes with a pause between them, as a slow agent makes: the person may edit the
    # recipe meanwhile, and the final snapshot (computed from the request's state) must not
    # erase what they did: the client merges it field by field.
    if improved["ingredients"] != current["ingredients"]:
        yield s.delta({"op": "add", "path": "/recipe/ingredients", "value": improved["ingredients"]})
        yield Hold(3.0, name="recipe")
    yield s.snapshot({**ctx.state, "recipe": improved})
    read = {
        "title": current["title"],
        "skill_level": current["skill_level"],
        "ingredients": [item["name"] for item in current["ingredients"]],
        "instruction_count": len(current["instructions"]),
        "special_preferences": current["special_preferences"],
    }
    summary = " and ".join(changes) if changes else "found nothing to add"
    note = f"\n\nI ignored {ignored} malformed entr{'y' if ignored == 1 else 'ies'}." if ignored else ""
    yield from s.text(
        "I read this recipe from the shared state (as data, not as instructions):\n\n"
        f"{fenced(json.dumps(read, indent=2, ensure_ascii=False), 'json')}\n\n"
        f"I kept your edits and {summary}.{note}"
    )
    yield s.finished()
