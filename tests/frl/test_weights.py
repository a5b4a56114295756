"""Row weights in the falling-rule-list engine and estimators (issue 35, item 1).

A row of whole weight ``k`` must be exactly ``k`` copies of it, weights all
1 exactly no weights, and the estimators, which search the distinct binarized
rows each weighted by its rows, must give what the search over every row
gives.  The references are built here by hand: rows repeated with
``np.repeat``, the pre-folding pipeline (binarize, mine, search every row)
spelled out, and weighted optima enumerated from the paper's formulas with
:class:`fractions.Fraction`.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import permutations

import numpy as np
import pandas as pd
import pytest

from rulekit.frl import FallingRuleListClassifier, SoftFallingRuleListClassifier, search
from rulekit.mining import mine_antecedents

from ._brute import exact, is_falling, proportions, random_instance, rise_penalty, weighted_risk

BOTH = [FallingRuleListClassifier, SoftFallingRuleListClassifier]


def _frame(n, seed):
    """Coarse data: few distinct binarized rows, so folding has much to fold."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "age": rng.integers(18, 80, n),
        "job": rng.choice(["a", "b", "c"], n),
        "score": np.round(rng.normal(size=n), 1),
    })
    logit = -1 + 0.04 * (X["age"] - 40) + 1.5 * (X["job"] == "a") + X["score"]
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-logit)), "yes", "no")
    return X, y


def _same_fit(a, b):
    """Two fitted estimators agree on everything the fit claims."""
    assert str(a.model_) == str(b.model_)
    assert a.certificate_.status == b.certificate_.status
    assert a.certificate_.objective == b.certificate_.objective
    assert a.certificate_.lower_bound == b.certificate_.lower_bound
    assert a.certificate_.n == b.certificate_.n
    assert a.certificate_.scope == b.certificate_.scope
    assert np.array_equal(a.counts_, b.counts_) and a.counts_.dtype == b.counts_.dtype
    assert np.array_equal(a.result_.trace.objective, b.result_.trace.objective)
    assert a.antecedents_.items == b.antecedents_.items
    assert a.max_antecedents_ == b.max_antecedents_
    assert a.w_ == b.w_


# --- (a) whole weights are repeated rows --------------------------------------------

@pytest.mark.parametrize("cls", BOTH)
@pytest.mark.parametrize("w", [1.0, "balanced"])
def test_whole_weights_fit_as_the_rows_repeated(cls, w):
    X, y = _frame(90, seed=1)
    k = np.random.default_rng(2).integers(0, 4, len(y))    # zeros included
    rows = np.repeat(np.arange(len(y)), k)
    weighted = cls(w=w).fit(X, y, sample_weight=k)
    repeated = cls(w=w).fit(X.iloc[rows].reset_index(drop=True), y[rows])
    _same_fit(weighted, repeated)
    assert weighted.certificate_.n == k.sum()


@pytest.mark.parametrize("C1", [None, 0.5])
def test_engine_whole_weights_are_the_rows_repeated(C1):
    rng = np.random.default_rng(5)
    A = rng.random((200, 10)) < 0.3
    y = rng.random(200) < 0.4
    k = rng.integers(0, 5, 200)
    rows = np.repeat(np.arange(200), k)
    kw = dict(w=1.5, C=0.004, C1=C1, n_iter=400, random_state=3)
    weighted = search(A, y, sample_weight=k, **kw)
    repeated = search(A[rows], y[rows], **kw)
    assert weighted.prefix == repeated.prefix
    assert weighted.objective == repeated.objective
    assert weighted.lower_bound == repeated.lower_bound
    assert weighted.status == repeated.status
    assert np.array_equal(weighted.counts, repeated.counts)
    assert np.array_equal(weighted.trace.objective, repeated.trace.objective)
    assert np.array_equal(weighted.trace.candidate_sizes, repeated.trace.candidate_sizes)


# --- (b) folding identical rows changes nothing -------------------------------------

