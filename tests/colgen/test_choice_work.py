"""The work of the choice at the defaults: what the validation path runs, and what the beam skips.

Issue 27: ``BooleanRuleCGClassifier()`` spends most of a small-data fit in
the validation path (resolutions x forms x inner folds of master-LP paths).
These tests pin down what it runs: the inner folds, the finer resolution in
the chosen form only, and the beam's extensions read from the compatibility
matrix (the same columns as the metadata rules give).
"""

import numpy as np
import pandas as pd
import pytest

from rulekit import BooleanRuleCGClassifier, Binarizer
from rulekit.colgen import ColGenSettings, condition_metadata
from rulekit.estimators import validation as _validation
from rulekit.colgen import _select, choose_complexity
from rulekit.colgen._beam import _allowed_extensions, beam_search
from rulekit.colgen._pricing import PricingProblem


def _numeric(n=300, seed=0):
    """Continuous columns, a noisy two-condition rule: both resolutions differ."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 4)), columns=["a", "b", "c", "d"])
    y = np.array((X.a > 0.3) | (X.b < -0.8), dtype=int)
    flip = rng.random(n) < 0.1
    y[flip] = 1 - y[flip]
    return X, y


@pytest.fixture
def choices(monkeypatch):
    """Every call of ``choose_complexity`` made by a fit: its keywords and its choice."""
    calls = []
    original = _select.choose_complexity

    def spy(B, y, **kw):
        choice = original(B, y, **kw)
        calls.append((B.shape[1], kw, choice))
        return choice

    monkeypatch.setattr(_select, "choose_complexity", spy)
    return calls


def test_finer_resolution_is_validated_in_the_chosen_form_only(choices):
    X, y = _numeric()
    clf = BooleanRuleCGClassifier().fit(X, y)
    assert len(choices) == 2, "the deciles, then the finer view"
    (d_coarse, kw_coarse, coarse), (d_fine, kw_fine, fine) = choices
    assert d_fine > d_coarse
    assert tuple(kw_coarse["forms"]) == ("dnf", "cnf")
    assert tuple(kw_fine["forms"]) == (coarse.form,)
    assert {f for f, _ in fine.errors} == {coarse.form}
    # whichever view won, the model is in the form chosen over the deciles
    assert clf.form_ == coarse.form


def test_inner_folds_are_the_module_default(choices):
    X, y = _numeric(seed=1)
    BooleanRuleCGClassifier(n_thresholds=9).fit(X, y)
    assert [kw["design"].T.shape[1] for _, kw, _ in choices] == [_select.INNER_FOLDS]


def test_inner_folds_hold_out_every_unit_once():
    rng = np.random.default_rng(0)
    Y = rng.integers(0, 2, size=200)
    W = rng.integers(1, 4, size=200).astype(float)
    T = _validation.unit_folds(Y, W, _select.INNER_FOLDS, rng)
    assert T.shape == (200, _select.INNER_FOLDS)
    # each pair's whole weight is tested exactly once over the folds
    np.testing.assert_allclose(T.sum(axis=1), W)
    # stratified: each fold tests about the same share of each class
    for cls in (0, 1):
        share = T[Y == cls].sum(axis=0) / W[Y == cls].sum()
        assert np.all(np.abs(share - 1 / _select.INNER_FOLDS) < 0.05)


def _problem(seed, compat):
    X, y = _numeric(n=200, seed=seed)
    binarizer = Binarizer(n_thresholds=9, negations=True).fit(X, y)
    B = binarizer.transform(X)
    meta = condition_metadata(binarizer.conditions_)
    r = np.where(y == 1, -1.0, 1.0) * np.random.default_rng(seed).random(len(y))
    return B, meta, PricingProblem(B, r, 0.1, 0.0, 0.0, 4, meta=meta.pruning(),
                                   compat=meta.compatibility() if compat else None)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_compatibility_rows_give_the_metadata_extensions(seed):
    B, meta, _ = _problem(seed, compat=True)
    d = B.shape[1]
    compat = meta.compatibility()
    rng = np.random.default_rng(seed)
    for _ in range(200):
        clause = tuple(sorted(rng.choice(d, size=rng.integers(1, 5), replace=False)))
        np.testing.assert_array_equal(compat[list(clause)].all(axis=0),
                                      _allowed_extensions(clause, d, meta.pruning()))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_beam_finds_the_same_clauses_with_the_compatibility_matrix(seed):
    settings = ColGenSettings(beam_width=8, columns_per_round=20)
    _, _, with_compat = _problem(seed, compat=True)
    _, _, without = _problem(seed, compat=False)
    a, b = beam_search(with_compat, settings), beam_search(without, settings)
    assert a.clauses, "the residuals leave clauses of negative reduced cost"
    assert a.clauses == b.clauses
    np.testing.assert_allclose(a.values, b.values)


def _parity(n=400, seed=0):
    """3-bit parity over 6 random bits (and their complements): no clause of at
    most 2 literals beats the constant, while 4 clauses of 3 literals are exact."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, 6)) < 0.5
    y = (X[:, 0] ^ X[:, 1] ^ X[:, 2]).astype(int)
    return np.hstack([X, ~X]), y


def test_a_plateau_of_small_budgets_does_not_hide_the_largest_budget():
    B, y = _parity()
    # patience 1: the path stops after C = 3, where no rule set beats the constant
    choice = choose_complexity(B, y, grid=(0, 3, 64), forms=("dnf",), patience=1,
                               time_limit=60)
    assert choice.errors[("dnf", 3)] >= choice.errors[("dnf", 0)] - 1e-12
    assert ("dnf", 64) in choice.errors
    assert choice.errors[("dnf", 64)] < 0.05
    assert choice.max_complexity == 64 and choice.method == "cv"


def test_the_largest_budget_is_validated_once(monkeypatch):
    seen = []
    predict = _select._FoldPath.predict

    def spy(self, C):
        seen.append((self.form, C))
        return predict(self, C)

    monkeypatch.setattr(_select._FoldPath, "predict", spy)
    rng = np.random.default_rng(0)
    B = rng.random((300, 8)) < 0.5
    y = rng.integers(0, 2, size=300)          # noise: every path stops by patience
    grid = (0, 3, 4, 64)
    choice = choose_complexity(B, y, grid=grid, forms=("dnf", "cnf"), patience=1,
                               n_splits=3, time_limit=60)
    for form in ("dnf", "cnf"):
        assert seen.count((form, 64)) == 3, "once per fold path"
        assert (form, 64) in choice.errors
    # a path that walks the whole grid does not validate its last budget twice
    seen.clear()
    choose_complexity(B, y, grid=(0, 3), forms=("dnf",), patience=5, n_splits=3,
                      time_limit=60)
    assert seen.count(("dnf", 3)) == 3
