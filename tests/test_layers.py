"""The layers of ``docs/architecture.md``, checked on the import statements themselves.

Every ``import`` of every rulekit module is read with :mod:`ast`, the ones inside
functions included (an import deferred into a function is still a dependency; it
only hides a cycle until the function runs).  Relative imports are resolved; the
body of ``if TYPE_CHECKING:`` is skipped, since it never runs.  The test fails on

* a rulekit module that belongs to no layer (a new module must be placed);
* an import from a lower layer to a higher one;
* an engine importing anything but the foundation, the data layer and engines,
  or importing scikit-learn or pandas;
* an import circle between rulekit modules, whatever the layers;
* a folder holding another layer's modules: the engine folders ``corels/``, ``frl/`` and
  ``colgen/`` hold engine modules and, as the learner's public face, only their package
  ``__init__``, ``_spec`` and ``_ablation``; the estimators live in ``estimators/`` (and the
  shared ``base`` and ``_fitdata`` at the root);
* a name with a leading underscore imported from a module of another folder (a private
  function, class or constant is used only in its own package).

The same table is written in ``docs/architecture.md``; a test checks the two agree.
"""

from __future__ import annotations

import ast
import fnmatch
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "rulekit"

#: The layers, lowest first: (name, module patterns relative to ``rulekit``).  A module
#: belongs to the highest layer with a pattern that matches its dotted name ("rulekit" is the
#: package root); it may import from its own layer and the ones below.  Listed names that do
#: not exist (yet) are tolerated.
LAYERS = [
    ("foundation", ["_version", "_tolerances", "_params", "_checks", "_anytime", "_interrupt", "certificate",
                    "bitset", "evaluate", "_columns", "_render", "callbacks", "_files", "_patterns"]),
    ("data", ["binarize", "_reference", "mining", "stream", "distributed"]),
    ("models", ["models", "_modelfile", "export", "export.*", "persist", "plotting",
                "explore", "explore.*"]),
    ("engines", ["corels.*", "frl.*", "colgen.*"]),
    ("estimators", ["base", "_fitdata", "estimators", "estimators.*"]),
    ("applications", ["corels", "frl", "colgen", "corels._ablation", "*._spec", "learners",
                      "compare", "cli", "datasets", "rulekit", "_precompile"]),
]

#: The folders of the engines, and the files in them that are the learner's public face
#: (application layer): everything else in an engine folder is engine.
ENGINE_FOLDERS = ("corels", "frl", "colgen")
ENTRY_POINTS = {"__init__", "_spec", "_ablation"}

#: The estimator layer's folder; the root holds the layer's shared ``base`` and ``_fitdata``.
ESTIMATOR_FOLDER = "estimators"

#: What an engine may import from rulekit, besides other engine modules.
ENGINE_MAY_IMPORT = {"foundation"}

#: Third-party packages no engine imports: engines see arrays, never tables or estimators.
ENGINE_NEVER_IMPORTS = {"sklearn", "pandas"}

#: Known violations, as (importing module, imported module): each must be named here with
#: its reason, and the test fails when one disappears, so the list never excuses more than
#: it says.  Empty: the two searches that read COMMON_PARAMETERS from the estimator base
#: now read it from ``_params``.
PENDING: set = set()


def _name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts) or "rulekit"


MODULES = {_name(p): p for p in sorted(PACKAGE.rglob("*.py")) if "__pycache__" not in p.parts}
TREES = {module: ast.parse(path.read_text(), str(path)) for module, path in MODULES.items()}


def _relative(dotted: str) -> str | None:
    """``rulekit.x.y`` as ``x.y`` (the root as ``rulekit``); None outside rulekit."""
    if dotted == "rulekit":
        return "rulekit"
    return dotted[len("rulekit."):] if dotted.startswith("rulekit.") else None


def _is_type_checking(node: ast.AST) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _statements(tree: ast.AST):
    """Every import statement of a module, at any depth, outside ``if TYPE_CHECKING:``."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        children = list(ast.iter_child_nodes(node))
        if _is_type_checking(node):
            children = node.orelse
        stack.extend(children)


def _targets(module: str, node, package: bool) -> list:
    """The absolute dotted names an import statement of ``module`` reaches (a submodule where
    it names one); ``package``: ``module`` is a package's ``__init__``."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        here = ["rulekit", *([] if module == "rulekit" else module.split("."))]
        if not package:
            here.pop()
        here = here[:len(here) - (node.level - 1)]
        base = ".".join([*here, *([base] if base else [])])
    found = []
    for alias in node.names:
        sub = _relative(f"{base}.{alias.name}")
        found.append(f"{base}.{alias.name}" if sub in MODULES else base)
    return found


