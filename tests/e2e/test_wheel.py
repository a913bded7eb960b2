"""The built wheel, installed (not editable) in a fresh venv next to PyPI's `tui` and `themes`.

Once per run (a module-scoped venv; marked `packaging`): build the wheel from a copy of the
sources (the checkout is never written to), create a venv, install the wheel with its
dependencies from the package registry, then PyPI's `tui` and `themes` distributions (their
own top-level `tui/` and `themes/` packages: once, Tandem's files and theirs overwrote each
other). Then, in a working directory that has a `core/` package of its own (as a Django
project does): `tandem --help`, `tandem ask "/demo weather"` and the app's first frame in a
real terminal (tmux) all work, and everything imported comes from `tandem.*` in site-packages.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from tests.helpers.tmux import Terminal

REPO = Path(__file__).resolve().parents[2]
INSTALL_TIMEOUT = 900
"""Seconds building and installing may take (a hang guard; it downloads from the registry)."""

pytestmark = [pytest.mark.packaging, pytest.mark.e2e]


@dataclass
class Installed:
    venv: Path
    bin: Path
    workdir: Path
    """A directory whose own `core/` package must not shadow Tandem."""
    env: dict[str, str]


def _run(*command: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(c) for c in command], cwd=cwd, env=env, capture_output=True, text=True, timeout=INSTALL_TIMEOUT)
    assert done.returncode == 0, f"{command}: {done.stdout[-2000:]}{done.stderr[-2000:]}"
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    root = tmp_path_factory.mktemp("wheel")
    source = root / "source"
    ignored = shutil.ignore_patterns(".venv*", ".git", ".typecheck", "build", "dist", "*.egg-info", "__pycache__",
                                     "tests", "snapshots", ".ruff_cache", ".mypy_cache")
    shutil.copytree(REPO, source, ignore=ignored)
    _run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", root / "dist", source)
    (wheel,) = (root / "dist").glob("tandem_agui-*.whl")
    venv = root / "venv"
    _run(sys.executable, "-m", "venv", venv)
    bin_dir = venv / "bin"
    _run(bin_dir / "python", "-m", "pip", "install", "-q", wheel)
    # PyPI's namesakes, installed after Tandem: had Tandem kept top-level `tui`/`themes`, these
    # would overwrite its files. --no-deps: only their files matter here.
    _run(bin_dir / "python", "-m", "pip", "install", "-q", "--no-deps", "tui", "themes")
    workdir = root / "project"
    (workdir / "core").mkdir(parents=True)
    (workdir / "core" / "__init__.py").write_text('raise ImportError("the project\'s own core package was imported")\n')
    (workdir / "widgets").mkdir()
    (workdir / "widgets" / "__init__.py").write_text('raise ImportError("the project\'s own widgets package was imported")\n')
    env = {k: v for k, v in os.environ.items() if k not in ("TANDEM_HEADERS", "TANDEM_CONFIG", "PYTHONPATH", "VIRTUAL_ENV")}
    env.update(XDG_DATA_HOME=str(root / "data"), XDG_CONFIG_HOME=str(root / "config"), PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}")
    return Installed(venv, bin_dir, workdir, env)


def test_the_wheel_installs_one_namespace_next_to_pypis_tui_and_themes(installed: Installed) -> None:
    probe = (
        "import importlib.util, json, tandem.core, tandem.tui, tandem.widgets, tandem.themes; "
        "print(json.dumps({n: importlib.util.find_spec(n).origin for n in "
        "['tandem.core', 'tandem.tui', 'tandem.widgets', 'tandem.themes', 'tui', 'themes', 'core']}))"
    )
    import json

    origins = json.loads(_run(installed.bin / "python", "-c", probe, cwd=installed.workdir, env=installed.env).stdout)
    site = str(installed.venv)
    for name in ("tandem.core", "tandem.tui", "tandem.widgets", "tandem.themes"):
        assert origins[name].startswith(site), origins  # the installed copy, not the repository's folders
    assert origins["tui"] != origins["tandem.tui"] and origins["themes"] != origins["tandem.themes"]
    assert origins["core"] == str(installed.workdir / "core" / "__init__.py")  # the project's, untouched
    # The namesakes' files are theirs; Tandem's stylesheets shipped as package data.
    site_packages = Path(origins["tandem.tui"]).parents[2]
    assert (site_packages / "themes" / "registrar.py").exists() and (site_packages / "tui" / "formats.py").exists()
    assert list((site_packages / "tandem").rglob("*.tcss"))


def test_help_and_ask_run_from_a_directory_with_its_own_core(installed: Installed) -> None:
    help_text = _run(installed.bin / "tandem", "--help", cwd=installed.workdir, env=installed.env).stdout
    assert help_text.startswith("usage: tandem")
    asked = _run(installed.bin / "tandem", "ask", "--speed", "0", "/demo weather", cwd=installed.workdir, env=installed.env)
    assert "[tool] get_weather" in asked.stdout and "succeeded" in asked.stdout


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed; the first-frame check needs it")
def test_the_app_paints_its_first_frame(installed: Installed) -> None:
    data = installed.env["XDG_DATA_HOME"]
    terminal = Terminal(f"cd {installed.workdir} && env -u PYTHONPATH XDG_DATA_HOME={data} {installed.bin / 'tandem'} --speed 0")
    try:
        terminal.wait_for(lambda s: "/demo chat" in s and "idle" in s, "the welcome screen")
        terminal.keys("C-q")
    finally:
        terminal.close()
