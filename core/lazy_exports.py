"""Package names that import their module on first use (a PEP 562 module `__getattr__`)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(package: str, modules: Mapping[str, str]) -> Callable[[str], Any]:
    """The `__getattr__` for `package` that loads each name in `modules` from its module.

    `modules` maps an exported name to the module defining it. The first access imports that
    module and caches the value in the package, so later accesses are plain attribute reads.
    """

    def __getattr__(name: str) -> Any:
        module = modules.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