def imports() -> dict:
    """{module: {imported rulekit module or third-party top-level package: first line}}."""
    graph = {}
    for module, path in MODULES.items():
        edges = graph.setdefault(module, {})
        for node in _statements(TREES[module]):
            for target in _targets(module, node, path.name == "__init__.py"):
                key = _relative(target) or target.split(".")[0]
                if key != module:
                    edges.setdefault(key, node.lineno)
    return graph


def layer_of(module: str) -> int | None:
    """Index in :data:`LAYERS` of the highest layer claiming ``module``."""
    for index in reversed(range(len(LAYERS))):
        if any(fnmatch.fnmatchcase(module, pattern) for pattern in LAYERS[index][1]):
            return index
    return None


GRAPH = imports()
LAYER_NAMES = [name for name, _ in LAYERS]


def _where(module: str, target: str) -> str:
    return f"rulekit/{MODULES[module].relative_to(PACKAGE)}:{GRAPH[module][target]} imports {target}"


def test_every_module_has_a_layer():
    homeless = [m for m in MODULES if layer_of(m) is None]
    assert homeless == [], "place each new module in LAYERS here and in docs/architecture.md"


def test_no_import_goes_up_a_layer():
    wrong = [f"{_where(m, t)} ({LAYER_NAMES[layer_of(m)]} -> {LAYER_NAMES[layer_of(t)]})"
             for m in GRAPH for t in GRAPH[m]
             if t in MODULES and (m, t) not in PENDING and layer_of(t) > layer_of(m)]
    assert wrong == [], "import downward only (docs/architecture.md, Layers)"


def _engines_beyond_arrays() -> list:
    """Where an engine imports more than the foundation and engines, or a table library."""
    engines = LAYER_NAMES.index("engines")
    allowed = {LAYER_NAMES.index(name) for name in ENGINE_MAY_IMPORT} | {engines}
    return [_where(m, t) for m in GRAPH if layer_of(m) == engines for t in GRAPH[m]
            if (m, t) not in PENDING
            and (t in ENGINE_NEVER_IMPORTS or (t in MODULES and layer_of(t) not in allowed))]


def test_engines_see_arrays_only():
    assert _engines_beyond_arrays() == []


def test_pending_exceptions_still_exist():
    # an entry whose import is gone must leave the list, so that the list never excuses more
    gone = [edge for edge in PENDING if edge[1] not in GRAPH.get(edge[0], {})]
    assert gone == [], "these imports are gone: remove them from PENDING"


def _cycle():
    """One import circle between rulekit modules, as a list of modules, or None."""
    state = {}

    def visit(module, path):
        state[module] = "open"
        for target in GRAPH[module]:
            if target not in MODULES:
                continue
            if state.get(target) == "open":
                return path[path.index(target):] + [target]
            if target not in state:
                found = visit(target, [*path, target])
                if found:
                    return found
        state[module] = "done"
        return None

    for module in GRAPH:
        if module not in state:
            found = visit(module, [module])
            if found:
                return found
    return None


def test_no_import_circle():
    assert _cycle() is None, "modules that import each other: one of them must ask instead"


def test_the_check_sees_function_level_and_relative_imports():
    tree = ast.parse("def f():\n    from ..models import RuleList\n    import rulekit.bitset\n"
                     "if TYPE_CHECKING:\n    from .base import X\n")
    found = [t for node in _statements(tree) for t in _targets("export._plan", node, False)]
    assert sorted(found) == ["rulekit.bitset", "rulekit.models"]


