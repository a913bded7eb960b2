"""Layer rules: core imports no UI package, and every package's `__all__` is its public namespace."""

from __future__ import annotations

import importlib
import inspect
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import tandem.core as core

REPOSITORY = Path(__file__).resolve().parents[2]
UI_PACKAGES = ("textual", "tandem.widgets", "tandem.tui", "tandem.themes")


def core_modules() -> list[str]:
    return ["tandem.core", *(m.name for m in pkgutil.walk_packages(core.__path__, "tandem.core."))]


def core_packages() -> list[str]:
    """Every package of core (the UI packages' surfaces are pinned in tests/widgets/test_exports.py)."""
    return ["tandem.core", *(m.name for m in pkgutil.walk_packages(core.__path__, "tandem.core.") if m.ispkg)]


def imported_ui_packages(statement: str) -> list[str]:
    """Run `statement` in a fresh interpreter and list the UI packages it imported."""
    probe = (
        f"{statement}\n"
        "import json, sys\n"
        f"print(json.dumps(sorted({{'.'.join(name.split('.')[:2]) if name.startswith('tandem.') else name.split('.')[0] for name in sys.modules}} & {set(UI_PACKAGES)!r})))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPOSITORY, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    names: list[str] = json.loads(result.stdout)
    return names


class TestCoreImportsNoUI:
    def test_importing_core_loads_no_ui_package(self) -> None:
        assert imported_ui_packages("import tandem.core") == []

    def test_no_core_module_loads_a_ui_package(self) -> None:
        statement = "\n".join(f"import {name}" for name in core_modules())
        assert imported_ui_packages(statement) == []


@pytest.mark.parametrize("package", core_packages())
def test_all_is_the_public_namespace(package: str) -> None:
    """Like httpx's test_exported_members: `__all__` lists exactly the public names (house rule 6).

    A name imported only for the package's own use should be imported under a private alias.
    """
    module = importlib.import_module(package)
    for name in getattr(module, "__all__", ()):
        getattr(module, name, None)  # a package may load some names on first use (module __getattr__)
    public = {
        name
        for name, value in vars(module).items()
        if not name.startswith("_") and not inspect.ismodule(value) and name != "annotations"
    }
    exported = getattr(module, "__all__", None)
    assert exported is not None, f"{package} has no __all__"
    assert len(exported) == len(set(exported)), f"{package}.__all__ lists a name twice"
    assert sorted(set(public) - set(exported)) == [], f"public in {package} but not in __all__"
    assert sorted(set(exported) - set(public)) == [], f"in {package}.__all__ but not defined"


def test_every_package_folder_is_installed() -> None:
    """pyproject lists the packages by hand (the `tandem.*` mapping hides them from `find`)."""
    import tomllib

    listed = set(tomllib.loads((REPOSITORY / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    on_disk = {
        "tandem." + ".".join(init.parent.relative_to(REPOSITORY).parts)
        for top in ("core", "widgets", "tui", "themes")
        for init in (REPOSITORY / top).rglob("__init__.py")
    }
    assert on_disk == listed
