"""Textual's private names: every use is listed here, and only tui/terminal/ makes them.

The scan reads each module of core/, widgets/, tui/ and themes/ (its AST) and finds imports from
Textual's private modules or of private names; private members of Textual classes a subclass (or a
mixin of one) overrides; private attributes read or written on `self`/`super()` when a Textual base
defines them, on another object (or through `getattr`) when only Textual defines the name (one that
a class of ours defines too, such as `_task`, cannot be told apart and is left out). It fails on a
use outside tui/terminal/ whose module `EXCEPTIONS` does not list, and on a name not in `KNOWN`.
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest
import textual

PACKAGE_ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("core", "widgets", "tui", "themes")
TERMINAL = "tandem.tui.terminal"

KNOWN: frozenset[str] = frozenset(
    """
textual._ansi_sequences.ANSI_SEQUENCES_KEYS textual._parser.ParseError textual._compositor.ChopsUpdate textual._compositor.Compositor
textual._compositor.CompositorUpdate textual._compositor.LayoutUpdate textual._compositor.ReflowResult
textual._styles_cache.StylesCache textual._xterm_parser.XTermParser textual.widget._RenderCache

App._display
Compositor._full_map_invalidated DOMNode._component_styles DOMNode._get_component_classes DOMNode._pruning Markdown._build_from_source Markdown._last_parsed_line
Markdown._markdown Markdown._theme Screen._callbacks Screen._compositor
Screen._compositor_refresh Screen._dirty_widgets Screen._invoke_and_clear_callbacks Screen._layout_required
Screen._layout_widgets Screen._on_timer_update Screen._on_update Screen._refresh_layout Screen._update_timer
Tree._build Tree._render_line Tree._tree_lines_cached
DOMNode._nodes Widget._has_relative_children_height Widget._layout_updates
Widget._border_subtitle Widget._border_title Widget._dirty_regions Widget._render Widget._render_cache
Widget._render_content Widget._scroll_update Widget._set_dirty Widget._size_updated Widget._styles_cache

*._attach *._vertical_scrollbar *._start_widget *._running *._previous_cursor_position *._get_component_classes *._background_screens *._batch_count *._begin_update *._binding_chain *._cache *._cache_key
*._callbacks *._compositor *._compositor_refresh *._dirty_lines *._dirty_regions *._dirty_widgets *._display
*._driver *._id *._initial_markdown *._invoke_and_clear_callbacks *._layout_required *._layout_widgets
*._message_queue *._modal_binding_chain *._must_signal_resume *._on_update *._pending_children
*._recompose_required *._render_cache *._render_content *._repaint_required *._scroll_required *._segments
*._sender *._sigcont_application *._stop_propagation *._update_timer *._updates *._writer_thread
""".split()
)
"""Every private Textual name Tandem uses (Textual 8.2.8, pinned), what to check on an upgrade: imports
(`module.Name`), members of a known Textual class (`Class._name`), attributes of an object of unknown class (`*._name`)."""

_WIDGETS = (
    "widgets/ may not import tui/ (layer rule): these streaming widgets read Textual's private "
    "attributes where they lay out and render (no private module: those two uses, painting a "
    "chunk into lines and letting go of styles caches, are tui/terminal's, installed for them "
    "through `widgets.internals`)."
)
EXCEPTIONS: dict[str, str] = {
    **{
        f"tandem.widgets.{name}": _WIDGETS
        for name in ("block_view", "chunk_freezing", "laid_out_once", "markdown_chunks",
                     "markdown_styles", "state_tree")
    },
    "tandem.widgets.a2ui_layout_page": (
        "a page of a long A2UI column keeps what Textual's layout asks of it on every frame (whether a "
        "row's height is relative, found by walking every row) until a row changes, told by Textual's "
        "layout and children counters"
    ),
}
"""Modules outside tui/terminal/ that still use Textual's privates, each with why."""


