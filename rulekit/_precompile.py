"""The numba kernels compiled when the package is built, so that the first fit starts warm.

The search kernels are numba functions cached on disk (``cache=True``): numba keeps
the machine code in ``__pycache__`` beside each source file, and a later process
loads it instead of compiling.  Left to the first fit, compiling CORELS's
kernels alone took about 35 CPU s (the cold ``rulekit demo``, issue 37).  So
``setup.py``'s build step runs this file as a script on the tree it is about to
pack (the built copy for ``pip install .``; the checkout for ``pip install -e``):
the compiled code travels in the wheel's ``__pycache__`` folders and the
installed package finds it.  numba accepts such a cache when the source file has
the same content (its stamp is a hash of the file, numba 0.68 and later), the
same numba version wrote it, and the processor is the same kind: a wheel built on
this machine.  Anywhere else the cache is ignored and the first fit compiles, as
before.

What is compiled: the kernels a fit of each learner at its defaults reaches on
small data (CORELS's search and its growth kernels, the falling lists' search,
falling and softly falling).  Not: the recording specialization of CORELS
(``trace="events"``), the kernels only data of many distinct rows reach, and
column generation's exact pricing (``rulekit compile`` compiles all of them).

The build environment holds numpy and numba only (``[build-system] requires``),
not pandas or scikit-learn, so the engines' modules are imported here without
running ``rulekit/__init__.py``: each package on the way is registered as an
empty module over its folder.  The engines themselves need nothing more.

Usage (what ``setup.py`` runs; each part in its own process, so two cores
compile two at a time)::

    python rulekit/_precompile.py ROOT corels
    python rulekit/_precompile.py ROOT frl
"""

from __future__ import annotations

import os
import sys
import types

#: the parts, each a separate process at build time: name -> function below
PARTS = ("corels", "frl")


def _bare_packages(root: str) -> None:
    """Register ``rulekit`` and its engine packages as empty modules over their folders,
    so that importing an engine's module does not run the packages' ``__init__``."""
    for name in ("rulekit", "rulekit.corels", "rulekit.frl"):
        if name in sys.modules:
            continue
        module = types.ModuleType(name)
        module.__path__ = [os.path.join(root, *name.split("."))]
        sys.modules[name] = module


def _toy(seed: int = 0):
    """A small problem of the types a fit passes: antecedents, labels, row counts."""
    import numpy as np

    rng = np.random.default_rng(seed)
    A = rng.random((60, 8)) < 0.4
    y = A[:, 0] ^ A[:, 1] ^ (rng.random(60) < 0.1)
    counts = rng.integers(1, 4, 60).astype(np.int64)
    return A, y, counts


def corels() -> None:
    """CORELS: the search as the estimator calls it (rows with counts), and the
    kernels only a growing search calls."""
    from rulekit.corels._search import search
    from rulekit.corels._state import compile_growth_kernels

    A, y, counts = _toy()
    search(A, y.astype(int), 0.01, sample_weight=counts)
    compile_growth_kernels()


def frl() -> None:
    """The falling lists, falling and softly falling, as the estimator calls them:
    antecedents of one or two conditions given by their conditions, rows with counts."""
    from rulekit.frl._search import search

    A, y, counts = _toy()
    items = [(j,) for j in range(A.shape[1])] + [(0, 1), (2, 3)]
    for C1 in (None, 0.5):
        search(None, y, w=1.0, C=1e-6, C1=C1, n_iter=20, factors=(A, items),
               sample_weight=counts, random_state=0)


def main(argv: list[str]) -> int:
    root, *parts = argv
    # run as a script, this file's folder leads sys.path: its modules would shadow
    # any top-level module of the same name, so it goes
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    _bare_packages(root)
    for part in parts or PARTS:
        if part not in PARTS:
            print(f"unknown part {part!r}; choose from {', '.join(PARTS)}", file=sys.stderr)
            return 2
        globals()[part]()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
