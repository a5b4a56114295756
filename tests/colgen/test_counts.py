"""Column generation on counts (issue 35, items 1 and 4; issue 38 item 2).

Every search of a fit -- the final one, the validation paths, the form
probe, both binarizations -- runs on the distinct ``(binarized row, class)``
pairs, each weighted by its rows' summed weight; the validation folds are
drawn on the estimator side (``rulekit.estimators.validation``) and handed to the
engine.  The old behaviour is the fit on the rows themselves; a row of
integer weight ``m`` stands for ``m`` copies of it, so the fit on weighted
rows must equal the fit on the explicit expansion.
"""

import re

import numpy as np
import pandas as pd
import pytest

from helpers import seeds

from rulekit import BooleanRuleCGClassifier
from rulekit import datasets
from rulekit.colgen import _search


def _noisy(n=300, seed=0, cols=5, classes=2):
    """Few distinct rows (integer columns with 3 values), a noisy rule: many copies."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 3, size=(n, cols)).astype(float),
                     columns=[f"x{j}" for j in range(cols)])
    y = (((X.x0 > 1) & (X.x1 < 2)) | (rng.random(n) < 0.15)).astype(int)
    if classes == 3:
        y = np.where((X.x2 > 1) & (rng.random(n) < 0.8), 2, y)
    return X, np.asarray(y)


def _printed(model):
    """The printed model without its training counts (which count the rows given: a
    weighted row counts once there)."""
    text = re.sub(r";[^\]\n]*\]", "]", str(model))          # [p(1) = 0.8; 0: 22, 1: 57]
    text = re.sub(r"\([^()\n]*: \d+[^()\n]*\)", "", text)   # 0.849 (not 0: 14, 0: 80)
    return re.sub(r"[ \t]+", " ", text)


def _claims(est, X):
    c = est.certificate_
    return (_printed(est.model_), c.status, c.objective, c.lower_bound, est.complexity_,
            tuple(np.atleast_1d(est.form_)), tuple(np.atleast_1d(est.max_complexity_)),
            est.predict(X).tolist())


KINDS = {
    "auto": dict(),
    "dnf": dict(form="dnf"),
    "cnf": dict(form="cnf", max_complexity=8),
}


@pytest.fixture
def searched(monkeypatch):
    """The (rows, labels) of every problem a search builds."""
    seen = []
    build = _search.Problem.build.__func__

    def spy(cls, B, y, *args):
        seen.append((np.asarray(B, bool).copy(), np.asarray(y).copy()))
        return build(cls, B, y, *args)

    monkeypatch.setattr(_search.Problem, "build", classmethod(spy))
    return seen


@pytest.mark.parametrize("kind", [*KINDS, "multiclass"])
def test_every_search_runs_on_distinct_pairs(kind, searched):
    X, y = _noisy(classes=3 if kind == "multiclass" else 2)
    BooleanRuleCGClassifier(**KINDS.get(kind, {}), time_limit=None).fit(X, y)
    assert searched, "the fit built no problem"
    for B, labels in searched:
        keyed = np.column_stack([B, labels.astype(bool)])
        assert len(np.unique(keyed, axis=0)) == len(keyed), \
            "a search saw the same (row, label) pair twice"
        # and the pairs are far fewer than the rows
        assert len(keyed) < len(y)


def _expanded(X, y, counts):
    """Row i repeated counts[i] times, copies next to each other (first appearances keep
    their order)."""
    idx = np.repeat(np.arange(len(y)), counts)
    return X.iloc[idx].reset_index(drop=True), y[idx]


@pytest.mark.parametrize("seed", seeds(2, fast=1))
@pytest.mark.parametrize("kind", [*KINDS, pytest.param("multiclass", marks=pytest.mark.slow)])
def test_weighted_rows_fit_as_their_expansion(kind, seed):
    """The fit with integer weights is the fit on the rows repeated that often: the
    same rule set, certificate, objective, choice and training predictions."""
    X, y = _noisy(n=200, seed=seed, classes=3 if kind == "multiclass" else 2)
    counts = np.random.default_rng(seed + 10).integers(1, 4, size=len(y))
    params = dict(KINDS.get(kind, {}), time_limit=None)
    weighted = BooleanRuleCGClassifier(**params).fit(X, y, sample_weight=counts.astype(float))
    Xe, ye = _expanded(X, y, counts)
    expanded = BooleanRuleCGClassifier(**params).fit(Xe, ye)
    a, b = _claims(weighted, X), _claims(expanded, X)
    assert a[:7] == b[:7]
    assert a[7] == b[7]
    if weighted.choice_ is not None:
        assert weighted.choice_ == expanded.choice_
    # the per-class rates printed with the model count rows, not distinct pairs
    np.testing.assert_allclose(weighted.predict_proba(X), expanded.predict_proba(X))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["tictactoe", "heart"])
def test_benchmark_sets_fit_as_their_expansion(name):
    X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
    y = np.asarray(y)
    counts = np.random.default_rng(0).integers(1, 3, size=len(y))
    weighted = BooleanRuleCGClassifier(time_limit=None).fit(X, y, sample_weight=counts * 1.0)
    Xe, ye = _expanded(X, y, counts)
    expanded = BooleanRuleCGClassifier(time_limit=None).fit(Xe, ye)
    assert _claims(weighted, X) == _claims(expanded, X)


# -- a fold column (FitData.tested one-hot, as counted from a source) ---------------------

def _with_fold(est, fold):
    """Make ``est``'s prepared data carry the fold column ``fold``, as counts from a
    source carry their hash folds: ``FitData.tested`` one-hot, split ``k`` holding
    fold ``k`` out (``BooleanRuleCGClassifier._fold_splits``)."""
    prepare = est._prepare

    def prepared(*args, **kwargs):
        data = prepare(*args, **kwargs)
        fold_ = np.asarray(fold)
        object.__setattr__(data, "tested", np.eye(fold_.max() + 1, dtype=bool)[fold_])
        return data

    est._prepare = prepared
    return est


def _binary(n, cols, seed):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame((rng.random((n, cols)) < 0.5).astype(float),
                     columns=[f"b{j}" for j in range(cols)])
    y = ((X.b0 > 0) & (X.b1 > 0) | (X.b2 > 0) & (rng.random(n) < 0.7)
         | (rng.random(n) < 0.1)).astype(int)
    return X, np.asarray(y), rng.integers(0, 3, size=n)


@pytest.mark.parametrize("n, cols", [(400, 5), pytest.param(2400, 11, marks=pytest.mark.slow)])
def test_a_fold_column_makes_the_fit_independent_of_order_and_merging(n, cols):
    """With a fold per row, the fold table is counted from it: the same rows in
    another order, or with the copies inside each fold merged into one weighted
    row, give the same fit.  (2400 rows of 11 bits: more distinct pairs than the
    validation keeps, so its sample is drawn from the per-fold counts.)"""
    from rulekit.estimators import validation as _validation

    X, y, fold = _binary(n, cols, seed=3)
    pairs = _validation.binary_pairs(X.to_numpy() > 0, y, None, fold)
    assert (len(pairs.y) > _validation.VALIDATION_ROWS) == (n > 1000)
    first = _with_fold(BooleanRuleCGClassifier(time_limit=None), fold).fit(X, y)
    assert first.choice_ is not None and first.choice_.method in ("cv", "exact")

    order = np.random.default_rng(1).permutation(n)
    shuffled = _with_fold(BooleanRuleCGClassifier(time_limit=None), fold[order])
    shuffled.fit(X.iloc[order].reset_index(drop=True), y[order])

    keyed = pd.DataFrame(X).assign(_y=y, _f=fold)
    merged = keyed.groupby(list(keyed.columns), sort=False).size().reset_index(name="_n")
    compact = _with_fold(BooleanRuleCGClassifier(time_limit=None), merged["_f"].to_numpy())
    compact.fit(merged[X.columns], merged["_y"].to_numpy(),
                sample_weight=merged["_n"].to_numpy(float))
    assert len(merged) < n
    for other in (shuffled, compact):
        assert _claims(other, X) == _claims(first, X)
        assert other.choice_ == first.choice_


def test_the_folds_come_from_the_fold_column():
    """The validation holds out exactly the rows of each fold the column names."""
    from rulekit.estimators import validation as _validation

    X, y, fold = _binary(400, 5, seed=4)
    B = X.to_numpy() > 0
    pairs = _validation.binary_pairs(B, y, None, fold)
    design = _validation.draw_design(pairs, np.random.default_rng(0), forms=("dnf",),
                                     grid=(0, 3))
    assert design.kind == "cv" and not design.sampled
    for k in range(3):
        rows = fold == k
        expect = _validation.binary_pairs(B[rows], y[rows])
        got = {(tuple(p), int(c)): t for p, c, t in
               zip(pairs.B[design.index], pairs.y[design.index], design.T[:, k]) if t > 0}
        want = {(tuple(p), int(c)): w for p, c, w in zip(expect.B, expect.y, expect.w)}
        assert got == want


# -- the bound after a sampled pricing IP (issue 37 item 2) --------------------------------

def _least_loss(B, y, C):
    """The least mistake count of any DNF of complexity (clauses + literals) <= C, by
    enumeration (integers: exact)."""
    from itertools import combinations

    d = B.shape[1]
    pos, neg = (y == 1), (y == 0)
    best = int(pos.sum())                        # the empty DNF predicts 0
    clauses = [c for k in range(1, C) for c in combinations(range(d), k)]
    covers = {c: B[:, list(c)].all(axis=1) for c in clauses}

    def loss(holds):
        return int((pos & ~holds).sum() + (neg & holds).sum())

    for c in clauses:
        best = min(best, loss(covers[c]))
    for a, b in combinations(clauses, 2):
        if 2 + len(a) + len(b) <= C:
            best = min(best, loss(covers[a] | covers[b]))
    for trio in combinations([c for c in clauses if len(c) == 1], 3):
        if 6 <= C:
            best = min(best, loss(covers[trio[0]] | covers[trio[1]] | covers[trio[2]]))
    return best


def test_a_sampled_pricing_ip_keeps_the_bounds_the_exact_steps_proved():
    """Pricing by the beam, an enumeration cut short by its work limit, then a pricing
    IP on a sample of the rows: the sampled IP proves nothing, but the bounds the
    cut-short enumerations proved on every row still hold and are the certificate's
    (the old code dropped them all, and claimed no bound, once any round sampled)."""
    from rulekit.colgen import ColGenSettings, search

    rng = np.random.default_rng(0)
    B = rng.random((300, 8)) < 0.5
    y = ((B[:, 0] & B[:, 1]) | (B[:, 2] & ~B[:, 3]) | (rng.random(300) < 0.2)).astype(int)
    B = np.hstack([B, ~B])
    settings = ColGenSettings(pricing="auto", sample_rows=40, enum_work_limit=10_000,
                              beam_widening=(1,), beam_width=1, beam_max_candidates=2,
                              initial_beam=False)
    res = search(B, y, max_complexity=6, settings=settings, time_limit=None, random_state=0)
    assert "ip-sampled" in [r.pricing for r in res.trace]
    proved = [r.bound for r in res.trace if r.bound is not None]
    assert proved and max(proved) > 0
    assert res.lower_bound is not None and res.lower_bound >= max(proved)
    assert res.lower_bound <= _least_loss(B, y, 6) <= res.objective