@dataclass(frozen=True)
class Use:
    """One use of a private Textual name: where (module, line) and which name."""

    module: str
    line: int
    name: str

    def __str__(self) -> str:
        return f"{self.module}:{self.line}: {self.name}"


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _defined_privates(tree: ast.AST) -> Iterator[tuple[str, str]]:
    """(class name, private name) for each member a class body defines or `self._x =` assigns."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        for child in ast.walk(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) and _is_private(child.name):
                yield node.name, child.name
            elif isinstance(child, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = child.targets if isinstance(child, ast.Assign) else [child.target]
                for target in targets:
                    if isinstance(target, ast.Name) and _is_private(target.id):
                        yield node.name, target.id
                    elif isinstance(target, ast.Attribute) and _is_private(target.attr):
                        if isinstance(target.value, ast.Name) and target.value.id in ("self", "cls"):
                            yield node.name, target.attr


def _textual_index() -> dict[tuple[str, str], set[str]]:
    """Private members each Textual class defines, by (module, class name)."""
    root = Path(textual.__file__).parent
    index: dict[tuple[str, str], set[str]] = {}
    for path in root.rglob("*.py"):
        module = "textual." + ".".join(path.relative_to(root).with_suffix("").parts)
        module = module.removesuffix(".__init__")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for class_name, name in _defined_privates(tree):
            index.setdefault((module, class_name), set()).add(name)
    return index


TEXTUAL_INDEX = _textual_index()
TEXTUAL_PRIVATES = set().union(*TEXTUAL_INDEX.values())
IMPORTS: dict[str, dict[str, object]] = {}
"""What each scanned module imports from Textual anywhere (in a function, under `TYPE_CHECKING`)."""
DEFINED: set[type] = set()
"""The classes the scanned modules define at their top level (not those made at run time)."""
MIXIN_BASES: dict[type, type] = {}
"""Mixins written for a Textual class (`class M(_WidgetBase)`, `_WidgetBase = Widget` when type checking)."""


def _modules() -> Iterator[tuple[str, Path]]:
    for package in SCANNED:
        for path in sorted((PACKAGE_ROOT / package).rglob("*.py")):
            parts = path.relative_to(PACKAGE_ROOT).with_suffix("").parts
            name = ".".join(("tandem", *parts)).removesuffix(".__init__")
            yield name, path


def _textual_bases(cls: type) -> list[type]:
    """Textual classes in `cls`'s MRO; for a mixin of ours, those of the class it is written for
    (its `TYPE_CHECKING` base) or of its first Textual subclass that a module of ours defines."""
    bases = [base for base in cls.__mro__ if base.__module__.split(".")[0] == "textual"]
    if bases or cls.__module__.split(".")[0] == "textual":
        return bases
    if cls in MIXIN_BASES:
        return _textual_bases(MIXIN_BASES[cls])
    for subclass in cls.__subclasses__():
        bases = _textual_bases(subclass) if subclass in DEFINED else []
        if bases:
            return bases
    return []


def _textual_owner(cls: type, name: str) -> str | None:
    """The first Textual class in `cls`'s MRO that defines private `name` (as `Class._name`)."""
    for base in _textual_bases(cls):
        if name in TEXTUAL_INDEX.get((base.__module__, base.__name__), ()):
            return f"{base.__name__}.{name}"
    return None


def _textual_imports(tree: ast.AST) -> dict[str, object]:
    names: dict[str, object] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "textual":
            imported = importlib.import_module(node.module or "")
            names.update({alias.asname or alias.name: getattr(imported, alias.name, None) for alias in node.names})
    return names


def _resolve_class(module: object, node: ast.ClassDef, outer: list[str]) -> type | None:
    """The class object `node` defines: by qualified name, else by evaluating its bases."""
    found: object = module
    for part in (*outer, node.name):
        found = getattr(found, part, None)
        if found is None:
            break
    if inspect.isclass(found):
        return found
    bases: list[type] = []
    namespace = {**IMPORTS.get(getattr(module, "__name__", ""), {}), **vars(module)}
    for base in node.bases:
        try:
            value = eval(compile(ast.Expression(base), "<base>", "eval"), namespace)  # noqa: S307
        except Exception:
            continue
        if inspect.isclass(value):
            bases.append(value)
    return type(node.name, tuple(bases), {}) if bases else None


