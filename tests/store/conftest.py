"""Fixtures for the thread store tests: a private data directory and a real store file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tandem.core.store import ThreadStore


@pytest.fixture(autouse=True)
def tmp_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point platformdirs' user data directory (XDG_DATA_HOME) into the test's tmp_path."""
    data = tmp_path / "xdg-data"
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    return data


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "store" / "threads.sqlite3"


@pytest.fixture
def store(db_path: Path) -> Iterator[ThreadStore]:
    with ThreadStore(db_path) as opened:
        yield opened
