"""JSON Schemas from agents: checked before use, and run with a bound on time.

An agent's `responseSchema` is hostile input. Before a form is built from it, `schema_problem`
checks it against its meta-schema, resolves every `$ref` (local ones only: nothing is fetched),
and tries it once; a schema that fails is shown as an error the person answers with raw JSON or
declines. `validate_payload` then checks answers with `pattern`, `patternProperties` and
`additionalProperties` matched by the `regex` package under a timeout, within one time budget
per validation, so a catastrophic pattern (`^(a|aa)+$`) costs a bounded moment on any thread
instead of freezing the app. Every failure of the library (unresolvable references, loops,
type errors in a malformed schema) becomes a message, never an exception. Pure; any thread.
"""

from __future__ import annotations

import contextvars
import re
import time
from collections.abc import Iterator
from typing import Any

from tandem.core.agent_json import MAX_JSON_DEPTH, value_depth

__all__ = ["SCHEMA_TIME_BUDGET", "SchemaTimeout", "schema_errors", "schema_problem", "validate_payload"]

SCHEMA_TIME_BUDGET = 0.15
"""Seconds of regular-expression matching one validation may spend (the `regex` package checks
its timeout coarsely: the real bound is a small multiple of this)."""

_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar("tandem_schema_deadline", default=None)


class SchemaTimeout(Exception):
    """An agent's regular expression ran out of the validation's time budget."""

    def __init__(self, pattern: str) -> None:
        super().__init__(f"the agent's pattern {pattern[:80]!r} took too long to match")
        self.pattern = pattern


def _search(pattern: str, text: str) -> bool:
    """`regex.search` under what is left of the current validation's budget."""
    import regex

    deadline = _deadline.get()
    if deadline is None:  # outside validate_payload (jsonschema used directly): still bounded
        remaining = SCHEMA_TIME_BUDGET
    else:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise SchemaTimeout(pattern)
    try:
        return regex.search(pattern, text, timeout=remaining) is not None
    except TimeoutError:
        raise SchemaTimeout(pattern) from None
    except regex.error:
        # Valid ECMA-262 (the meta-schema's check passed) but not in `regex`'s dialect: no match.
        return False


class _BoundedRe:
    """Stands in for the `re` module inside jsonschema's helpers, whose pattern matching
    (`unevaluatedProperties`, `additionalProperties` with `patternProperties`) uses `re.search`."""

    def __getattr__(self, name: str) -> Any:
        return getattr(re, name)

    @staticmethod
    def search(pattern: str, text: str, flags: int = 0) -> bool:
        return _search(pattern, text)


def _install_bounded_re() -> None:
    from jsonschema import _utils

    if getattr(_utils, "re", None) is re:
        _utils.re = _BoundedRe()  # type: ignore[assignment]


def _pattern(validator: Any, pattern: Any, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema import ValidationError

    if validator.is_type(instance, "string") and isinstance(pattern, str) and not _search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(validator: Any, patterns: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object") or not isinstance(patterns, dict):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if _search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _validator_class(schema: dict[str, Any]) -> Any:
    import jsonschema
    from jsonschema import validators

    _install_bounded_re()
    base = validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return validators.extend(base, {"pattern": _pattern, "patternProperties": _pattern_properties})


def _refs(schema: Any) -> Iterator[str]:
    """Every `$ref` and `$dynamicRef` string in a schema (iterative: schemas may be deep)."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("$ref", "$dynamicRef") and isinstance(value, str):
                    yield value
                elif key not in ("enum", "const", "default", "examples"):
                    stack.append(value)
        elif isinstance(node, list):
            stack.extend(node)


def schema_problem(schema: Any) -> str | None:
    """Why an agent's schema cannot be used (None when it can): shown to the person, who then
    answers with raw JSON or declines. Never raises."""
    problem = _schema_problem(schema)
    return problem if problem is None or len(problem) <= 300 else problem[:299] + "…"


def _schema_problem(schema: Any) -> str | None:
    if schema is None or schema == {}:
        return None
    if not isinstance(schema, dict):
        return f"the schema is a {type(schema).__name__}, not an object"
    depth = value_depth(schema, stop_at=MAX_JSON_DEPTH)
    if depth > MAX_JSON_DEPTH:
        return f"the schema is nested deeper than {MAX_JSON_DEPTH} levels"
    try:
        import jsonschema

        cls = _validator_class(schema)
        cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        where = "/".join(str(p) for p in exc.absolute_path)
        return f"the schema is not valid{f' at {where}' if where else ''}: {exc.message}"
    except Exception as exc:  # noqa: BLE001 - the library on hostile input: any failure is a refusal
        return f"the schema could not be checked: {type(exc).__name__}: {exc}"
    try:
        validator = cls(schema)
        resolver = validator._resolver  # jsonschema's referencing resolver rooted at this schema
        for ref in _refs(schema):
            if not ref.startswith("#"):
                return f"the schema refers to {ref!r}, outside itself (remote references are never fetched)"
            resolver.lookup(ref)
    except Exception as exc:  # noqa: BLE001 - Unresolvable and whatever a malformed pointer raises
        return f"the schema has a reference that cannot be resolved: {exc}"
    trial: Any
    for trial in (None, {}):  # a schema that loops or breaks the library shows it here, not on submit
        _found, stopped = schema_errors(schema, trial)
        if stopped is not None and "took too long" not in stopped:
            return stopped
    return None


def schema_errors(schema: Any, payload: Any, *, budget: float = SCHEMA_TIME_BUDGET) -> tuple[list[Any], str | None]:
    """jsonschema's errors for `payload` against a schema `schema_problem` accepted, sorted by
    path, and why checking stopped (a pattern out of `budget`, a loop, a library failure) or
    None. Never raises."""
    token = _deadline.set(time.monotonic() + budget)
    try:
        validator = _validator_class(schema)(schema)
        found = sorted(validator.iter_errors(payload), key=lambda e: [str(p) for p in e.absolute_path])
        return found, None
    except SchemaTimeout as exc:
        return [], f"{exc} (over {budget:g} s); answer with raw JSON or decline"
    except RecursionError:
        return [], "the agent's schema refers to itself without end"
    except Exception as exc:  # noqa: BLE001 - a library failure on hostile input is a message
        return [], f"the agent's schema failed while checking the answer: {type(exc).__name__}: {str(exc)[:200]}"
    finally:
        _deadline.reset(token)


def validate_payload(schema: Any, payload: Any, *, budget: float = SCHEMA_TIME_BUDGET, _checked: bool = False) -> list[str]:
    """The ways `payload` fails an agent's schema, as readable messages (empty: it is valid).

    A schema with a problem (see `schema_problem`) yields that problem; a pattern that runs out
    of `budget` seconds, or a schema that loops, yields a message saying so. Never raises.
    """
    if not schema:
        return []
    if not _checked:
        problem = schema_problem(schema)
        if problem is not None:
            return [f"the agent's schema cannot be used: {problem}"]
    found, stopped = schema_errors(schema, payload, budget=budget)
    if stopped is not None:
        return [stopped]
    return [f"{'/'.join(str(p) for p in error.absolute_path) or '(root)'}: {error.message}" for error in found]
