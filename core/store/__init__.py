"""The thread store: conversations' logs in a SQLite file in the user data directory.

`ThreadStore` owns the file (WAL, migrations, owner-only permissions) and the thread list;
`SqliteThread` is one conversation's log (a `ConversationThread`), locked to one process.

`SqliteThread` is exported lazily: it brings the log's pydantic models, which listing, resolving
and describing threads do not need (`tandem threads`; `tandem --resume` finds its thread's server
before the app's first frame).
"""

from __future__ import annotations

import typing

from tandem.core.lazy_exports import lazy_exports as _lazy_exports
from tandem.core.store.schema import SCHEMA_VERSION
from tandem.core.store.store import ThreadInfo, ThreadStore, default_path, strip_credentials

if typing.TYPE_CHECKING:
    from tandem.core.store.thread import SqliteThread

__getattr__ = _lazy_exports(__name__, {"SqliteThread": "tandem.core.store.thread"})

__all__ = ["SCHEMA_VERSION", "SqliteThread", "ThreadInfo", "ThreadStore", "default_path", "strip_credentials"]
