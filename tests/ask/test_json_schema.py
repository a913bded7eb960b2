"""`tandem ask --json` output validates against the versioned schema in schemas/.

Real runs of the demo agent covering every block kind it produces; each line is validated on
its own (Draft 2020-12), and the schema itself is checked to be a valid schema.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.helpers.ask_harness import REPO, ask
from jsonschema import Draft202012Validator

from tandem.tui.cli.ask_output import SCHEMA_VERSION

SCHEMA_PATH = REPO / "schemas" / f"ask-output.v{SCHEMA_VERSION}.schema.json"


@pytest.fixture(scope="module")
def validator() -> Draft202012Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


@pytest.mark.parametrize(
    "args",
    [
        ("--approve", "all", "/demo weather in Oslo"),
        ("--approve", "all", "/demo document"),
        ("--approve", "none", "/demo delete a.txt"),
        ("--approve", "all", "/demo steps"),
        ("/demo address",),
        ("/demo reasoning",),
        ("/demo booking",),
        ("/demo failure",),
        ("--approve", "all", "/demo chat theme light"),
        ("--no-save", "/demo plan"),
    ],
    ids=lambda args: args[-1].replace("/demo ", ""),
)
def test_real_output_validates(validator: Draft202012Validator, args: tuple[str, ...]) -> None:
    result = ask("--json", *args)
    assert result.returncode in (0, 1, 3), result.stderr
    lines = result.stdout.splitlines()
    assert lines
    for line in lines:
        errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(json.loads(line))]
        assert not errors, f"{line[:200]}: {errors}"
    assert json.loads(lines[-1])["event"] == "turn"


def test_the_schema_rejects_what_version_1_does_not_promise(validator: Draft202012Validator) -> None:
    # The schema can fail: a line that breaks the contract is caught.
    assert not validator.is_valid({"event": "turn", "status": "completed", "error": None, "thread": None})  # no schema
    assert not validator.is_valid({"event": "final", "id": "b", "kind": "tool_call", "lifecycle": "inactive", "role": "assistant",
                                   "content": {"call_id": "c", "name": "x", "arguments": {}, "status": "exploded",
                                               "result": None, "error": None}})
    assert not validator.is_valid({"event": "progress"})


def test_the_schema_is_versioned_like_the_output() -> None:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    assert schema["$id"].endswith(f"ask-output.v{SCHEMA_VERSION}.schema.json")
    assert schema["$defs"]["turn_event"]["properties"]["schema"]["const"] == SCHEMA_VERSION
    assert Path(SCHEMA_PATH).name in (REPO / "README.md").read_text(encoding="utf-8")
