"""The CORELS search compiles each of its kernels once (issue 37: the cold first run).

numba compiles a kernel once per argument types, and a constant argument (``True``,
``0``) is a type of its own: ``run`` calling ``expand(..., p, False)`` for the root and
``expand(..., c, True)`` for a child, with ``p`` an int32 and ``c`` an int64, compiled
``expand`` and everything under it twice, a quarter of the cold demo's CPU.  A fresh
process with an empty cache fits once and reports how many specializations each kernel
got; kernels inlined into ``run`` get none of their own.  The same holds for an
argument whose type differs between call sites (an int32 node id read from a table
against an int64 one), and numpy's sorts, a sliced assignment or ``min``/``max`` inside
a kernel compile numba's generic routines for them: the search avoids all of these.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

CODE = """
import json, warnings
from numba.core import event
from numba.core.registry import CPUDispatcher
from rulekit import CorelsClassifier
from rulekit.corels import _kernels
from rulekit.learners import warmup_data
X, y = warmup_data()
with warnings.catch_warnings(), event.install_recorder("numba:compile") as rec:
    warnings.simplefilter("ignore")
    CorelsClassifier(c=0.05, max_card=2).fit(X, y)
compiled = sorted({ev.data["dispatcher"].py_func.__module__ for _, ev in rec.buffer})
print(json.dumps({name: len(obj.signatures) for name, obj in vars(_kernels).items()
                  if isinstance(obj, CPUDispatcher)}))
print(json.dumps(compiled))
"""


@pytest.mark.slow  # a new process compiling the CORELS kernels cold: about a minute of CPU
def test_a_fit_compiles_each_search_kernel_once(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", CODE], env=env, capture_output=True, text=True,
                         timeout=1800)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    counts, modules = json.loads(lines[-2]), json.loads(lines[-1])
    # no kernel compiled for two argument types (release_ref, prefix_of, heapify, ... were)
    assert max(counts.values()) == 1, {k: v for k, v in counts.items() if v > 1}
    # none of numba's generic sorts or string routines (np.argsort, a slice assignment's
    # error messages) and no per-type min/max
    assert not [m for m in modules if m.startswith(("numba.misc", "numba.cpython.unicode",
                                                    "numba.cpython.builtins"))], modules
    assert counts["run"] == 1
    # one caller each: compiled inside run, never as kernels of their own
    for name in ("expand", "build_child", "garbage_collect"):
        assert counts[name] == 0, (name, counts)
    # the big kernels under run: once (the untraced search)
    for name in ("_evaluate_children", "_store_children", "next_rule_excess_at_least",
                 "map_find"):
        assert counts[name] == 1, (name, counts)


def test_stable_argsort_is_numpys_stable_argsort():
    """The search's own sort gives numpy's stable permutation (ties in index order)."""
    from rulekit.corels._kernels import stable_argsort
    rng = np.random.default_rng(0)
    for n in [*range(0, 70), 100, 257, 1000, 4097]:
        for ties in (1, 3, 1000):
            keys = rng.integers(0, max(1, n // ties + 1), size=n + 5).astype(np.float64)
            keys[rng.random(n + 5) < 0.1] = np.inf
            order = np.full(n + 5, -1, np.int64)
            stable_argsort(keys, n, order, np.empty(n, np.int64))
            assert np.array_equal(order[:n], np.argsort(keys[:n], kind="stable")), (n, ties)
            assert (order[n:] == -1).all()


def test_the_build_time_compilation_runs_each_part(capsys):
    """``rulekit/_precompile.py`` (what setup.py runs at build time) fits each part's toy,
    and names the parts it knows; the wheel test (tests/test_packaging.py) checks that
    the kernels it compiles are the ones a default fit loads."""
    from pathlib import Path

    from rulekit import _precompile

    root = str(Path(_precompile.__file__).resolve().parents[1])
    assert _precompile.PARTS == ("corels", "frl", "counting")
    for part in _precompile.PARTS:
        assert _precompile.main([root, part]) == 0
    assert _precompile.main([root, "colgen"]) == 2
    assert "unknown part 'colgen'" in capsys.readouterr().err


PACKED_READERS = """
import json, warnings
import numpy as np
from numba.core import event
from rulekit.colgen._packed import PackedRows, rows_holding, signed_byte_sums
from rulekit.colgen._grouped import _first_rows, _sums
rng = np.random.default_rng(1)
X = rng.random((300, 9)) < 0.4
P = PackedRows.of_rows(X, np.arange(300))
r = rng.normal(size=300).astype(np.float32)     # the beam's weights on packed rows
with event.install_recorder("numba:compile") as rec:
    signed_byte_sums(P, None, r)
    signed_byte_sums(P, rows_holding(P, 3, rows_holding(P, 2)), r)
    _sums(rng.random(300), P.bits, np.arange(4))
    _first_rows(np.zeros(5, dtype=np.int64), 1)
print(json.dumps(sorted({ev.data["dispatcher"].py_func.__name__ for _, ev in rec.buffer})))
"""


@pytest.mark.slow  # two new processes, one compiling column generation's kernels cold
def test_rulekit_compile_leaves_column_generations_large_data_kernels_compiled(tmp_path):
    """What a fit on many distinct rows reads from packed rows (the beam's sums by byte
    value, a clause's rows, the grouped master's clause sums) is compiled by column
    generation's ``rulekit compile`` hook: a later process finds every kernel cached."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    warm = "from rulekit.learners import LEARNERS; LEARNERS['cg-dnf'].precompile()"
    out = subprocess.run([sys.executable, "-c", warm], env=env, capture_output=True,
                         text=True, timeout=1800)
    assert out.returncode == 0, out.stderr
    out = subprocess.run([sys.executable, "-c", PACKED_READERS], env=env, capture_output=True,
                         text=True, timeout=1800)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