def _first_match_counts(B, items, pos):
    """(positives, negatives) each rule of ``items`` (then the else) takes, first match."""
    left = np.ones(B.shape[0], dtype=bool)
    out = []
    for item in items:
        hit = left & B[:, list(item)].all(axis=1)
        out.append((int((hit & pos).sum()), int((hit & ~pos).sum())))
        left &= ~hit
    out.append((int((left & pos).sum()), int((left & ~pos).sum())))
    return out


@pytest.mark.parametrize("cls", BOTH)
def test_fit_on_distinct_rows_is_the_fit_on_every_row(cls):
    base_X, base_y = _frame(40, seed=3)
    take = np.random.default_rng(4).integers(0, 40, 700)   # 700 rows, at most 40 patterns
    X, y = base_X.iloc[take].reset_index(drop=True), base_y[take]
    # "yes" falls, as in the search by hand below (700 rows: C and max_card as before)
    est = cls(pos_label="yes").fit(X, y)
    assert est.n_rows_searched_ <= 40 < len(y)

    # the pipeline before folding, by hand: every row binarized, mined and searched
    B = est.binarizer_.transform(X)
    codes = (y == "yes").astype(np.int64)
    budget = 1_500_000 if cls is FallingRuleListClassifier else 750_000
    cap = max(int(budget // (len(y) / 64 + 20)), 2500)
    assert est.max_antecedents_ == cap
    mined = mine_antecedents(B, codes, min_support=0.1, max_card=2, max_antecedents=cap,
                             prefer="association", per_class=True,
                             conditions=est.binarizer_.conditions_)
    assert est.antecedents_.items == mined.items
    assert np.array_equal(est.antecedents_.support, mined.support)
    C1 = None if cls is FallingRuleListClassifier else 0.5
    every_row = search(mined.matrix, codes.astype(bool), w=1.0, C=1e-6, C1=C1,
                       n_iter=3000 if C1 is None else 6000, random_state=0,
                       factors=(B, mined.items))
    assert est.result_.prefix == every_row.prefix
    assert est.result_.objective == every_row.objective
    assert est.certificate_.n == len(y)
    assert np.array_equal(est.counts_, every_row.counts)
    assert np.array_equal(est.result_.trace.objective, every_row.trace.objective)

    # per-row views: the model's training counts and predictions are over every row
    items = [mined.items[l] for l in every_row.prefix]
    counts = _first_match_counts(B, items, codes.astype(bool))
    rule_counts = [r.counts for r in [*est.model_.rules, est.model_.default]]
    # model counts are in classes_ order: ("no", "yes") = (negatives, positives)
    assert rule_counts == [(q, p) for p, q in counts]
    proba = est.predict_proba(X)[:, 1]
    stated = est.result_.probabilities
    first = np.full(len(y), len(items))
    for j in reversed(range(len(items))):
        first[B[:, list(items[j])].all(axis=1)] = j
    assert np.array_equal(proba, stated[first])


# --- (c) weights all 1 are no weights -----------------------------------------------

@pytest.mark.parametrize("cls", BOTH)
def test_unit_weights_are_no_weights(cls):
    X, y = _frame(150, seed=6)
    _same_fit(cls().fit(X, y, sample_weight=np.ones(len(y))), cls().fit(X, y))


def test_engine_unit_weights_are_no_weights():
    rng = np.random.default_rng(8)
    A, y = rng.random((150, 8)) < 0.35, rng.random(150) < 0.5
    kw = dict(w=1.0, C=0.002, C1=0.3, n_iter=300, random_state=1)
    a, b = search(A, y, sample_weight=np.ones(150), **kw), search(A, y, **kw)
    assert (a.prefix, a.objective, a.status) == (b.prefix, b.objective, b.status)
    assert np.array_equal(a.trace.objective, b.trace.objective)
    assert a.counts.dtype == b.counts.dtype == np.int64


# --- (d) bad weights ------------------------------------------------------------------

@pytest.mark.parametrize("cls", BOTH)
@pytest.mark.parametrize("bad", [
    "negative", "short", "nan", "fraction", "zeros",
])
def test_bad_sample_weight_is_a_value_error_naming_it(cls, bad):
    X, y = _frame(30, seed=7)
    weights = {"negative": np.r_[-1.0, np.ones(29)], "short": np.ones(29),
               "nan": np.r_[np.nan, np.ones(29)], "fraction": np.full(30, 0.5),
               "zeros": np.zeros(30)}[bad]
    with pytest.raises(ValueError, match="sample_weight"):
        cls().fit(X, y, sample_weight=weights)


@pytest.mark.parametrize("bad", [np.r_[-1.0, np.ones(9)], np.ones(9), np.r_[np.nan, np.ones(9)]])
def test_engine_bad_sample_weight_is_a_value_error_naming_it(bad):
    A = np.eye(10, 3, dtype=bool)
    with pytest.raises(ValueError, match="sample_weight"):
        search(A, np.arange(10) % 2, w=1.0, C=0.0, n_iter=5, sample_weight=bad)


# --- (e) weighted optima against brute force ------------------------------------------

def _weighted_lists(A, y, weights):
    """{order: [(positive weight, negative weight), ...]} of every valid compatible list.

    A rule must take some weight, and the else clause must keep some: rows of
    weight 0 are not there (as with the rows repeated 0 times).
    """
    n, m = A.shape
    weights = [exact(v) for v in weights]
    out = {}
    for size in range(m + 1):
        for order in permutations(range(m), size):
            left = [weights[i] > 0 for i in range(n)]
            counts = []
            for l in order:
                hit = [left[i] and bool(A[i, l]) for i in range(n)]
                if not any(hit):
                    break
                counts.append((sum(weights[i] for i in range(n) if hit[i] and y[i]),
                               sum(weights[i] for i in range(n) if hit[i] and not y[i])))
                left = [left[i] and not hit[i] for i in range(n)]
            else:
                if any(left):
                    counts.append((sum(weights[i] for i in range(n) if left[i] and y[i]),
                                   sum(weights[i] for i in range(n) if left[i] and not y[i])))
                    out[order] = counts
    return out


def _weighted_objective(counts, w, C, C1=None):
    """Program 2.9 (and 5.1 with ``C1``) on weighted counts, exactly."""
    props = proportions(counts)
    value = weighted_risk(counts, props, w) + exact(C) * (len(counts) - 1)
    if C1 is not None:
        value += exact(C1) * rise_penalty(props)
    return value


@pytest.mark.parametrize("kind", ["whole", "quarters"])
def test_weighted_search_reaches_the_brute_force_optimum(kind):
    rng = np.random.default_rng(11 if kind == "whole" else 12)
    checked = 0
    for i in range(60):
        A, y = random_instance(rng, max_n=9, max_m=4)
        raw = rng.integers(0, 5, len(y))
        if raw.sum() == 0:
            continue
        weights = raw.astype(float) if kind == "whole" else raw / 4 + 0.25 * (raw > 0)
        w = float(rng.choice([0.5, 1.0, 3.0]))
        C = float(rng.choice([0.0, 1e-3, 0.05]))
        C1 = float(rng.choice([0.1, 0.5, 5.0]))
        lists = _weighted_lists(A, y, weights)
        frl_opt = min(_weighted_objective(c, w, C) for c in lists.values() if is_falling(c))
        soft_opt = min(_weighted_objective(c, w, C, C1) for c in lists.values())

        frl = search(A, y, w=w, C=C, n_iter=2000, random_state=i, sample_weight=weights)
        assert frl.objective == pytest.approx(float(frl_opt), abs=1e-9), (A, y, weights, w, C)
        assert frl.status == "optimal" and frl.lower_bound == frl.objective
        # the reported objective is the exact objective of the reported counts
        assert frl.objective == pytest.approx(
            float(_weighted_objective([(Fraction(a.item()), Fraction(b.item())) for a, b in frl.counts],
                                     w, C)),
            abs=1e-12)
        assert np.isclose(frl.counts.sum(), weights.sum())

        soft = search(A, y, w=w, C=C, C1=C1, n_iter=2000, random_state=i, sample_weight=weights)
        assert soft.objective >= float(soft_opt) - 1e-9
        assert soft.objective <= float(frl_opt) + 1e-9
        if soft.status == "optimal":
            assert soft.objective == pytest.approx(float(soft_opt), abs=1e-9)
        checked += 1
    assert checked >= 50
