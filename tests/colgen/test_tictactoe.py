"""Reference dataset: tic-tac-toe reaches 100% training accuracy (§11.13)."""

import time

import numpy as np

from colgen_helpers import tictactoe_conditions
from rulekit.colgen import solve


def test_tictactoe_perfect_fit_within_budget():
    B, y, groups, ops = tictactoe_conditions()
    t0 = time.perf_counter()
    res = solve(B, y, max_complexity=32, max_literals=3, time_limit=60.0,
                column_groups=groups, column_ops=ops)
    elapsed = time.perf_counter() - t0
    assert elapsed < 90.0  # driver deadline (60 s) plus slack for a loaded machine
    assert res.objective == 0.0
    assert (res.predict(B) == y).all()
    assert res.complexity <= 32
    assert all(len(c) <= 3 for c in res.clauses)
    assert res.status == "optimal" and res.lower_bound == 0.0
    rm = [t.rmlp for t in res.trace]
    assert all(b <= a + 1e-7 for a, b in zip(rm, rm[1:]))


def test_tictactoe_cnf_runs_and_is_consistent():
    B, y, groups, ops = tictactoe_conditions()
    res = solve(B, y, form="cnf", max_complexity=20, max_literals=3, time_limit=20.0,
                column_groups=groups, column_ops=ops)
    lit = np.ones(B.shape[0], dtype=bool)
    for c in res.clauses:
        lit &= B[:, list(c)].any(axis=1)
    np.testing.assert_array_equal(lit.astype(int), res.predict(B))
    mistakes = (res.predict(B) != y).sum()
    assert mistakes <= res.objective  # Hamming loss >= misclassifications
    assert res.lower_bound is None or res.lower_bound <= res.objective
