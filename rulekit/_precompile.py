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
falling and softly falling, and their counting in blocks on many distinct rows),
and those of the data layer that a fit of many rows reaches, from files or in
memory (the counting pass's packing and hash table, the packers of bits and
bytes, mining's evaluation of its pool on packed words): a first fit from files
with a time limit would otherwise compile them inside its limit (13.6 s for an
8 s limit at ten million rows).  Not: the recording specialization of CORELS
(``trace="events"``), column generation's kernels for many rows and its exact
pricing (``rulekit compile`` compiles all of them).

The build environment holds numpy and numba only (``[build-system] requires``),
not pandas or scikit-learn, so the engines' modules are imported here without
running ``rulekit/__init__.py``: each package on the way is registered as an
empty module over its folder.  The engines themselves need nothing more.

Usage (what ``setup.py`` runs; each part in its own process, so two cores
compile two at a time)::

    python rulekit/_precompile.py ROOT corels
    python rulekit/_precompile.py ROOT frl
    python rulekit/_precompile.py ROOT counting
"""

from __future__ import annotations

import os
import sys
import types

#: the parts, each a separate process at build time: name -> function below
PARTS = ("corels", "frl", "counting")


def _bare_packages(root: str) -> None:
    """Register ``rulekit`` and its engine packages as empty modules over their folders,
    so that importing an engine's module does not run the packages' ``__init__``."""
    for name in ("rulekit", "rulekit.corels", "rulekit.frl"):
        if name in sys.modules:
            continue
        module = types.ModuleType(name)
        module.__path__ = [os.path.join(root, *name.split("."))]
        sys.modules[name] = module


def _toy(seed: int = 0, n: int = 60, m: int = 8):
    """A problem of ``n`` rows and ``m`` conditions, of the types a fit passes:
    antecedents, labels, row counts."""
    import numpy as np

    rng = np.random.default_rng(seed)
    A = rng.random((n, m)) < 0.4
    y = A[:, 0] ^ A[:, 1] ^ (rng.random(n) < 0.1)
    counts = rng.integers(1, 4, n).astype(np.int64)
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

    from rulekit.frl._kernels import BLOCK_MIN_WORDS

    # small data, and distinct rows enough per class for the counting in blocks that
    # many distinct rows reach (a search of its own, compiled apart:
    # ``_kernels.block_words``; the search folds equal rows, hence 16 conditions)
    for n, m in ((60, 8), (4 * 64 * BLOCK_MIN_WORDS, 16)):
        A, y, counts = _toy(n=n, m=m)
        items = [(j,) for j in range(A.shape[1])] + [(0, 1), (2, 3)]
        for C1 in (None, 0.5):
            search(None, y, w=1.0, C=1e-6, C1=C1, n_iter=20, factors=(A, items),
                   sample_weight=counts, random_state=0)


def counting() -> None:
    """The data layer's kernels for many rows, called with the types their callers pass:
    a binarizer's packing and the pattern counter (``rulekit.stream``), unpacking
    and folding packed rows (``FitData``), the packers of ``rulekit.bitset`` and
    mining's evaluation of a pool (``rulekit.mining``)."""
    import numpy as np

    from rulekit import bitset
    from rulekit._patterns import (CATEGORICAL, NUMERIC, PatternCounter, condition_bitsets,
                                   pack_conditions, runs_if_sorted, unpack_rows)

    n, m = 40, 3
    rng = np.random.default_rng(0)
    keys = np.zeros((n, 1), dtype=np.uint8)
    # as Binarizer.transform_packed calls it: a numeric column, then a categorical one
    numbers, codes = rng.random((1, n)), rng.integers(-2, 3, (1, n))
    no_numbers, no_codes = np.empty((0, n)), np.empty((0, n), dtype=np.int64)
    for kind, X_num, X_cat in ((NUMERIC, numbers, no_codes), (CATEGORICAL, no_numbers, codes)):
        pack_conditions(X_num, X_cat, np.full(m, kind, dtype=np.int64), np.zeros(m, np.int64),
                        np.array([0, 1, 3 if kind == CATEGORICAL else 2], dtype=np.int64),
                        np.array([0.5, 0.5, 1.0]), np.full(m, 3, dtype=np.int64), keys)
    # the counting pass: rows, then counted rows (merges), past a rehash
    counter = PatternCounter(keys.shape[1] + 2, 5)
    rows = np.concatenate([keys, np.zeros((n, 2), np.uint8)], axis=1)
    rows[:, 1] = np.arange(n, dtype=np.uint8)
    counter.add(rows, rng.integers(0, 5, n))
    found, fold_counts = counter.result()
    counter.add_counts(found, fold_counts)
    order = np.arange(len(found), dtype=np.int64)
    unpack_rows(found, order, m)
    condition_bitsets(keys, m)
    runs_if_sorted(found)          # grouping rows that come in order (rulekit.evaluate)
    # packers of millions of rows: a transposed matrix's columns, chosen columns' bytes
    B = rng.random((n, m)) < 0.5
    bitset._pack_columns(B, np.zeros((m, bitset.n_words(n)), np.uint64))
    bitset._pack_row_bytes(B, np.arange(m, dtype=np.int64), np.zeros((n, 1), np.uint8))
    # mining's pool on packed words, unweighted and weighted
    packed = bitset.pack(B.T)
    items = np.array([[0, 1], [2, -1]], dtype=np.int64)
    for weights in (np.zeros(0), np.ones(n)):
        for keep in (True, False):
            bitset.antecedent_words(packed, items, bitset.ones(n), weights, keep,
                                    np.zeros((2 if keep else 0, packed.shape[1]), np.uint64),
                                    np.zeros(2))


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
