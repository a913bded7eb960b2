"""The A2UI capabilities Tandem ships (`core/a2ui/capabilities.json`) are what a2ui-core generates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tandem.core.a2ui import catalog

REGENERATE = 'python -c "from tandem.core.a2ui.catalog import write_capabilities_file; write_capabilities_file()"'


def test_the_shipped_capabilities_are_the_generated_ones() -> None:
    shipped = json.loads(catalog.CAPABILITIES_FILE.read_text(encoding="utf-8"))
    assert shipped["a2ui_core"] == catalog._a2ui_core_version(), f"a2ui-core changed: regenerate with {REGENERATE}"
    assert shipped["capabilities"] == catalog.generate_capabilities(), f"stale: regenerate with {REGENERATE}"


def test_requests_advertise_the_generated_capabilities() -> None:
    catalog._capabilities_json.cache_clear()
    try:
        assert catalog.capabilities() == catalog.generate_capabilities()
    finally:
        catalog._capabilities_json.cache_clear()


@pytest.mark.parametrize("content", ['{"a2ui_core": "0.0.1", "capabilities": {"v0.9": {}}}', "not json", '["a list"]'])
def test_a_file_from_another_a2ui_core_or_unreadable_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   content: str) -> None:
    other = tmp_path / "capabilities.json"
    other.write_text(content, encoding="utf-8")
    monkeypatch.setattr(catalog, "CAPABILITIES_FILE", other)
    assert catalog._shipped_capabilities() is None
    catalog._capabilities_json.cache_clear()
    try:
        assert catalog.capabilities() == catalog.generate_capabilities()
    finally:
        catalog._capabilities_json.cache_clear()


def test_write_capabilities_file_round_trips(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "capabilities.json"
    catalog.write_capabilities_file(target)
    monkeypatch.setattr(catalog, "CAPABILITIES_FILE", target)
    assert catalog._shipped_capabilities() == catalog.generate_capabilities()
