"""The import structure of rulekit in numbers, read as tests/test_layers.py reads it.

Prints, for the checkout it sits in (or ``--root``, or the commit ``--rev``):

* modules: the ``.py`` files under ``rulekit/`` (a package's ``__init__`` is its module);
* lines: their lines, blank and comment lines included (``wc -l``);
* layers: the layers of ``tests/test_layers.py``'s ``LAYERS``, and modules per layer;
* internal import statements: ``import``/``from ... import`` statements that reach a rulekit
  module, at any depth (inside functions too), outside ``if TYPE_CHECKING:``;
* internal import names: the names those statements import (``from .x import a, b`` is two),
  the figure earlier notes gave as "import names";
* module dependencies: distinct (importing module, imported rulekit module) pairs;
* the layer test's findings: upward imports, engine imports beyond the foundation and the
  engines (or of scikit-learn or pandas), modules outside their layer's folder, import
  circles, and private names taken from another folder (all 0 when it passes);
* repeated code: the first line of ``duplicates --repo rulekit`` (the tool library's
  command), when that command is on the PATH.

The statements are read with the same functions the layer test uses (``_statements``,
``_targets``), so the figures change only when the code does.  ``--rev`` measures an
earlier commit's ``rulekit/`` (``git archive``) with *this* checkout's layer test, so two
commits are counted the same way; the layer figures of an old commit are then today's
rules applied to it.

Usage::

    python benchmarks/structure.py [--root CHECKOUT | --rev COMMIT]
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import shutil
import subprocess
import tempfile
from collections import Counter
from pathlib import Path


HERE = Path(__file__).resolve().parents[1]


def _layer_test(root: Path):
    """tests/test_layers.py of ``root``, loaded as a module (the tests folder is no package)."""
    spec = importlib.util.spec_from_file_location(f"rulekit_layer_test_{id(root)}",
                                                  root / "tests" / "test_layers.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def measure(root: Path) -> dict:
    """The figures listed in the module docstring, as a dict."""
    T = _layer_test(root)
    statements = names = 0
    for module, path in T.MODULES.items():
        for node in T._statements(T.TREES[module]):
            inside = [t for t in T._targets(module, node, path.name == "__init__.py")
                      if T._relative(t) is not None]
            if inside:
                statements += 1
                names += len(inside)
    per_layer = Counter(T.LAYER_NAMES[T.layer_of(m)] for m in T.MODULES)
    upward = sum(1 for m in T.GRAPH for t in T.GRAPH[m]
                 if t in T.MODULES and T.layer_of(t) > T.layer_of(m))
    private = sum(len(T._private_imports(m, T.TREES[m], p.name == "__init__.py"))
                  for m, p in T.MODULES.items())
    return {
        "modules": len(T.MODULES),
        "lines": sum(len(p.read_text().splitlines()) for p in T.MODULES.values()),
        "layers": len(T.LAYERS),
        "modules per layer": {name: per_layer[name] for name in T.LAYER_NAMES},
        "internal import statements": statements,
        "internal import names": names,
        "module dependencies": sum(1 for m in T.GRAPH for t in T.GRAPH[m] if t in T.MODULES),
        "upward imports": upward,
        "engine imports beyond arrays": len(T._engines_beyond_arrays()),
        "modules outside their layer's folder": len(T._misplaced()),
        "import circles": 0 if T._cycle() is None else 1,
        "private names from another folder": private,
    }


def duplicates(root: Path) -> str:
    """The summary line of ``duplicates --repo rulekit``, or why there is none."""
    command = shutil.which("duplicates")
    if command is None:
        return "not measured: the duplicates command is not on this machine"
    out = subprocess.run([command, "--repo", str(root / "rulekit"), "--seconds", "120"],
                         capture_output=True, text=True, check=False).stdout
    return out.splitlines()[0] if out else "not measured: duplicates printed nothing"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--root", type=Path, default=HERE,
                       help="the checkout to measure (default: this one)")
    where.add_argument("--rev", help="a commit of this repository to measure instead")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        root = args.root
        if args.rev:
            root = Path(scratch)
            tar = subprocess.run(["git", "-C", str(HERE), "archive", args.rev, "rulekit"],
                                 capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", scratch], input=tar, check=True)
            (root / "tests").mkdir()
            (root / "tests" / "test_layers.py").write_text(
                (HERE / "tests" / "test_layers.py").read_text())
        for key, value in measure(root).items():
            print(f"{key}: {value}")
        print(f"repeated code: {duplicates(root)}")


if __name__ == "__main__":
    main()