def _doc_layers() -> list:
    """The layer table of docs/architecture.md as [(name, [patterns])]."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    rows = re.findall(r"^\| \*\*(\w+)\*\* \| ([^|]*) \|", text, flags=re.M)
    return [(name, re.findall(r"`([^`]+)`", cells)) for name, cells in rows]


def test_architecture_doc_lists_the_same_layers():
    assert _doc_layers() == LAYERS



def _unnamed_numbers(tree: ast.AST) -> list:
    """Tolerance-sized floats and 2**k caps written inline.

    Not counted: a signature's or a settings field's default and a keyword argument of a call
    (documented parameters of a model, such as FRL's ``C=1e-6``), and the value of a module
    constant in capitals (already named, with its comment).
    """
    allowed = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword):
            allowed |= {id(n) for n in ast.walk(node.value)}
        if (isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) and t.id.isupper()
                                                 for t in node.targets)):
            allowed |= {id(n) for n in ast.walk(node.value)}
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for default in [*node.args.defaults, *node.args.kw_defaults]:
                if default is not None:
                    allowed |= {id(n) for n in ast.walk(default)}
        if isinstance(node, ast.ClassDef):
            for stmt in node.body:
                if isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                    allowed |= {id(n) for n in ast.walk(stmt.value)}
    found = []
    for node in ast.walk(tree):
        if id(node) in allowed:
            continue
        if (isinstance(node, ast.Constant) and isinstance(node.value, float)
                and 0 < node.value <= 1e-3):
            found.append((node.lineno, repr(node.value)))
        if (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow)
                and isinstance(node.left, ast.Constant) and node.left.value == 2
                and isinstance(node.right, ast.Constant) and node.right.value in (31, 62, 63)):
            found.append((node.lineno, f"2**{node.right.value}"))
    return found


def test_every_tolerance_and_cap_is_named_in_one_place():
    """Tolerances and integer caps live in rulekit/_tolerances.py, each with its reason."""
    inline = {}
    for module, path in MODULES.items():
        if module == "_tolerances":
            continue
        found = _unnamed_numbers(TREES[module])
        if found:
            inline[module] = found
    assert not inline, f"name these in rulekit/_tolerances.py: {inline}"
    # and each named one says why it has its size
    source = (PACKAGE / "_tolerances.py").read_text().splitlines()
    for i, line in enumerate(source):
        if re.match(r"^[A-Z_0-9, ]+ = ", line):
            assert source[i - 1].startswith("#:") or source[i - 1].startswith("#: ") \
                or source[i - 2].startswith("#:"), f"_tolerances.py line {i + 1} has no reason"


def _folder(module: str) -> str:
    """The folder of a rulekit module relative to ``rulekit/`` ("" for the root)."""
    return "/".join(MODULES[module].parent.relative_to(PACKAGE).parts)


def _misplaced() -> list:
    """Modules whose layer is not the one their folder holds."""
    wrong = []
    for module, path in MODULES.items():
        folder, layer = _folder(module), LAYER_NAMES[layer_of(module)]
        if folder in ENGINE_FOLDERS:
            expected = "applications" if path.stem in ENTRY_POINTS else "engines"
            if layer != expected:
                wrong.append(f"rulekit/{path.relative_to(PACKAGE)} is {layer}, its folder "
                             f"holds {expected}")
        if (folder == ESTIMATOR_FOLDER) != (layer == "estimators") and folder != "":
            wrong.append(f"rulekit/{path.relative_to(PACKAGE)} is {layer}: estimators live "
                         f"in rulekit/{ESTIMATOR_FOLDER}/ and nothing else does")
    return wrong


def test_folders_are_layers():
    assert _misplaced() == [], "move the module to the folder of its layer (docs/architecture.md)"


def _private_imports(module: str, tree: ast.AST, package: bool) -> list:
    """``(line, name, defining module)`` for each private name ``module`` takes from a
    module of another folder: imported by name (``from m import _x``) or read through a
    module it imported (``m._x``).  Private *modules* are the package's files, which the
    layer above may read by their path; what is private is their underscored names."""
    here, found, aliases = _folder(module), [], {}
    for node in _statements(tree):
        targets = _targets(module, node, package)
        for alias, target in zip(node.names, targets):
            source = _relative(target)
            if source not in MODULES:
                continue
            if isinstance(node, ast.Import) or target.endswith("." + alias.name):
                if alias.asname or isinstance(node, ast.ImportFrom):
                    aliases[alias.asname or alias.name] = source  # a module, by a name
                continue
            if (alias.name.startswith("_") and not alias.name.startswith("__")
                    and _folder(source) != here):
                found.append((node.lineno, alias.name, source))
    for node in ast.walk(tree) if aliases else ():  # reads through imported modules
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in aliases and node.attr.startswith("_")
                and not node.attr.startswith("__")
                and _folder(aliases[node.value.id]) != here):
            found.append((node.lineno, node.attr, aliases[node.value.id]))
    return found


def test_private_names_are_imported_only_inside_their_package():
    wrong = [f"rulekit/{path.relative_to(PACKAGE)}:{line} imports {name} from {source}"
             for module, path in MODULES.items()
             for line, name, source in _private_imports(
                 module, TREES[module], path.name == "__init__.py")]
    assert wrong == [], "make the name public where it is shared, or keep its user beside it"


def test_the_private_name_check_sees_names_and_attributes():
    code = ("from rulekit.corels._rashomon import _Enumeration, rashomon\n"
            "from rulekit.corels import _capture_graph as cg\n"
            "def f():\n    from ..binarize import _plain\n    return cg._hidden, cg.explore\n")
    across = _private_imports("estimators.corels", ast.parse(code), False)
    assert [(name, source) for _, name, source in sorted(across)] == [
        ("_Enumeration", "corels._rashomon"), ("_plain", "binarize"),
        ("_hidden", "corels._capture_graph")]
    # the same names inside their own folder are the package's business
    assert _private_imports("corels._constrained", ast.parse(code.split("def")[0]), False) == []
