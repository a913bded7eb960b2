"""The AG-UI SDK's models (`ag_ui.core`), imported with each model's validator built on first use.

`ag_ui.core` defines 84 pydantic models (every event, message, tool and input shape of AG-UI 1.0),
and pydantic builds each one's validator and serializer as its class is created: about a quarter
of the CPU `tandem ask` spends before its first byte of output (`python -X importtime`:
`ag_ui._generated.models`, ~0.1 s on a quiet machine). A turn uses a handful of them (the events
its agent sends, the run input it posts). Pydantic's own `defer_build` setting postpones that
work to a model's first validation or serialization; the validators built then are the same.

The SDK's models take no configuration from outside, so their base class inherits the setting
from pydantic's `BaseModel` while the SDK's module runs, and the setting is removed again at
once, whatever happens. Importing this module does it (`tandem.core.agui` imports it first, so
every module of the package finds the SDK imported this way). Only the first import of `ag_ui.core` in the process is deferred; if
someone imported it before, its models are already built and nothing changes. While the import
runs, a model class another thread defines would be deferred too: harmless, it only moves when
its validator is built.
"""

from __future__ import annotations

import sys
import threading

from pydantic import BaseModel

__all__ = ["SDK_MODULE", "import_sdk_models"]

SDK_MODULE = "ag_ui.core"
"""The module whose models are deferred (it imports `ag_ui._generated.models`, where they are defined)."""

_lock = threading.Lock()


def import_sdk_models() -> bool:
    """Import `ag_ui.core` with its models' validators deferred; returns whether this call did.

    False when it was already imported (its models were built as usual, or by an earlier call).
    """
    with _lock:
        if SDK_MODULE in sys.modules:
            return False
        config = BaseModel.model_config
        had, before = "defer_build" in config, config.get("defer_build")
        config["defer_build"] = True
        try:
            __import__(SDK_MODULE)
        finally:
            if had:
                config["defer_build"] = before  # type: ignore[typeddict-item]
            else:
                config.pop("defer_build", None)
        return True


import_sdk_models()
