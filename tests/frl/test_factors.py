"""The search given its antecedents as factors (conditions and item pairs) is
the search given the antecedent matrix: the same counts, the same draws."""

from __future__ import annotations

import numpy as np
import pytest

from rulekit import FallingRuleListClassifier, SoftFallingRuleListClassifier
from rulekit.frl import search
from rulekit.mining import evaluate_antecedents


def _instance(seed=0, n=700, d=25):
    rng = np.random.default_rng(seed)
    B = rng.random((n, d)) < rng.uniform(0.2, 0.8, d)
    score = B[:, :6] @ rng.uniform(-1.5, 1.5, 6) + (B[:, 6] & B[:, 7])
    y = rng.random(n) < 1 / (1 + np.exp(-(score - score.mean())))
    items = [(j,) for j in range(d)] + [(i, j) for i in range(d) for j in range(i + 1, d)
                                        if (B[:, i] & B[:, j]).mean() > 0.05]
    return B, items, evaluate_antecedents(B, items), y


@pytest.mark.parametrize("C1", [None, 0.5])
@pytest.mark.parametrize("n, d", [(700, 25), (60, 12)])
def test_factored_search_equals_matrix_search(C1, n, d):
    # 60 rows: rules soon capture every positive some condition holds on,
    # which the factored count skips without counting
    B, items, A, y = _instance(n=n, d=d)
    plain = search(A, y, w=1.5, C=1e-3, C1=C1, n_iter=400, random_state=3)
    fact = search(A, y, w=1.5, C=1e-3, C1=C1, n_iter=400, random_state=3, factors=(B, items))
    assert len(plain.prefix) >= 2          # a list, not the else clause alone
    assert fact.prefix == plain.prefix and fact.objective == plain.objective
    assert np.array_equal(fact.trace.objective, plain.trace.objective)
    assert np.array_equal(fact.trace.candidate_sizes, plain.trace.candidate_sizes)


def test_factors_are_checked():
    B, items, A, y = _instance(n=80, d=9)
    with pytest.raises(ValueError, match="rows"):
        search(A, y, w=1, C=0.01, n_iter=5, factors=(B[:-1], items))
    with pytest.raises(ValueError, match="items"):
        search(A, y, w=1, C=0.01, n_iter=5, factors=(B, items[:-1]))
    with pytest.raises(ValueError, match="item 0"):
        search(A, y, w=1, C=0.01, n_iter=5, factors=(B, [(0, 1, 2)] + items[1:]))
    with pytest.raises(ValueError, match="item 1"):
        search(A, y, w=1, C=0.01, n_iter=5, factors=(B, [(0,), (0, 99)] + items[2:]))
    with pytest.raises(TypeError, match="pair"):
        search(A, y, w=1, C=0.01, n_iter=5, factors=B)


@pytest.mark.parametrize("cls", [FallingRuleListClassifier, SoftFallingRuleListClassifier])
def test_estimator_fit_equals_the_matrix_path(cls, monkeypatch):
    """The estimator hands the search its conditions and pairs; dropping them
    (the search reads the antecedent matrix) changes nothing in the model."""
    from rulekit.estimators import frl as _estimator

    B, _, _, y = _instance(n=400, d=10)
    X = B.astype(int)
    seen = []

    def spy(*args, **kw):
        seen.append(kw["factors"] is not None)
        return search(*args, **kw)

    monkeypatch.setattr(_estimator, "search", spy)
    fact = cls(n_iter=300).fit(X, y)
    from rulekit.mining import evaluate_antecedents

    def matrix_path(A, y, **kw):
        # the estimator passes no matrix with factors: the antecedents evaluated here
        assert A is None
        B, items = kw["factors"]
        return search(evaluate_antecedents(B, items), y, **{**kw, "factors": None})

    monkeypatch.setattr(_estimator, "search", matrix_path)
    plain = cls(n_iter=300).fit(X, y)
    # every search the fit ran (the later class's, the earlier one's short one) had them
    assert seen and all(seen)
    assert len(fact.model_.rules) >= 1
    assert str(fact.model_) == str(plain.model_)
    assert fact.result_.objective == plain.result_.objective
