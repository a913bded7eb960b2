"""Every third-party import in Tandem's packages is a declared runtime dependency.

Reads the imports of every module under core/, widgets/, tui/ and themes/ (the AST: imports
inside functions count too), maps each top-level name to the distribution that provides it in
this environment (`importlib.metadata.packages_distributions`), and checks that distribution
is in `[project] dependencies`. A test-only package imported by the runtime fails here, as
`regex` once did (imported by core/a2ui, installed only because something else pulled it in).
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("core", "widgets", "tui", "themes")


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _names(specs: list[str]) -> set[str]:
    return {_canonical(re.split(r"[\s<>=!~;\[]", spec, maxsplit=1)[0]) for spec in specs}


def _project() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _declared() -> set[str]:
    return _names(_project()["dependencies"])


def _optional() -> set[str]:
    """Distributions of the runtime extras (not `test`): imported only where installed."""
    extras = _project().get("optional-dependencies", {})
    return set().union(*(_names(specs) for name, specs in extras.items() if name != "test"))


def _imports() -> dict[str, set[str]]:
    """Top-level module name → the files importing it (absolute imports only)."""
    found: dict[str, set[str]] = {}
    for package in PACKAGES:
        for path in (REPO / package).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    found.setdefault(name.split(".")[0], set()).add(str(path.relative_to(REPO)))
    return found


def test_every_third_party_import_is_declared() -> None:
    declared = _declared()
    optional = _optional()
    providers = packages_distributions()
    undeclared: dict[str, set[str]] = {}
    for module, files in _imports().items():
        if module in sys.stdlib_module_names or module in ("tandem", "__future__"):
            continue
        distributions = {_canonical(d) for d in providers.get(module, [])}
        if not distributions and _canonical(module) in optional:
            continue  # an optional extra that is not installed here (e.g. keyring)
        assert distributions, f"{module} (imported by {sorted(files)}) is not installed at all"
        if distributions & optional:
            continue
        if not distributions & declared:
            undeclared[module] = files
    assert not undeclared, f"imported but not in [project] dependencies: {undeclared}"


def test_the_scan_sees_the_imports_it_must() -> None:
    # The scan itself is what this file relies on: it finds known imports, lazy ones included.
    imports = _imports()
    assert {"textual", "httpx", "pydantic", "regex", "platformdirs"} <= set(imports)
    assert "core/a2ui/resolved.py" in imports["regex"]