def _member_names(statement: ast.stmt) -> list[str]:
    """The names a statement of a class body defines (a method, a class attribute)."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return [statement.name]
    if isinstance(statement, ast.Assign):
        return [target.id for target in statement.targets if isinstance(target, ast.Name)]
    if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
        return [statement.target.id]
    return []


class _Scanner(ast.NodeVisitor):
    """Walks one module and collects its `Use`s of private Textual names."""

    def __init__(self, module_name: str, module: ModuleType, own_privates: frozenset[str]) -> None:
        self.module_name = module_name
        self.module = module
        self.own_privates = own_privates
        self.classes: list[tuple[ast.ClassDef, type | None]] = []
        self.uses: list[Use] = []

    def _add(self, node: ast.AST, name: str) -> None:
        self.uses.append(Use(self.module_name, getattr(node, "lineno", 0), name))

    def _textual_class(self) -> type | None:
        cls = self.classes[-1][1] if self.classes else None
        return cls if cls is not None and _textual_bases(cls) else None

    def _in_unresolved_class(self) -> bool:
        """Inside a class whose bases are not known statically (a subclass of a driver passed in)."""
        return bool(self.classes) and self.classes[-1][1] is None and bool(self.classes[-1][0].bases)

    def _unattributed(self, node: ast.AST, name: str) -> None:
        """A private name on an object of unknown type: Textual's when only Textual defines it."""
        if name in TEXTUAL_PRIVATES and name not in self.own_privates:
            self._add(node, f"*.{name}")

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name.startswith("textual.") and any(_is_private(p) for p in alias.name.split(".")):
                self._add(node, alias.name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if module.split(".")[0] != "textual":
            return
        private_module = any(_is_private(part) for part in module.split("."))
        for alias in node.names:
            if private_module or _is_private(alias.name):
                self._add(node, f"{module}.{alias.name}")

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        outer = [c.name for c, _ in self.classes]
        cls = _resolve_class(self.module, node, outer)
        self.classes.append((node, cls))
        if cls is None and node.bases:
            for child in node.body:
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) and _is_private(child.name):
                    self._unattributed(child, child.name)
        elif cls is not None and _textual_bases(cls):
            for child in node.body:
                for name in _member_names(child):
                    owner = _textual_owner(cls, name) if _is_private(name) else None
                    if owner is not None:
                        self._add(child, owner)
        self.generic_visit(node)
        self.classes.pop()

    @staticmethod
    def _receiver_is_self(value: ast.expr) -> bool:
        if isinstance(value, ast.Call):  # super()
            return isinstance(value.func, ast.Name) and value.func.id == "super"
        return isinstance(value, ast.Name) and value.id in ("self", "cls")

    def _attribute(self, node: ast.AST, value: ast.expr | None, name: str) -> None:
        if not _is_private(name):
            return
        if value is not None and self._receiver_is_self(value) and not self._in_unresolved_class():
            cls = self._textual_class()
            owner = _textual_owner(cls, name) if cls is not None else None
            if owner is not None:
                self._add(node, owner)
            return
        self._unattributed(node, name)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self._attribute(node, node.value, node.attr)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if (
            isinstance(func, ast.Name)
            and func.id in ("getattr", "setattr", "hasattr", "delattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
        ):
            self._attribute(node, node.args[0], node.args[1].value)
        self.generic_visit(node)


def _load(name: str, text: str, planted: bool) -> ModuleType:
    """The module object, to resolve class bases (a `__main__` module is not run: it starts the app)."""
    if planted:
        module = ModuleType(name)
        exec(compile(text, f"<planted {name}>", "exec"), vars(module))  # noqa: S102
    elif name.endswith(".__main__"):
        module = ModuleType(name)
    else:
        module = importlib.import_module(name)
    tree = ast.parse(text)
    IMPORTS[name] = _textual_imports(tree)
    checking = _type_checking_names(module, tree)
    for value in vars(module).values():
        if inspect.isclass(value) and value.__module__ == name:
            DEFINED.add(value)
    for node in tree.body:
        found = getattr(module, node.name, None) if isinstance(node, ast.ClassDef) else None
        for base in node.bases if inspect.isclass(found) else ():
            written_for = checking.get(base.id) if isinstance(base, ast.Name) else None
            if inspect.isclass(written_for):
                MIXIN_BASES[found] = written_for
    return module


def _type_checking_names(module: ModuleType, tree: ast.Module) -> dict[str, object]:
    """What `Name = Other` assignments under `if TYPE_CHECKING:` bind when type checking."""
    names: dict[str, object] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for statement in node.body:
                if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Name):
                    value = IMPORTS[module.__name__].get(statement.value.id, getattr(module, statement.value.id, None))
                    names.update({t.id: value for t in statement.targets if isinstance(t, ast.Name)})
    return names


def _own_privates(trees: dict[str, ast.AST], modules: dict[str, ModuleType]) -> set[str]:
    """Private names our own classes define that no Textual base of theirs defines."""
    own: set[str] = set()
    for module_name, tree in trees.items():
        module = modules[module_name]
        for class_name, name in _defined_privates(tree):
            cls = getattr(module, class_name, None)
            if not inspect.isclass(cls) or _textual_owner(cls, name) is not None:
                continue  # (a class in a function, or an override of Textual's)
            own.add(name)
    return own


