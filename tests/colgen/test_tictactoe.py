"""Reference dataset: tic-tac-toe reaches 100% training accuracy."""

import numpy as np

from colgen_helpers import tictactoe_conditions
from rulekit.colgen import ConditionMetadata, search


def _meta(B, groups, ops):
    return ConditionMetadata.from_arrays(B.shape[1], groups=groups, ops=ops)


def test_tictactoe_perfect_fit_within_budget():
    B, y, groups, ops = tictactoe_conditions()
    res = search(B, y, max_complexity=32, max_literals=3, metadata=_meta(B, groups, ops))
    assert res.objective == 0.0
    assert (res.predict(B) == y).all()
    assert res.complexity <= 32
    assert all(len(c) <= 3 for c in res.clauses)
    assert res.status == "optimal" and res.lower_bound == 0.0
    rm = [t.rmlp for t in res.trace]
    assert all(b <= a + 1e-7 for a, b in zip(rm, rm[1:]))


def test_tictactoe_cnf_runs_and_is_consistent():
    B, y, groups, ops = tictactoe_conditions()
    res = search(B, y, form="cnf", max_complexity=20, max_literals=3,
                 metadata=_meta(B, groups, ops))
    lit = np.ones(B.shape[0], dtype=bool)
    for c in res.clauses:
        lit &= B[:, list(c)].any(axis=1)
    np.testing.assert_array_equal(lit.astype(int), res.predict(B))
    mistakes = (res.predict(B) != y).sum()
    assert mistakes <= res.objective  # Hamming loss >= misclassifications
    assert res.lower_bound is None or res.lower_bound <= res.objective
