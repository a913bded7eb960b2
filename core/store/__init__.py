"""The thread store: conversations' logs in a SQLite file in the user data directory.

`ThreadStore` owns the file (WAL, migrations, owner-only permissions) and the thread list;
`SqliteThread` is one conversation's log (a `ConversationThread`), locked to one process.
"""

from __future__ import annotations

from tandem.core.store.schema import SCHEMA_VERSION
from tandem.core.store.store import ThreadInfo, ThreadStore, default_path, strip_credentials
from tandem.core.store.thread import SqliteThread

__all__ = ["SCHEMA_VERSION", "SqliteThread", "ThreadInfo", "ThreadStore", "default_path", "strip_credentials"]