@functools.cache
def _project() -> tuple[dict[str, ast.AST], dict[str, ModuleType], frozenset[str]]:
    """Every scanned module's tree and module object, and the private names our own classes define."""
    texts = {name: path.read_text(encoding="utf-8") for name, path in _modules()}
    trees = {name: ast.parse(text) for name, text in texts.items()}
    modules = {name: _load(name, texts[name], planted=False) for name in trees}
    return trees, modules, frozenset(_own_privates(trees, modules))


def _scan_module(name: str, tree: ast.AST, module: ModuleType, own: frozenset[str]) -> list[Use]:
    scanner = _Scanner(name, module, own)
    scanner.visit(tree)
    return scanner.uses


@functools.cache
def scan() -> tuple[Use, ...]:
    """Every use of a private Textual name in core/, widgets/, tui/ and themes/."""
    trees, modules, own = _project()
    return tuple(use for name, tree in trees.items() for use in _scan_module(name, tree, modules[name], own))


def scan_planted(name: str, text: str) -> list[Use]:
    """The uses in `text`, scanned as if it were module `name` of the project."""
    _trees, _modules_, own = _project()
    return _scan_module(name, ast.parse(text), _load(name, text, planted=True), own)


def _in_terminal(module: str) -> bool:
    return module == TERMINAL or module.startswith(TERMINAL + ".")


def misplaced(uses: Iterable[Use]) -> list[Use]:
    """Uses outside tui/terminal/ in a module that no exception lists."""
    return [use for use in uses if not _in_terminal(use.module) and use.module not in EXCEPTIONS]


def unknown(uses: Iterable[Use]) -> list[Use]:
    """Uses of a private name the known list does not have."""
    return [use for use in uses if use.name not in KNOWN]


def test_only_the_terminal_package_uses_textual_privates() -> None:
    found = misplaced(scan())
    assert not found, "move these into tui/terminal/ (or list the module in EXCEPTIONS):\n" + "\n".join(map(str, found))


def test_every_private_name_used_is_known() -> None:
    found = unknown(scan())
    assert not found, "a new private Textual name: check it, then add it to KNOWN:\n" + "\n".join(map(str, found))


def test_the_lists_hold_nothing_stale() -> None:
    uses = scan()
    assert KNOWN - {use.name for use in uses} == set()
    assert set(EXCEPTIONS) - {use.module for use in uses} == set()


def test_the_scan_sees_the_terminal_package() -> None:
    # (a scan that found nothing would pass the tests above)
    names = {use.name for use in scan() if _in_terminal(use.module)}
    assert {"textual._compositor.ChopsUpdate", "Screen._refresh_layout", "*._running"} <= names


PLANTED = {
    "a private module": ("from textual._compositor import Compositor\n", "textual._compositor.Compositor"),
    "a private name of a public module": ("from textual.widget import _RenderCache\n", "textual.widget._RenderCache"),
    "an override": (
        "from textual.screen import Screen\n\nclass Planted(Screen):\n    def _refresh_layout(self, size=None, scroll=False):\n"
        "        super()._refresh_layout(size, scroll)\n",
        "Screen._refresh_layout",
    ),
    "an override in a mixin": (
        "from textual.widget import Widget\n\nclass Mixin:\n    def _set_dirty(self, *regions):\n        pass\n\n"
        "class Planted(Mixin, Widget):\n    pass\n",
        "Widget._set_dirty",
    ),
    "a flag on another object": ("def lower(widget):\n    widget._layout_required = False\n", "*._layout_required"),
    "getattr": ('def flags(screen):\n    return getattr(screen, "_dirty_widgets")\n', "*._dirty_widgets"),
}


@pytest.mark.parametrize("planted", PLANTED.values(), ids=list(PLANTED))
def test_a_planted_use_outside_the_terminal_fails(planted: tuple[str, str]) -> None:
    text, name = planted
    uses = scan_planted("tandem.widgets.planted", text)
    assert name in {use.name for use in misplaced(uses)}


def test_a_new_private_name_in_the_terminal_fails() -> None:
    uses = scan_planted(TERMINAL + ".planted", "from textual._loop import loop_last\n")
    assert not misplaced(uses)
    assert [use.name for use in unknown(uses)] == ["textual._loop.loop_last"]


def test_an_own_private_attribute_is_not_textual() -> None:
    text = "class Own:\n    def __init__(self):\n        self._frames_held = 0\n\n    def _step(self):\n        return self._frames_held\n"
    assert scan_planted("tandem.widgets.planted", text) == []

